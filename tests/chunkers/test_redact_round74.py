"""Seventy-fourth round: traefik and JupyterHub (real code), vulhub and Damn Vulnerable Bank read held out after the
seventy-third round (figures: benchmarks/secrets_recall.md, round 74). Values made up where a secret is meant."""

from chunkers.redact import redact_text
from tests.chunkers.redact_asserts import bodies, round_tests

# a self-signed certificate's PEM (public by definition), and its base64 as a Secret's data holds it
CERT = ("-----BEGIN CERTIFICATE-----\n"
        "MIIB9TCCAWACAQAwgbgxGTAXBgNVBAoMEFF1b1ZhZGlzIExpbWl0ZWQxHDAaBgNV\n"
        "BAsME0RvY3VtZW50IERlcGFydG1lbnQxOTA3BgNVBAMMMFdoeSBhcmUgeW91IGRl\n"
        "-----END CERTIFICATE-----")
CERT_B64 = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0="
KEY_B64 = "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCi0tLS0tRU5EIFBSSVZBVEUgS0VZLS0tLS0="


KEPT = [
    # a Python entry point under a secret-named entry (JupyterHub's pyproject.toml)
    'shared-password = "jupyterhub.authenticators.shared:SharedPasswordAuthenticator"',
    # where a secret comes from
    "    secret_from = 'env'",
    "if secret_file and secret_from == 'new':",
    # a flag turning the password off takes no value (adduser's)
    '    adduser -q --gecos "" --home /customhome/river --disabled-password river',
    # a message's key in dots naming the secret (Spring's validator, in vulhub)
    'errors.rejectValue("repeatedPassword", "user.password.no-match");',
    # a Digest header's user name, no response after it (vulhub's appweb README)
    "Authorization: Digest username=admin",
]


REDACTED_CASES = [
    # a user and a password look like no entry point: one dot, one word after the colon
    ('password = "db.local:Secret"', "db.local:Secret"),
    # a value after a password flag, and a Digest header's value that is no parameter
    ("mysql --password Sn0wfall2024 db", "Sn0wfall2024"),
    ("Authorization: Digest Zq8fK2pLm9xTv4Rw", "Zq8fK2pLm9xTv4Rw"),
    # a secret's word after the word saying where one comes from
    ('secret_source_token = "Zq8fK2pLm9xTv4Rw"', "Zq8fK2pLm9xTv4Rw"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def _secret_manifest(data: str) -> str:
    return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\n" + data


def test_a_kubernetes_secret_s_certificate_is_kept_and_its_key_redacted():
    block = "\n".join("    " + line for line in CERT.split("\n"))
    text = _secret_manifest("stringData:\n  ca: |-\n" + block + "\n  key: |-\n    Zq8fK2pLm9xTv4RwYb7NcQe3sLp\n")
    out = redact_text(text)
    assert "MIIB9TCCAWACAQAwgbgxGTAXBgNVBAoMEFF1b1ZhZGlzIExpbWl0ZWQxHDAaBgNV" in out
    assert "Zq8fK2pLm9xTv4RwYb7NcQe3sLp" not in out
    text = _secret_manifest(f"data:\n  tls.crt: {CERT_B64}\n  tls.key: {KEY_B64}\n")
    out = redact_text(text)
    assert CERT_B64 in out and KEY_B64 not in out
    body = bodies("secret.yaml", text)
    assert CERT_B64 in body and KEY_B64 not in body


def test_a_certificate_s_der_in_base64_is_kept_in_an_android_resource():
    der = "MIIEqDCCA5CgAwIBAgIJANWFuGx90071MA0GCSqGSIb3DQEBBAUAMIGUMQswCQYDVQQGEwJVUzETMBEGA1UECBMK"
    private = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDGOAH9yzseDdf4"
    body = bodies("res/values/font_certs.xml", '<resources>\n'
                  f'  <string-array name="com_google_android_gms_fonts_certs_dev"><item>{der}</item></string-array>\n'
                  f'  <string name="signing_key">{private}</string>\n</resources>\n')
    assert der in body and private not in body


def test_a_crd_s_schema_under_a_field_named_for_secrets_is_kept():
    body = bodies("crd.yaml", "spec:\n  versions:\n  - schema:\n      openAPIV3Schema:\n        properties:\n"
                  "          imagePullSecrets:\n            items:\n              x-kubernetes-map-type: atomic\n"
                  "            x-kubernetes-list-type: map\n"
                  "          apiSecret:\n            default: Zq8fK2pLm9xTv4RwYb7N\n")
    assert "atomic" in body and "map" in body
    assert "Zq8fK2pLm9xTv4RwYb7N" not in body
