"""How much of the index one small change rewrites: points written over points total, and why.

    python benchmarks/incremental.py [PATH] [--home DIR] [--seed 7] [--max-share 0.05]

PATH (default: this repository) is copied into a temp git repo and ingested through the core
stages (as `ledger ingest` runs them, without Dagster); then one commit edits 3 source files
(a line appended to a function body's file), deletes 3, renames 1 and adds 1, and the repo is
ingested again. Printed: points total, points written (new vectors or a rewritten payload),
how many of those belong to the touched files, and for the rest which payload fields changed
(the enrichment fields that shift when anything changes are what this measures). Target (issue
19): at most 5% of the points rewritten. Exit 0 when met, 1 when not.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ledger_assets.encode.embedder import Embedder  # noqa: E402
from ledger_assets.enrich.order import run_stages  # noqa: E402
from ledger_assets.ingest import points  # noqa: E402
from ledger_assets.store.git import NO_TIMEOUT, run as git_run  # noqa: E402
from ledger_assets.store.ledger import Ledger  # noqa: E402
from ledger_assets.store.qdrant import repo_filter  # noqa: E402
from ledger_assets.store.settings import LedgerSettings  # noqa: E402

LOG = logging.getLogger("incremental")
SOURCE_EXT = (".py", ".cs", ".ts", ".js", ".go", ".java", ".sql")
VOLATILE = ("indexed_utc", "indexed_sha", "fingerprint")


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "b@example.com"}
    return git_run(repo, *args, env=env, timeout=NO_TIMEOUT).stdout.decode()


def ingest(ledger: Ledger, embedder: Embedder, run_id: str) -> points.PointsReport:
    return run_stages(ledger, "bench", run_id, LOG, embedder).reports["qdrant_points"]


def payloads(ledger: Ledger) -> dict[tuple[str, int], dict]:
    with ledger.qdrant.open() as client:
        return {(p.payload["file_path"], p.payload["chunk_index"]): p.payload
                for p in ledger.qdrant.scroll(client, repo_filter("bench", latest_only=True), True)}


def change(repo: Path, seed: int) -> set[str]:
    """3 edited, 3 deleted, 1 renamed, 1 new source file; returns the paths touched (old and new)."""
    files = sorted(p for p in git(repo, "ls-files").split("\n") if p.endswith(SOURCE_EXT))
    rng = random.Random(seed)
    picked = rng.sample(files, 7)
    edited, deleted, renamed = picked[:3], picked[3:6], picked[6]
    for rel in edited:
        with open(repo / rel, "a", encoding="utf-8") as fh:
            fh.write("\n# touched by benchmarks/incremental.py\n" if rel.endswith(".py") else "\n// touched\n")
    for rel in deleted:
        git(repo, "rm", "-q", rel)
    moved = str(Path(renamed).with_name("moved_" + Path(renamed).name))
    git(repo, "mv", renamed, moved)
    new = "bench_new_module.py"
    (repo / new).write_text('def brand_new(x):\n    """A new function."""\n    return x * 2\n', encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "small change")
    return {*edited, *deleted, renamed, moved, new}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path", nargs="?", default=str(Path(__file__).resolve().parents[1]))
    ap.add_argument("--home", help="ledger home (default: a temp dir)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--max-share", type=float, default=0.05)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ledger-incremental-"))
    repo = work / "repo"
    shutil.copytree(args.path, repo, ignore=shutil.ignore_patterns(".git", ".venv", ".ledger", "__pycache__",
                                                                    "*.egg-info", "node_modules"))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    ledger = Ledger(LedgerSettings(home=args.home or str(work / "home"), lock_timeout_s=120))
    ledger.registry.add(repo, "bench")
    embedder = Embedder()
    first = ingest(ledger, embedder, "first")
    before = payloads(ledger)
    touched = change(repo, args.seed)
    second = ingest(ledger, embedder, "second")
    after = payloads(ledger)
    rewritten = [k for k, p in after.items()
                 if k not in before or {f: v for f, v in p.items() if f not in VOLATILE}
                 != {f: v for f, v in before[k].items() if f not in VOLATILE}]
    mine = [k for k in rewritten if k[0] in touched or k not in before]
    others = [k for k in rewritten if k not in mine]
    fields = Counter(f for k in others for f in set(after[k]) | set(before[k])
                     if f not in VOLATILE and after[k].get(f) != before[k].get(f))
    share = second.written / max(1, len(after))
    print(f"first ingest: {first.points_total} points; change: {len(touched)} paths touched")
    print(f"second ingest: {second.written} points written of {len(after)} ({share:.1%}), "
          f"{second.deleted} deleted; {len(mine)} rewritten in touched files, {len(others)} elsewhere")
    for field, n in fields.most_common():
        print(f"  {field}: changed on {n} points outside the touched files")
    print(f"target <= {args.max_share:.0%}: {'met' if share <= args.max_share else 'MISSED'}")
    shutil.rmtree(work, ignore_errors=True)
    return 0 if share <= args.max_share else 1


if __name__ == "__main__":
    sys.exit(main())
