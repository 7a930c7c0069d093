"""Eighty-seventh round: parse-server, Keystone, SOPS, external-secrets (real code) and OWASP's Vulnerable Web
Application read held out after the eighty-sixth round (figures: benchmarks/secrets_recall.md, round 87). Values made
up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, bodies, round_tests


KEPT = [
    # Go's typed constants: the type's name ends in Policy or Capabilities
    '\tCreatePolicyOwner ExternalSecretCreationPolicy = "Owner"',
    '\tSecretStoreReadOnly SecretStoreCapabilities = "ReadOnly"',
    '  secretVersionSelectionPolicy: "LatestOrFail"',
    # a GraphQL schema's non-null type
    "  sessionToken: String!",
    "  password: String!",
    # an instruction to change the value among words between signs
    "const session = statelessSessions({ secret: '-- EXAMPLE COOKIE SECRET; CHANGE ME --' });",
    # words ending in the word value
    'const secretVal = "someValue"',
    'secretCertificate := "certificate_value"',
    """response: '{"result":{"thesecret":"secret-value","alsosecret":"another-value"}}'""",

    # a sample's word run into a token's or a key's
    "    access_token: 'sometoken',",
    '\t\tBearerToken: "mytoken",',
    # a regex's group where a query's token goes
    r"const re = /http:\/\/localhost:8378\/1\/apps\/choose_password\?token=([a-zA-Z0-9]+)\&id=test\&username=user1/;",
    r'm = re.search("https://example.com/reset?token=(\w+)&", body)',
    # an ini line's sample words under a key id's name, as a quoted line's are
    "aws_access_key_id = test-id",
]


REDACTED_CASES = [
    # a generated value under a policy's name in snake case (a method's name before it), or a secret's name
    (f'        ("set_secret_data_policy", "{GENERATED}", """', GENERATED),
    (f'\tSecretPolicyKey ExternalSecretKey = "{GENERATED}"', GENERATED),
    # a non-null type's word with more after it
    ("  sessionToken: String!hunter2x", "hunter2x"),
    # a phrase without the instruction, digits among its words
    ("secret: '-- EXAMPLE COOKIE SECRET; h4nter2x --',", "h4nter2x"),
    # a value run into value with digits, a password's or a secret's sample name
    ('const secretVal = "x9Kf2mQ7pValue"', "x9Kf2mQ7pValue"),
    ('vaultPassword.setPassword("testvalue");', "testvalue"),
    ('  password: "mypassword"', "mypassword"),
    ('\t\tSecretKey: "mysecret",', "mysecret"),
    # a token after the group, a generated token in the query
    (f"https://example.com/reset?token={GENERATED}&id=1", GENERATED),
    (f"https://example.com/reset?token=(x{GENERATED}&id=1", GENERATED),
    # an ini line's generated key id
    (f"aws_access_key_id = {GENERATED}", GENERATED),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_graphql_schema_keeps_its_types_and_a_secret_beside_them_is_found():
    text = ("type Session {\n  sessionToken: String!\n  password: String!\n}\n"
            f'# DATABASE_PASSWORD = "{GENERATED}"\n')
    body = bodies("schema.graphql", text)
    assert body.count("String!") == 2 and GENERATED not in body
