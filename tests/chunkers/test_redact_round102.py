"""Hundred-and-second round: a look-alike found reading HashiCorp's vault-helm, kubernetes-external-secrets, DigitalOcean's
doctl (real code) and Vulpy (built to leak) held out after the hundred-and-first round (figures:
benchmarks/secrets_recall.md, round 102). Values made up where a secret is meant."""

from chunkers.redact import REDACTED
from tests.chunkers.redact_asserts import GENERATED, bodies

INDEX = """apiVersion: v1
entries:
  kubernetes-external-secrets:
  - apiVersion: v2
    description: 'Deprecated: Kubernetes External Secrets CustomResourceDefinition'
    keywords:
    - kubernetes-external-secrets
    - secrets
    name: kubernetes-external-secrets
    version: 8.5.5
    password: %s
"""


def test_a_helm_index_lists_a_charts_versions_not_its_secrets():
    """A Helm repository's `entries` are charts by name: a chart named for secrets holds its versions' keywords, and
    a password's key among them stays one."""
    out = bodies("docs/index.yaml", INDEX % GENERATED)
    assert "keywords:0 = kubernetes-external-secrets" in out, out
    assert GENERATED not in out and REDACTED in out
