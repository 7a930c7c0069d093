"""Seventy-sixth round: Authelia and Ory Kratos (real code) read held out after the seventy-fifth round (figures:
benchmarks/secrets_recall.md, round 76). Values made up where a secret is meant."""

from tests.chunkers.redact_asserts import bodies, round_tests


KEPT = [
    # a Go command's help: the flag's type, then its description (Authelia's `authelia storage` docs)
    "      --encryption-key string                 the storage encryption key to use",
    "  -p, --password string   the password to use",
]


REDACTED_CASES = [
    # a flag's value that happens to be a type's name, no help after it
    ("authelia storage migrate --encryption-key string", "string"),
    ("mysql --password string db", "string"),
    ("  --password Zq8fK2pLm9xTv4Rw   the password to use", "Zq8fK2pLm9xTv4Rw"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)


def test_a_json_schema_s_definition_named_for_a_password_describes_its_fields():
    body = bodies("configuration.json", '{"$defs": {"AuthenticationBackendFilePassword": {"properties": {\n'
                  '  "algorithm": {"type": "string", "enum": [\n    "argon2",\n    "scrypt"\n  ]}}},\n'
                  '  "DbPassword": {"type": "string", "default": "Zq8fK2pLm9xTv4RwYb7N"}}}\n')
    assert '"argon2"' in body or "argon2" in body
    assert "scrypt" in body and "Zq8fK2pLm9xTv4RwYb7N" not in body
