"""Sixty-fourth round: OWASP crAPI, a vulnerable API of several services, read held out after the sixty-third
round and before this one (figures: benchmarks/secrets_recall.md, round 64). Its look-alikes kept, its planted
secrets still redacted; values made up where a secret is meant."""

import pytest

from chunkers import chunk_file_result
from chunkers.redact import redact_text

PRIVATE = "XJu0Vh3Uq5gV5UPMCfm_j6D5INgX7VjLSN8mup4LfUBkJAk9vpQmDYF8gVzpMr3YdBk_Y7MI1BapPVg2i"


def _body(name: str, text: str) -> str:
    return "\n".join(piece.body for piece in chunk_file_result(name, text.encode()).pieces)


@pytest.mark.parametrize("name, text, kept", [
    # a JSON Web Key's id
    ("deploy/keys/jwks.json", f'{{"keys": [{{"kid": "MKMZkDenUfuDF2byYowDj7tW5Ox6XG4Y1THTEGScRg8", "d": "{PRIVATE}"}}]}}',
     "kid = MKMZkDenUfuDF2byYowDj7tW5Ox6XG4Y1THTEGScRg8"),
    # a Kubernetes object's labels under a section of secrets (Helm's values for a Secret)
    ("deploy/helm/values.yaml", "identity:\n  jwtKeySecret:\n    labels:\n      app: crapi-identity\n",
     "app = crapi-identity"),
    # a switch under a name that says the password is one's
    ("docker-compose.yml", 'services:\n  mysql:\n    environment:\n      - MYSQL_RANDOM_ROOT_PASSWORD="yes"\n',
     'MYSQL_RANDOM_ROOT_PASSWORD="yes"'),
    ("wercker.yml", "services:\n  - env:\n      MYSQL_ALLOW_EMPTY_PASSWORD: yes\n", "MYSQL_ALLOW_EMPTY_PASSWORD = yes"),
])
def test_a_settings_look_alike_is_kept(name, text, kept):
    body = _body(name, text)
    assert kept in body, body
    assert PRIVATE not in body, body


@pytest.mark.parametrize("line", [
    "export TLS_KEY_ALIAS=identity",
    'new PostgresEnvironment(Map.of("ALLOW_EMPTY_PASSWORD", "yes"));',
    'MYSQL_RANDOM_ROOT_PASSWORD: "yes"',
])
def test_a_free_text_look_alike_is_kept(line):
    assert redact_text(line) == line


@pytest.mark.parametrize("name, text", [
    ("deploy/helm/values.yaml", "identity:\n  jwtKeySecret:\n    data: Wint3rIsHere\n"),
    ("docker-compose.yml", "services:\n  mysql:\n    environment:\n      - MYSQL_PASSWORD=Wint3rIsHere\n"),
    ("docker-compose.yml", "services:\n  mysql:\n    environment:\n      - MYSQL_RANDOM_ROOT_PASSWORD=Wint3rIsHere\n"),
    ("services/identity/.env", "export TLS_KEYSTORE_PASSWORD=Wint3rIsHere\nexport TLS_KEY_ALIAS=identity\n"),
])
def test_a_settings_secret_is_still_redacted(name, text):
    body = _body(name, text)
    assert "Wint3rIsHere" not in body and "[REDACTED]" in body, body


def test_a_password_that_is_a_flag_word_under_a_plain_password_name_is_still_judged_as_before():
    assert "Wint3rIsHere" not in redact_text("MYSQL_PASSWORD: Wint3rIsHere")
    assert redact_text('MYSQL_PASSWORD: "yes"') == 'MYSQL_PASSWORD: "[REDACTED]"'
