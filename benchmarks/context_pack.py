"""Budgeted file recall of the context pack (issue 32) on commit sets, beside two baselines.

    python benchmarks/context_pack.py NAME=REPO_PATH [NAME=REPO_PATH ...] [--work DIR] [--max N]
        [--budgets 2000,4000,8000] [--held-out NAME,...]

For each git work tree: the commit set (`ledger golden --commits --max N`: subject -> source files
changed) and an index of the repo at HEAD, built as benchmarks/commit_eval.py builds them (and reused
from the same WORK folder). Then per query and budget, budgeted file recall = the share of the
commit's changed files of which the pack holds at least one whole chunk, for
  * context: `ledger context` (retrieval/context.py) over the `--group file` ranking;
  * group file: the `--group file` listing (same 30 files), each file's best 3 chunks, packed in order;
  * bm25 files: BM25 over whole indexed files (plain word tokens, and the ledger's identifier-aware
    tokens), each file packed whole in rank order.
Baselines skip what does not fit and go on down their list. Every span is counted with its header
line by MiniLM's tokenizer, as the pack counts itself. Prints one table (mean recall; "ratio" is
context / the better BM25 baseline).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from _direct import ingest_direct  # noqa: E402
from ledger_assets.encode import lexical  # noqa: E402
from ledger_assets.encode.embedder import Embedder  # noqa: E402
from ledger_assets.evaluation.baselines import BM25, fixed_windows, word_tokens  # noqa: E402
from ledger_assets.evaluation.scoring import load_golden  # noqa: E402
from ledger_assets.evaluation.commit_golden import build_commit_golden  # noqa: E402
from ledger_assets.retrieval.context import (DEFAULT_FILES, count_tokens, file_chunks, pack_files,  # noqa: E402
                                             span_header)
from ledger_assets.retrieval.search import Searcher, SearchOptions  # noqa: E402
from ledger_assets.store.ledger import Ledger  # noqa: E402
from ledger_assets.store.settings import FILE_CHUNKS, LedgerSettings  # noqa: E402

SYSTEMS = ("context", "group_file", "bm25_files", "bm25_ident_files")


def prepare(name: str, repo: Path, work: Path, embedder: Embedder, max_items: int) -> tuple[Ledger, Path]:
    base = work / name
    golden = base / "golden" / "golden.jsonl"
    if not golden.is_file():
        build_commit_golden(repo, base / "golden", max_items)
    ledger = Ledger(LedgerSettings(home=str(base / "home")))
    if name not in ledger.registry.load():
        ledger.registry.add(str(repo.resolve()), name)
    with ledger.db.connect() as con:
        have = con.execute("SELECT count(*) FROM chunks WHERE repo_id = ?", [name]).fetchone()[0]
    if not have:
        ingest_direct(ledger, name, f"ctx-{int(time.time())}", embedder)
    return ledger, golden


def greedy(items: list[tuple[str, int]], budget: int) -> set[str]:
    """(file, tokens) in order -> the files of the items that fit, skipping those that do not."""
    used, files = 0, set()
    for path, tokens in items:
        if used + tokens <= budget:
            used += tokens
            files.add(path)
    return files


def run_set(name: str, ledger: Ledger, golden: Path, embedder: Embedder, budgets: list[int]) -> dict:
    targets = load_golden(golden)
    searcher = Searcher(ledger, embedder)
    windows = fixed_windows(ledger, name)
    whole: dict[str, list[str]] = {}
    for (path, _s, _e), text in zip(windows.coords, windows.texts):
        whole.setdefault(path, []).append(text)
    paths = list(whole)
    texts = ["".join(whole[p]) for p in paths]
    lines = [t.count("\n") + (0 if t.endswith("\n") else 1) for t in texts]
    file_tokens = count_tokens(span_header(name, p, 1, n, "file", "chunk") + "\n" + t
                               for p, n, t in zip(paths, lines, texts))
    bm25 = {"bm25_files": (BM25([word_tokens(t) for t in texts]), word_tokens),
            "bm25_ident_files": (BM25([lexical.tokenize(t) for t in texts]), lexical.tokenize)}
    every = file_chunks(ledger, [(name, p) for p in paths])
    recall = {(s, b): 0.0 for s in SYSTEMS for b in budgets}
    used = {(s, b): 0 for s in SYSTEMS for b in budgets}
    held = {(s, b): 0 for s in SYSTEMS for b in budgets}  # files with a whole chunk in the pack
    t0 = time.monotonic()
    with searcher.session():
        for t in targets:
            changed = set(t.files)
            files = searcher.search_files(t.query, SearchOptions(repo=name, k=DEFAULT_FILES, group="file",
                                                                 check_stale=False))
            listing = []
            for f in files:
                for h in f.chunks[:FILE_CHUNKS]:
                    p = h.payload
                    body = span_header(name, f.file_path, p.get("start_line"), p.get("end_line"),
                                       p.get("chunk_type"), "chunk") + "\n" + p.get("content", "")
                    listing.append((f.file_path, body))
            listing_tokens = count_tokens(b for _, b in listing)
            ranked = {s: [i for i in index.top(tok(t.query), len(paths))] for s, (index, tok) in bm25.items()}
            for b in budgets:
                pack = pack_files(files, b, lambda keys: {k: every.get(k, []) for k in keys}, t.query, name,
                                  decay=searcher.group_shape(t.query)[0])
                got = {"context": {s.file_path for s in pack.spans if s.kind == "chunk"},
                       "group_file": greedy([(p, n) for (p, _), n in zip(listing, listing_tokens)], b)}
                used[("context", b)] += pack.tokens
                for s, order in ranked.items():
                    got[s] = greedy([(paths[i], file_tokens[i]) for i in order], b)
                for s in SYSTEMS:
                    recall[(s, b)] += len(changed & got[s]) / len(changed)
                    held[(s, b)] += len(got[s])
    n = len(targets)
    return {"queries": n, "recall": {f"{s}@{b}": round(v / n, 3) for (s, b), v in recall.items()},
            "context_tokens": {b: round(used[("context", b)] / n) for b in budgets},
            "files_held": {f"{s}@{b}": round(v / n, 1) for (s, b), v in held.items()},
            "files": len(paths), "median_file_tokens": sorted(file_tokens)[len(file_tokens) // 2],
            "elapsed_s": round(time.monotonic() - t0, 1)}


def table(results: dict[str, dict], budgets: list[int], held_out: set[str]) -> str:
    rows = ["| set (queries) | budget | context pack | --group file, best chunks | BM25 whole files | "
            "BM25 whole files, ident tokens | ratio to best BM25 | files held (same order) |", "| --- " * 8 + "|"]
    for name, r in results.items():
        label = f"{name}{' (held out)' if name in held_out else ''} ({r['queries']})"
        for b in budgets:
            v = {s: r["recall"][f"{s}@{b}"] for s in SYSTEMS}
            best = max(v["bm25_files"], v["bm25_ident_files"])
            ratio = f"{v['context'] / best:.2f}x" if best else "-"
            held = " / ".join(f"{r['files_held'][f'{s}@{b}']:.1f}" for s in SYSTEMS)
            rows.append(f"| {label} | {b} | {v['context']:.3f} | {v['group_file']:.3f} | {v['bm25_files']:.3f} | "
                        f"{v['bm25_ident_files']:.3f} | {ratio} | {held} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repos", nargs="+", help="NAME=REPO_PATH (a git work tree)")
    ap.add_argument("--work", type=Path, default=None, help="golden sets and ledger homes (kept, reused)")
    ap.add_argument("--max", type=int, default=150, help="queries per repo (the newest commits)")
    ap.add_argument("--budgets", default="2000,4000,8000", help="token budgets, comma-separated")
    ap.add_argument("--held-out", default="", help="sets not looked at while choosing the pack's rules")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    work = args.work or Path(tempfile.mkdtemp(prefix="context-pack-"))
    work.mkdir(parents=True, exist_ok=True)
    embedder = Embedder()
    results = {}
    for spec in args.repos:
        name, sep, path = spec.partition("=")
        if not sep or not Path(path).is_dir():
            raise SystemExit(f"{spec}: want NAME=REPO_PATH")
        ledger, golden = prepare(name, Path(path), work, embedder, args.max)
        results[name] = run_set(name, ledger, golden, embedder, budgets)
        r = results[name]
        print(f"{name}: {r['queries']} queries, {r['files']} files (median {r['median_file_tokens']} tokens), "
              f"context tokens used {r['context_tokens']}, {r['elapsed_s']}s", flush=True)
    print("budgeted file recall (share of a commit's changed files with at least one whole chunk in the pack)")
    print(table(results, budgets, {n for n in args.held_out.split(",") if n}))
    print(f"work folder: {work}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
