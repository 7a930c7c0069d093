"""Thirty-ninth round: SonarSource/sonar-text's examples, held out until their figures were taken, showed a URL's
credentials destroyed where the password's place holds no secret but an expression a template or a tool fills in
(`${process.env.DB_PASSWORD}`, make's `$(POSTGRES_PASSWORD)`, Ruby's and Azure DevOps' `#{pass}`, `#{token}#`,
escaped braces `{{{{password}}}}`, jq's `\\(.password)`, `$DB_PASS$`), a placeholder (`[YOUR-PASSWORD]`, `**`), a
regular expression's wildcard (`(postgres://.*:)(.*)(@.*)`) or GitHub's fixed `x-oauth-basic` after a token that is a
variable. Each is kept now; its twin with a literal password in the same place is still redacted, and a shell
default's literal (`${DB_PASSWORD:-…}`) still counts as a value. Values are made up here."""

from tests.chunkers.redact_asserts import pair_test

PW = "Tr4in-Ledger-91"

# (look-alike, its secret twin, the twin's secret)
PAIRS = [
    ("const db = `postgres://${process.env.DB_USER}:${process.env.DB_PASSWORD}@${process.env.DB_HOST}/app`",
     f"const db = `postgres://${{process.env.DB_USER}}:{PW}@${{process.env.DB_HOST}}/app`", PW),
    ('value: "postgresql://$(POSTGRES_USER):$(POSTGRES_PASSWORD)@$(POSTGRES_SERVER):5432/app"',
     f'value: "postgresql://$(POSTGRES_USER):{PW}@$(POSTGRES_SERVER):5432/app"', PW),
    ('url = "postgres://#{user}:#{pass}@#{host}:5432/app"', f'url = "postgres://#{{user}}:{PW}@#{{host}}:5432/app"', PW),
    ("CONNECTION_URI=mongodb://user:#{azure-replacement-token}#@mongo.local:27017/db",
     f"CONNECTION_URI=mongodb://user:{PW}@mongo.local:27017/db", PW),
    ("url = f'postgresql://{{{{username}}}}:{{{{password}}}}@postgres:5432/app'",
     f"url = f'postgresql://{{{{{{{{username}}}}}}}}:{PW}@postgres:5432/app'", PW),
    ("""jq -r '"postgresql://\\(.username):\\(.password)@\\(.host)/\\(.dbname)"'""",
     f"""jq -r '"postgresql://\\(.username):{PW}@\\(.host)/\\(.dbname)"'""", PW),
    ('conn = "postgres://$DB_USER$:$DB_PASS$@database.example/app"',
     f'conn = "postgres://$DB_USER$:{PW}@database.example/app"', PW),
    ('DATABASE_URL="postgresql://postgres:[YOUR-PASSWORD]@db.example.test:5432/postgres"',
     f'DATABASE_URL="postgresql://postgres:{PW}@db.example.test:5432/postgres"', PW),
    ('Regex regex("(postgis://.*:)(.*)(@.*)");', f'Regex regex("postgis://gis:{PW}@db.example.test");', PW),
    ('const REDIS = "redis://example:**@127.0.0.1:6379/"', f'const REDIS = "redis://example:{PW}@127.0.0.1:6379/"', PW),
    ('git config url."https://${GITHUB_TOKEN}:x-oauth-basic@github.com/acme".insteadOf x',
     'git config url."https://9166e8318506a30d43d7a30c76a788fc0ad57a98:x-oauth-basic@github.com/acme".insteadOf x',
     "9166e8318506a30d43d7a30c76a788fc0ad57a98"),
    ("DB: postgresql://${DB_USER}:${DB_PASSWORD}@db:5432/app",
     "DB: postgresql://${DB_USER}:${DB_PASSWORD:-Y6BV6IgbI51aEBH0}@db:5432/app", "Y6BV6IgbI51aEBH0"),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
