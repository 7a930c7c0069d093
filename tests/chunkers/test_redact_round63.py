"""Sixty-third round: OWASP WebGoat and DVWA, applications with credentials planted on purpose, read held out after
the sixty-second round and before this one (figures: benchmarks/secrets_recall.md, round 63). Their look-alikes kept;
the real code of the earlier rounds caught a leak of this round's first version (a subscript's quoted name read as
a label's string), kept here as secrets; values made up where a secret is meant."""

import pytest

from chunkers import chunk_file_result
from chunkers.redact import redact_text

GENERATED = "Zq8vK2pLm9Xc4Rt7wq"


@pytest.mark.parametrize("line", [
    # a table's column and its type
    "  password varchar(255),",
    "password VARCHAR(255) NOT NULL,",
    "  password decimal(10, 2)",
    # an editor grammar's scope names under a lexer's `token`
    '      token : "comment.doc.tag",',
    '      defaultToken: "string.regexp.charachterclass"',
    # a property's key naming a password, a domain
    'PASSWORD_PROPERTY = "spring.datasource.password"',
    '{"rpId": "example.com"}',
    # a label's own string, then code
    'debug.append("Token: ").append(escape(token)).append("\\n");',
    # an attribute's closing quote after its `:`, the next attribute after it
    '''<input name="Check Dave's Password:" value="Check Password" type="SUBMIT"/>''',
    # a message's key given to a call with its arguments
    'messages.getMessage("jwt-secret-incorrect-user", "default", "Tom")',
])
def test_a_look_alike_is_kept(line):
    assert redact_text(line) == line


@pytest.mark.parametrize("line", [
    # a netrc's password line is still one
    "password Zq8v(K2pL)m9",
    "machine api.example.com login ops password hunter2!",
    # a subscript's quoted name is no label's string (the first version stored these whole)
    "app.config['SECRET_KEY'] = 'Wint3rIsHere'",
    'MetaData = new Dictionary<string, object> { ["ClientSecret"] = "Wint3rIsHere" },',
    'tokenRequest.Raw["TwoFactorToken"] = "Wint3rIsHere";',
    'assert parsed_form_attribute["password"] == "Wint3rIsHere"',
    # a YAML line inside a string, a JSON pair
    "cfg = \"password: 'Wint3rIsHere'\"",
    '"password": "Wint3rIsHere"',
    # a quoted name whose string runs on (`"NAME = "…`, `value="client_secret="…""`): no label's string; a generated
    # value after a message key's shape (the first version kept them)
    f'"SLACK_TOKEN = "{GENERATED}"',
    f'value="client_secret="{GENERATED}""',
    f"INSERT INTO app_config (config_key, config_value) VALUES ('jwt.secret.base64', '{GENERATED}=');",
    # dotted words under a password's name, a message key's last word a secret's
    "PASSWORD = 'hunter.two.Wint3rIsHere'",
    f'define("app.secret.key", "{GENERATED}");',
])
def test_a_secret_is_still_redacted(line):
    out = redact_text(line)
    assert "Wint3rIsHere" not in out and GENERATED not in out and "hunter2!" not in out and "m9" not in out, out
    assert "[REDACTED]" in out, out


def test_dotted_words_under_a_password_name_stay_a_password():
    assert "hunter.two" not in redact_text("PASSWORD = 'hunter.two'")


def test_a_json_web_key_sets_public_parts_are_kept_its_private_ones_redacted():
    modulus = "vfk9JLSdpWZ7qxP8gNVOobP4xuaXlKI8aBM4LhyL3CiD3pvPdGf7NkWaOvp-JmQwRN-N1Scr"
    private = "X4cTteJY_gn4FYPsXB8rdXix5vwsg1FLN5E3EaG6RJoVH-HLLKD9M7dx5oo7GURknchnrRweUkC7hT5fJLM0WbFAKNLWY2vv7B6"
    text = f'{{"keys": [{{"kty": "RSA", "kid": "k1", "n": "{modulus}", "e": "AQAB", "d": "{private}"}}]}}'
    body = "\n".join(p.body for p in chunk_file_result("lessons/jwt/images/jwks.json", text.encode()).pieces)
    assert modulus in body and "e = AQAB" in body and private not in body and "d = [REDACTED]" in body, body
