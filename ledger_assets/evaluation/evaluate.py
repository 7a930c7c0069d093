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
plain priors, which is how the defaults in retrieval/search.py were chosen.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ledger_assets.encode import lexical
from ledger_assets.store.ledger import Ledger
from ledger_assets.encode.embedder import Embedder, embed_with_cache, fetch_vectors, text_hash
from ledger_assets.retrieval.fusion import FUSED_LANES, NAME_LANE, is_docs_path, is_test_path, name_lane
from ledger_assets.retrieval.hits import Hit
from ledger_assets.retrieval.search import Searcher, SearchOptions, latest_filter
from ledger_assets.store.settings import GROUP_DEPTH
from ledger_assets.ingest.snapshot import ManifestEntry, read_blobs

K_MAX = 10
LANE_DEPTH = 50
WINDOW_CHARS = 3000
FILE_POOL = 1000  # window/chunk candidates read per query to find the first 10 distinct files
BASELINE_RRF_K = 60
_WORD = re.compile(r"\w+")


class EvalError(ValueError):
    """Bad eval input (unreadable golden file, a malformed line, unknown repo): exit 2."""


@dataclass(frozen=True)
class Target:
    query: str
    file: str
    start_line: int
    end_line: int
    files: tuple[str, ...] = ()  # a file-level target (commit sets): any of these files


