"""What the evaluation benchmarks share: a folder committed as a git repo, and an ingest
that runs the pipeline's stages in-process (no Dagster run) into a given ledger."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from ledger_assets.enrich.order import run_stages
from ledger_assets.store import git
from ledger_assets.store.ledger import Ledger
from ledger_assets.encode.embedder import Embedder

LOG = logging.getLogger("benchmarks")


def commit_folder(dest: Path, message: str) -> Path:
    """git init + add + commit of dest, with a fixed author (no user config needed)."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "eval", "GIT_AUTHOR_EMAIL": "eval@example.com",
           "GIT_COMMITTER_NAME": "eval", "GIT_COMMITTER_EMAIL": "eval@example.com"}
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", message]):
        git.run(dest, *cmd, env=env, timeout=git.NO_TIMEOUT)
    return dest


def ingest_direct(ledger: Ledger, repo_id: str, run_id: str, embedder: Embedder) -> None:
    """snapshot -> chunk -> intent -> embeddings -> points for one registered repo (no enrichment)."""
    run_stages(ledger, repo_id, run_id, LOG, embedder, enrichment=False)
