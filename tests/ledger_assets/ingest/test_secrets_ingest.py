"""End to end: a repository holding the secrets corpus (tests/fixtures/secrets/)
goes through the real pipeline (snapshot, chunks, LLM intents through the real
`groq` client against a local server, embeddings, enrichment, Qdrant points),
and no planted value is found anywhere it went: the DuckDB file, every file
under LEDGER_HOME (Qdrant's local folder included), every LLM request body."""

from __future__ import annotations

import json
from pathlib import Path

from ledger_assets.store.ledger import Ledger
from ledger_assets.store.settings import LedgerSettings
from tests.conftest import FIXTURES, ingest_core
from tests.groq_server import GroqTestServer

CORPUS = FIXTURES / "secrets"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
# A subset that keeps the embedding short (about 15 chunks), with every leak of issue 16:
# curl Bearer JWT, docker -e, kubectl --from-literal, export AKIA, CI echo, prose AKIA/ghp_,
# keys in Markdown, in a .pem file split over chunks, in a C# verbatim string and a Python string.
FILES = ["csharp/CloudClients.cs", "ci/deploy.yml", "scripts/deploy.sh", "docs/SETUP.md", "keys/server.pem",
         "python/keys.py", "config/appsettings.json", "sql/users.sql", "go/client.go", "config/Resources.resx"]
PLANTED = sorted({v for e in MANIFEST["planted"] if e["file"] in FILES for v in e["values"]})


def _every_file_under(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def _every_row(ledger: Ledger) -> str:
    """Every value of every table, as text (the DuckDB file may compress strings)."""
    out = []
    with ledger.db.connect() as con:
        tables = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()]
        for table in tables:
            out.extend(repr(row) for row in con.execute(f'SELECT * FROM "{table}"').fetchall())
    return "\n".join(out)


def test_no_planted_secret_reaches_duckdb_qdrant_or_the_llm(tmp_path, make_repo, embedder, monkeypatch):
    repo = make_repo("leaky")
    for name in FILES:
        repo.write(name, (CORPUS / name).read_bytes())
    repo.commit("add services")  # the message holds no secret: git_last_msg is stored too

    with GroqTestServer() as server:
        monkeypatch.setenv("LEDGER_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("GROQ_API_KEY", "test-key")
        monkeypatch.setenv("GROQ_BASE_URL", server.url)
        monkeypatch.delenv("QDRANT_URL", raising=False)
        settings = LedgerSettings.from_env(lock_timeout_s=60, groq_backoff_s=0.001, groq_timeout_s=5.0,
                                           groq_concurrency=2, groq_max_retries=1)
        ledger = Ledger(settings)
        ledger.registry.add(repo.path, "leaky")
        summary = ingest_core(ledger, "leaky", embedder, run_id="secrets")
        bodies = list(server.raw_bodies)

    assert summary["chunks_written"] > 0 and summary["llm_requests"] > 0 and bodies
    stored = _every_file_under(settings.home_path)
    assert settings.duckdb_path.exists() and any(name.startswith("qdrant") for name in stored)
    rows = _every_row(ledger)
    assert "Invalid username or password" in rows and "[REDACTED]" in rows  # the search can find what is there
    assert len(PLANTED) >= 40

    leaks: dict[str, list[str]] = {}  # where -> planted values found there
    for secret in PLANTED:
        raw = secret.encode()
        where = [name for name, data in stored.items() if raw in data]
        where += ["duckdb rows"] if secret in rows else []
        # a request body is JSON: the value as it is, or as json.dumps escapes it
        where += ["llm requests"] if any(secret in b or json.dumps(secret)[1:-1] in b for b in bodies) else []
        for place in where:
            leaks.setdefault(place, []).append(secret)
    assert leaks == {}, {place: (len(found), found[:3]) for place, found in leaks.items()}
