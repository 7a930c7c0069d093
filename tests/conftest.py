"""Shared fixtures: real git repos in temp dirs, a real ledger home, the model loaded once."""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from ledger_assets.store.ledger import Ledger  # noqa: E402
from ledger_assets.encode.embedder import Embedder  # noqa: E402
from ledger_assets.store.settings import LedgerSettings  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"
RETRIEVAL_FIXTURES = FIXTURES / "retrieval"  # the small travel-desk and billing sources the read-path tests ingest
LOG = logging.getLogger("ledger-tests")


class GitRepo:
    """A real git repository in a temp dir, with scripted commits."""

    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, env: dict | None = None) -> str:
        full_env = {**os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
                    "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com", **(env or {})}
        out = subprocess.run(["git", "-C", str(self.path), *args], capture_output=True, text=True, env=full_env)
        if out.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)}: {out.stderr}")
        return out.stdout.strip()

    def write(self, rel: str, content: str | bytes) -> Path:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
        return target

    def commit(self, message: str = "change", env: dict | None = None) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message, env=env)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")


@pytest.fixture
def git_repo(tmp_path) -> GitRepo:
    return GitRepo(tmp_path / "repo")


@pytest.fixture
def make_repo(tmp_path):
    def make(name: str = "repo") -> GitRepo:
        return GitRepo(tmp_path / name)
    return make


@pytest.fixture
def ledger(tmp_path) -> Ledger:
    """A real ledger (DuckDB file + Qdrant local mode) under a temp LEDGER_HOME."""
    return Ledger(LedgerSettings(home=str(tmp_path / "ledger-home"), lock_timeout_s=60))


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The real MiniLM model, loaded once for the whole test session."""
    emb = Embedder()
    emb.model  # noqa: B018 - load now, once
    return emb


def serve_rows(ledger: Ledger, repo_id: str) -> None:
    """Publish a repo's working rows to the served tables, as promotion's DuckDB half does: for tests of
    the read paths that stop after the snapshot or chunk stage (no points)."""
    from ledger_assets.store.served import publish

    with ledger.db.transaction() as con:
        publish(con, repo_id)


def ingest_core(ledger: Ledger, repo_id: str, embedder: Embedder, run_id: str = "test-run",
                with_enrichment: bool = True) -> dict:
    """Run every stage of the pipeline without Dagster; returns the run summary."""
    from ledger_assets.enrich.order import run_stages

    failed = run_stages(ledger, repo_id, run_id, LOG, embedder, enrichment=with_enrichment).failed_checks()
    assert not failed, failed
    return ledger.db.summary([run_id])


def ingest(ledger: Ledger, repo_id: str, embedder: Embedder) -> None:
    """Every stage but the enrichments (run id "run"): the ingest the read-path tests share."""
    ingest_core(ledger, repo_id, embedder, run_id="run", with_enrichment=False)
