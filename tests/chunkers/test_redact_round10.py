"""Tenth round (issue 33): securego/gosec's misses (a development corpus now), fixed by three free-text forms: a
literal compared before a secret's name, a generated value under `pw` or `cred`, a quoted `Bearer` value under any
name. Each fix has cases that fail without it and look-alikes beside them. Values are made up here."""
import pytest

from tests.chunkers.redact_asserts import GENERATED, round_tests

HEX = "9c1e4b7a2f6d83e05a1b4c9d7e2f3a6b8c0d1e2f"
B64 = "Qm9yZWRHaXJhZmZlNzcxMi9zaWxseVBpbmVhcHBsZSsxOQ=="
BEARER = "7fkq2mzx0plw93hd82jsnq4"

KEPT = [
    # the literal first: empty, a placeholder, a lexer's token, the name's own word, a name that is no secret's
    'if "" == password {',
    'if "changeme" == password {',
    'if "(" == token {',
    'if "password" == password {',
    f'if "{HEX}" == password_hash {{',
    'if "bearer" == token_type {',
    # the other side is not the name alone: a call on it, an index into it
    f'if "{HEX}" == password.strip():',
    f'if "{HEX}" == password[0] {{',
    # `pw`, `cred`: words, an identifier, a 40-hex (a commit), short, glued into another word, a hash's name
    'pw = "page-width-for-large-screens"',
    'cred = "aws_default_profile_name"',
    f'pw = "{HEX}"',
    'cred := "x9Kq2mZ7"',
    f'sacred = "{B64}"',
    f'pwHash = "{B64}"',
    f'cred_digest = "{B64}"',
    f'upw = "{B64}"',
    # `Bearer`: a concatenation, a template, a placeholder, letters only, a header's realm, prose
    'h = "Bearer " + token',
    'h = "Bearer {token}"',
    'h = "Bearer YOUR_ACCESS_TOKEN_HERE1"',
    'h = "Bearer abcdefghijklmnopqrstuvwxyz"',
    "challenge = 'Bearer realm=\"example\"'",
    'log("Bearer tokens are checked by the gateway middleware2")',
    'h = "Bearer 12345678901234567890"',
]

REDACTED_CASES = [
    # (text, the secret that must go)
    (f'if "{HEX}" == password {{', HEX),
    (f'if "{HEX}" != password {{', HEX),
    ('if ("hunter2" === password) {', "hunter2"),
    (f'if "{GENERATED}" == apiKey {{', GENERATED),
    (f'pw = "{B64}"', B64),
    (f'cred = "{B64}"', B64),
    (f'awsCred := "{B64}"', B64),
    (f'db_pw: "{GENERATED}"', GENERATED),
    (f'{{"pw": "{GENERATED}"}}', GENERATED),
    (f'bearer = "Bearer: {BEARER}"', BEARER),
    (f'req.Header.Set("Authorization", "Bearer {BEARER}")', BEARER),
    (f"headers = {{'X-Upstream-Auth': 'bearer {GENERATED}'}}", GENERATED),
]


test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


@pytest.mark.parametrize("value", [HEX, "hunter2", GENERATED, "changeme", "", "("])
def test_a_comparison_is_judged_alike_either_way_round(value):
    from chunkers.redact import redact_text
    before, after = f'if password == "{value}" {{', f'if "{value}" == password {{'
    assert (redact_text(before) == before) == (redact_text(after) == after)
