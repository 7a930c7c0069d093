"""Seventh round (issue 33): semgrep-rules' misses (a development corpus now) and the AWS documentation samples it
holds under strong names, fixed by general rules. Each fix has a case that fails without it and a look-alike (or a
positive) beside it. Values are made up here."""
from tests.chunkers.redact_asserts import round_tests

KEPT = [
    # a documentation's or a test's sample in a token's form, under a strong name and with no blank after `:`
    "aws_secret_access_key:wJalrXUtnFEMI/K7MDENG/bPxRfiCYQZSAMPLEKEY",
    "aws_secret_access_key:SAMPLEUtnFEMI/K7MDENG/bPxRfiCYEXXXXXXKEY",
    "aws_secret_access_key:wJalrXUtnFEMI/K7MDENG/bPxRfiCYQZTESTKEY",
    "aws_secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYQZFAKEKEY",
    'password = "Zq5kVrX1n8tAq8ZrT2vLDUMMY"',
    "export AWS_SESSION_TOKEN=SAMPLEIvYXdzENv//////////wEaDEeLj11xTbnBk6azRCKsAacCiJK85DSXExJ81GtHrkEyev8e",
    "AKIAIOSFODNN7SAMPLE",
    # Go's `:=` under a weak name: a variable, a database's or a cache's key
    "\tcacheKey := requestCacheKeyPrefix",
    "\tsortKey := df161d9d584191ce8274164d16b433c6",
    "\tprimaryKey := 4Fa83E1Dc6b92CAeE780C9b47dd9bE34",
    # an element under a `name` attribute: a label, a hint, a word, a database's key, a token's type
    '<string name="api_key_label">Your API key</string>',
    '<string name="password_hint">Password</string>',
    '<string name="sort_key">title</string>',
    '<string name="primary_key">ac4fbb5fa9ae7de11f4c8150394ac543</string>',
    '<string name="token_type">bearer</string>',
    # `.npmrc`'s `_auth` with blanks: code, a word
    "_auth = None",
    "    _password = password_from_env",
    # a private key's body of one repeated pair of characters: a placeholder
    "-----BEGIN ENCRYPTED PRIVATE KEY-----\nabababababababababababababababab\n",
    # near misses of the new and widened forms
    "amzn.mws.<your-token>",
    "k2sk_v1_short",
    "https://outlook.office.com/webhook/<id>",
    "access_token$production$<id>$<key>",
]

REDACTED_CASES = [
    # (text, the secret that must go)
    # a sample word inside, not at an end: a live value
    ("aws_secret_access_key:wJalrXUtnFEMI/K7SAMPLEMDENG/bPxRfiCYQZ", "wJalrXUtnFEMI/K7SAMPLEMDENG/bPxRfiCYQZ"),
    # a test-mode key ends in "TEST" with no name's word after it: live
    ('password = "Zq5kVrX1n8tAq8ZrT2vLTEST"', "Zq5kVrX1n8tAq8ZrT2vLTEST"),
    # a test's own fake value starts `FAKE`: it stands for a real one
    ('password = "FAKEZq5kVrX1n8tAq8ZrT2vL"', "FAKEZq5kVrX1n8tAq8ZrT2vL"),
    ("algolia_key := df161d9d584191ce8274164d16b433c6", "df161d9d584191ce8274164d16b433c6"),
    ("\tdeployKey := Zq5kVrX1n8tAq8ZrT2vLx9Wm", "Zq5kVrX1n8tAq8ZrT2vLx9Wm"),
    ('<string name="hockeyapp_key">ac4fbb5fa9ae7de11f4c8150394ac543</string>', "ac4fbb5fa9ae7de11f4c8150394ac543"),
    ('<item name="api_token">Z3k9Qm2Lx8Vb4Nc7Tp1Rw6</item>', "Z3k9Qm2Lx8Vb4Nc7Tp1Rw6"),
    ("_auth = c3R2dGFXNDZZV1J0YVc0PQ==", "c3R2dGFXNDZZV1J0YVc0PQ=="),
    ("amzn.mws.4f1c2a3b-9d8e-4c7b-a6f5-0e1d2c3b4a59", "4f1c2a3b-9d8e-4c7b-a6f5-0e1d2c3b4a59"),
    ("k2sk_v1_Zq5kVrX1n8tAq8ZrT2vLx9Wm", "Zq5kVrX1n8tAq8ZrT2vLx9Wm"),
    ("https://outlook.office.com/webhook/4f1c2a3b-9d8e-4c7b-a6f5-0e1d2c3b4a59@", "4f1c2a3b-9d8e-4c7b-a6f5-0e1d2c3b4a59"),
    ("access_token$production$q8zr2vlx9wmp4kn7$z5kvrx1n8taq8zrt2vlx9wmp4kn7sybq",
     "z5kvrx1n8taq8zrt2vlx9wmp4kn7sybq"),
    # a private key's header and a body without an END line: the body goes, as before
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEogIBAAKCAQEAjosMtDUqbE1/8zxZac1t8fkh2SxGuMXHk9yxniyM2m76donW\n",
     "MIIEogIBAAKCAQEAjosMtDUqbE1/8zxZac1t8fkh2SxGuMXHk9yxniyM2m76donW"),
]


test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
