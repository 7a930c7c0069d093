"""Fifty-fifth round, after bcgov/Smart-Secrets-Scanner's labelled snippets (held out for the round's first figure): a
name ending in `pass` after an account's word is a password's name, a literal decoded where a secret's name is given
it is the secret written encoded. Kept: a value of plain words saying it is a test's or a default's under a key's or
a token's name, an AWS key id that says it is a test's. Values are made up here."""

from tests.chunkers.redact_asserts import round_tests

KEPT = [
    'test_pass = "TestPass1"',  # a test's verdict or step, not an account's: a password's look is still needed
    'shadow_pass = "ShadowMapPass"',
    'user_pass = "fail"',
    '"db_pass": "${DB_PASS}"',
    'dbPass: "<your password>"',
    "token_type = base64.b64decode(\"Zm9vYmFyYmF6\")",  # no secret's name
    "if check(password, base64.b64decode(\"cGFzc3dvcmQxMjM=\")):",  # an argument, not what the name is given
    'const API_KEY_TEST = "TEST-KEY-123"',
    "const API_KEY = process.env.API_KEY || 'test-key-001';",
    "const API_KEY = os.getenv('API_KEY', 'default-safe-key')",
    "const API_KEY = 'public-key-for-test';",
    "AWS_ACCESS_KEY_ID = 'AKIATESTID'",
]

REDACTED = [
    ('db_pass = "SuperAdminPass"', "SuperAdminPass"),
    ("$user_pass = 'SecretPass123'", "SecretPass123"),
    ('const DB_USER_PASS = "root:SecurePass123";', "SecurePass123"),
    ("const USER_PASS = '123456789';", "123456789"),
    ('db_pass = "postgres123"', "postgres123"),  # the eighteenth round kept it: a weak password is one still
    ('smtpPass: "Wint3rIsHere"', "Wint3rIsHere"),
    ("const DB_PASS = Buffer.from('cGFzc3dvcmRocmU=', 'base64').toString('ascii');", "cGFzc3dvcmRocmU="),
    ('password = base64.b64decode("cGFzc3dvcmRocmU=")', "cGFzc3dvcmRocmU="),
    ('var password = Encoding.UTF8.GetString(Convert.FromBase64String("cGFzc3dvcmQxMjM="));', "cGFzc3dvcmQxMjM="),
    ('secretKey = bytes.fromhex("00112233445566778899aabbccddeeff")', "00112233445566778899aabbccddeeff"),
    ('API_TOKEN = "Zq8vK2pLm9Xc4Rt7"', "Zq8vK2pLm9Xc4Rt7"),  # a generated value under the same names stays redacted
    ('api_key = "api-key-xyz-789-abc"', "api-key-xyz-789-abc"),  # words with no test's or default's word
    ('api_key: "yaml_default_api_key_yz567"', "yaml_default_api_key_yz567"),  # a number glued to a word
    ('private val connectionString: String = "default_constructor_secret_kotlin"',
     "default_constructor_secret_kotlin"),  # a value calling itself a secret
    ('password = "test-password-1"', "test-password-1"),  # a password's name keeps even a test's words
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
