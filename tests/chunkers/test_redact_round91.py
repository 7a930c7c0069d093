"""Ninety-first round: gopass, bank-vaults, teller (real code), TerraGoat and Kubernetes Goat (built to leak), read held
out after the ninetieth round (figures: benchmarks/secrets_recall.md, round 91). Values made up where a secret is
meant."""

from chunkers.redact import REDACTED, redact_value
from tests.chunkers.redact_asserts import GENERATED, round_tests


KEPT = [
    # a flag's name ending in `name` under a secret's name (bank-vaults')
    '\tcfgK8SSecret    = "k8s-secret-name"',
    # a key's id or fingerprint after GnuPG's options that select a key, git's signing key
    "#default-key 0xD8692123C4065DEA5E0F3AB5249B39D24F25E3F6",
    "gpg --output 0xKEYID.private --armor --export-secret-key 0xKEYID",
    "[user]\n\tsigningkey = 3AA5C34371567BD2",
    # a path ending in its own name, a dot file's (gopass' test)
    '\t\t"/home/user/../bob/.password-store": "/home/bob/.password-store",',
    # a site's page under the site's name (gopass' password rules)
    '\t"victoriassecret.com": "https://www.victoriassecret.com/us/account/profile#changePassword",',
    # a name ending in `pass` that is no account's (a step's, a word's)
    f'compass = "{GENERATED}"',
    f'renderpass = "{GENERATED}"',
]


REDACTED_CASES = [
    # twins: a password's name keeps its value judged; a generated value after a key's option; a key's id under a
    # secret's own name
    ('password = "k8s-secret-name"', "k8s-secret-name"),
    (f"#default-key {GENERATED}9", GENERATED),
    ("secret_key = 3AA5C34371567BD2", "3AA5C34371567BD2"),
    # an application's signing key in hex is an HMAC's secret: only GnuPG's and git's own lower-case options select
    # a key by its id
    ('"signingKey": "0123456789abcdef0123456789abcdef01234567",', "0123456789abcdef0123456789abcdef01234567"),
    ("signingKey: 3AA5C34371567BD2", "3AA5C34371567BD2"),
    ("SIGNINGKEY=3AA5C34371567BD2", "3AA5C34371567BD2"),
    (f'"/home/bob/.password": "{GENERATED}",', GENERATED),
    (f'"victoriassecret.com": "{GENERATED}",', GENERATED),
    # an account's word run into `pass` or `pw`, or `pw` after it (Vault's LDAP `bindpass`, slapd's `rootpw`)
    ('        bindpass: "hunter2x"', "hunter2x"),
    (f'rootpw = "{GENERATED}"', GENERATED),
    ('LDAP_BINDPW="s3cr3tBind!"', "s3cr3tBind!"),
    ('db_pw = "hunter2x"', "hunter2x"),
    # Vault's dev server's root token id: the token itself (bank-vaults' Compose file)
    ("VAULT_DEV_ROOT_TOKEN_ID: 227e1cce-6bf7-30bb-2d2a-acc854318caf", "227e1cce-6bf7-30bb-2d2a-acc854318caf"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_secrets_engines_configuration_is_judged_by_its_own_names():
    """bank-vaults' Vault secrets engines: `secrets:` lists units, their `configuration` holds settings, each judged by
    its own name; a password there is still one."""
    engine = ("secrets", "3", "configuration", "config", "0")
    assert redact_value(engine + ("allowed_roles", "0"), "pipeline") == "pipeline"
    assert redact_value(engine + ("project",), "my-project") == "my-project"
    assert redact_value(engine + ("password",), "hunter2x") == REDACTED
    # a section of secrets with no unit's configuration between stays one
    assert redact_value(("secrets", "db"), "hunter2x") == REDACTED
    assert redact_value(("startupSecrets", "0", "data", "data", "secret"), "bar") == REDACTED


def test_a_root_token_id_in_a_parsed_file_is_redacted():
    environment = ("services", "vault", "environment")
    assert redact_value(environment + ("VAULT_DEV_ROOT_TOKEN_ID",), "227e1cce-6bf7-30bb-2d2a-acc854318caf") == REDACTED
    # another token's id stays an id
    assert redact_value(environment + ("TOKEN_ID",), "227e1cce-6bf7-30bb-2d2a-acc854318caf") != REDACTED


def test_a_bindpass_in_a_parsed_file_is_redacted():
    """Vault's LDAP auth's `bindpass` in bank-vaults' config: a password's name run together, `admin` one still."""
    assert redact_value(("auth", "3", "config", "bindpass"), "admin") == REDACTED


def test_a_cache_key_of_words_and_a_version_before_an_expression_is_kept():
    """actions/cache's key: words, a version, then a workflow's expressions (bank-vaults' CI)."""
    assert redact_value(("jobs", "x", "steps", "3", "with", "key"),
                        "licensei-v1-${{ github.ref_name }}-${{ hashFiles('go.sum') }}") != REDACTED
