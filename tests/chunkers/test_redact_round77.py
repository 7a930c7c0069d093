"""Seventy-seventh round: passbolt, casdoor, dex, oauth2-proxy, Vaultwarden (real code), NodeGoat, crAPI and VAmPI read
held out after the seventy-sixth round (figures: benchmarks/secrets_recall.md, round 77). Values made up where a
secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, bodies, round_tests


KEPT = [
    # a table's key: a row's reference to another's (CakePHP fixtures)
    "            'aco_foreign_key' => '73e3309f-1121-5eca-8777-37a7451ee386',",
    "            'foreign_key' => '8e3874ae-4b40-590b-968a-418f704b9d9a',",
    # a schema's or a validator's builder: the field's name, then its type or a rule's name
    "            ->addColumn('secret_id', 'char', [",
    "            ->changeColumn('secret_id', 'uuid', [",
    "            ->requirePresence('password', 'create', __('A password is required.'))",
    "            ->add('password', 'no_quotes', [",
    "            ->addField('subscription_key', 'text');",
    # a token's lifetime in words, an environment variable's default
    "    'expiry' => filter_var(env('PASSBOLT_AUTH_JWT_REFRESH_TOKEN', '1 month'), FILTER_CALLBACK, $options),",
    # what makes passwords; an encoding's name
    'OpenAIIntegration(tiktoken_encoding_name="cl100k_base"),',
    "    public const PASSPHRASE_GENERATOR_WORDS_CASE_LOWER = 'lowercase';",
    # a name's last word says what kind the secret is, what checks or names it, how long it lives, how much it costs
    '\tif passwordType == "pbkdf2-salt" {',
    '\t\tPasswordType:       "bcrypt",',
    '    if (passwordObfuscatorType === "Plain" || passwordObfuscatorType === "") {',
    '\tc.PasswordConnector = "local"',
    "  passwordConnector: local",
    '\tDex_CreatePassword_FullMethodName = "/api.Dex/CreatePassword"',
    "    'cost' => filter_var(env('PASSBOLT_SCIM_SECURITY_SECRET_TOKEN_COST', '12'), FILTER_VALIDATE_INT),",
    'kcadm.sh create realms -s realm="$TEST_REALM" -s enabled=true -s "accessTokenLifespan=600"',
    # a claim read from a token, named before "from"
    '        EmailFromIDToken: "foo1@example.com",',
    # a login without a password under WebAuthn's name
    '  "webAuthnPolicyPasswordlessRpEntityName": "keycloak",',
    # a header's name under a header's name; a context key naming itself
    '\theaderAllowCredentials = "Access-Control-Allow-Credentials"',
    'const ctxCredentials = "github.com/jcmturner/gokrb5/v8/ctxCredentials"',
    # where the secret comes from: an environment variable's name
    'const validSecretSourceEnv = "OAUTH2_PROXY_TEST_SECRET_SOURCE_ENV"',
    # a command's elided flags, a YAML key with only a comment after it
    "  --cookie-secret=... \\",
    "  --client-secret=…",
    "secretKeys:  # Exclude client-secret",
    # a placeholder of one letter
    'client_secret = "YYYYY"',
    '    cookie_secret = "ZZZ"',
]


REDACTED_CASES = [
    # a secret's word after the table's key's name
    (f"    'foreign_key_secret' => '{GENERATED}',", GENERATED),
    # a setter's two arguments; a builder's value that is no plain word
    ('\tv.Add("password", "test")', "test"),
    ("            ->add('password', 'hunter')", "hunter"),
    ("            ->addColumn('secret_id', 'Tr0ub4dor&3', [", "Tr0ub4dor&3"),
    # a password read from somewhere is a password
    ('passwordFromEnv = "Tr0ub4dor3x"', "Tr0ub4dor3x"),
    # a generated value under a kind's name (round 45's), a duration's form with a password's name
    (f'const trustTokenOperationType = "{GENERATED}";', GENERATED),
    (f'\tpasswordType = "{GENERATED}"', GENERATED),
    ("  password: 12h", "12h"),
    ("DB_PASSWORD='5 minutes'", "5 minutes"),
    # a value after a key on a properties line that starts with `#`, no blank after it
    ("  password: #Xq9pL2vT", "#Xq9pL2vT"),
    # an HTTP header's form under a password's name
    ('\tadminPassword = "Open-Sesame"', "Open-Sesame"),
    # two letters; runs of several letters
    ('password = "aa"', "aa"),
    ('password = "aaabbb"', "aaabbb"),
    # a template for a generated secret (kics' CloudFormation case); a header's value after a constant naming it
    ("        SecretStringTemplate: '{\"username\":\"admin\"}'", '"admin"'),
    ('    this.request.addHeader(DEFAULT_SECRET_HEADER_NAME, "supersecret");', "supersecret"),
    # a value ending in another name than its own
    ('const ctxCredentials = "github.com/acme/v8/Zq8vN3xL0pR7"', "Zq8vN3xL0pR7"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_settings_record_s_own_fields_are_no_secrets():
    body = bodies("config.yaml", "staticPasswords:\n- email: admin@example.com\n  password: "
                  f"\"{GENERATED}\"\n  username: admin\n  userID: 08a8684b-db88-4b73-90a9-3cd1661f5466\n"
                  "  groups:\n  - team-a\n")
    assert "08a8684b-db88-4b73-90a9-3cd1661f5466" in body and "team-a" in body
    assert GENERATED not in body


def test_a_composer_namespace_maps_to_its_folder():
    body = bodies("composer.json", '{"autoload": {"psr-4": {"Passbolt\\\\PasswordGenerator\\\\": '
                  '"./plugins/PassboltCe/PasswordGenerator/src"}}, "config": {"password": "' + GENERATED + '"}}')
    assert "./plugins/PassboltCe/PasswordGenerator/src" in body and GENERATED not in body


def test_a_token_s_lifespan_is_a_number_of_seconds():
    body = bodies("realm.json", '{"accessTokenLifespan": 60, "accessTokenLifespanForImplicitFlow": 900, '
                  f'"clients": [{{"clientId": "app", "secret": "{GENERATED}"}}]}}')
    assert "900" in body and GENERATED not in body
