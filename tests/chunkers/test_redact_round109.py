"""Hundred-and-ninth round: external-secrets' data item read as text (a manifest in a document, a template read line
by line): `- secretKey: db-password` names the target Secret's key (figures: benchmarks/secrets_recall.md, round
109). Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import GENERATED, assert_kept, round_tests

KEPT = [
    "  - secretKey: username",
    "  - secretKey: db-admin-password # Key given to the secret to be created on the cluster",
    '- secretKey: "APP_PROPERTIES"',
    "    - secretKey: tls.crt",
]

REDACTED_CASES = [
    # a generated value, a key's form, a value under `secretKey` that is no list item's first key (MinIO's chart)
    (f"  - secretKey: {GENERATED}", GENERATED),
    ("  - secretKey: ghp_Zq8vN3xL0pR7tY2wK5mB4cDxq1w2e3r4t5y6", "ghp_Zq8vN3xL0pR7tY2wK5mB4cDxq1w2e3r4t5y6"),
    ("  secretKey: minio123", "minio123"),
    ("  - accessKey: console\n    secretKey: console123", "console123"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_an_age_recipient_and_an_environment_tag_are_kept_in_settings():
    """SOPS' `.sops.yaml` lists its age recipients (public keys) under `keys`; Recyclarr reads a key from the
    environment with a YAML tag. An age private key stays redacted. (Read in the held-out GitOps repositories.)"""
    from chunkers.redact import REDACTED
    from tests.chunkers.redact_asserts import bodies

    recipient = "age1hawjtl6fm5czl8cun0ve7jvsmpqpn3qlxl2lnx7ndt7682tmva2qz3drfe"
    out = bodies(".sops.yaml", f"keys:\n  - &user_flux {recipient}\ncreation_rules:\n  - path_regex: .*\\.sops\\.ya?ml\n"
                               f"    age: {recipient}\n")
    assert REDACTED not in out and recipient in out, out
    out = bodies("recyclarr.yml", "sonarr:\n  series:\n    base_url: http://sonarr:8989\n"
                                  "    api_key: !env_var SONARR_API_KEY\n")
    assert "api_key = SONARR_API_KEY" in out, out
    # (as text, a document's example or a template: the tag and the variable's name)
    assert_kept("    api_key: !env_var SONARR_API_KEY")
    private = "AGE-SECRET-KEY-1QQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQQPZRY9X8GF2TVDW0S3JN54KHCE"
    assert private not in bodies("keys.yaml", f"keys:\n  - {private}\n")
