"""Hundred-and-eighth round: round 107's kind of name read held out in Elastic's, Jenkins' and Harbor's charts, the
PostgreSQL Ansible collection and Kyverno's policies (figures: benchmarks/secrets_recall.md, round 108). An
affinity's label selector read line by line, a projected Secret's items, a chart's `passwordKey`, a Secret's
namespace: names, no secret. Values made up where a secret is meant."""

from chunkers.redact import REDACTED
from tests.chunkers.redact_asserts import GENERATED, bodies

# A Helm template (does not parse as YAML): `- key` at the indent of `matchExpressions` leaves it out of the path.
AFFINITY = """{{- if eq .Values.antiAffinity "hard" }}
spec:
  template:
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchExpressions:
              - key: app
                operator: In
                values:
                - "{{ template "elasticsearch.uname" . }}"
{{- end }}
"""

PROJECTED = """tests:
  - it: mounts the admin secret
    asserts:
      - equal:
          path: spec.template.spec.volumes[0]
          value:
            projected:
              sources:
                - secret:
                    name: my-release-jenkins
                    items:
                      - key: jenkins-admin-user
                        path: chart-admin-username
                      - key: jenkins-admin-password
                        path: chart-admin-password
"""

VALUES = """controller:
  admin:
    existingSecret: ""
    userKey: jenkins-admin-user
    passwordKey: jenkins-admin-password
"""

PROFILE = """apiVersion: config.kio.kasten.io/v1alpha1
kind: Profile
spec:
  locationSpec:
    credential:
      secretType: AwsAccessKey
      secret:
        apiVersion: v1
        kind: Secret
        name: k10secret-aws
        namespace: kasten-io
"""


def test_a_label_selectors_key_read_line_by_line_is_kept():
    out = bodies("templates/statefulset.yaml", AFFINITY)
    assert "labelSelector:key = app" in out and REDACTED not in out, out


def test_a_projected_secrets_items_are_kept():
    """A Secret's keys and the files they become: names (the list item's `key` was read as a record's id in a section
    of secrets)."""
    out = bodies("unittests/statefulset-test.yaml", PROJECTED)
    assert REDACTED not in out, out
    assert "jenkins-admin-user" in out and "jenkins-admin-password" in out, out


def test_a_charts_password_key_is_kept():
    out = bodies("values.yaml", VALUES)
    assert "passwordKey = jenkins-admin-password" in out and REDACTED not in out, out


def test_a_password_key_holding_a_password_is_redacted():
    """`passwordKey: hunter2` is no name of a key (not words ending in a credential's): redacted; a generated one too."""
    for value in ("hunter2", GENERATED):
        out = bodies("values.yaml", VALUES.replace("jenkins-admin-password", value))
        assert value not in out and REDACTED in out, (value, out)


def test_a_secrets_namespace_is_kept():
    out = bodies("profile.yaml", PROFILE)
    assert "namespace = kasten-io" in out and REDACTED not in out, out


def test_a_generated_item_key_in_a_secret_is_redacted():
    """A Secret volume's item key that looks generated, in a section of secrets: redacted, as before."""
    out = bodies("unittests/statefulset-test.yaml", PROJECTED.replace("jenkins-admin-user", GENERATED))
    assert GENERATED not in out, out


WORKFLOW = """name: Release Charts
on:
  push:
    branches: [main]
jobs:
  release:
    runs-on: ubuntu-latest
    steps:
      - name: Prepare GPG key
        env:
          GPG_PASSPHRASE_FILE: "${{ runner.temp }}/gpg-passphrase"
          DB_PASSWORD_FILE: /run/secrets/db_password
"""


def test_a_path_under_a_files_name_is_kept():
    """A passphrase's file: its path, a CI runner's folder its first part (chart-releaser's workflow, copied into
    many chart repositories)."""
    out = bodies(".github/workflows/release.yaml", WORKFLOW)
    assert REDACTED not in out and "${{ runner.temp }}/gpg-passphrase" in out, out


def test_a_generated_value_under_a_files_name_is_redacted():
    out = bodies(".github/workflows/release.yaml", WORKFLOW.replace("/run/secrets/db_password", GENERATED))
    assert GENERATED not in out, out
