"""File-level retrieval on change requests (issue 21): commit subject -> the source files it changed.

    python benchmarks/commit_eval.py NAME=REPO_PATH [NAME=REPO_PATH ...] [--work DIR] [--max N] [--tests]

For each git work tree: `ledger golden REPO --commits --max N` (newest commits first; merges, version
bumps, typo/format/lint/CI/docs chores and test files left out; 1-5 source files a commit) ->
register the repo itself (at HEAD: the index is the repo's HEAD while the commits are older, accepted
practice for such sets) and ingest it with every pipeline stage in a LEDGER_HOME of its own under
--work -> `ledger eval --sweep` at file level (each system's ranking read as distinct files; Acc@k =
any target file among the first k). Reports are kept as WORK/NAME/report.json; a second run reuses
the ingested homes and, with --reuse, the reports.

--tests asks for tests instead (`commit_items(tests=True)`): "tests for" and the subject -> the test files the
commit changed, on the same ingested home (WORK/NAME/golden-tests, report-tests.json). The test prior stands
aside for such a question; what it measures is whether a test is still found when it is what is asked for.

Then leave-one-repo-out: for each repo, the `--group file` settings (decay, RRF k, test prior, docs prior) and
the chunk-level test prior are chosen on the OTHER repos (best mean of Acc@1 + Acc@5) and reported on
it. Prints one table: every set, the fusion, `--group file` (shipped defaults and held-out choice)
and the baselines, all measured in the same run.

The tables in benchmarks/README.md ("commit_eval.py") came from (no GROQ_API_KEY: heuristic intents)

    git clone https://github.com/encode/starlette && git -C starlette checkout cb8f84f5284d
    git clone https://github.com/go-chi/chi && git -C chi checkout 735ae2b87f8c
    git clone https://github.com/jbogard/MediatR mediatr && git -C mediatr checkout 8a64581e2570
    git clone https://github.com/pmndrs/jotai && git -C jotai checkout 1fae77247ae7
    python benchmarks/commit_eval.py starlette=starlette chi=chi mediatr=mediatr jotai=jotai --max 150
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from _direct import ingest_direct  # noqa: E402
from ledger_assets.store.ledger import Ledger  # noqa: E402
from ledger_assets.encode.embedder import Embedder  # noqa: E402
from ledger_assets.evaluation.evaluate import evaluate, format_report  # noqa: E402
from ledger_assets.evaluation.commit_golden import build_commit_golden  # noqa: E402
from ledger_assets.store.settings import LedgerSettings  # noqa: E402

BASELINES = ("bm25_windows", "bm25_ident_windows", "minilm_windows", "rrf_bm25_minilm_windows", "bm25_files",
             "bm25_ident_files")
GROUP_KEYS = ("decay", "rrf_k", "test_prior", "docs_prior")


def run_one(name: str, repo: Path, work: Path, embedder: Embedder, max_items: int, reuse: bool,
            tests: bool = False) -> dict:
    base = work / name
    suffix = "-tests" if tests else ""
    saved = base / f"report{suffix}.json"
    if reuse and saved.is_file():
        return json.loads(saved.read_text(encoding="utf-8"))
    golden = base / f"golden{suffix}" / "golden.jsonl"
    if not golden.is_file():
        build_commit_golden(repo, base / f"golden{suffix}", max_items, tests=tests)
    ledger = Ledger(LedgerSettings.from_env(home=str(base / "home")))
    if name not in ledger.registry.load():
        ledger.registry.add(str(repo.resolve()), name)
    t0 = time.monotonic()
    ingest_direct(ledger, name, f"eval-{int(time.time())}", embedder)
    report = evaluate(ledger, embedder, golden, name, sweep_grid=True)
    report["ingest_s"] = round(time.monotonic() - t0 - report["elapsed_s"], 1)
    saved.write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(format_report(report), flush=True)
    return report


def _score(row: dict) -> float:
    return row["acc@1"] + row["acc@5"]


def choose(reports: dict[str, dict], system: str, keys: tuple[str, ...], on: list[str]) -> tuple:
    """The settings of `system`'s sweep rows with the best mean Acc@1 + Acc@5 over the repos `on`."""
    totals: dict[tuple, float] = {}
    for name in on:
        for row in reports[name]["sweep"]:
            if row["system"] == system:
                key = tuple(row.get(k, 1.0) for k in keys)
                totals[key] = totals.get(key, 0.0) + _score(row)
    return max(totals, key=lambda k: (totals[k], k))


