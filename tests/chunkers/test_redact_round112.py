"""Hundred-and-twelfth round: a machine-learning team's repositories name stores, not secrets. Read first, Kedro,
Metaflow, ClearML and mlrun: a catalog's `credentials:` naming an entry of credentials.yml, a plugin's class by its
relative module, a secret's id of words, a prompt ending in "secret:", a URL whose user and password are a key's
names, a numbered `value1`, a connection string's one word, a Kubernetes Secret's name under a name for one. Then,
from the held-out reading of flytekit, BentoML and polyaxon: a prefix of `_`, a secret's group, a stand-in running its
name's words together, a stored secret's name after `--secret`, BuildKit's secret mount, a local model server's
unchecked key, a user and a hole, and a shell's line continuation after a value. Figures:
benchmarks/secrets_recall.md, round 112. Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, round_tests

KEPT = [
    # Kedro's catalog names an entry of credentials.yml; Prefect's block names its class
    "    credentials: dev_s3",
    '    "abs_creds": "azure-blob-store",',
    '        "credentials": "parquet_example_credentials",',
    '    credentials: "RedisDatabase"',
    # Metaflow: a plugin's class by its relative module, a secret's id in a store
    '    ("secrets", ".secrets.secrets_decorator.SecretsDecorator"),',
    '            "secret_id": "the_id",',
    # ClearML: a prompt's "secret:" and the next argument
    '        print("Enter user secret: ", end="")',
    # Kedro: a key's names as a URL's user and password
    '    "s3://access_key:secret_key@my-bucket/data/file.csv",',
    # mlrun: numbered values, a connection string's one word, a Secret's name under a name for one
    'secrets = {"secret1": "value1", "secret2": "value2"}',
    '    "--build-arg KEY1=VALUE1 --build-arg KEY2=VALUE2",',
    'store_connection_string="v3io", project=TEST_PROJECT',
    '    ("connection_string", "expected_table"),',
    "    'k8s_secret': 'azure-key-vault-secret',",
    'new_image_pull_secret = "my_new_secret"',
    'imagePullSecret="reposure-registry-secrets"',
    # flytekit: a prefix of `_`, a secret's group, a stand-in of its name's words
    'secrets_prefix="_FSEC_",',
    'secret_group = "foo"',
    'WANDB_SECRET_GROUP = "wandb-api-group"',
    '    "FLYTE_AZURE_CLIENT_SECRET": "clientsecret",',
    '    api_key="my-comet-ml-api-key",',
    # BentoML: stored secrets by name, BuildKit's secret mount, a local model server's unchecked key
    "bentoml deploy --secret huggingface --secret openaikey --secret pypi-credentials",
    'equivalent=("opt", "secret=id=aws,src=$HOME/.aws/credentials"),',
    'api_key="API_TOKEN_NOT_NEEDED"',
    'client = OpenAI(base_url="http://localhost:8000/v1", api_key="EMPTY")',
    'client = OpenAI(base_url="http://localhost:8080/v1", api_key="sk-no-key-required")',
    "client = OpenAI(base_url=url, api_key='na')",
    # polyaxon: a user and a hole for the token
    'kubectl create secret generic gitlab-connection-1 --from-literal=POLYAXON_GIT_CREDENTIALS="oauth2:<TOKEN_HASH>"',
    # BentoML: a variable before a shell's line continuation
    "bentoml secret create pypi-credentials \\\n    USERNAME=$USERNAME \\\n    PASSWORD=$PASSWORD \\\n"
    "    PYPI_URL=https://my.private.pypi/simple",
]

REDACTED_CASES = [
    # sonar-java's JNDI password under a credentials' name, and a generated entry
    ('props.put(Context.SECURITY_CREDENTIALS, "xvxf6_gaa");', "xvxf6_gaa"),
    ('x = {"credentials": "xvxf6_gaa"}', "xvxf6_gaa"),
    (f"    credentials: dev_{GENERATED}", GENERATED),
    # Vault's AppRole secret id, a UUID, and a word of a password's
    ('secret_id = "3f2a9c1e-7b4d-4e8a-9c2f-1d5e6a7b8c9d"', "3f2a9c1e-7b4d-4e8a-9c2f-1d5e6a7b8c9d"),
    ("vault_secret_id: hunter2", "hunter2"),
    (f'print("Enter user secret: ", secret="{GENERATED}")', GENERATED),
    (f'    "s3://access_key:{GENERATED}@my-bucket/data/file.csv",', GENERATED),
    (f'secrets = {{"secret1": "{GENERATED}", "secret2": "value2"}}', GENERATED),
    (f'store_connection_string="{GENERATED}"', GENERATED),
    # a test's secret of words under a secret's own name stays one (Kubeflow's), as an intensified one does
    ("    MINIO_SECRET_KEY: 'shared-minio-secret',", "shared-minio-secret"),
    ("tls_secret: my-super-secret", "my-super-secret"),
    (f'secrets_prefix="{GENERATED}"', GENERATED),
    ('db_password = "dbpassword"', "dbpassword"),
    (f'    "FLYTE_AZURE_CLIENT_SECRET": "{GENERATED}",', GENERATED),
    ("tool --secret hunter2", "hunter2"),
    ("app --client-secret mysecret", "mysecret"),
    ("consul acl token create -secret=3f2a9c1e-7b4d-4e8a-9c2f-1d5e6a7b8c9d", "3f2a9c1e-7b4d-4e8a-9c2f-1d5e6a7b8c9d"),
    (f'x = "secret={GENERATED}"', GENERATED),
    (f'CREDS="oauth2:{GENERATED}"', GENERATED),
    (f"    PASSWORD={GENERATED} \\", GENERATED),
    # a local model server's unchecked key is no password's word, nor an entry's name a singular credential's value
    ('User.withUsername("username").password("empty")', '"empty"'),
    ('catalog = RestCatalog(credential="blue_horse_staple")', "blue_horse_staple"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_redacted_value_keeps_its_line_continuation():
    """The shell's ` \\` after a value is no part of it: a value redacted keeps it, so the command stays one."""
    from chunkers.redact import REDACTED, redact_text

    out = redact_text(f"docker run \\\n  -e X=1 \\\n  PASSWORD={GENERATED} \\\n  image\n")
    assert out == f"docker run \\\n  -e X=1 \\\n  PASSWORD={REDACTED} \\\n  image\n", out
