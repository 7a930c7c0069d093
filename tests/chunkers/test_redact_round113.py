"""Hundred-and-thirteenth round: a YAML block scalar in text, read from KServe's held-out reading. A token's, a key's
or a credential's value written below its name (`api_key: >-`, `token: |`) was kept whole where a password's was
redacted (a recall fix: each one-word line below is now judged as that value on its name's line); the indicator
itself (`credentials: |-`, 160 of KServe's changed lines) is no value. Figures: benchmarks/secrets_recall.md, round
113. Values made up where a secret is meant."""

import pytest

from chunkers.redact import REDACTED, redact_text
from tests.chunkers.redact_asserts import GENERATED

INDICATORS = ["|", "|-", "|+", ">", ">-", ">+", "|2", "|2-", ">-2"]


@pytest.mark.parametrize("indicator", INDICATORS)
@pytest.mark.parametrize("name", ["api_key", "token", "GITHUB_TOKEN", "credentials", "tls.key", "password"])
def test_a_secrets_block_scalar_is_redacted_and_its_indicator_kept(name, indicator):
    text = f"stringData:\n  {name}: {indicator}\n    {GENERATED}\n  user: app\n"
    out = redact_text(text)
    assert GENERATED not in out and out == f"stringData:\n  {name}: {indicator}\n    {REDACTED}\n  user: app\n", out


def test_a_value_wrapped_over_lines_is_redacted_line_by_line():
    text = f"  service_account_key: >-\n    {GENERATED}\n    {GENERATED[::-1]}\n  other: x\n"
    out = redact_text(text)
    assert GENERATED not in out and GENERATED[::-1] not in out and out.count(REDACTED) == 2, out


KEPT_BLOCKS = [
    # KServe's storage initializer's config: names and a template's holes
    '  credentials: |-\n    {\n       "storageSpecSecretName": "{{ .Values.storageSpecSecretName }}",\n'
    '       "gcs": {\n           "gcsCredentialFileName": "gcloud-application-credentials.json"\n       }\n    }\n',
    # a public key's PEM under a key's name, a reference, a key that names a column
    "  public_key: |\n    -----BEGIN PUBLIC KEY-----\n    MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n"
    "    -----END PUBLIC KEY-----\n",
    "  token: |\n    ${{ secrets.GITHUB_TOKEN }}\n",
    "  sort_key: |\n    created_at\n",
    # a block of prose under a token's name
    "  token: >\n    The token the CLI prints after login.\n",
]


@pytest.mark.parametrize("text", KEPT_BLOCKS)
def test_a_block_scalar_of_names_and_references_is_kept(text):
    assert redact_text(text) == text
