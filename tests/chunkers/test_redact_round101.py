"""Hundred-and-first round: look-alikes found reading HashiCorp's terraform-provider-vault and vault-action, AWS'
Secrets Manager JDBC driver, 1Password's Connect SDK for Go (real code), the Damn Vulnerable MCP Server and the SSRF
Vulnerable Lab (built to leak) held out after the hundredth round (figures: benchmarks/secrets_recall.md, round 101).
Values made up where a secret is meant."""

from chunkers.redact import REDACTED
from tests.chunkers.redact_asserts import GENERATED, bodies, pair_test

PAIRS = [
    # a Terraform test's check of a resource's attribute: the resource's address, then the attribute's name
    ('\t\t\tresource.TestCheckResourceAttr("vault_nomad_secret_role.test", "type", "client"),',
     f'\t\t\tresource.TestCheckResourceAttr("vault_nomad_secret_role.test", "{GENERATED}"),', GENERATED),
    ('\t\t\tresource.TestCheckResourceAttrSet("data.vault_azure_access_credentials.test", "client_id"),',
     f'\t\t\tresource.TestCheckResourceAttrSet("data.vault_azure_access_credentials.test", "{GENERATED}"),', GENERATED),
    ('\t\t\tresource.TestCheckTypeSetElemAttr("vault_secrets_sync_vercel_destination.test", "allowed_ports.*", "443"),',
     f'\t\t\tresource.TestCheckTypeSetElemAttr("vault_secrets_sync_vercel_destination.test", "{GENERATED}.*"),',
     GENERATED),
    # how a server checks or stores passwords; a token's period
    ('  password_authentication = "scram-sha-256"', f'  password = "{GENERATED}"', GENERATED),
    ("password_encryption = 'scram-sha-256'", f"password_encryption = '{GENERATED}'", GENERATED),
    ('  token_period           = "86400"', f'  token           = "{GENERATED}"', GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)

WORKFLOW = """jobs:
  e2e:
    steps:
      - uses: hashicorp/vault-action@v3
        with:
          secrets: |
            secret/data/test secret ;
            secret/data/test secret | NAMED_SECRET ;
            /cubbyhole/test zip | NAMED_CUBBYSECRET ;
      - uses: hashicorp/vault-action@v3
        with:
          secrets: |
            secret/data/test secret ;
            %s
"""


def test_vault_actions_list_of_secrets_paths_is_kept():
    """vault-action's `secrets:` input names where each secret is read from; a generated line among them is no path."""
    out = bodies(".github/workflows/e2e.yml", WORKFLOW % f"{GENERATED}+x")
    assert "secret/data/test secret | NAMED_SECRET ;" in out, out
    assert f"{GENERATED}+x" not in out and REDACTED in out
