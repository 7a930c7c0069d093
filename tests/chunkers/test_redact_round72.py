"""Seventy-second round: Apache Struts (real code) and globocom/secDevLabs read held out after the seventy-first round
(figures: benchmarks/secrets_recall.md, round 72). Values made up where a secret is meant."""

import pytest

from chunkers.redact import redact_text, redact_value
from tests.chunkers.redact_asserts import round_tests


KEPT = [
    # a class's member after its package (Struts' InvocationSessionStoreTest)
    '    private static final String TOKEN_VALUE = "org.apache.struts2.util.InvocationSessionStoreTest.token";',
    # FreeMarker's directive as an attribute's value (Struts' optiontransferselect.ftl)
    "accesskey=\"<#outputformat 'JavaScript'>${attributes.doubleAccesskey}</#outputformat>\"",
    # variables run together, after a word or not: made when the script runs (secDevLabs' generate-env.sh)
    "M2_SECRET=$RANDOM$RANDOM",
    "MONGO_DATABASE_PASSWORD=Pass$RANDOM$RANDOM",
    # a member of this (mysql's ChangeUser.js)
    "    password: this._password",
    # typeof's name (mongodb-core)
    "    if (typeof credentials === 'function') (callback = credentials), (credentials = null);",
    # markup (secDevLabs' user.js)
    "var passwordMeter = '<div class=\"password-strength\"><div class=\"password-strength-text\"></div></div>';",
    # where a token is looked up (echo's JWT middleware)
    '        TokenLookup: "cookie:sessionIDsnake",',
]


REDACTED_CASES = [
    ("PASSWORD=Sn0w$fall$2024", "Sn0w"),
    ('token = "cookie:Zq8vR2mXk9PLw4tYb7Nc"', "Zq8vR2mXk9PLw4tYb7Nc"),
    ('TOKEN_VALUE = "org.apache.struts2.Zq8vR2mXk9PLw4tYb7Nc.token"', "Zq8vR2mXk9PLw4tYb7Nc"),
    ("password: '<Sn0wfall2024'", "Sn0wfall2024"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_bundle_s_message_with_escaped_letters_is_kept():
    # Struts' struts-messages_pl.properties, parsed
    message = r"Formularz zosta\u0142 ju\u017C przetworzony lub nie podano tokenu, spr\u00F3buj ponownie."
    assert redact_value(("struts", "messages", "invalid", "token"), message) == message
    assert redact_value(("db", "password"), r"Sn0w\u0142fall2024") == "[REDACTED]"


@pytest.mark.parametrize("line, secret", [
    # a literal of signs like variables, lower case (Nosey Parker's negative, a password in JSON), and markup holding a
    # URL's credentials (trufflehog's `uri` case): a first version of this round kept both
    ('"password": "$super$ecret",', "$super$ecret"),
    ("uri token = '<p><a href=\"http://admin:Sn0wfall2024@10.0.0.1\">link</a></p>'", "Sn0wfall2024"),
])
def test_what_the_first_version_kept_is_redacted(line, secret):
    out = redact_text(line)
    assert secret not in out and "[REDACTED]" in out, out
