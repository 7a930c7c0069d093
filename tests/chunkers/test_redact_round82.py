"""Eighty-second round: Logto, SuperTokens' Node SDK, SpiceDB (real code) and OWASP's Damn Vulnerable Serverless
Application read held out after the eighty-first round (figures: benchmarks/secrets_recall.md, round 82). Values made
up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, round_tests


KEPT = [
    # a test helper named as Node's given a key's id or status
    "        createPrivateKey('current', 2, OidcSigningKeyStatus.Current),",
    "        createPrivateKey('current-b', 2, OidcSigningKeyStatus.Current),",
    # how a password is stored, said by its name's last word
    "      passwordEncryptionMethod: 'plain',",
    # a phrase ending in a full-width stop, a message whose only ASCII is i18next's holes
    "  csrf_token_mismatch: 'CSRF token 不匹配。',",
    "  reset_password_description: '輸入{{types, list(type: disjunction;)}}，獲取驗證碼以重設密碼。',",
    "  extra_token_price: '然後每月 ${{value, number}} / 每 {{amount, number}} 之後',",
    # an id's name in words, a test's word run into the name, a name spelt again in another case
    "    expect(updateUsername).toHaveBeenCalledWith('access-token', 'verification-record-id', {",
    '        apiKey: "testapikey",',
    '    EMAILPASSWORD: "emailpassword",',
    '    emailpassword: "Emailpassword",',
]


REDACTED_CASES = [
    # a generated literal given to Node's createPrivateKey, any literal to createSecretKey
    (f"createPrivateKey('{GENERATED}', 2)", GENERATED),
    ("const k = crypto.createSecretKey('current', 'utf8');", "current"),
    # a generated value where a method is named
    (f'passwordMethod = "{GENERATED}"', GENERATED),
    # ASCII letters and digits beside a hole, a full-width stop after a generated run
    ('password = "{{x}}Zq8v"', "Zq8v"),
    ('csrf_token: "ZQ8VK2PL9X。"', "ZQ8VK2PL9X"),
    # an id's name under a password's name, letters and digits before `-id`
    ('password: "reset-password-id"', "reset-password-id"),
    ('secret: "Zq8vK2pL9x-id"', "Zq8vK2pL9x-id"),
    # a test's word run into a password's name, or into the name and more
    ('password: "testpassword"', "testpassword"),
    ('apiKey: "testapikey9f8a"', "testapikey9f8a"),
    # a name's letters with digits
    ('emailpassword: "Emailpassword1"', "Emailpassword1"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
