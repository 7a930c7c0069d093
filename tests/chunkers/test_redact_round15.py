"""Fifteenth round (issue 33): the fourteenth round's closing list (its corpora, SonarJS and bandit, are development;
americanexpress/earlybird is held out and no case here comes from it). Secrets missed are found: Python's conditional
expression under a secret's name (`password = x if c else '…'`, its `else` literal) and a ternary after a comparison
(`password = a === b ? '…' : '…'`). Look-alikes that the redactor destroyed are kept: real code's (a docstring's
`server_credentials: A ServerCredentials object.`, a storage's or a session's key named in lower-case words,
six's `MovedAttribute("HTTPPasswordMgr", "urllib2", …)`) and sonar-dotnet's (a URL password of one character, a
connection string's password cut at an open format hole). A second pass keeps what the first kept for each token
form, as the fourteenth round made it for AKIA: a redaction glued to a GitHub, Slack, Stripe, Google or JWT token is
no boundary. Each look-alike has a secret twin that stays redacted. Values are made up here."""

import pytest

from chunkers.redact import redact_text
from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

PASSWORD = "h7Kp!x2Wq9Lm"

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    # a docstring's argument described in a sentence that names a class
    ("    server_credentials: A ServerCredentials object.", f"    server_credentials: {GENERATED}", GENERATED),
    # a storage's or a session's key named in lower-case words: the slot, not the key
    ('    storage_key = "session_storage"', f'    storage_key = "{GENERATED}"', GENERATED),
    ('STORAGE_KEY: str = "user_settings.store"', f'STORAGE_KEY: str = "{GENERATED}"', GENERATED),
    # a password manager's class name given to a call, then a module's name
    ('    MovedAttribute("HTTPPasswordMgr", "urllib2", "urllib.request"),',
     f'    os.putenv("HTTP_PASSWORD", "{GENERATED}")', GENERATED),
    # a URL's password of one character
    ('string e4 = "scheme://user:;@domain.com";', f'string e4 = "scheme://user:{PASSWORD}@domain.com";', PASSWORD),
    # ... and a multi-host URI's other hosts, judged as the first
    ("postgresql://u:p@h1:5432,u:p@h2:5433/db", f"postgresql://u:{PASSWORD}@h1:5432,u:{PASSWORD}@h2:5433/db", PASSWORD),
    # a connection string's password cut at a format hole left open
    ('a = String.Format("Server=localhost; Database=Test; Password = invalid {0", secretConst);',
     f'a = String.Format("Server=localhost; Database=Test; Password = {PASSWORD}", secretConst);', PASSWORD),
    ('string s = $"Server=localhost; Database=Test; Password ={test1',
     f'string s = $"Server=localhost; Database=Test; Password ={PASSWORD}', PASSWORD),
]

KEPT = [
    # the limits of the new forms: a plain word in a branch, a name that is no secret's, both branches plain words
    'password = os.environ.get("DB_PASSWORD") if prod else "fallback"',
    f'label = password if ok else "{GENERATED}"',
    "const password = a === b ? 'x' : 'y';",
    "const password = mode == 'dev' ? 'pass' : null;",
]

REDACTED_CASES = [
    (f"secret = x if c else '{GENERATED}'", GENERATED),
    (f'password = os.environ.get("DB_PASSWORD") if prod else "{PASSWORD}"', PASSWORD),
    (f'api_key: str = os.getenv("API_KEY", "") if settings else "{GENERATED}"', GENERATED),
    (f'token = get_token() if a == "b" else "{GENERATED}"  # the default', GENERATED),
    (f"const password = a === b ? '{PASSWORD}' : 'y';", PASSWORD),
    (f"const password = a === b ? 'x' : '{PASSWORD}';", PASSWORD),
    (f"password = mode == 'dev' ? '{GENERATED}' : null", GENERATED),
    (f'var secret = count > 3 ? "{GENERATED}" : other;', GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)


test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


TOKENS = [
    "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ab",
    "github_pat_11ABCDEFG0123456789abc_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "xoxp-523423-234243-234233-e039d02840a0b9379c",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0",
]


# a redaction glued to a token stands for a secret's characters: the token glued to them was no token on the first
# pass, so the second keeps it too
@pytest.mark.parametrize("token", TOKENS)
@pytest.mark.parametrize("form", ["x [REDACTED]{} y", "k={}[REDACTED]"])
def test_a_token_glued_to_a_redaction_is_kept(token, form):
    line = form.format(token)
    assert redact_text(line) == line
    assert redact_text(f"k = {token}") == "k = [REDACTED]"


# the first pass's own output: a Google key glued to a word's fine-grained GitHub token
@pytest.mark.parametrize("line", [
    "AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHIgithub_pat_11ABCDEFG0123456789abc_"
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456",
])
def test_a_second_pass_changes_nothing(line):
    once = redact_text(line)
    assert once != line and redact_text(once) == once
