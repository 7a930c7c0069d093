"""Eighty-fifth round: Apache APISIX, Kong, better-auth, Caddy (real code) and GoVWA read held out after the
eighty-fourth round (figures: benchmarks/secrets_recall.md, round 85). Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, round_tests


KEPT = [
    # a test's token named in words after a scheme
    'const headers = { authorization: "Bearer test-scim-token" };',
    '"auth": { "header": { "Authorization": "Bearer test-key" } },',
    "authorization = 'Bearer openai-key',",
    'req.Header.Set("Authorization", "Bearer token123")',
    '      headers: { authorization: "Bearer rotating-token-b" },',
    # a secret store's reference: Kong's vault, APISIX's environment
    'secret = "{vault://env/test_secret_foo}",',
    '    "token" : "$ENV://VAULT_TOKEN"',
    'secret_access_key = "$ENV://AWS_SECRET_ACCESS_KEY",',
    # a sample's word before secret words
    '"access_key_secret": "fake-key-secret",',
    # a product's dotted name for the field
    'secret: "better-auth.secret",',
    # Lua's concatenation after a scheme, a label, a query's name
    'local creds = "Basic " .. ngx.encode_base64(',
    'var creds = "Basic " + encode_base64(',
    'hmac_sha1_binary("secret", "date: " .. date))',
    'res, err = httpc:request_uri(nacos_host .. "/nacos/v1/auth/users?accessToken=" .. res_json["accessToken"], {',
    # a prefix of words joined by `_`
    'const refreshTokenPrefix = "hello_rt_";',
    # a mask's word, the word for a value
    "KEY=value",
    'err = f.AddOperation("password", "HIDDEN")',
    # a union's last member and its default
    'type: "email-verification" | "sign-in" | "forget-password" = "sign-in"',
    # a call's other argument read between two strings' ends
    'ngx.say("with credentials:    ", hit("/graphql-shared-a"))',
]


REDACTED_CASES = [
    # a generated token after the scheme, words with digits in them, a long part after the word
    (f'const headers = {{ authorization: "Bearer {GENERATED}" }};', GENERATED),
    ('authorization: "Bearer t3st-scim-token"', "t3st-scim-token"),
    ('authorization: "Bearer test-token-x8f9a0b2"', "test-token-x8f9a0b2"),
    # a reference's form with a value glued after it
    (f'secret = "{{vault://env/x}}{GENERATED}",', GENERATED),
    (f'"token" : "$ENV://VAULT_TOKEN {GENERATED}"', GENERATED),
    # a sample's word before a generated run
    (f'"access_key_secret": "fake-{GENERATED}",', GENERATED),
    # a dotted value with digits, a generated prefix
    ('secret: "better-auth.s3cret",', "better-auth.s3cret"),
    (f'const refreshTokenPrefix = "{GENERATED}_";', GENERATED),
    # a password after a scheme's word, a label's look without the concatenation
    ('password = "Basic123 " .. x', "Basic123 "),
    ('hmac_sha1_binary("secret", "hunter2:")', "hunter2:"),
    # a word that only starts like a mask's
    ("KEY=values4u", "values4u"),
    # a TOML key quoted, no union before it
    ('"password" = "hunter2"', "hunter2"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
