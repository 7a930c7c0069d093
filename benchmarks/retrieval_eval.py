"""Retrieval figures (issue 6) on golden sets built from subtrees of a codebase we did not write.

    python benchmarks/retrieval_eval.py SRC_ROOT SUBTREE [SUBTREE ...] [--work DIR] [--sweep]

For each SUBTREE of SRC_ROOT (e.g. the `src` folder of a dotnet/efcore
checkout, subtrees `EFCore/Storage EFCore.Relational/Storage`): copy it into a
fresh git repo -> `ledger golden` (queries = unique first doc sentences, doc
comments blanked in the indexed copy) -> register and ingest the copy with
every pipeline stage, in a LEDGER_HOME of its own under --work -> `ledger eval`
(each lane, the fusion and the window baselines in the same run). Prints each
report and one summary table. A second run with the same --work reuses the
ingested homes (an unchanged repo writes nothing), so only the eval is repeated.

The figures in benchmarks/README.md ("retrieval_eval.py") came from

    python benchmarks/retrieval_eval.py /path/to/efcore/src EFCore/Storage \\
        EFCore.Relational/Storage EFCore.Relational/Update EFCore/Infrastructure

(no GROQ_API_KEY: heuristic intents).
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from _direct import commit_folder, ingest_direct  # noqa: E402
from ledger_assets.store.ledger import Ledger  # noqa: E402
from ledger_assets.encode.embedder import Embedder  # noqa: E402
from ledger_assets.evaluation.evaluate import evaluate, format_report  # noqa: E402
from ledger_assets.evaluation.golden import build_golden  # noqa: E402
from ledger_assets.store.settings import LedgerSettings  # noqa: E402

def slug(subtree: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", subtree.lower()).strip("-")[:60] or "root"


def git_repo_of(src_root: Path, subtree: str, dest: Path) -> Path:
    """SRC_ROOT/SUBTREE copied to dest/src/SUBTREE and committed (paths keep the subtree prefix)."""
    if (dest / ".git").is_dir():
        return dest
    source = src_root / subtree
    if not source.is_dir():
        raise SystemExit(f"{source}: not a folder")
    shutil.copytree(source, dest / "src" / subtree)
    return commit_folder(dest, f"{subtree} for the golden set")


def run_one(src_root: Path, subtree: str, work: Path, embedder: Embedder, sweep: bool) -> dict:
    base = work / slug(subtree)
    repo = git_repo_of(src_root, subtree, base / "source")
    golden_dir = base / "golden"
    if not (golden_dir / "golden.jsonl").is_file():
        build_golden(str(repo), str(golden_dir))
    golden = golden_dir / "golden.jsonl"
    ledger = Ledger(LedgerSettings.from_env(home=str(base / "home")))
    repo_id = slug(subtree)
    if repo_id not in ledger.registry.load():
        ledger.registry.add(str(golden_dir / "repo"), repo_id)
    t0 = time.monotonic()
    ingest_direct(ledger, repo_id, f"eval-{int(time.time())}", embedder)
    ingest_s = time.monotonic() - t0
    report = evaluate(ledger, embedder, golden, repo_id, sweep_grid=sweep)
    report["ingest_s"] = round(ingest_s, 1)
    report["subtree"] = subtree
    print(format_report(report), flush=True)
    print(f"(ingest {ingest_s:.1f}s)\n", flush=True)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src_root", type=Path)
    ap.add_argument("subtrees", nargs="+")
    ap.add_argument("--work", type=Path, default=None, help="where repos, golden sets and homes go (kept)")
    ap.add_argument("--sweep", action="store_true", help="also print the top of the fusion grid")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    work = args.work or Path(tempfile.mkdtemp(prefix="retrieval-eval-"))
    work.mkdir(parents=True, exist_ok=True)
    embedder = Embedder()
    reports = [run_one(args.src_root, s, work, embedder, args.sweep) for s in args.subtrees]
    print(f"{'subtree':<32} {'queries':>7} {'R@1':>6} {'R@5':>6} {'MRR@10':>7}  fusion R@1 / baseline R@1")
    for r in reports:
        f = r["systems"]["fusion"]
        ratios = ", ".join(f"{n} {v}" for n, v in r.get("fusion_vs_baseline_r1", {}).items())
        print(f"{r['subtree']:<32} {r['queries']:>7} {f['recall@1']:>6.3f} {f['recall@5']:>6.3f} "
              f"{f['mrr@10']:>7.3f}  {ratios}")
    print(f"work folder: {work}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
