"""Ninety-second round: berglas, git-secrets, 1Password's Kubernetes operator (real code), CI/CD Goat and CloudGoat
(built to leak), read held out after the ninety-first round (figures: benchmarks/secrets_recall.md, round 92). Values
made up where a secret is meant."""

from chunkers.redact import REDACTED, redact_value
from tests.chunkers.redact_asserts import GENERATED, round_tests


KEPT = [
    # a Google Cloud KMS key's resource name, a secret's in Secret Manager, an IAM role's (berglas')
    "export GOOGLE_CLOUD_KMS_KEY=projects/${PROJECT_ID}/locations/global/keyRings/my-keyring/cryptoKeys/my-key",
    'kms_key = "projects/p1/locations/us/keyRings/r/cryptoKeys/k/cryptoKeyVersions/3"',
    'secret = "projects/my-project/secrets/db-password/versions/latest"',
    '\tiamSecretManagerAccessor = "roles/secretmanager.secretAccessor"',
    # a name between doubled `#`, a host's name as a prefix, what a password is generated from (1Password's operator)
    '\t\t\t"password":   "##newPassword##",',
    'const OnepasswordPrefix = "operator.1password.io"',
    '\t_, err := system.Run("op", "item", "edit", item, "--generate-password=letters,digits,symbols,32")',
    # a Kubernetes Secret named, its methods called on it; jsonnet's
    '\tsecret := kubeClient.Secret("login").Get(ctx)',
    'kubeClient.Secret("onepassword-service-account-token").CreateFromEnvVar(ctx, "OP_SERVICE_ACCOUNT_TOKEN")',
    'local secret = kube.Secret("wordpress") {',
    # a Terraform variable's reference with `-` in it, a unit of time under a token's name (CloudGoat's)
    "  password             = var.rds-password",
    '    access_token  = "minutes"',
    # a plugin's version under its name (CI/CD Goat's Jenkins plugins.txt)
    "ssh-credentials: 1.19",
    "token-macro: 267.vcdaea6462991",
    # an environment variable's name under a name for one (Jenkins' pipelines), a variable in escaped quotes (git's
    # sample hook)
    "usernamePassword(credentialsId: 'flag9', usernameVariable: 'USERNAME', passwordVariable: 'FLAG')",
    '\t$last_update_token = "\\"$last_update_token\\"";',
]


REDACTED_CASES = [
    # twins: a generated value beside each kept form
    (f"export GOOGLE_CLOUD_KMS_KEY={GENERATED}", GENERATED),
    (f'"password": "#{GENERATED}#",', GENERATED),
    (f'passwordPrefix = "{GENERATED}"', GENERATED),
    (f"op item edit x --generate-password={GENERATED}", GENERATED),
    # a secret given to a setter, or a Secret's name that is no name's
    ('c.Secret("hunter2x")', "hunter2x"),
    (f'builder.Secret("{GENERATED}").Build()', GENERATED),
    # a password's name keeps its word, a number, a version
    ('    password = "minutes"', "minutes"),
    ("password: 1.19", "1.19"),
    ('client_secret = "1.19"', "1.19"),
    (f"passwordVariable: '{GENERATED}'", GENERATED),
    (f'token = "\\"{GENERATED}\\""', GENERATED),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_credentials_scope_is_a_field_judged_by_its_look():
    """Jenkins' configuration as code: a credential's `scope` (GLOBAL, SYSTEM) in its list of credentials."""
    credential = ("credentials", "system", "domainCredentials", "0", "credentials", "1", "string")
    assert redact_value(credential + ("scope",), "GLOBAL") == "GLOBAL"
    assert redact_value(credential + ("secret",), "hunter2x") == REDACTED
    assert redact_value(credential + ("scope",), GENERATED) == REDACTED


def test_a_cache_key_of_expressions_and_words_is_kept():
    """actions/cache's key: expressions first, words between and after them (CI/CD Goat's copy of FastAPI's CI)."""
    key = "${{ runner.os }}-python-${{ env.pythonLocation }}-${{ hashFiles('pyproject.toml') }}-docs"
    assert redact_value(("jobs", "docs", "steps", "3", "with", "key"), key) == key
    assert redact_value(("jobs", "docs", "steps", "3", "with", "key"), "${{ x }}-" + GENERATED) == REDACTED