def row_of(report: dict, system: str, keys: tuple[str, ...], values: tuple) -> dict:
    return next(r for r in report["sweep"] if r["system"] == system and tuple(r.get(k, 1.0) for k in keys) == values)


def loro(reports: dict[str, dict]) -> dict[str, dict]:
    out = {}
    names = list(reports)
    for held in names:
        others = [n for n in names if n != held]
        g = choose(reports, "fusion:group_file", GROUP_KEYS, others)
        c = choose(reports, "fusion", ("chunk_test_prior",), others)
        out[held] = {"group_settings": dict(zip(GROUP_KEYS, g)), "chunk_test_prior": c[0],
                     "group": row_of(reports[held], "fusion:group_file", GROUP_KEYS, g),
                     "fusion": row_of(reports[held], "fusion", ("chunk_test_prior",), c)}
    return out


def table(reports: dict[str, dict], held: dict[str, dict]) -> str:
    def cell(m: dict) -> str:
        return f"{m['acc@1']:.3f} / {m['acc@5']:.3f} / {m['acc@10']:.3f}"

    lines = ["| set (queries) | fusion, no test prior (before) | fusion | fusion, held-out test prior "
             "| --group file | --group file, held-out settings | " + " | ".join(BASELINES) + " |",
             "| --- " * (6 + len(BASELINES)) + "|"]
    for name, r in reports.items():
        s = r["systems"]
        before = row_of(r, "fusion", ("chunk_test_prior",), (1.0,))
        lines.append(f"| {name} ({r['queries']}) | {cell(before)} | {cell(s['fusion'])} | {cell(held[name]['fusion'])} | "
                     f"{cell(s['fusion:group_file'])} | {cell(held[name]['group'])} | "
                     + " | ".join(cell(s['baseline:' + b]) for b in BASELINES) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repos", nargs="+", help="NAME=REPO_PATH (a git work tree)")
    ap.add_argument("--work", type=Path, default=None, help="where golden sets, homes and reports go (kept)")
    ap.add_argument("--max", type=int, default=150, help="queries per repo (the newest commits)")
    ap.add_argument("--reuse", action="store_true", help="reuse WORK/NAME/report.json where present")
    ap.add_argument("--tests", action="store_true", help="questions about tests: 'tests for' + subject -> test files")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    work = args.work or Path(tempfile.mkdtemp(prefix="commit-eval-"))
    work.mkdir(parents=True, exist_ok=True)
    embedder = Embedder()
    reports: dict[str, dict] = {}
    for spec in args.repos:
        name, sep, path = spec.partition("=")
        if not sep or not Path(path).is_dir():
            raise SystemExit(f"{spec}: want NAME=REPO_PATH")
        reports[name] = run_one(name, Path(path), work, embedder, args.max, args.reuse, args.tests)
    held = loro(reports) if len(reports) > 1 else {n: {"group_settings": {}, "chunk_test_prior": None,
                                                       "group": r["systems"]["fusion:group_file"],
                                                       "fusion": r["systems"]["fusion"]}
                                                   for n, r in reports.items()}
    for name, h in held.items():
        print(f"{name}: chosen on the others: --group file {h['group_settings']}, chunk test prior "
              f"{h['chunk_test_prior']}")
    print("Acc@1 / Acc@5 / Acc@10 at file level\n" + table(reports, held))
    print(f"work folder: {work}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
