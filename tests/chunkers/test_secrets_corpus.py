"""Secrets found by their form, everywhere, precisely: a corpus of planted fake
secrets and of values that only look like secrets, across languages and formats
(tests/fixtures/secrets/, listed in its manifest.json).

Recall: no planted value survives in any chunk's text, analysis_text, skeleton,
header or symbols. Precision: every look-alike is still there. Run with `-s` to
see the figures:

    HF_HUB_OFFLINE=1 .venv/bin/python -m pytest -q -s tests/chunkers/test_secrets_corpus.py
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest

from chunkers import chunk_file
from chunkers.redact import REDACTED, redact_text

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "secrets"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
FILES = sorted({e["file"] for e in MANIFEST["planted"] + MANIFEST["lookalikes"]})


def fields(piece) -> list[str]:
    return [piece.text, piece.analysis_text, piece.skeleton, piece.header,
            *(s.name for s in piece.symbols), *(s.parent for s in piece.symbols)]


@lru_cache(maxsize=None)
def chunked(name: str) -> str:
    """Every field of every chunk of one corpus file, joined."""
    pieces = chunk_file(name, (CORPUS / name).read_bytes())
    assert pieces, name
    return "\n".join(f for p in pieces for f in fields(p))


def test_the_corpus_is_large_and_varied():
    assert len(MANIFEST["planted"]) >= 100 and len(MANIFEST["lookalikes"]) >= 100
    kinds = {e["kind"] for e in MANIFEST["planted"]}
    assert {"aws_key_id", "github_token", "github_pat", "slack", "slack_webhook", "stripe", "google_api_key", "jwt",
            "bearer", "basic_auth", "docker_env", "k8s_literal", "export", "kwarg_password", "private_key"} <= kinds
    suffixes = {Path(f).suffix or Path(f).name for f in FILES}
    assert {".cs", ".py", ".ts", ".js", ".yml", ".yaml", "Dockerfile", ".sh", ".md", ".json", ".env", ".ini", ".sql",
            ".pem", ".resx", ".go", ".java"} <= suffixes
    for entry in MANIFEST["planted"] + [{"file": e["file"], "values": [e["value"]]} for e in MANIFEST["lookalikes"]]:
        text = (CORPUS / entry["file"]).read_text(encoding="utf-8")
        assert all(v in text for v in entry["values"]), entry  # the fixture still holds what it plants


def test_recall_is_total_and_no_look_alike_is_lost():
    leaked = [(e["file"], e["kind"], [v for v in e["values"] if v in chunked(e["file"])])
              for e in MANIFEST["planted"]]
    leaked = [entry for entry in leaked if entry[2]]
    lost = [(e["file"], e["value"], e["why"]) for e in MANIFEST["lookalikes"] if e["value"] not in chunked(e["file"])]
    planted, alike = len(MANIFEST["planted"]), len(MANIFEST["lookalikes"])
    print(f"\nsecrets corpus: recall {planted - len(leaked)}/{planted} planted secrets, "
          f"false positives {len(lost)}/{alike} look-alikes, {len(FILES)} files")
    assert leaked == [], leaked
    assert lost == [], lost


@pytest.mark.parametrize("name", FILES)
def test_redaction_keeps_every_line_and_is_idempotent(name):
    text = (CORPUS / name).read_text(encoding="utf-8")
    once = redact_text(text)
    assert once.count("\n") == text.count("\n")  # coordinates stay exact
    assert redact_text(once) == once


def test_a_key_file_split_over_several_chunks_is_redacted_in_each():
    data = (CORPUS / "keys" / "server.pem").read_bytes()
    pieces = chunk_file("keys/server.pem", data)
    assert len(pieces) >= 2  # a 60-line key: the plain chunker windows it
    body = data.decode().splitlines()[1:-1]
    for piece in pieces:
        assert not any(line in piece.text for line in body)
        assert piece.text.count(REDACTED) == piece.end_line - piece.start_line + 1 - sum(
            1 for line in piece.text.splitlines() if line.startswith("-----"))
    assert redact_text("\n".join(body[10:20])) == "\n".join(body[10:20])  # lines alone are not a key


# The twelve leaks of issue 16, one line each.
@pytest.mark.parametrize("line, secret", [
    ('curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlIn0.c2lnbmF0dXJlRkFLRQ" https://x',
     "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlIn0.c2lnbmF0dXJlRkFLRQ"),
    ("docker run -e DB_PASSWORD=FakeDocker9 -e POSTGRES_DB=app postgres", "FakeDocker9"),
    ("kubectl create secret generic db --from-literal=password=FakeK8s9", "FakeK8s9"),
    ("export AWS_ACCESS_KEY_ID=AKIAFAKEEXAMPLE00001", "AKIAFAKEEXAMPLE00001"),
    ('boto3.client("s3", aws_access_key_id="AKIAFAKEEXAMPLE00002")', "AKIAFAKEEXAMPLE00002"),
    ('h = {"Authorization": "token ghp_FakeTokenForTests0001012345678ABCDEFGH"}',
     "ghp_FakeTokenForTests0001012345678ABCDEFGH"),
    ("        run: echo AKIAFAKEEXAMPLE00003", "AKIAFAKEEXAMPLE00003"),
    ("The key AKIAFAKEEXAMPLE00004 is in the vault.", "AKIAFAKEEXAMPLE00004"),
])
def test_the_leaks_of_the_issue_are_closed(line, secret):
    out = redact_text(line)
    assert secret not in out and REDACTED in out


@pytest.mark.parametrize("line", [
    'public const string UserAccessToken = "user_token";',
    'private const string ID_TOKEN_KEY = "id_token";',
    'public const string InvalidCredentialsErrorMessage = "Invalid username or password";',
    'public const string ApiKeyHeaderName = "X-Api-Key";',
    'password = "${DB_PASSWORD}"',
    'api_key = "<your-api-key>"',
    "token = ' '",
    'SECRET = "secret"  # masked / password input',
    'curl -H "Authorization: Bearer $TOKEN" https://x',
    "Authorization: Bearer <token>",
    "docker run -e DB_PASSWORD=$DB_PASSWORD -e LOG_LEVEL=debug app",
    "kubectl create configmap app --from-literal=mode=fast",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN CERTIFICATE-----\n" + "A" * 64 + "\n-----END CERTIFICATE-----",
    'Password: see the vault entry for the database',
    "const passwordLabel = 'Enter password';",
])
def test_precision_names_phrases_placeholders_references(line):
    assert redact_text(line) == line
