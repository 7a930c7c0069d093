"""Forty-second round: sonar-text's look-alikes left after the thirty-ninth round, each a place a password goes that
holds none: a placeholder after a command-line flag (`"<password>"`, `"..."`, an escaped `"\\$PASSWORD"`), a variable
doubled for Compose (`"$${DB_PASSWORD}"`), `xxx` and a secret store's ARN as a Spring password, Azure's
`@Microsoft.KeyVault(…)` reference, PowerShell's `Read-Host` prompt, a URL under a connection string's name whose
password is a hole, a URL's user and password split wrongly by the `:` inside template expressions or format holes,
and a regular expression's alternation read as a URL's user. Each look-alike's twin, a literal in its place, is
still redacted. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test

PAIRS = [
    ('mongo --host "localhost" --username "root" --password "<password>"',
     f'mongo --host "localhost" --username "root" --password "{GENERATED}"', GENERATED),
    ('mongo --host "localhost" --username "root" --password "..."',
     f'mongo --host "localhost" --username "root" --password "{GENERATED}"', GENERATED),
    ('echo mongo --host "localhost" --username "root" --password "\\$PASSWORD"',
     f'echo mongo --host "localhost" --username "root" --password "{GENERATED}"', GENERATED),
    ('mysqladmin ping --user=mysqluser --password="$${MYSQL_USER_PASSWORD}"',
     f'mysqladmin ping --user=mysqluser --password="{GENERATED}"', GENERATED),
    ("spring.datasource.password = xxx", f"spring.datasource.password = {GENERATED}", GENERATED),
    ("spring.datasource.password=arn:aws:secretsmanager:eu-west-2:123456789012:secret:dev/postgresql-AbCdEf",
     f"spring.datasource.password={GENERATED}", GENERATED),
    ('"Service:SubscriptionKey": "@Microsoft.KeyVault(SecretUri=https://example.vault.azure.net/secrets/Key/0a1b)",',
     f'"Service:SubscriptionKey": "{GENERATED}",', GENERATED),
    ('$MYSQL_PASSWORD = Read-Host "MySQL administrator password" -AsSecureString',
     f"$MYSQL_PASSWORD = {GENERATED}", GENERATED),
    ("CONNECTION_STRING=mongodb://user:xxx@mongo.local:27017/database",
     f"CONNECTION_STRING=mongodb://user:{GENERATED}@mongo.local:27017/database", GENERATED),
    ('DATABASE_URL: "postgresql://${self:custom.db.username}:${self:custom.db.password}@${self:custom.db.host}/app"',
     f'DATABASE_URL: "postgresql://${{self:custom.db.username}}:{GENERATED}@${{self:custom.db.host}}/app"', GENERATED),
    ('postgres_url = "postgresql+psycopg2://{:s}@{:s}:{:d}/{:s}".format(user, host, port, db)',
     f'postgres_url = "postgresql+psycopg2://app:{GENERATED}@{{:s}}:{{:d}}/{{:s}}".format(host, port, db)', GENERATED),
    ('re.search(r":(sqlserver://|mongodb://|oracle:thin:@)localhost", jdbc_url)',
     f're.search(r":(sqlserver://|mongodb://oracle:{GENERATED}@)localhost", jdbc_url)', GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)


def test_a_shell_default_in_a_urls_credentials_is_still_judged_and_a_named_hole_kept():
    """The wrong split's fix keeps what only holds expressions: a shell default's literal is a value. A named hole
    (`{password}`) was redacted by the thirty-ninth round's policy; the forty-fourth keeps it (a variable's name)."""
    from tests.chunkers.redact_asserts import assert_kept, assert_redacted

    assert_redacted("DATABASE_URL: postgresql://${DB_USER:-postgres}:${DB_PASSWORD:-Y6BV6IgbI51aEBH0}@db:5432/app",
                    "Y6BV6IgbI51aEBH0")
    assert_kept('uri = f"postgres://{user}:{password}@example.com/testdb"')
