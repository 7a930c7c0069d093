"""What the evaluation benchmarks share: a folder committed as a git repo, and an ingest
that runs the pipeline's stages in-process (no Dagster run) into a given ledger."""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

from ledger_assets.ingest import pipeline, points
from ledger_assets.store.ledger import Ledger
from ledger_assets.encode.embedder import Embedder

LOG = logging.getLogger("benchmarks")


def commit_folder(dest: Path, message: str) -> Path:
    """git init + add + commit of dest, with a fixed author (no user config needed)."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "eval", "GIT_AUTHOR_EMAIL": "eval@example.com",
           "GIT_COMMITTER_NAME": "eval", "GIT_COMMITTER_EMAIL": "eval@example.com"}
    for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", message]):
        subprocess.run(["git", "-C", str(dest), *cmd], check=True, env=env, capture_output=True)
    return dest


def ingest_direct(ledger: Ledger, repo_id: str, run_id: str, embedder: Embedder) -> None:
    """snapshot -> chunk -> intent -> embeddings -> points for one registered repo."""
    for stage in (pipeline.snapshot_stage, pipeline.chunk_stage, pipeline.intent_stage):
        stage(ledger, repo_id, run_id, LOG)
    pipeline.embedding_stage(ledger, repo_id, run_id, LOG, embedder)
    points.points_stage(ledger, repo_id, run_id, LOG)
