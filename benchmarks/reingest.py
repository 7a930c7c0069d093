"""The no-op gate: a second `ledger ingest` of an unchanged repo against the first.

    python benchmarks/reingest.py [PATH] [--id ID] [--home DIR] [--keep] [--max-ratio 0.10] [--format text|json]

Runs what a user runs, the `ledger` CLI (`python -m ledger_assets.cli`, the
console script's entry point), as subprocesses on a fresh LEDGER_HOME:
`add-repo PATH`, then `ingest ID --format json` twice. Each ingest is timed
from process start to exit (imports, Dagster, model loading included) and its
JSON summary kept. PATH defaults to this project's repository; any git work
tree or plain folder works (a fetched checkout of a bigger repo reaches the
few-thousand-chunk scale the target is stated for).

The gate: the second run writes 0 points (`chunks_written`) and computes 0
embeddings, and its wall time is under --max-ratio of the first's (target
10%). Exit 0 when both hold, 1 when not, 2 on bad input.

The embedded defaults only: QDRANT_URL/QDRANT_API_KEY are dropped (a fresh run
must not touch a shared server) and GROQ_API_KEY too (the first run would pay
for an LLM call per chunk); intents come from the keyless analyser.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LEDGER = [sys.executable, "-m", "ledger_assets.cli"]
DROPPED_ENV = ("QDRANT_URL", "QDRANT_API_KEY", "GROQ_API_KEY", "GROQ_BASE_URL", "DAGSTER_HOME")
SHOWN = ("files_scanned", "chunks_written", "chunks_skipped", "chunks_deleted", "embeddings_computed",
         "intent_skipped", "llm_requests", "elapsed_s", "wall_s")


def run(env: dict, *args: str) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.perf_counter()
    out = subprocess.run([*LEDGER, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    return out, time.perf_counter() - t0


def ingest(env: dict, repo_id: str, label: str) -> tuple[dict, float]:
    out, wall = run(env, "ingest", repo_id, "--format", "json")
    if out.returncode != 0:
        sys.stderr.write(out.stderr[-4000:])
        raise SystemExit(f"reingest: the {label} ingest failed with exit {out.returncode}")
    return json.loads(out.stdout.strip().splitlines()[-1]), wall


def chunk_count(home: Path, repo_id: str) -> int:
    import duckdb

    with duckdb.connect(str(home / "ledger.duckdb"), read_only=True) as con:
        return con.execute("SELECT count(*) FROM chunks WHERE repo_id = ?", [repo_id]).fetchone()[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="?", default=str(ROOT), help="repo to ingest (default: this project)")
    ap.add_argument("--id", default="bench", help="repo id to register it under (default: bench)")
    ap.add_argument("--home", help="LEDGER_HOME to use; must not exist yet (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the ledger home afterwards")
    ap.add_argument("--max-ratio", type=float, default=0.10, help="no-op / first wall time target (default 0.10)")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    args = ap.parse_args(argv)

    repo = Path(args.path).expanduser()
    if not repo.is_dir():
        print(f"reingest: {args.path}: not a directory", file=sys.stderr)
        return 2
    if args.home and Path(args.home).exists():
        print(f"reingest: --home {args.home} already exists; the first ingest must start from nothing",
              file=sys.stderr)
        return 2
    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="ledger-reingest-")) / "home"
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env.update(LEDGER_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")

    try:
        added, _ = run(env, "add-repo", str(repo.resolve()), "--id", args.id)
        if added.returncode != 0:
            print(added.stderr.strip(), file=sys.stderr)
            return 2
        first, first_wall = ingest(env, args.id, "first")
        chunks = chunk_count(home, args.id)
        second, second_wall = ingest(env, args.id, "second")
    finally:
        if not args.keep:
            shutil.rmtree(home.parent if not args.home else home, ignore_errors=True)

    ratio = second_wall / first_wall if first_wall else float("inf")
    stage_ratio = second["elapsed_s"] / first["elapsed_s"] if first["elapsed_s"] else float("inf")
    zero_work = second["chunks_written"] == 0 and second["embeddings_computed"] == 0
    passed = zero_work and ratio < args.max_ratio
    report = {
        "repo": str(repo.resolve()), "chunks": chunks,
        "via": "ledger CLI (python -m ledger_assets.cli ingest --format json)",
        "first": {**{k: first[k] for k in SHOWN}, "process_s": round(first_wall, 2)},
        "second": {**{k: second[k] for k in SHOWN}, "process_s": round(second_wall, 2)},
        "ratio": round(ratio, 4), "stage_ratio": round(stage_ratio, 4), "max_ratio": args.max_ratio,
        "zero_work": zero_work, "passed": passed,
    }
    if args.format == "json":
        print(json.dumps(report))
    else:
        print(f"repo      {report['repo']}  ({chunks} chunks; timed through the ledger CLI)")
        print(f"{'':<22}{'first':>12}{'second':>12}")
        for key in (*SHOWN, "process_s"):
            print(f"{key:<22}{report['first'][key]:>12}{report['second'][key]:>12}")
        print(f"no-op / first, process wall time: {100 * ratio:.1f}%  (target < {100 * args.max_ratio:.0f}%)")
        print(f"no-op / first, summed stage time: {100 * stage_ratio:.1f}%")
        print(f"second run wrote {second['chunks_written']} points and computed "
              f"{second['embeddings_computed']} embeddings -> {'PASS' if passed else 'FAIL'}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
