"""Fourteenth round (issue 33): SonarJS's hard-coded secret checks and bandit's hard-coded password example (development
corpora now). Their secrets missed are found: a secret-named value with a literal fallback after `||` or `??`, and a
ternary's literal branches (`token = isDev ? '…' : '…'`). Their look-alikes that the redactor destroyed are kept: a
ternary's quoted branch read as a key (`c ? 'not-a-secret' : '…'`), a name that negates its secret word
(`'not-secret': …`). Two inconsistencies found by the property tests of test_redact_pieces.py: a Dockerfile ENV's
value opening with `<` is a placeholder (`ENV API_TOKEN <your-token>`, as `-e TOKEN=<token>`), and a token glued to a
redaction is judged as it was glued to the secret's characters (a second pass keeps what the first kept). Each
look-alike has a secret twin that stays redacted. Values are made up here."""

import pytest

from chunkers.redact import redact_text
from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

PASSWORD = "h7Kp!x2Wq9Lm"

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    # a ternary's quoted branch is no key
    ("const label = isProd ? 'not-a-secret' : 'also-not-a-secret';",
     f"const token = isProd ? 'not-a-secret' : '{GENERATED}';", GENERATED),
    # a name that negates its secret word
    ("'not-secret': 'some-value',", f"'secret': '{GENERATED}',", GENERATED),
    ('NON_SECRET_SETTING = "Zq8vN3xL0pR7tY2wK5mB4cD"', f'SECRET_SETTING = "{GENERATED}"', GENERATED),
    ('not_a_token = "Zq8vN3xL0pR7tY2wK5mB4cD"', f'a_token = "{GENERATED}"', GENERATED),
    # a Dockerfile ENV's placeholder opening with `<`, unclosed (a whole `<token>` was kept before: is_benign_value)
    ("ENV Api-Token <add ", f"ENV Api-Token {GENERATED} ", GENERATED),
    ("ENV DB_PASSWORD <set-me", f"ENV DB_PASSWORD {PASSWORD}", PASSWORD),
]

KEPT = [
    # the limits of the fallback form: an operand compared first, a plain word under a weak name, an empty fallback
    "const password = a === b ? 'x' : 'y';",
    "const tokenType = isJwt ? 'Bearer' : 'Basic';",
    "password = password || '';",
    "token = process.env.TOKEN || '';",
]

REDACTED_CASES = [
    (f"secret = foo || '{GENERATED}';", GENERATED),
    (f"secret = foo ?? '{GENERATED}';", GENERATED),
    (f"let password; password = env.PASSWORD ?? '{PASSWORD}';", PASSWORD),
    (f"const apiKey: string = process.env.API_KEY ?? '{GENERATED}';", GENERATED),
    (f"this.clientSecret = opts?.clientSecret || \"{GENERATED}\";", GENERATED),
    (f"const secret = condition ? '{GENERATED}' : 'fallback';", GENERATED),
    (f"const token = condition ? 'fallback' : '{GENERATED}';", GENERATED),
    (f"const password = isDev ? '{PASSWORD}' : process.env.DB_PASSWORD;", PASSWORD),
    (f"const password = isDev ? getPw() : '{PASSWORD}';", PASSWORD),
    (f"var authToken = IsDebug() ? \"{GENERATED}\" : GetToken();", GENERATED),
    (f"$api_key = $env ?? '{GENERATED}';", GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)


test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


# a token glued to a secret of a form of its own: no token on the first pass, none on the second (hypothesis drew the
# first of these in test_redact_pieces.py)
@pytest.mark.parametrize("line", [
    "1234567890123456|AKIAFAKEEXAMPLE00001sk-proj-AKIAFAKEEXAMPLE00001",
])
def test_a_second_pass_changes_nothing(line):
    once = redact_text(line)
    assert once != line and redact_text(once) == once
