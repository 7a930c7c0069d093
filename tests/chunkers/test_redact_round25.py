"""Twenty-fifth round (issue 33): ajinabraham/njsscan's tests (development from this round) and the earlier rounds'
forms to weigh (bearer's); nickdeis/eslint-plugin-no-secrets' tests are held out and no case here comes from them.
Found: a quoted secret's name in a call's brackets assigned a literal (VB's indexer `Session("Password") = "…"`,
`obj('api_key') = '…'`), a private key given by position to Node's `Sign.sign(privateKey, outputEncoding)` (an
encoding's name as the second literal), a private key in the options object of Node's `privateDecrypt` /
`privateEncrypt`, a JWT's key by position after the payload (`jwt.sign(payload, '…')`, `jwt.verify(token, '…')`,
PyJWT's `jwt.encode(payload, "…")`). Kept, each with its secret twin still redacted: a call's quoted name that is no
secret's, a placeholder, a ternary's branch after a call, a variable given to the signer, a `.sign(` whose second
argument is no encoding, the public key's `publicEncrypt`, a receiver not named for JWTs, an algorithm's name in the
key's place. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    # newly found: a secret's name in a call's brackets, assigned a literal (an indexer by parentheses)
    (f'Session("LastPage") = "{GENERATED}"', f'Session("Password") = "{GENERATED}"', GENERATED),
    ("obj('api_key') = 'your-api-key-here'", "obj('api_key') = 'k7Hq2mWx9PzR4tLb'", "k7Hq2mWx9PzR4tLb"),
    # (only `=`: a ternary's branch after the call is no assignment to it)
    (f'x = ready ? get("token") : "{GENERATED}"', f'get("token") = "{GENERATED}"', GENERATED),
    # newly found: a private key by position to Node's signer, an encoding's name after it
    ("const sig = signer.sign(privateKey, 'hex');", f"const sig = signer.sign('{GENERATED}', 'hex');", GENERATED),
    (f"doc.sign('{GENERATED}', options)", f'doc.sign("{GENERATED}", "base64")', GENERATED),
    ("s.sign('mykey', 'hex')", 's.sign("k3yM4t3r14l-9QzX", "latin1")', "k3yM4t3r14l-9QzX"),
    # newly found: a private key in privateDecrypt's / privateEncrypt's options (the public one's is no secret)
    (f"crypto.publicEncrypt({{ key: '{GENERATED}' }}, buf)",
     f"crypto.privateDecrypt({{ key: '{GENERATED}' }}, buf)", GENERATED),
    ("crypto.privateDecrypt({ key: 'mykey' }, buffer)",
     "crypto.privateEncrypt({ key: 'w9XrT2qLm8NvB4kZ' }, buffer)", "w9XrT2qLm8NvB4kZ"),
    # newly found: a JWT's key by position after the payload, to a receiver named for JWTs
    ("const token = jwt.sign(payload, process.env.JWT_SECRET)", f"const token = jwt.sign(payload, '{GENERATED}')",
     GENERATED),
    (f"const sig = session.sign(payload, '{GENERATED}')", f"const sig = jsonwebtoken.sign(payload, '{GENERATED}')",
     GENERATED),
    ('encoded = jwt.encode({"some": "payload"}, "HS256")',
     f'encoded = jwt.encode({{"some": "payload"}}, "{GENERATED}")', GENERATED),
    ("jwt.verify(token, publicKey, (err, decoded) => {", "JWT.verify(token, 'Kp4x-Wq9z_Lm2v', (err, decoded) => {",
     "Kp4x-Wq9z_Lm2v"),
]

KEPT = [
    # no literal given: a variable, a comparison (not this rule's), no secret's name in the call
    "obj('api_key') = apiKeyFromEnv",
    "Session(\"Password\") = txtPassword.Text",
    "crypto.privateDecrypt({ key: privateKeyPem, padding: 1 }, buffer)",
    "label('token') = 'Your token'",
]

REDACTED_CASES = [
    ('Application("ApiKey") = "fQ3kZ9pL2xW7mN4v"', "fQ3kZ9pL2xW7mN4v"),
    ("obj('Api_Key') = 'qwpoeirutyalskdj'", "qwpoeirutyalskdj"),
    ('const signature = sign.sign("Hm4c-K3y_u8Wq2Zr", "base64url");', "Hm4c-K3y_u8Wq2Zr"),
    ('claims = jwt.decode(encoded, "r8TqZ2mXv5Lp", algorithms=["HS256"])', "r8TqZ2mXv5Lp"),
    ("var token = myJwt.sign({ id: user.id }, 'k9$Qm2!vXz', { expiresIn: 86400 });", "k9$Qm2!vXz"),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
