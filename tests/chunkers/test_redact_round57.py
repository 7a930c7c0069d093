"""Fifty-seventh round, after real code no rule was written from (five more public repositories: bitwarden/server,
jellyfin, spring-boot, gin, express): look-alikes kept, each beside a twin that is still redacted. Values are made up
here but for the look-alikes quoted from those repositories and Azure's published emulator values."""

from tests.chunkers.redact_asserts import round_tests

GENERATED = "Zq8vK2pLm9Xc4Rt7"
AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
KEPT = [
    # a name whose last word is a hash, a salt or a digest
    'MasterPasswordAuthenticationHash = "authHash",',
    'user.MasterPasswordSalt = "existing-salt";',
    'var passwordSalt = "some_guid_or_random_string";',
    # a credential's store or count
    '"credsStore": "desktop",',
    "credentialCount: hasPremium",
    # two PascalCase names in a call: a table's columns
    'b.HasIndex("AccessToken", "DateLastActivity");',
    # Azure Storage's emulator, published
    '"connectionString": "UseDevelopmentStorage=true"',
    "var cs = $\"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + AZURITE_KEY + ";\";",
    # a resource's location
    '.withPrivateKey("classpath:test-key.pem");',
    '@PemKeyStore(certificate = "classpath:client.crt", privateKey = "classpath:client.key")',
    # sample words before a secret's word, a doc comment's parameter
    '"password": "fake-example-password"',
    '/// <param name="token">Token.</param>',
]

REDACTED = [
    ('MasterPasswordAuthentication = "' + GENERATED + '",', GENERATED),
    ('password_hash = "$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW"', "R9h/cIPz0gi"),  # by form
    ('"credsSecret": "' + GENERATED + '",', GENERATED),
    ('f("AccessToken", "' + GENERATED + '")', GENERATED),
    ('f("Password", "SuperAdminPass")', "SuperAdminPass"),  # a password's name: a weak one is one still
    ('api_token = "EndGlobalSection"', "EndGlobalSection"),  # an assignment, not two names (the 36th round)
    ("DefaultEndpointsProtocol=https;AccountName=prod;AccountKey=" + GENERATED * 5 + "Zq8vK2pL==;", GENERATED),
    ('.withPrivateKey("' + GENERATED + GENERATED + '");', GENERATED),
    ('"password": "fake-example-' + GENERATED + '"', GENERATED),
    ('<param name="token">' + GENERATED + '</param>', GENERATED),  # not a doc comment
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