def load_golden(path: str | Path) -> list[Target]:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EvalError(f"{path}: {exc.strerror or exc}") from exc
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            if isinstance(obj, dict) and "files" in obj:
                files = obj["files"]
                if not isinstance(files, list) or not files or not all(isinstance(f, str) and f for f in files):
                    raise ValueError("files must be a non-empty list of paths")
                t = Target(str(obj["query"]), files[0], 0, 0, tuple(files))
            else:
                t = Target(str(obj["query"]), str(obj["file"]), int(obj["start_line"]), int(obj["end_line"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise EvalError(f"{path}:{n}: want {{\"query\", \"file\", \"start_line\", \"end_line\"}} "
                            f"or {{\"query\", \"files\"}}: {exc}") from exc
        if not t.query.strip() or (not t.files and (t.start_line < 1 or t.end_line < t.start_line)):
            raise EvalError(f"{path}:{n}: empty query or bad line range")
        if out and bool(out[0].files) != bool(t.files):
            raise EvalError(f"{path}:{n}: mixes file-level lines ({{\"files\"}}) with line-range lines")
        out.append(t)
    if not out:
        raise EvalError(f"{path}: no golden lines")
    return out


def distinct_files(paths) -> list[str]:
    """Rank order of files: a file counts once, where it first appears."""
    seen: dict[str, None] = {}
    for p in paths:
        if p not in seen:
            seen[p] = None
            if len(seen) >= K_MAX:
                break
    return list(seen)


def first_relevant_file(paths, t: Target) -> int | None:
    """1-based rank, among distinct files within K_MAX, of the first file that is a target."""
    for rank, file in enumerate(distinct_files(paths), 1):
        if file in t.files:
            return rank
    return None


def first_relevant(ranked: list[tuple[str, int, int]], t: Target) -> int | None:
    """1-based rank of the first (file, start, end) that overlaps the target, within K_MAX."""
    for rank, (file, start, end) in enumerate(ranked[:K_MAX], 1):
        if file == t.file and start <= t.end_line and t.start_line <= end:
            return rank
    return None


def lines_read(ranked: list[tuple[str, int, int]], rank: int | None) -> int:
    """Lines of the results read in order up to the first hit (`rank`), or of all K_MAX."""
    return sum(end - start + 1 for _file, start, end in ranked[:rank or K_MAX])


def metrics(ranks: list[int | None], name: str = "recall") -> dict:
    """recall@k (chunk level) or acc@k (file level: any target file in the first k files), MRR@10."""
    n = len(ranks) or 1
    return {
        f"{name}@1": round(sum(1 for r in ranks if r and r <= 1) / n, 4),
        f"{name}@5": round(sum(1 for r in ranks if r and r <= 5) / n, 4),
        f"{name}@10": round(sum(1 for r in ranks if r and r <= 10) / n, 4),
        "mrr@10": round(sum(1.0 / r for r in ranks if r) / n, 4),
        "queries": len(ranks),
    }


def _coords(hits: list[Hit]) -> list[tuple[str, int, int]]:
    return [(h.payload.get("file_path", ""), int(h.payload.get("start_line") or 0),
             int(h.payload.get("end_line") or 0)) for h in hits]


# ------------------------------------------------------------- baselines ---
@dataclass
class Windows:
    coords: list[tuple[str, int, int]]
    texts: list[str]


def fixed_windows(ledger: Ledger, repo_id: str, chars: int = WINDOW_CHARS) -> Windows:
    """Every indexed file of the repo's snapshot, cut into consecutive `chars`-character windows."""
    from chunkers.text import BinaryContent, decode

    with ledger.db.connect() as con:
        snap = con.execute("SELECT source, repo_path FROM snapshots WHERE repo_id = ?", [repo_id]).fetchone()
        entries = [ManifestEntry(*r) for r in con.execute(
            "SELECT m.file_path, m.blob_hash, m.size, m.language, m.skip_reason FROM manifest m "
            "JOIN files f USING (repo_id, file_path) WHERE m.repo_id = ? AND coalesce(m.skip_reason, '') = '' "
            "AND coalesce(f.skip_reason, '') = '' AND m.language <> 'pdf' ORDER BY m.file_path", [repo_id]).fetchall()]
    if snap is None:
        raise EvalError(f"repo {repo_id!r} has no snapshot: run `ledger ingest {repo_id}` first")
    coords, texts = [], []
    for entry, data in read_blobs(snap[1], snap[0], entries):
        try:
            text = decode(data)
        except BinaryContent:
            continue
        for start in range(0, len(text), chars):
            piece = text[start:start + chars]
            if not piece.strip():
                continue
            first = text.count("\n", 0, start) + 1
            last = first + piece.rstrip("\n").count("\n")
            coords.append((entry.file_path, first, last))
            texts.append(piece)
    return Windows(coords, texts)


class BM25:
    """Okapi BM25 over token lists. Each term's postings hold its documents and their
    saturated, length-normalised weights, so a query is a few numpy adds (3,078 queries
    over 5,000 windows took many minutes one posting at a time)."""

    def __init__(self, docs: list[list[str]], k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.n = len(docs)
        lengths = np.array([len(d) for d in docs], dtype=np.float64)
        avg = float(lengths.mean()) if self.n else 1.0
        rows: dict[str, tuple[list[int], list[int]]] = {}
        for i, d in enumerate(docs):
            for t, f in Counter(d).items():
                ids, tfs = rows.setdefault(t, ([], []))
                ids.append(i)
                tfs.append(f)
        self.postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for t, (ids, tfs) in rows.items():
            idx = np.array(ids, dtype=np.int64)
            f = np.array(tfs, dtype=np.float64)
            idf = math.log(1 + (self.n - len(ids) + 0.5) / (len(ids) + 0.5))
            self.postings[t] = (idx, idf * f * (k1 + 1) / (f + k1 * (1 - b + b * lengths[idx] / avg)))

    def top(self, query: list[str], k: int) -> list[int]:
        scores = np.zeros(self.n)
        for t in sorted(set(query)):  # one summation order in every run: near-equal scores never swap
            posting = self.postings.get(t)
            if posting is not None:
                scores[posting[0]] += posting[1]
        order = np.argsort(-scores, kind="stable")[:k]
        return [int(i) for i in order if scores[i] > 0]


def _window_similarities(ledger: Ledger, embedder: Embedder, windows: Windows, dense: np.ndarray
                         ) -> tuple[np.ndarray, int]:
    """The MiniLM-windows baseline: each query's cosine to each window (embedded through the cache),
    and how many windows were embedded now."""
    by_hash = {text_hash(w): w for w in windows.texts}
    computed = embed_with_cache(embedder, ledger.db, by_hash)
    vectors = fetch_vectors(ledger.db, embedder.model_name, list(by_hash))
    if not windows.texts:
        return np.zeros((len(dense), 0)), computed
    return dense @ np.stack([vectors[text_hash(w)] for w in windows.texts]).T, computed


def word_tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def rrf_lists(lists: list[list[int]], k: int = BASELINE_RRF_K) -> list[int]:
    """Reciprocal rank fusion of ranked id lists (equal weights), ties by id."""
    score: dict[int, float] = {}
    for ranked in lists:
        for rank, i in enumerate(ranked, 1):
            score[i] = score.get(i, 0.0) + 1.0 / (k + rank)
    return sorted(score, key=lambda i: (-score[i], i))


def _paths(hits: list[Hit]) -> list[str]:
    return [h.payload.get("file_path", "") for h in hits]


def _shallow(text: str, deep: dict[str, list], depth: int) -> dict[str, list]:
    """Deep lane lists cut to what `ledger query` reads (`depth`), the name lane re-ranked from them."""
    out = {lane: points[:depth] for lane, points in deep.items() if lane != NAME_LANE}
    if NAME_LANE in deep:
        out[NAME_LANE] = name_lane(text, out, depth)
    return out


# ------------------------------------------------------------------ eval ---
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
        systems[f"lane:{lane}"] = [first_relevant(_coords(searcher.combine({lane: r[lane]}, [], K_MAX)), t)
                                   for (r, _), t in zip(per_query, targets)]
    systems["fusion"] = ranks_of("fusion", [_coords(searcher.combine(r, s, K_MAX, text=t.query))
                                            for (r, s), t in zip(per_query, targets)])
    report: dict = {"repo_id": repo_id, "golden": str(golden_path), "queries": len(targets),
                    "rrf_k": searcher.rrf_k, "weights": searcher.weights, "plain_prior": searcher.plain_prior}
    if baselines:
        t1 = time.monotonic()
        windows = fixed_windows(ledger, repo_id)
        sims, computed = _window_similarities(ledger, embedder, windows, dense)
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
        systems[f"lane:{lane}"] = [first_relevant_file(_paths(searcher.combine({lane: r[lane]}, [], big)), t)
                                   for (r, _), t in zip(per_query, targets)]
    systems["fusion"] = [first_relevant_file(_paths(searcher.combine(r, s, big, text=t.query)), t)
                         for (r, s), t in zip(per_query, targets)]
    systems["fusion:group_file"] = [first_relevant_file([f.file_path for f in searcher.group(t.query, d, s, K_MAX)], t)
                                    for d, (_, s), t in zip(deep, per_query, targets)]
    report: dict = {"repo_id": repo_id, "golden": str(golden_path), "queries": len(targets), "level": "file",
                    "rrf_k": searcher.rrf_k, "weights": searcher.weights, "plain_prior": searcher.plain_prior,
                    "group": {"depth": GROUP_DEPTH, "decay": searcher.group_decay, "rrf_k": searcher.group_rrf_k,
                              "test_prior": searcher.group_test_prior, "weights": searcher.group_weights},
                    "chunk_test_prior": searcher.chunk_test_prior}
    if baselines:
        t1 = time.monotonic()
        windows = fixed_windows(ledger, repo_id)
        sims, computed = _window_similarities(ledger, embedder, windows, dense)
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
    report["test_top1"] = {s: sum(1 for (r, sy), d, t in zip(per_query, deep, targets)
                                  if _top_is(is_test_path, searcher, s, r, sy, d, t)) for s in ("fusion", "fusion:group_file")}
    report["docs_top1"] = {s: sum(1 for (r, sy), d, t in zip(per_query, deep, targets)
                                  if _top_is(is_docs_path, searcher, s, r, sy, d, t)) for s in ("fusion", "fusion:group_file")}
    report["elapsed_s"] = round(time.monotonic() - t0, 2)
    return report


def _top_is(kind, searcher: Searcher, system: str, results: dict, symbol: list, deep: dict, t: Target) -> bool:
    """Is the system's first file of `kind` (`is_test_path`, `is_docs_path`)?"""
    if system == "fusion":
        top = _paths(searcher.combine(results, symbol, 1, text=t.query))
    else:
        top = [f.file_path for f in searcher.group(t.query, deep, symbol, 1)]
    return bool(top) and kind(top[0])


GROUP_GRID = {"decay": (0.0, 0.25, 0.5, 0.75, 1.0), "rrf_k": (5, 10, 30, 60), "test_prior": (1.0, 0.7, 0.5, 0.3),
              "docs_prior": (1.0, 0.5, 0.3)}
CHUNK_TEST_PRIORS = (1.0, 0.7, 0.5, 0.3)


def file_sweep(searcher: Searcher, per_query: list, deep: list[dict], targets: list[Target]) -> list[dict]:
    """File level: `--group file` under a grid of decay / RRF k / test prior, and the chunk-level
    fusion under test priors (same lane lists). Each row: its settings and Acc@k."""
    from ledger_assets.retrieval.fusion import group_files

    rows = []
    for prior in CHUNK_TEST_PRIORS:
        ranks = [first_relevant_file(_paths(searcher.combine(r, s, FILE_POOL, text=t.query, test_prior=prior)), t)
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
        ranks = [first_relevant(_coords(searcher.combine(r, s, K_MAX, weights, rrf_k, prior, text=t.query)), t)
                 for (r, s), t in zip(per_query, targets)]
        rows.append({"rrf_k": rrf_k, "weights": weights, "plain_prior": prior, **metrics(ranks)})
    rows.sort(key=lambda r: (-r["mrr@10"], -r["recall@5"]))
    return rows


def format_file_report(report: dict) -> str:
    g = report["group"]
    out = [f"eval {report['golden']} on {report['repo_id']}: {report['queries']} queries, file level "
           f"(distinct files; the index is the repo at HEAD), rrf k={report['rrf_k']} weights={report['weights']}, "
           f"group depth={g['depth']} decay={g['decay']} k={g['rrf_k']} test_prior={g['test_prior']} "
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
