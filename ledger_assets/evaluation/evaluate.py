"""`ledger eval`: recall@1/5/10 and MRR@10 per lane, for the fusion, and for the baselines.

golden.jsonl -> for each query: the four stored lanes once (depth 50), and the
name lane over their candidates -> each lane alone, and the fusion, ranked as
`ledger query` ranks them -> in the same run
the baselines a user would try first: fixed 3,000-character windows of every
indexed file, embedded with the same model, and BM25 over the same windows
(plain word tokens, and the ledger's identifier-aware tokens).

A hit counts when its file matches the target's and the line ranges overlap.
Beside recall, `lines_read`: the lines a reader goes through, result by result,
until the first hit (at most K_MAX results; a miss reads all of them), averaged
over the queries. The product's promise is the answer at a fraction of the tokens,
and recall by overlap alone would rank a whole-file answer as high as the member.

File level (a golden set of `{"query", "files": [...]}` lines, `ledger golden --commits`): every
system's ranking is read as its distinct files (a file counts once, where it first appears in rank
order) and Acc@k is the share of queries with any target file among the first k files. Beside the
chunk-level fusion, `fusion:group_file` is `ledger query --group file` (lanes read GROUP_DEPTH
deep), and the baselines add BM25 over whole files and the RRF of the BM25 and MiniLM windows.
The index is the repo at HEAD while the commits are older: accepted practice for such sets.
`sweep()` re-fuses the same lane lists under other RRF k / lane weights /
plain priors, which is how the defaults in store/settings.py were chosen (docs/decisions.md).
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import numpy as np

from chunkers.paths import is_docs_path, is_test_path
from ledger_assets.encode import lexical
from ledger_assets.encode.embedder import Embedder
from ledger_assets.evaluation.baselines import (BM25, WINDOW_CHARS, fixed_windows, rrf_lists, window_similarities,
                                                word_tokens)
from ledger_assets.evaluation.scoring import (FILE_POOL, K_MAX, EvalError, Target, first_relevant, first_relevant_file,
                                              hit_coords, hit_paths, lines_read, load_golden, metrics)
from ledger_assets.retrieval.fusion import FUSED_LANES
from ledger_assets.retrieval.groups import group_files
from ledger_assets.retrieval.hits import Hit
from ledger_assets.retrieval.names import NAME_LANE, name_lane
from ledger_assets.retrieval.search import Searcher, SearchOptions
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.qdrant import latest_filter
from ledger_assets.store.settings import GROUP_DEPTH, LANE_DEPTH


def _shallow(text: str, deep: dict[str, list], depth: int) -> dict[str, list]:
    """Deep lane lists cut to what `ledger query` reads (`depth`), the name lane re-ranked from them."""
    out = {lane: points[:depth] for lane, points in deep.items() if lane != NAME_LANE}
    if NAME_LANE in deep:
        out[NAME_LANE] = name_lane(text, out, depth)
    return out


def evaluate(ledger: Ledger, embedder: Embedder, golden_path: str | Path, repo_id: str,
             baselines: bool = True, sweep_grid: bool = False, log=None) -> dict:
    targets = load_golden(golden_path)
    try:
        ledger.registry.get(repo_id)
    except Exception as exc:
        raise EvalError(str(exc)) from exc
    t0 = time.monotonic()
    say = log or (lambda msg: None)
    searcher = Searcher(ledger, embedder)
    queries = [t.query for t in targets]
    dense = embedder.encode(queries)
    say(f"embedded {len(queries)} queries in {time.monotonic() - t0:.1f}s")
    flt = latest_filter(repo_id)
    per_query: list[tuple[dict, list[Hit]]] = []
    file_level = bool(targets[0].files)
    deep: list[dict] = []  # file level: the lanes read as deep as `--group file` reads them
    with searcher.session():
        with searcher.client() as client:
            if not client.collection_exists(ledger.qdrant.collection):
                raise EvalError(f"no Qdrant collection {ledger.qdrant.collection!r}: ingest {repo_id} first")
            opts = SearchOptions(repo=repo_id, k=K_MAX)
            for i, q in enumerate(queries):
                if file_level:
                    deep.append(searcher.lane_results(client, q, FUSED_LANES, flt, GROUP_DEPTH, dense[i].tolist()))
                    results = _shallow(q, deep[-1], LANE_DEPTH)
                else:
                    results = searcher.lane_results(client, q, FUSED_LANES, flt, LANE_DEPTH, dense[i].tolist())
                per_query.append((results, searcher.symbol_hits(client, q, opts, flt)))
    if sum(len(r.get("code", [])) for r, _ in per_query) == 0:
        raise EvalError(f"repo {repo_id!r} has no points in the collection: ingest it first")
    if file_level:
        return _evaluate_files(ledger, embedder, searcher, targets, dense, per_query, deep, repo_id,
                               golden_path, baselines, sweep_grid, t0)
    systems: dict[str, list[int | None]] = {}
    read: dict[str, float] = {}

    def ranks_of(name: str, ranked: list[list[tuple[str, int, int]]]) -> list[int | None]:
        ranks = [first_relevant(c, t) for c, t in zip(ranked, targets)]
        read[name] = round(sum(lines_read(c, r) for c, r in zip(ranked, ranks)) / (len(ranks) or 1), 1)
        return ranks

    for lane in FUSED_LANES:
        systems[f"lane:{lane}"] = [first_relevant(hit_coords(searcher.combine({lane: r[lane]}, [], K_MAX)), t)
                                   for (r, _), t in zip(per_query, targets)]
    systems["fusion"] = ranks_of("fusion", [hit_coords(searcher.combine(r, s, K_MAX, text=t.query))
                                            for (r, s), t in zip(per_query, targets)])
    report: dict = {"repo_id": repo_id, "golden": str(golden_path), "queries": len(targets),
                    "rrf_k": searcher.rrf_k, "weights": searcher.weights, "plain_prior": searcher.plain_prior}
    if baselines:
        t1 = time.monotonic()
        windows = fixed_windows(ledger, repo_id)
        sims, computed = window_similarities(ledger, embedder, windows, dense)
        order = np.argsort(-sims, axis=1, kind="stable")[:, :K_MAX]
        systems["baseline:minilm_windows"] = ranks_of("baseline:minilm_windows",
                                                      [[windows.coords[j] for j in row] for row in order])
        for name, tok in (("baseline:bm25_windows", word_tokens), ("baseline:bm25_ident_windows", lexical.tokenize)):
            index = BM25([tok(w) for w in windows.texts])
            systems[name] = ranks_of(name, [[windows.coords[j] for j in index.top(tok(t.query), K_MAX)]
                                            for t in targets])
        report["windows"] = {"count": len(windows.texts), "chars": WINDOW_CHARS, "embedded_now": computed,
                             "elapsed_s": round(time.monotonic() - t1, 2)}
    report["systems"] = {name: metrics(ranks) for name, ranks in systems.items()}
    report["lines_read"] = read
    bases = {n.removeprefix("baseline:"): m["recall@1"] for n, m in report["systems"].items() if n.startswith("baseline:")}
    if bases:
        f = report["systems"]["fusion"]["recall@1"]
        best_base = max(bases.values())
        report["fusion_vs_best_baseline_r1"] = round(f / best_base, 2) if best_base else None
        report["fusion_vs_baseline_r1"] = {n: (round(f / b, 2) if b else None) for n, b in bases.items()}
    if sweep_grid:
        report["sweep"] = sweep(searcher, per_query, targets)
    report["misses"] = [t.query for t, r in zip(targets, systems["fusion"]) if r is None][:20]
    report["elapsed_s"] = round(time.monotonic() - t0, 2)
    return report


def _evaluate_files(ledger: Ledger, embedder: Embedder, searcher: Searcher, targets: list[Target], dense,
                    per_query: list, deep: list[dict], repo_id: str, golden_path, baselines: bool,
                    sweep_grid: bool, t0: float) -> dict:
    """File-level Acc@k (commit sets): each system's ranking read as distinct files."""
    big = FILE_POOL
    systems: dict[str, list[int | None]] = {}
    for lane in FUSED_LANES:
        systems[f"lane:{lane}"] = [first_relevant_file(hit_paths(searcher.combine({lane: r[lane]}, [], big)), t)
                                   for (r, _), t in zip(per_query, targets)]
    systems["fusion"] = [first_relevant_file(hit_paths(searcher.combine(r, s, big, text=t.query)), t)
                         for (r, s), t in zip(per_query, targets)]
    systems["fusion:group_file"] = [first_relevant_file([f.file_path for f in searcher.group(t.query, d, s, K_MAX)], t)
                                    for d, (_, s), t in zip(deep, per_query, targets)]
    report: dict = {"repo_id": repo_id, "golden": str(golden_path), "queries": len(targets), "level": "file",
                    "rrf_k": searcher.rrf_k, "weights": searcher.weights, "plain_prior": searcher.plain_prior,
                    "group": {"depth": GROUP_DEPTH, "decay": searcher.group_decay, "rrf_k": searcher.group_rrf_k,
                              "tests_decay": searcher.group_tests_decay, "tests_rrf_k": searcher.group_tests_rrf_k,
                              "test_prior": searcher.group_test_prior, "weights": searcher.group_weights},
                    "chunk_test_prior": searcher.chunk_test_prior}
    if baselines:
        t1 = time.monotonic()
        windows = fixed_windows(ledger, repo_id)
        sims, computed = window_similarities(ledger, embedder, windows, dense)
        minilm = [[int(j) for j in row] for row in np.argsort(-sims, axis=1, kind="stable")[:, :big]]
        wpath = [c[0] for c in windows.coords]
        systems["baseline:minilm_windows"] = [first_relevant_file([wpath[j] for j in minilm[i]], t)
                                              for i, t in enumerate(targets)]
        bm25_w: list[list[int]] = []
        for name, tok in (("baseline:bm25_windows", word_tokens), ("baseline:bm25_ident_windows", lexical.tokenize)):
            index = BM25([tok(w) for w in windows.texts])
            ranked = [index.top(tok(t.query), big) for t in targets]
            if not bm25_w:
                bm25_w = ranked
            systems[name] = [first_relevant_file([wpath[j] for j in r], t) for r, t in zip(ranked, targets)]
        systems["baseline:rrf_bm25_minilm_windows"] = [
            first_relevant_file([wpath[j] for j in rrf_lists([b, m])], t)
            for b, m, t in zip(bm25_w, minilm, targets)]
        whole: dict[str, list[str]] = {}
        for path, text in zip(wpath, windows.texts):
            whole.setdefault(path, []).append(text)
        fpaths = list(whole)
        for name, tok in (("baseline:bm25_files", word_tokens), ("baseline:bm25_ident_files", lexical.tokenize)):
            index = BM25([tok("".join(whole[p])) for p in fpaths])
            systems[name] = [first_relevant_file([fpaths[j] for j in index.top(tok(t.query), K_MAX)], t)
                             for t in targets]
        report["windows"] = {"count": len(windows.texts), "files": len(fpaths), "chars": WINDOW_CHARS,
                             "embedded_now": computed, "elapsed_s": round(time.monotonic() - t1, 2)}
    report["systems"] = {name: metrics(ranks, "acc") for name, ranks in systems.items()}
    bases = {n.removeprefix("baseline:"): m for n, m in report["systems"].items() if n.startswith("baseline:")}
    if bases:
        best1 = max(m["acc@1"] for m in bases.values())
        best5 = max(m["acc@5"] for m in bases.values())
        report["best_baseline"] = {"acc@1": best1, "acc@5": best5}
        for system in ("fusion", "fusion:group_file"):
            m = report["systems"][system]
            report.setdefault("vs_best_baseline", {})[system] = {
                "acc@1_ratio": round(m["acc@1"] / best1, 2) if best1 else None,
                "acc@5_diff": round(m["acc@5"] - best5, 4)}
    if sweep_grid:
        report["sweep"] = file_sweep(searcher, per_query, deep, targets)
    report["misses"] = [t.query for t, r in zip(targets, systems["fusion:group_file"]) if r is None][:20]
    report["per_query"] = {"queries": [t.query for t in targets],
                           "ranks": {s: systems[s] for s in ("fusion", "fusion:group_file") + tuple(
                               f"lane:{lane}" for lane in FUSED_LANES)}}
    report["test_top1"] = {s: sum(1 for (r, sy), d, t in zip(per_query, deep, targets)
                                  if _top_is(is_test_path, searcher, s, r, sy, d, t)) for s in ("fusion", "fusion:group_file")}
    report["docs_top1"] = {s: sum(1 for (r, sy), d, t in zip(per_query, deep, targets)
                                  if _top_is(is_docs_path, searcher, s, r, sy, d, t)) for s in ("fusion", "fusion:group_file")}
    report["elapsed_s"] = round(time.monotonic() - t0, 2)
    return report


