"""Does the keyless heuristic analyser lift the design lane over the placeholder?

    python benchmarks/design_lane_eval.py [--golden benchmarks/golden/design_lane.jsonl] [--lanes design,hybrid]

Builds one git repo from the test fixtures (tests/fixtures/{csharp,python,
typescript,treesitter,sql,retrieval} copied under src/), ingests it twice
without a Groq key — LEDGER_KEYLESS_ANALYSER=heuristic and =none — into two
fresh ledgers, and runs every golden query (paraphrases of what a function
does, written by hand, mostly without its identifiers) on each lane. A hit
counts when its file matches and its line range overlaps the target's.
Prints recall@1/5/10 and MRR@10 per analyser and lane.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from _direct import commit_folder, ingest_direct  # noqa: E402
from ledger_assets.store.ledger import Ledger  # noqa: E402
from ledger_assets.encode.embedder import Embedder  # noqa: E402
from ledger_assets.retrieval.search import search  # noqa: E402
from ledger_assets.store.settings import LedgerSettings  # noqa: E402

FIXTURE_DIRS = ("csharp", "python", "typescript", "treesitter", "sql", "retrieval")


def build_repo(dest: Path) -> Path:
    for name in FIXTURE_DIRS:
        shutil.copytree(ROOT / "tests" / "fixtures" / name, dest / "src" / name)
    return commit_folder(dest, "fixtures")


def ingest(home: Path, repo: Path, analyser: str, embedder: Embedder) -> Ledger:
    """One ledger home for both runs (one repo id per analyser): the code vectors are embedded once."""
    ledger = Ledger(LedgerSettings(home=str(home), groq_api_key="", keyless_analyser=analyser))
    ledger.registry.add(repo, analyser)
    ingest_direct(ledger, analyser, f"eval-{analyser}", embedder)
    return ledger


def score(ledger: Ledger, embedder: Embedder, golden: list[dict], lane: str, repo_id: str) -> dict[str, float]:
    ranks = []
    for g in golden:
        hits = search(ledger, embedder, g["query"], repo=repo_id, k=10, lane=lane)
        rank = next((h.rank for h in hits if h.payload.get("file_path") == g["file"]
                     and h.payload.get("start_line", 0) <= g["end_line"]
                     and h.payload.get("end_line", 0) >= g["start_line"]), None)
        ranks.append(rank)
    n = len(golden)
    return {
        "recall@1": sum(1 for r in ranks if r and r <= 1) / n,
        "recall@5": sum(1 for r in ranks if r and r <= 5) / n,
        "recall@10": sum(1 for r in ranks if r and r <= 10) / n,
        "mrr@10": sum(1 / r for r in ranks if r) / n,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--golden", default=str(ROOT / "benchmarks" / "golden" / "design_lane.jsonl"))
    ap.add_argument("--lanes", default="design,hybrid")
    args = ap.parse_args(argv)
    try:
        golden = [json.loads(line) for line in Path(args.golden).read_text().splitlines() if line.strip()]
    except (OSError, json.JSONDecodeError) as exc:
        print(f"error: {args.golden}: {exc}", file=sys.stderr)
        return 2
    lanes = [x.strip() for x in args.lanes.split(",") if x.strip()]
    embedder = Embedder()
    with tempfile.TemporaryDirectory(prefix="design-eval-") as tmp:
        repo = build_repo(Path(tmp) / "repo-none")
        print(f"{len(golden)} golden queries over {sum(1 for _ in repo.rglob('*') if _.is_file() and '.git' not in _.parts)} files")
        print(f"{'analyser':<10} {'lane':<7} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'MRR@10':>7}")
        for analyser in ("none", "heuristic"):
            repo = repo if analyser == "none" else build_repo(Path(tmp) / f"repo-{analyser}")
            ledger = ingest(Path(tmp) / "home", repo, analyser, embedder)
            for lane in lanes:
                m = score(ledger, embedder, golden, lane, analyser)
                print(f"{analyser:<10} {lane:<7} {m['recall@1']:6.3f} {m['recall@5']:6.3f} "
                      f"{m['recall@10']:6.3f} {m['mrr@10']:7.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
