"""Forty-sixth round: AWS's key ids of an STS service bearer token (`ABIA…`) and of a context-specific credential
(`ACCA…`), in base32 as AWS writes them, are found by form as `AKIA…` and `ASIA…` were (gitleaks' AWS rule lists
all four; its earlier cases held `ABIA…` alone on a line). Kept: an upper-case word that starts the same, a value
of another length. Values are made up here."""

from tests.chunkers.redact_asserts import round_tests

KEPT = [
    '"ACCOUNTINGDEPARTMENTS"',
    "ACCABCDEFGHIJKLMNOPQ1",
]

REDACTED = [
    ("ABIAXOSVCPBMNOKDXJXA", "ABIAXOSVCPBMNOKDXJXA"),
    ("key id ACCAXOSVCPBMNOKDXJXA in the log", "ACCAXOSVCPBMNOKDXJXA"),
    ("first line\nAWS_ID=ABIAOGSBHRRCYIOIUPZP\nlast", "ABIAOGSBHRRCYIOIUPZP"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
