"""Twenty-seventh round: secrets whose name and value sit on different lines (the development corpora's misses:
Nosey Parker's and kingfisher's Okta Terraform variable, Nosey Parker's `new DirectoryEntry(…,\\n …,\\n "…")`,
whispers' `- key: pro_password` / `value: …`). Found: a secret-named Terraform variable's `default = "…"` on a later
line of its block, judged as `name = "…"` is on one line; a `- key: NAME` item's `value:` on the next line; a
credential call whose arguments run over lines (DirectoryEntry, NetworkCredential, getConnection, a connect call),
judged as the same call on one line. Kept: a placeholder or empty default, a variable not named for a secret, a
default inside a nested block, a variable or a placeholder given to the call, a plain word by position, a connect
call's named argument (`user='…@…'`, no password by position), a toleration's `- key:`. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, lines_test, pair_test, round_tests

PW = "Tr4in-Ledger-91"


def _tf(name: str, default: str) -> str:
    return f'variable "{name}" {{\n  type    = string\n  default = "{default}"\n}}'


# (look-alike, its secret twin, the twin's secret): the twin is the same text with a secret in the value's place
PAIRS = [
    # newly found: a secret-named variable's default on a later line of its block
    (_tf("db_password", "changeme"), _tf("db_password", PW), PW),
    (_tf("db_password", ""), _tf("db_password", GENERATED), GENERATED),
    (_tf("region", GENERATED), _tf("okta_api_token", GENERATED), GENERATED),
    (_tf("api_key_length", "32"), _tf("api_key", GENERATED), GENERATED),
    # "token" or "key" as one word of a longer name: a generated value only, as on one line
    (_tf("sort_key", "created_at"), _tf("github_token", GENERATED), GENERATED),
    # newly found: a credential call's password on a later line than the call
    ('var c = new NetworkCredential(\n    "svc-ledger",\n    ledgerPassword);',
     f'var c = new NetworkCredential(\n    "svc-ledger",\n    "{GENERATED}");', GENERATED),
    ('var e = new DirectoryEntry("LDAP://corp.example",\n    "CORP\\\\svc",\n    ldapPassword);',
     'var e = new DirectoryEntry("LDAP://corp.example",\n    "CORP\\\\svc",\n    "Rr9h!x1234q");', "Rr9h!x1234q"),
    ('Connection c = DriverManager.getConnection(url,\n        "app",\n        "${DB_PASSWORD}");',
     f'Connection c = DriverManager.getConnection(url,\n        "app",\n        "{PW}");', PW),
    ('$db = mysqli_connect("localhost",\n    "root",\n    "ledgerdb");',
     '$db = mysqli_connect("localhost",\n    "root",\n    "p4ss!W0rd");', "p4ss!W0rd"),
    # newly found: a `- key:` / `value:` item list under a secret's name (a Kubernetes env entry's `- name:` was)
    ("secrets:\n  - key: pro_password\n    value: changeme\n    info: metadata",
     f"secrets:\n  - key: pro_password\n    value: {PW}\n    info: metadata", PW),
    ('tolerations:\n  - key: "dedicated"\n    value: "gpu"',
     f'tolerations:\n  - key: "db_password"\n    value: "{GENERATED}"', GENERATED),
]

KEPT = [
    # a default inside a nested block is no default of the variable
    f'variable "db_password" {{\n  validation {{\n    default = "{GENERATED}"\n  }}\n}}',
    'variable "db_password" {\n  description = "The database password"\n  sensitive   = true\n}',
    # a connect call's named arguments: the user is no password by position (newly kept, on one line too)
    "conn = pymssql.connect(server='yourserver', user='yourusername@yourserver',\n    database='yourdatabase')",
    "conn = pymssql.connect(server='yourserver', user='yourusername@yourserver', database='yourdatabase')",
    'new NetworkCredential(\n    "svc-ledger",\n    "");',
    # kics' Heroku sample: its end is a filler (`…1D1D1D1D1D1D`), kept by the twenty-fourth round's rule
    'provider "heroku" {\n  email   = "ops@company.com"\n  api_key = "C71AAAAE-1D1D-1D1D-1D1D-1D1D1D1D1D1D"\n}',
]

REDACTED_CASES = [
    (f'variable "corp_okta_api_token" {{\n  default = "{GENERATED}"\n}}\n', GENERATED),
    (f'variable "db_password" {{ default = "{PW}" }}', PW),
    (f'variable "db_password" {{\n  validation {{\n    condition = length(var.db_password) > 8\n  }}\n'
     f'  default = "{GENERATED}"\n}}', GENERATED),
    (f'var c = new NetworkCredential(\r\n    "svc-ledger",\r\n    "{GENERATED}");\r\n', GENERATED),
    ('$e = New-Object DirectoryServices.DirectoryEntry("LDAP://10.0.0.1",\n    "corp\\svc",\n    "Rr9h!x1234q")',
     "Rr9h!x1234q"),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


test_only_the_values_line_changes = lines_test([(twin, s) for _, twin, s in PAIRS] + REDACTED_CASES)