def _top_is(kind, searcher: Searcher, system: str, results: dict, symbol: list, deep: dict, t: Target) -> bool:
    """Is the system's first file of `kind` (`is_test_path`, `is_docs_path`)?"""
    if system == "fusion":
        top = hit_paths(searcher.combine(results, symbol, 1, text=t.query))
    else:
        top = [f.file_path for f in searcher.group(t.query, deep, symbol, 1)]
    return bool(top) and kind(top[0])


GROUP_GRID = {"decay": (0.0, 0.25, 0.5, 0.75, 1.0), "rrf_k": (5, 10, 30, 60), "test_prior": (1.0, 0.7, 0.5, 0.3),
              "docs_prior": (1.0, 0.5, 0.3)}
CHUNK_TEST_PRIORS = (1.0, 0.7, 0.5, 0.3)


def file_sweep(searcher: Searcher, per_query: list, deep: list[dict], targets: list[Target]) -> list[dict]:
    """File level: `--group file` under a grid of decay / RRF k / test prior, and the chunk-level
    fusion under test priors (same lane lists). Each row: its settings and Acc@k."""
    rows = []
    for prior in CHUNK_TEST_PRIORS:
        ranks = [first_relevant_file(hit_paths(searcher.combine(r, s, FILE_POOL, text=t.query, test_prior=prior)), t)
                 for (r, s), t in zip(per_query, targets)]
        rows.append({"system": "fusion", "chunk_test_prior": prior, **metrics(ranks, "acc")})
    for rrf_k in GROUP_GRID["rrf_k"]:
        fused = [searcher.combine(d, s, 10 ** 9, searcher.group_weights, rrf_k, text=t.query, test_prior=1.0)
                 for d, (_, s), t in zip(deep, per_query, targets)]
        for decay, prior, docs in itertools.product(GROUP_GRID["decay"], GROUP_GRID["test_prior"],
                                                    GROUP_GRID["docs_prior"]):
            ranks = [first_relevant_file([f.file_path for f in group_files(h, decay, t.query, prior, docs)[:K_MAX]], t)
                     for h, t in zip(fused, targets)]
            rows.append({"system": "fusion:group_file", "decay": decay, "rrf_k": rrf_k, "test_prior": prior,
                         "docs_prior": docs, **metrics(ranks, "acc")})
    return rows


