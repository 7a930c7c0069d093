"""Ninety-fifth round: look-alikes found reading chamber, aws-vault, kamus, vault-k8s, consul-template, envconsul,
blackbox (real code), dvcsharp-api and bWAPP (built to leak) held out after the ninety-fourth round, and sadcloud's
Terraform conditionals left by round 93 (figures: benchmarks/secrets_recall.md, round 95). Values made up where a
secret is meant."""

from chunkers.redact import REDACTED, redact_value
from tests.chunkers.redact_asserts import GENERATED, pair_test


PAIRS = [
    # a name whose last word is an address, a JWT's audience or issuer, a command, an interval, a store, a user
    ('const ec2CredentialsServerAddr = "127.0.0.1:9099"', f'const ec2CredentialsServerSecret = "{GENERATED}"',
     GENERATED),
    ('public const string TokenAudience = "Myself";', f'public const string TokenSecret = "{GENERATED}";', GENERATED),
    ('public const string TokenIssuer = "MyProject";', f'public const string TokenIssuerSecret = "{GENERATED}";',
     GENERATED),
    ("credential_process = aws-vault export --format=json --no-session my_profile_master",
     f"credential_process_secret = {GENERATED}", GENERATED),
    ("web_identity_token_process = oidccli raw", f"web_identity_token = {GENERATED}", GENERATED),
    ('\tSecretsManagerBackend = "SECRETSMANAGER"', f'\tSecretsManagerBackendKey = "{GENERATED}"', GENERATED),
    ('\t\tStaticSecretRenderInterval: "10s",', f'\t\tStaticSecret: "{GENERATED}",', GENERATED),
    ("secret_passwords_username=foo", f"secret_passwords_username_password={GENERATED}", GENERATED),
    ('\t"DB_CREDENTIALS_DB_OVERRIDDEN_USER":     "db-app-user",', f'\t"DB_CREDENTIALS_DB_PASSWORD": "{GENERATED}",',
     GENERATED),
    # Vault Agent's injector's annotation: the secret's path in Vault
    ('\t"vault.hashicorp.com/agent-inject-secret-foobar": "database/creds/db-app",',
     f'\t"vault.hashicorp.com/agent-secret-foobar": "{GENERATED}",', GENERATED),
    # a secret's path in a store after a secret's flag; a password's flag's value, or a generated one, stays judged
    ("$ envconsul -secret secret/my-app ./my-app", f"$ envconsul -secret {GENERATED} ./my-app", GENERATED),
    ('    -secret="mysql/creds/readonly" \\', '    --password="mysql/creds/readonly" \\', "mysql/creds/readonly"),
    ('    -secret="secret/passwords" \\', '    -secret="Zq8v/N3xL0pR7tY2wK5mB4cD" \\', "Zq8v/N3xL0pR7tY2wK5mB4cD"),
    # a run of one sign standing for the value
    ("AWS_SECRET_ACCESS_KEY=%%%", f"AWS_SECRET_ACCESS_KEY=%%{GENERATED}", GENERATED),
    # a Terraform conditional of references and numbers (sadcloud's); a literal branch stays judged
    ("  max_password_age = var.password_policy_expiration_threshold ? 0 : 60",
     f'  password = var.x ? "{GENERATED}" : ""', GENERATED),
    ("  password_reuse_prevention      = !var.password_policy_reuse_enabled ? 5 : 0",
     f'  password_reuse_prevention      = !var.x ? "{GENERATED}" : 0', GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)


def test_a_cache_key_of_words_and_a_template_is_kept():
    """CircleCI's cache key: words, then its template's `{{ .Revision }}` (kamus'); a generated prefix stays judged."""
    keys = ("jobs", "build", "steps", "1", "restore_cache", "keys", "0")
    assert redact_value(keys, "docker_api_cache_key-{{ .Revision }}") == "docker_api_cache_key-{{ .Revision }}"
    assert redact_value(keys[:-2] + ("key",), 'v1-deps-{{ checksum "package-lock.json" }}') != REDACTED
    assert redact_value(keys, GENERATED + "-{{ .Revision }}") == REDACTED


def test_a_database_files_connection_string_is_kept():
    """SQLite's one part (dvcsharp-api's `FileName=tmp/DVCSharp.db`): a file; a password's part stays judged."""
    conn = ("ConnectionStrings", "DefaultConnection")
    assert redact_value(conn, "FileName=tmp/DVCSharp.db") == "FileName=tmp/DVCSharp.db"
    assert redact_value(conn, "Data Source=app.db") == "Data Source=app.db"
    assert redact_value(conn, f"Data Source={GENERATED}.db") == REDACTED
    assert redact_value(conn, "Data Source=app.db;Password=hunter2x") != "Data Source=app.db;Password=hunter2x"
