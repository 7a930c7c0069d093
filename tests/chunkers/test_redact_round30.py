"""Thirtieth round: the forms the development corpora still missed and the twenty-ninth round's review left. Found:
a secret's name beginning with a digit (`01_hardcoded_password: …`); a property list's `<key>Password</key>` then
`<string>…</string>`; a literal fallback after a call or a subscript (`System.getenv("X") != null ? … : "…"`,
`process.env["TOKEN"] || "…"`), after an elvis `?:`, and as a Groovy command's bracketed argument (Gradle's
`password (… ? … : "…")`); a Kubernetes Secret's kind in any case and quoting (`kind: SECRET`, `kind: 'secret' #
…`); an XML element whose text is an environment assignment (`<env>DB_PASSWORD=…</env>`). Kept: a digit-led name
with no secret's word, Apple's own plist keys, a usage description's phrase, `$(API_KEY)`, a plain word or an empty
string as a fallback, a ConfigMap or `kind: secretstore`, `NAME=${VAR}` in an element; newly kept, a Secret's block
scalar under `data:` of under four characters once decoded (as a one-line value already was). Terraform variables
are read in linear time. Values are made up here."""

import base64
import time

import pytest

from chunkers import redact, secret_blocks
from tests.chunkers.redact_asserts import GENERATED, lines_test, pair_test, round_tests

PW = "Tr4in-Ledger-91"
B64 = base64.b64encode(b"user=deploy;password=" + PW.encode()).decode()


def _secret(kind: str, key: str, block: str) -> str:
    return f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: app\ndata:\n  {key}: {block}\n"


def _plist(key: str, value: str) -> str:
    return f"<dict>\n\t<key>{key}</key>\n\t<string>{value}</string>\n</dict>"


GETENV = 'System.getenv("NEXUS_PSW")'

# (look-alike, its secret twin, the twin's secret)
PAIRS = [
    # newly found: a name beginning with a digit, as a YAML key, a JSON key, an assignment
    ("01_hardcoded_password: ${DB_PASSWORD}", "01_hardcoded_password: " + PW, PW),
    ('"02_api_token": "changeme"', '"02_api_token": "' + GENERATED + '"', GENERATED),
    ("404_page_count: 3", '2fa_secret = "' + GENERATED + '"', GENERATED),
    # newly found: a property list's key then its string
    (_plist("NSFaceIDUsageDescription", "Use Face ID to sign in"), _plist("Password", PW), PW),
    (_plist("APIKey", "$(API_KEY)"), _plist("APIKey", GENERATED), GENERATED),
    (_plist("CFBundleIdentifier", "com.example.ledger"), _plist("ClientSecret", GENERATED), GENERATED),
    # newly found: a literal fallback after a call, a subscript, an elvis; a Groovy command's bracketed argument
    ("password (" + GETENV + ' != null ? ' + GETENV + ' : "")',
     "password (" + GETENV + ' != null ? ' + GETENV + ' : "' + PW + '")', PW),
    ('username (System.getenv("NEXUS_USR") != null ? System.getenv("NEXUS_USR") : "deployer")',
     "password = " + GETENV + ' != null ? ' + GETENV + ' : "' + PW + '"', PW),
    ("password = " + GETENV + ' ?: "changeme"', "password = " + GETENV + ' ?: "' + PW + '"', PW),
    ('const token = process.env["TOKEN"] || "dev"', 'const token = process.env["TOKEN"] || "' + GENERATED + '"',
     GENERATED),
    ('showPassword(visible ? "text" : "password")', 'setPassword(isDev ? "dev" : "' + PW + '")', PW),
    # newly found: a Secret's kind in any case or quoting, a comment after it
    (_secret("ConfigMap", "blob", B64), _secret("SECRET", "blob", B64), B64),
    (_secret("secretstore", "blob", B64), _secret("'secret' # lower case", "blob", B64), B64),
    # newly kept: a Secret's block scalar of under four characters once decoded
    (_secret("Secret", "extra", "|\n    YmFyCg=="), _secret("Secret", "extra", "|\n    " + B64), B64),
    # newly found: an environment assignment as an element's text
    ("<env>DB_PASSWORD=${DB_PASSWORD}</env>", "<inlist>DB_PASSWORD=" + PW + "</inlist>", PW),
]

KEPT = [
    "<env>DB_HOST=db.internal</env>",
    _plist("SecretKey", ""),
    'password (System.getenv("NEXUS_PSW") ?: "${DEFAULT_PW}")',
]

REDACTED_CASES = [
    ('  - 03_db_passwords: "' + PW + '"', PW),
    ("<key>AccessToken</key><string>" + GENERATED + "</string>", GENERATED),
]

LINES = [
    (_plist("Password", PW), PW),
    ("credentials {\n  username (System.getenv(\"U\") ?: \"deployer\")\n  password (" + GETENV + ' ?: "' + PW
     + '")\n}', PW),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
test_only_the_values_line_changes = lines_test(LINES)


def test_a_terraform_block_ends_at_the_next_variable():
    # an unclosed block: the next variable's default is read in its own block, at its own depth
    text = 'variable "a_password" {\n  type = string\nvariable "db_password" {\n  default = "' + PW + '"\n}\n'
    assert PW not in redact.redact_text(text)
    text = 'variable "db_password" {\n' * 40_000  # 1 MB of heads: each block read to the next (3.7 s when read 40 lines)
    t = time.process_time()
    assert secret_blocks._tf_default_changes(text, {}) == {}
    assert time.process_time() - t < 1.5


@pytest.mark.parametrize("kind", ["Secret", "SECRET", "'secret'", '"Secret" # opaque'])
def test_the_secret_gate_reads_the_kind_as_its_pattern_does(kind):
    text = _secret(kind, "blob", B64)
    assert secret_blocks._may_be_secret_kind(text) and secret_blocks._K8S_SECRET_KIND.search(text)