def sweep(searcher: Searcher, per_query: list, targets: list[Target]) -> list[dict]:
    """The fusion re-ranked under a grid of RRF k, lane weights and plain priors (same lane lists)."""
    stored = ((1, 1, 1, 1), (1, 1, 1, 0), (1, 1, 1, 0.5), (1, 1, 1, 1.5), (1, 1, 1, 2), (0.25, 1, 1, 2),
              (0.5, 0.5, 1, 1), (0.5, 0.5, 1, 1.5), (0.5, 1, 1, 1), (1, 0.5, 1, 1), (1, 1, 0.5, 1),
              (0.5, 0.5, 0.5, 1), (1, 0.5, 0.5, 1), (0, 0, 0, 1), (1, 0, 0, 0), (0, 0, 1, 0))
    rows = []
    for rrf_k, (wc, wd, ws, wy), wn, prior in itertools.product((5, 10, 30, 60), stored, (0, 0.5, 1), (1.0, 0.5)):
        weights = {"code": wc, "design": wd, "sparse": ws, "symbol": wy, "name": wn}
        ranks = [first_relevant(hit_coords(searcher.combine(r, s, K_MAX, weights, rrf_k, prior, text=t.query)), t)
                 for (r, s), t in zip(per_query, targets)]
        rows.append({"rrf_k": rrf_k, "weights": weights, "plain_prior": prior, **metrics(ranks)})
    rows.sort(key=lambda r: (-r["mrr@10"], -r["recall@5"]))
    return rows


