"""Fifty-third round, after CyclingBits/llm-secret-scanner's look-alike files (held out for the round's first
figure): a setting about a key or a secret (its algorithm, its format, its rotation), a YAML anchor or alias of words,
and a value that calls itself a placeholder are kept; a password given to Windows' `net use`, Gradle's
`storePassword "…"` and FTP's `PASS` command are redacted. Values are made up here."""

from tests.chunkers.redact_asserts import round_tests

GENERATED = "Zq8vK2pLm9Xc4Rt7"
KEPT = [
    'private static final String SECRET_KEY_ALGORITHM = "AES";',
    'examples.put("private_key_algorithm", "RSA");',
    'secret_rotation_days: 90',
    'secret.rotation.days=90',
    'api_key_format: "sk-[48 characters]"',
    'TOKEN_FORMAT = "jwt"',
    '<test-api-key>test_api_key_placeholder</test-api-key>',
    'x-credentials: &default-credentials',
    '  password: *shared-password',
    "net use Z: \\\\srv\\share * /user:CORP\\svc",
    "net use Z: \\\\srv\\share /persistent:yes",
    "net use Z: \\\\srv\\share %NET_PASSWORD% /user:admin",
    '    storePassword System.getenv("STORE_PASSWORD")',
    "PASS $FTP_PASSWORD",
    "PASS the salt",
]

REDACTED = [
    ('private static final String SECRET_KEY = "' + GENERATED + '";', GENERATED),
    ("api_key: " + GENERATED, GENERATED),
    ("password: &pw " + GENERATED, GENERATED),
    ('secret_rotation_key = "' + GENERATED + '"', GENERATED),
    ("<test-api-key>" + GENERATED + "</test-api-key>", GENERATED),
    ("net use Z: \\\\srv\\share " + GENERATED + " /user:CORP\\svc", GENERATED),
    ("net use \\\\srv\\ipc$ /user:admin " + GENERATED, GENERATED),
    ('    storePassword "' + GENERATED + '"', GENERATED),
    ("    keyPassword '" + GENERATED + "'", GENERATED),
    ("quote PASS " + GENERATED, GENERATED),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
