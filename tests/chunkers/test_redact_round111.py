"""Hundred-and-eleventh round: what round 110's held-out reading of Great Expectations and Prefect left: a database's
URL whose password is a template's hole or empty, a host with `_`, a connection string whose every credential is a
placeholder, Google Cloud's reference to a secret by its name; and a connection string's parts after a hole, read
again. Then, from the held-out reading of four more data tools (feast, astronomer-cosmos): a shell's escaped variable
as a URL's password, a host and its port, a cache key of words and expressions. Figures:
benchmarks/secrets_recall.md, round 111. Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, bodies, round_tests

KEPT = [
    # Great Expectations' documented and test URLs
    'connection_string="snowflake://<user_login_name>:<password>@<account_identifier>/<database_name>/<schema_name>'
    '?warehouse=<warehouse_name>&role=<role_name>",',
    'connection_string="postgresql+psycopg2://${MY_POSTGRES_USERNAME}:${MY_POSTGRES_PASSWORD}@${POSTGRES_HOST}:'
    '${POSTGRES_PORT}/${POSTGRES_DATABASE}",',
    'PG_CONNECTION_STRING = "postgresql+psycopg2://postgres:@localhost/test_ci"',
    'connection_string = "postgresql://postgres@db_hostname/test_ci"',
    # ... and connection strings
    'export AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;EndpointSuffix=core.windows.net;'
    'AccountName=<YOUR-STORAGE-ACCOUNT-NAME>;AccountKey=<YOUR-STORAGE-ACCOUNT-KEY>"',
    '    "conn_str": "DefaultEndpointsProtocol=https;AccountName=storagesample;AccountKey=my_account_key",',
    # Prefect's Cloud Run jobs
    '    "secretKeyRef": {"secret": "prefect-api-key", "version": "latest"}',
    '    "SECRET_ENV1": SecretKeySelector(secret="prefect-auth-string", version="latest"),',
    # read in the held-out four (feast): a shell's escaped variable as a URL's password, a host and its port
    'git config --global url."https://api:\\${TOKEN}@github.com/".insteadOf "https://github.com/"',
    "  connection_string: redis.feast.svc.cluster.local:6379",
]

REDACTED_CASES = [
    (f'connection_string="snowflake://<user>:{GENERATED}@<account>/db"', GENERATED),
    ('connection_string = "postgresql://postgres:hunter2x@db_hostname/test_ci"', "hunter2x"),
    # (a generated value in braces is no hole: round 111 first read any braced name as one)
    (f'password = "postgres://loader:{{{GENERATED}}}@localhost/db"', GENERATED),
    (f'credentials = "postgres://{{{GENERATED}}}@localhost/db"', GENERATED),
    (f'connection_string="snowflake://loader@host/db?warehouse=<warehouse>&token={GENERATED}"', GENERATED),
    # (a signature after a hole was not read before this round)
    (f'conn = "AccountName=x;AccountKey=<key>;SharedAccessSignature=sv=2020&sig={GENERATED}"', GENERATED),
    (f'    secret="{GENERATED}", version="latest"', GENERATED),
    (f'    secret="prefect-api-key", version="latest", token="{GENERATED}"', GENERATED),
    (f'git config --global url."https://api:{GENERATED}@github.com/".insteadOf "https://github.com/"', GENERATED),
    (f"  connection_string: redis.{GENERATED}.example.com:6379", GENERATED),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_references_secret_is_a_name_in_settings():
    """A Cloud Run service's `secretKeyRef: {secret: …, version: latest}` names a Secret Manager secret; a generated
    value there stays redacted."""
    from chunkers.redact import REDACTED

    service = ("spec:\n  template:\n    spec:\n      containers:\n        - env:\n            - name: PREFECT_API_KEY\n"
               "              valueFrom:\n                secretKeyRef:\n                  secret: {}\n"
               "                  version: latest\n")
    assert "secretKeyRef:secret = prefect-api-key" in bodies("service.yaml", service.format("prefect-api-key"))
    out = bodies("service.yaml", service.format(GENERATED))
    assert GENERATED not in out and REDACTED in out, out


def test_a_cache_key_of_words_and_expressions_is_kept():
    """cosmos' workflow: words and digits, then expressions (round 92 read a word first, round 110 words alone); a
    generated piece among them stays redacted."""
    from chunkers.redact import REDACTED, redact_value

    path = ("jobs", "test", "steps", "1", "with", "key")
    key = "integration-dbt-1-8-${{ runner.os }}-${{ matrix.python-version }}"
    assert redact_value(path, key) == key
    assert redact_value(path, "integration-1-8-${{ runner.os }}-" + GENERATED) == REDACTED
