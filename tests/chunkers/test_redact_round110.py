"""Hundred-and-tenth round: a data team's repositories (Meltano, its hub of Singer plugins, dbt, then dlt): a
redaction's own marker, a stream's replication key, a member compared with its own name, a connection string's `my…`
template, an entry point naming a constant, a workflow's cache key; dlt's credentials that name a database (a URL
with no password, a database's file, a credential's field that says which database or host). Figures:
benchmarks/secrets_recall.md, round 110. Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, bodies, round_tests

KEPT = [
    # a manifest that hid its values already (Meltano's `meltano compile`), Terraform's plan
    '      "TAP_SNOWFLAKE_PASSWORD": "(redacted)",',
    "  password = (sensitive value)",
    # Singer's column that marks how far a stream was copied
    "export TAP_POSTGRES__METADATA_SOME_STREAM_ID_REPLICATION_KEY=created_at",
    # a test's stand-in spelling the member's name
    '    assert az_state_store.connection_string == "SOME_CONNECTION_STRING"',
    # an Azure documentation's template
    'export AZURE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=myAccountName;AccountKey=myAccountKey"',
    # a pyproject's entry point: a module, then a constant
    'my_state_manager_password = "my_state_manager.backend:PASSWORD"',
    # dlt: a credential's field that says which database, host or warehouse, a path's last part in an environment
    # variable's name, a database's URL with no password, its file, an embedded database's own name
    '    creds.database = "testdb"',
    'os.environ["DESTINATION__DATABRICKS__CREDENTIALS__SERVER_HOSTNAME"] = "my-databricks.example.com"',
    "export DESTINATION__ICEBERG__CREDENTIALS__WAREHOUSE=dlt_ci",
    'credentials="postgres://loader@localhost:5432/dlt_data"',
    'credentials="mssql+pyodbc://loader.database.windows.net/dlt_data?trusted_connection=yes&driver=ODBC+Driver+17+for'
    '+SQL+Server"',
    'destination.duckdb.credentials="duckdb:///_storage/test_quack.duckdb"',
    'credentials = "my_data.duckdb"',
    '    destination=dlt.destinations.duckdb(credentials=":pipeline:"),',
]

REDACTED_CASES = [
    ('      "TAP_SNOWFLAKE_PASSWORD": "(s3cr3t!)",', "(s3cr3t!)"),
    ("export TAP_POSTGRES_REPLICATION_PASSWORD=created_at", "created_at"),
    (f'    assert store.connection_string == "Server=db;Password={GENERATED}"', GENERATED),
    # (connectionstrings.com's template: the scanners' recall cases, round 110's policy)
    ('conn = "Server=myServerAddress;Database=myDataBase;User Id=myUsername;Password=myPassword;"', "myPassword"),
    ('conn = "Server=db;User Id=myUsername;Password=mySecretPass"', "mySecretPass"),
    ('conn = "AccountName=myAccountName;AccountKey=myAccountKey;SharedAccessSignature=sv=2020&sig=Zq8vN3xL0pR7tY2w"',
     "Zq8vN3xL0pR7tY2w"),
    ('password = "db.local:SECRET"', "db.local:SECRET"),
    # a secret named for a database, a credential's password, a URL's password, a key as its user, a key in its query
    ('secrets.db = "hunter2x"', "hunter2x"),
    ("SECRETS__DB=hunter2x", "hunter2x"),
    ('os.environ["DESTINATION__MYDEST__CREDENTIALS__PASSWORD"] = "loader"', "loader"),
    (f'credentials="postgres://loader:{GENERATED}@localhost:5432/dlt_data"', GENERATED),
    (f'credentials="postgres://{GENERATED}@localhost:5432/dlt_data"', GENERATED),
    (f'credentials="snowflake://loader@host/db?private_key={GENERATED}&warehouse=wh"', GENERATED),
    (f'credentials="snowflake://loader@host/db?warehouse={GENERATED}"', GENERATED),
    (f'credentials = "{GENERATED}.duckdb"', GENERATED),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_the_markers_and_a_cache_key_are_kept_in_settings():
    """Parsed: a manifest's `(redacted)` and a workflow step's cache key of words (rust-cache's `with: {key:
    test-x86_64-unknown-linux-gnu}`, dbt-core's release workflow). A generated piece in the key, after an expression
    or alone, stays redacted (round 92), and so does a password under the manifest's name."""
    from chunkers.redact import REDACTED

    out = bodies("manifest.json", '{"env": {"MELTANO_EXTRACT_PASSWORD": "(redacted)", "TAP_PASSWORD": "(s3cr3t!)"}}')
    assert "MELTANO_EXTRACT_PASSWORD = (redacted)" in out and "(s3cr3t!)" not in out, out
    workflow = ("jobs:\n  test:\n    steps:\n      - uses: Swatinem/rust-cache@v2\n        with:\n"
                "          key: test-x86_64-unknown-linux-gnu\n")
    assert "key = test-x86_64-unknown-linux-gnu" in bodies(".github/workflows/ci.yml", workflow)
    for generated in (GENERATED, "v1-" + GENERATED, "${{ runner.os }}-" + GENERATED):
        out = bodies(".github/workflows/ci.yml", workflow.replace("test-x86_64-unknown-linux-gnu", generated))
        assert GENERATED not in out and REDACTED in out, out


def test_a_credentials_field_naming_its_database_is_kept_in_settings():
    """dlt's `.dlt/secrets.toml`: a credential's `database` and a number under a size's name are kept, its password
    redacted; a `db` key among secrets stays redacted (so does round 60's connection string named `Db`)."""
    from chunkers.redact import REDACTED

    out = bodies(".dlt/secrets.toml", '[destination.clickhouse.credentials]\ndatabase = "dlt_data"\npassword = '
                                      '"loader"\nchunk_size = 1000000\n\n[secrets]\ndb = "hunter2x"\n')
    assert "credentials:database = dlt_data" in out and "chunk_size = 1000000" in out, out
    assert "loader" not in out and "hunter2x" not in out and REDACTED in out, out
