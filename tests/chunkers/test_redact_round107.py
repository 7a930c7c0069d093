"""Hundred-and-seventh round: how Kubernetes names where a Secret keeps a value, read in external-secrets, Argo CD
and prometheus-community's charts, then held out on six repositories (figures: benchmarks/secrets_recall.md, round
107). A `key` below a reference, an existing Secret's name or a credential's field, external-secrets' `secretKey`,
a Secret named for its certificate, an Argo CD repository Secret's `type` and `url`, a comment below a key in a
Helm template: names and text, no secret. Values made up where a secret is meant."""

from chunkers.redact import REDACTED
from tests.chunkers.redact_asserts import GENERATED, bodies

EXTERNAL_SECRET = """apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata:
  name: database
spec:
  secretStoreRef:
    name: vault-backend
    kind: ClusterSecretStore
  data:
  - secretKey: postgres_replication_password
    remoteRef:
      key: prod/db
      property: password
  - secretKey: dbUser
    remoteRef:
      key: prod/db
      property: user
  dataFrom:
  - extract:
      key: my-secrets-prod
"""

STORE = """apiVersion: external-secrets.io/v1
kind: SecretStore
metadata:
  name: azure
spec:
  provider:
    azurekv:
      authSecretRef:
        clientId:
          name: azure-secret-sp
          key: ClientID
        clientSecret:
          name: azure-secret-sp
          key: ClientSecret
"""

MONITOR = """apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: pushgateway
spec:
  endpoints:
  - port: http
    basicAuth:
      username:
        name: smsecret
        key: user
      password:
        name: smsecret
        key: password
"""

VALUES = """existingSecret:
  name: ""
  key: "fastly-api-token"
rabbitmq:
  existingUserSecretKey: username
  existingPasswordSecretKey: rabbitmq-admin-password
ingress:
  tlsSecret: keycloak-tls
certificates:
  serverCASecret: cluster-example-ca
"""

REPOSITORY_SECRET = """apiVersion: v1
kind: Secret
metadata:
  name: private-repo
  labels:
    argocd.argoproj.io/secret-type: repository
stringData:
  type: helm
  url: https://charts.example.com/stable
  name: private-repo
  project: default
  password: PASSWORD_HERE
"""

# A Helm template does not parse as YAML: its keys are taken line by line.
TEMPLATE = """{{- if .Values.pushSecret.enabled }}
apiVersion: external-secrets.io/v1alpha1
kind: PushSecret
spec:
  selector:
    secret:
      name: {{ .Values.source }}
    # Alternatively, point to a generator:
    # generatorRef:
    #   kind: ECRAuthorizationToken
    #   name: prod-registry-credentials
  template:
    data:
      password: "{{ .mysecret }}"   # if you are using plain manifests
{{- end }}
"""

MODEL = """{
  "version": "2.0",
  "operations": {
    "DeleteVoiceConnectorTerminationCredentials": {
      "name": "DeleteVoiceConnectorTerminationCredentials",
      "http": {"method": "POST", "requestUri": "/voice-connectors/{voiceConnectorId}/termination/credentials",
               "responseCode": 204}
    },
    "GetClusterCredentials": {"output": {"shape": "ClusterCredentials", "resultWrapper": "GetClusterCredentialsResult"}}
  },
  "pagination": {"ListSecrets": {"input_token": "NextToken", "output_token": "NextToken", "limit_key": "MaxResults",
                                 "result_key": "SecretList"}}
}
"""

EXAMPLES = """{
  "examples": {
    "ConnectCustomKeyStore": [{"input": {"CustomKeyStoreId": "cks-1234567890abcdef0"}}]
  }
}
"""


def test_external_secrets_names_of_keys_are_kept():
    """An ExternalSecret's `secretKey`, its `remoteRef` and `extract` keys, a store's `authSecretRef` keys."""
    out = bodies("external-secret.yaml", EXTERNAL_SECRET) + bodies("store.yaml", STORE)
    assert REDACTED not in out, out
    for value in ("postgres_replication_password", "dbUser", "my-secrets-prod", "ClientID", "ClientSecret"):
        assert value in out, value


def test_a_label_selectors_key_is_kept():
    """A NetworkPolicy's `matchExpressions` in a Helm template (read line by line): a label's key."""
    text = ("{{- if .Values.networkPolicy.enabled }}\nspec:\n  egress:\n    - to:\n        - namespaceSelector:\n"
            "            matchExpressions:\n              - key: namespace\n                operator: In\n"
            "{{- end }}\n")
    out = bodies("templates/networkpolicy.yaml", text)
    assert "matchExpressions:key = namespace" in out, out


def test_a_secret_key_selector_under_basic_auth_is_kept():
    """prometheus-operator's `basicAuth: {username: {name, key}}`: the Secret's key holding the user's name."""
    out = bodies("servicemonitor.yaml", MONITOR)
    assert "username:key = user" in out and REDACTED not in out, out


def test_a_charts_references_to_existing_secrets_are_kept():
    out = bodies("values.yaml", VALUES)
    assert REDACTED not in out, out
    for value in ("fastly-api-token", "rabbitmq-admin-password", "keycloak-tls", "cluster-example-ca"):
        assert value in out, value


