"""Ninety-sixth round: look-alikes found reading Secretless Broker, summon, Jenkins' Vault plugin, Spring Cloud Vault
(real code), dvpwa and DVIA-v2 (built to leak) held out after the ninety-fifth round (figures:
benchmarks/secrets_recall.md, round 96). Values made up where a secret is meant."""

from chunkers.redact import REDACTED, redact_value
from tests.chunkers.redact_asserts import GENERATED, pair_test


PAIRS = [
    # a product's name holding "secret" (CyberArk's Secretless Broker)
    ("  SECRETLESS_HOST: secretless-with-plugin", f"  SECRETLESS_HOST_SECRET: {GENERATED}", GENERATED),
    ('  if [[ "$SECRETLESS_HOST" != "secretless" ]]; then', f'  if [[ "$SECRET" != "{GENERATED}" ]]; then',
     GENERATED),
    # a help's description after a flag, past a tab or two blanks; one blank and a value stays judged
    ("  -P,--password \t\t\tdatabase password", f"  -P,--password {GENERATED} database", GENERATED),
    # a concatenation's operand before the call's next argument
    ('            "password=" + VAULT_PW, "policies=admin");', f'            "password={GENERATED}", "policies=admin");',
     GENERATED),
    # a name whose last word is a moment, a count, or a header's name
    ('            "secret_id_num_uses=1000", "policies=admin");', f'            "secret_id={GENERATED}", "x=1");',
     GENERATED),
    ("wrapping_token_creation_time:  2016-09-18 20:29:48.652957077 +0200 CEST", f"wrapping_token:  {GENERATED}",
     GENERATED),
    ('NSString *const PFCommandHeaderNameSessionToken = @"X-Parse-Session-Token";',
     f'NSString *const PFCommandSessionToken = @"{GENERATED}";', GENERATED),
    # a template's hole cut by its own quotes; a sample's word before `pass`
    ('    password = "{{ secret "db_pass" }}"`,', f'    password = "{GENERATED}"`,', GENERATED),
    ("password: example-pass", f"password: {GENERATED}-pass", GENERATED),
    # summon's references with a variable in the path, and `!file:var`; its `!str` literal stays judged
    ("API_KEY: !var $env/sentry/api_key", f"API_KEY: !str {GENERATED}", GENERATED),
    ("PRIVATE_KEY: !file:var app/production/private-key", f"PRIVATE_KEY: !file {GENERATED}", GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)


def test_secretless_gets_are_judged_as_their_credential():
    """Secretless Broker's `credentials: {name: {from: …, get: …}}`: `from` names a provider, `get` is judged as its
    credential is (a host's is a host, a password's a password)."""
    creds = ("services", "pg", "credentials")
    assert redact_value(creds + ("password", "from"), "conjur") == "conjur"
    assert redact_value(creds + ("host", "get"), "pg") == "pg"
    assert redact_value(creds + ("port", "get"), "5432") == "5432"
    assert redact_value(creds + ("password", "get"), "test") == REDACTED
    assert redact_value(creds + ("token", "get"), GENERATED) == REDACTED
    assert redact_value(creds + ("password", "from"), GENERATED) == REDACTED



def test_a_credentials_provider_and_ssl_mode_are_kept():
    """Secretless Broker's Kubernetes resource's `credentials: [{provider: literal}]` and libpq's `sslmode: disable`
    in a section of credentials; a password's value there stays judged."""
    assert redact_value(("spec", "handlers", "0", "credentials", "1", "provider"), "literal") == "literal"
    assert redact_value(("services", "mssql", "credentials", "sslmode"), "disable") == "disable"
    assert redact_value(("services", "mssql", "credentials", "sslmode", "get"), "verify-full") == "verify-full"
    assert redact_value(("services", "mssql", "credentials", "password"), "disable") == REDACTED