def format_file_report(report: dict) -> str:
    g = report["group"]
    out = [f"eval {report['golden']} on {report['repo_id']}: {report['queries']} queries, file level "
           f"(distinct files; the index is the repo at HEAD), rrf k={report['rrf_k']} weights={report['weights']}, "
           f"group depth={g['depth']} decay={g['decay']} k={g['rrf_k']} (a question about tests: "
           f"{g.get('tests_decay', g['decay'])}, {g.get('tests_rrf_k', g['rrf_k'])}) test_prior={g['test_prior']} "
           f"weights={g.get('weights')}"]
    out.append(f"{'system':<34} {'Acc@1':>6} {'Acc@5':>6} {'Acc@10':>6} {'MRR@10':>7}")
    for name, m in report["systems"].items():
        out.append(f"{name:<34} {m['acc@1']:>6.3f} {m['acc@5']:>6.3f} {m['acc@10']:>6.3f} {m['mrr@10']:>7.3f}")
    for system, v in report.get("vs_best_baseline", {}).items():
        out.append(f"{system}: Acc@1 / best baseline Acc@1 = {v['acc@1_ratio']}; Acc@5 - best baseline Acc@5 = "
                   f"{v['acc@5_diff']:+.3f}")
    if "test_top1" in report:
        out.append("top file a test: " + ", ".join(f"{s} {n}" for s, n in report["test_top1"].items()))
    if "windows" in report:
        w = report["windows"]
        out.append(f"baselines over {w['count']} windows of {w['chars']} chars in {w['files']} files "
                   f"({w['embedded_now']} embedded now)")
    rows = sorted(report.get("sweep", []), key=lambda r: (-r["acc@1"], -r["acc@5"]))
    for row in rows[:10]:
        settings = {k: v for k, v in row.items() if k not in ("system", "queries") and "@" not in k}
        out.append(f"  sweep {row['system']} {settings}: Acc@1 {row['acc@1']:.3f} Acc@5 {row['acc@5']:.3f}")
    out.append(f"elapsed {report['elapsed_s']}s")
    return "\n".join(out)