def test_a_generated_value_in_those_places_is_redacted():
    """An existing Secret's key's name, a certificate's Secret, external-secrets' `secretKey` holding a value that
    looks generated: redacted (they are judged by their look, as any name's value is)."""
    for name, text in (("external-secret.yaml", EXTERNAL_SECRET.replace("postgres_replication_password", GENERATED)),
                       ("values.yaml", VALUES.replace("fastly-api-token", GENERATED)),
                       ("values.yaml", VALUES.replace("rabbitmq-admin-password", GENERATED)),
                       ("values.yaml", VALUES.replace("keycloak-tls", GENERATED))):
        out = bodies(name, text)
        assert GENERATED not in out and REDACTED in out, (name, out)


def test_a_secret_key_outside_a_resource_is_still_a_secret():
    """MinIO's chart `secretKey: minio123`, a JWT's `secret: {key: …}`, `jwtSecret: keycloak-tls`: no resource's
    spec, no reference, no certificate's Secret: redacted as before."""
    out = bodies("values.yaml", "minio:\n  accessKey: minio\n  secretKey: minio123\njwt:\n  secret:\n    key: hunter2\n"
                               "auth:\n  jwtSecret: keycloak-tls\n")
    assert "minio123" not in out and "hunter2" not in out and "keycloak-tls" not in out, out


def test_a_repository_secrets_descriptors_are_kept_its_password_is_not():
    """Argo CD's repository Secret: `type`, `url`, `name`, `project` say what it is; `password` is its secret; a
    webhook's URL in a Secret stays one."""
    out = bodies("repo-secret.yaml", REPOSITORY_SECRET.replace("PASSWORD_HERE", GENERATED))
    for value in ("type = helm", "url = https://charts.example.com/stable", "name = private-repo", "project = default"):
        assert value in out, (value, out)
    assert GENERATED not in out, out
    for field in ("teams-webhook-url", "url"):
        hook = REPOSITORY_SECRET.replace("  url: https://charts.example.com/stable",
                                         f"  {field}: https://example.com/hooks/{GENERATED}")
        assert GENERATED not in bodies("repo-secret.yaml", hook), field


def test_a_generated_descriptor_is_redacted():
    """A Secret's `type` or `url` that looks generated is still judged as the Secret's value."""
    out = bodies("repo-secret.yaml", REPOSITORY_SECRET.replace("type: helm", f"type: {GENERATED}"))
    assert GENERATED not in out, out


def test_a_comment_below_a_key_of_a_template_is_text_not_its_value():
    """Comments below `secret:` in a Helm template are kept; a quoted template and a comment after it too."""
    out = bodies("templates/pushsecret.yaml", TEMPLATE)
    assert "did not parse" not in out  # (the note is the chunker's, not a body's)
    assert "kind: ECRAuthorizationToken" in out and "name: prod-registry-credentials" in out, out
    assert "{{ .mysecret }}" in out and "if you are using plain manifests" in out, out


def test_a_secret_in_a_comment_or_before_one_is_redacted():
    """A comment holding a token's form, a quoted password before a comment: redacted."""
    token = "ghp_" + "Zq8vN3xL0pR7tY2wK5mB4cDxq1w2e3r4t5y6"
    text = TEMPLATE.replace("#   name: prod-registry-credentials", f"#   token: {token}").replace(
        "{{ .mysecret }}", GENERATED)
    out = bodies("templates/pushsecret.yaml", text)
    assert token not in out and GENERATED not in out, out
    assert "# if you are using plain manifests" in out, out


def test_a_block_scalars_lines_stay_its_value():
    """A `#` line inside a password's block scalar is part of the value (`password: |` then its lines)."""
    text = "{{- if .Values.x }}\nauth:\n  password: |\n    #Zq8vN3xL0pR7tY2wK5mB4cD\n  user: admin\n{{- end }}\n"
    out = bodies("templates/secret.yaml", text)
    assert "Zq8vN3xL0pR7tY2wK5mB4cD" not in out and "user = admin" in out, out


def test_an_aws_models_http_binding_and_paginator_are_kept():
    """An operation named for credentials: its HTTP binding, its output's wrapper, a paginator's fields; an AWS
    resource's id under an id's name (KMS' examples)."""
    out = bodies("models/apis/chime/2018-05-01/api-2.json", MODEL) + bodies("examples-1.json", EXAMPLES)
    assert REDACTED not in out, [line for line in out.splitlines() if REDACTED in line]
    assert "responseCode = 204" in out and "limit_key = MaxResults" in out and "cks-1234567890abcdef0" in out, out


def test_a_secret_in_an_aws_model_is_still_redacted():
    """A paginator's token that looks generated, an id's name holding a generated value: redacted."""
    out = bodies("api-2.json", MODEL.replace('"input_token": "NextToken"', f'"input_token": "{GENERATED}"'))
    assert GENERATED not in out, out
    out = bodies("examples-1.json", EXAMPLES.replace("cks-1234567890abcdef0", GENERATED))
    assert GENERATED not in out, out