def format_report(report: dict) -> str:
    if report.get("level") == "file":
        return format_file_report(report)
    out = [f"eval {report['golden']} on {report['repo_id']}: {report['queries']} queries, "
           f"rrf k={report['rrf_k']} weights={report['weights']} plain_prior={report['plain_prior']}"]
    out.append(f"{'system':<30} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'MRR@10':>7}")
    for name, m in report["systems"].items():
        out.append(f"{name:<30} {m['recall@1']:>6.3f} {m['recall@5']:>6.3f} {m['recall@10']:>6.3f} {m['mrr@10']:>7.3f}")
    if "fusion_vs_best_baseline_r1" in report:
        out.append(f"fusion R@1 / best baseline R@1 = {report['fusion_vs_best_baseline_r1']}"
                   + "".join(f"; / {n} {r}" for n, r in report.get("fusion_vs_baseline_r1", {}).items()))
    if "windows" in report:
        w = report["windows"]
        out.append(f"baselines over {w['count']} windows of {w['chars']} chars ({w['embedded_now']} embedded now)")
    if report.get("lines_read"):
        out.append(f"lines read to the first hit (results in order, a miss reads all {K_MAX}): "
                   + "; ".join(f"{n} {v:g}" for n, v in report["lines_read"].items()))
    for row in report.get("sweep", [])[:10]:
        out.append(f"  sweep k={row['rrf_k']:<3} w={row['weights']} prior={row['plain_prior']}: "
                   f"R@1 {row['recall@1']:.3f} R@5 {row['recall@5']:.3f} MRR {row['mrr@10']:.3f}")
    out.append(f"elapsed {report['elapsed_s']}s")
    return "\n".join(out)
