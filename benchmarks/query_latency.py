"""Query latency of `ledger query` after the model is loaded, on N points in Qdrant local mode.

synthesize N points (payloads shaped like the pipeline's, random unit dense
vectors, identifier-aware BM25 sparse vectors over a synthetic code
vocabulary) into a temp collection -> load MiniLM -> run each query through
the same Searcher as `ledger query --batch`, twice in one run: "before" =
Qdrant local mode's own queries (one client held, as --batch does), "after" =
the in-process lane index (local_index.py; first query builds it) -> p50/p95.

    .venv/bin/python benchmarks/query_latency.py            # 50,000 points
    .venv/bin/python benchmarks/query_latency.py --points 5000 --queries 20
    .venv/bin/python benchmarks/query_latency.py --home /tmp/lat --baseline-queries 0   # reuse, index only

Then, one-shot: fresh processes timed end to end: loading the model and encoding one string
(the floor any `ledger query` pays), and `ledger query` itself, first with no saved index (it opens
the collection, builds the index and saves it) and then as every later process runs (it loads the
saved copy, memory-mapped, and opens no Qdrant client).

Targets: p50 <= 100 ms per query on 50,000 points, local mode (issue 6); a one-shot `ledger query`
within 2x of model load + one encode (issue 19).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
from qdrant_client import models  # noqa: E402

from ledger_assets.encode import lexical  # noqa: E402
from ledger_assets.store import local_index  # noqa: E402
from ledger_assets.store.ledger import Ledger  # noqa: E402
from ledger_assets.encode.embedder import Embedder  # noqa: E402
from ledger_assets.store.qdrant import (  # noqa: E402
    CODE_VECTOR, DESIGN_VECTOR, QUALITY_VECTOR, SPARSE_VECTOR, SYMBOL_VECTOR, point_id,
)
from ledger_assets.retrieval.search import Searcher, SearchOptions  # noqa: E402
from ledger_assets.store.settings import EMBED_DIM, QUALITY_DIM, LedgerSettings  # noqa: E402

NOUNS = ("Booking", "Invoice", "Customer", "Order", "Payment", "Stock", "Ledger", "Room", "Guest", "Shipment",
         "Account", "Report", "Schedule", "Price", "Tax", "Discount", "Warehouse", "Supplier", "Refund", "Token")
VERBS = ("Get", "Create", "Cancel", "Update", "Delete", "Validate", "Compute", "Apply", "Reconcile", "Parse",
         "Load", "Save", "Send", "Book", "Pick", "Receive", "Authorize", "Refresh", "Export", "Import")
TYPES = ("cs_member", "cs_member", "cs_member", "cs_class", "cs_class_full", "py_function", "ts_function",
         "md_section", "config", "plain")
QUERIES = (
    "cancel a booking and refund the guest", "BookingService.Cancel", "compute the tax on an invoice",
    "where is the stock reconciled with a physical count", "validate payment token", "InvoiceRepository.Save",
    "export the monthly report", "apply discount to order price", "refresh access token when expired",
    "parse supplier shipment file", "which service sends the customer email", "ReconcileStock",
    "delete customer account", "load room availability schedule", "authorize a payment",
)


def synth_point(i: int, rng: random.Random, nrng: np.random.Generator) -> models.PointStruct:
    noun, verb, other = rng.choice(NOUNS), rng.choice(VERBS), rng.choice(NOUNS)
    ctype = rng.choice(TYPES)
    file_path = f"src/{noun}/{noun}{other}Service.cs"
    start = rng.randint(1, 800)
    end = start + rng.randint(3, 60)
    content = (f"// Shop.{noun}.{noun}{other}Service\npublic void {verb}{noun}({other} {other.lower()}Id)\n"
               f"{{ var {noun.lower()} = _{other.lower()}Repository.{verb}({other.lower()}Id); }}\n") * rng.randint(1, 4)
    payload = {
        "repo_id": "bench", "file_path": file_path, "chunk_index": i, "content": content,
        "content_hash": f"{i:064x}", "chunk_type": ctype, "language": "csharp", "start_line": start,
        "end_line": end, "chunk_symbols": json.dumps([[f"{verb}{noun}", "method", f"Shop.{noun}.{noun}{other}Service",
                                                       start, end]]),
        "ledger_id": f"l{i}", "layer": rng.choice(("domain", "application", "infrastructure", "ui")),
        "intent": f"{verb.lower()}s the {noun.lower()} of a {other.lower()}", "intent_source": "heuristic",
        "is_latest": True, "indexed_sha": "0" * 40,
    }
    code = nrng.standard_normal(EMBED_DIM).astype(np.float32)
    design = nrng.standard_normal(EMBED_DIM).astype(np.float32)
    # 1-6 symbols a chunk (mean 3.5; measured on efcore Storage: 956 symbols over 302 chunks, 3.2)
    symbols = nrng.standard_normal((rng.randint(1, 6), EMBED_DIM)).astype(np.float32)
    return models.PointStruct(id=point_id("bench", file_path, i), payload=payload, vector={
        CODE_VECTOR: (code / np.linalg.norm(code)).tolist(),
        DESIGN_VECTOR: (design / np.linalg.norm(design)).tolist(),
        QUALITY_VECTOR: nrng.random(QUALITY_DIM).round(3).tolist(),
        SPARSE_VECTOR: lexical.document_vector(f"{file_path}\n{content}\n{payload['intent']}"),
        SYMBOL_VECTOR: (symbols / np.linalg.norm(symbols, axis=1, keepdims=True)).tolist(),
    })


def timed(searcher: Searcher, embedder: Embedder, n: int, lane: str) -> dict[str, list[float]]:
    """Per query: the query embedding, then the search given that embedding (lanes, fusion, symbol
    lookup, collapse); total = the two, which is what `ledger query --batch` spends per line."""
    out: dict[str, list[float]] = {"total": [], "retrieval": [], "embedding": []}
    for i in range(n):
        q = QUERIES[i % len(QUERIES)]
        t = time.perf_counter()
        dense = embedder.encode([q])[0].tolist()
        t1 = time.perf_counter()
        hits = searcher.search(q, SearchOptions(k=10, lane=lane), dense=dense)
        t2 = time.perf_counter()
        assert hits, q
        out["embedding"].append((t1 - t) * 1000)
        out["retrieval"].append((t2 - t1) * 1000)
        out["total"].append((t2 - t) * 1000)
    return out


def report(ms: dict[str, list[float]]) -> float:
    p50 = 0.0
    for name, values in ms.items():
        v = sorted(values)
        p = lambda q: v[min(len(v) - 1, int(round(q * (len(v) - 1))))]  # noqa: E731
        print(f"  {name:>9}: p50 {p(0.5):7.1f} ms, p95 {p(0.95):7.1f} ms, max {v[-1]:7.1f} ms, "
              f"mean {statistics.mean(v):7.1f} ms  ({len(v)} queries)")
        p50 = p50 or p(0.5)
    return p50


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--points", type=int, default=50_000)
    ap.add_argument("--queries", type=int, default=45, help="queries timed (cycled over a fixed list)")
    ap.add_argument("--home", help="ledger home to use (default: a fresh temp dir, removed after)")
    ap.add_argument("--baseline-queries", type=int, default=15,
                    help="queries timed through Qdrant's own local-mode queries (0 = skip the 'before')")
    ap.add_argument("--lane", default="hybrid", choices=("hybrid", "code", "design", "sparse", "symbol"))
    ap.add_argument("--one-shot", type=int, default=3, help="fresh `ledger query` processes timed (0 = skip)")
    args = ap.parse_args()
    tmp = None if args.home else tempfile.TemporaryDirectory(prefix="ledger-latency-")
    home = args.home or tmp.name
    ledger = Ledger(LedgerSettings(home=home, collection="latency_bench"))
    rng, nrng = random.Random(7), np.random.default_rng(7)

    t0 = time.perf_counter()
    with ledger.qdrant.open() as client:
        ledger.qdrant.ensure_collection(client)
        have = client.count(ledger.qdrant.collection).count
        batch = []
        for i in range(have, args.points):
            batch.append(synth_point(i, rng, nrng))
            if len(batch) == 1000:
                client.upsert(ledger.qdrant.collection, batch, wait=True)
                batch = []
        if batch:
            client.upsert(ledger.qdrant.collection, batch, wait=True)
        total = client.count(ledger.qdrant.collection).count
    upsert_s = time.perf_counter() - t0

    embedder = Embedder()
    t0 = time.perf_counter()
    embedder.encode(["warm up"])
    model_s = time.perf_counter() - t0
    print(f"points: {total} in Qdrant local mode ({'upserted now in %.1fs' % upsert_s if have < args.points else 'reused'})")
    print(f"model load + first encode: {model_s:.1f}s; lane: {args.lane}; k=10 "
          f"({'four stored lanes + name lane + fusion + collapse + symbol lookup' if args.lane == 'hybrid' else 'one lane'})")

    if args.baseline_queries:
        before = Searcher(ledger, embedder, use_local_index=False)
        t0 = time.perf_counter()
        with before.session():
            open_s = time.perf_counter() - t0
            before.search("warm up the lanes", SearchOptions(k=10, lane=args.lane))
            ms = timed(before, embedder, args.baseline_queries, args.lane)
        print(f"before (Qdrant local-mode queries, one client held; open loads the collection: {open_s:.1f}s):")
        report(ms)

    local_index.forget()
    after = Searcher(ledger, embedder)
    t0 = time.perf_counter()
    after.search("warm up the lanes", SearchOptions(k=10, lane=args.lane))  # opens a client, scrolls, builds
    build_s = time.perf_counter() - t0
    index = local_index.current(ledger.qdrant)
    mib = (sum(m.nbytes for m, _ in index.dense.values()) + index.sparse.data.nbytes
           + index.sparse.indices.nbytes) / 2**20
    ms = timed(after, embedder, args.queries, args.lane)
    print(f"after (in-process lane index, no Qdrant client per query; first query opened the client and built "
          f"it in {build_s:.1f}s, {mib:.0f} MiB of matrices):")
    p50 = report(ms)
    print(f"target p50 <= 100 ms: {'met' if p50 <= 100 else 'MISSED'}")
    if args.one_shot:
        one_shot(ledger, home, args.one_shot)
    if tmp:
        tmp.cleanup()
    return 0


def _wall(cmd: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:3])}... failed ({out.returncode}): {out.stderr[-500:]}")
    return time.perf_counter() - t0


def one_shot(ledger: Ledger, home: str, runs: int) -> None:
    env = {**os.environ, "LEDGER_HOME": home, "LEDGER_COLLECTION": ledger.qdrant.collection,
           "LEDGER_CHECK_STALE": "false", "HF_HUB_OFFLINE": "1"}
    py = sys.executable
    ledger_bin = str(Path(py).with_name("ledger"))
    floor_code = ("from ledger_assets.encode.embedder import query_embedder; "
                  "query_embedder('', 64).encode(['cancel a booking and refund the guest'])")
    query = [ledger_bin, "query", "cancel a booking and refund the guest", "--k", "10", "--format", "json"]
    floors = [_wall([py, "-c", floor_code], env) for _ in range(runs)]
    local_index.forget(ledger.qdrant, saved=True)
    first = _wall(query, env)
    later = [_wall(query, env) for _ in range(runs)]
    floor, warm = statistics.median(floors), statistics.median(later)
    print(f"one-shot, fresh processes (median of {runs}): model load + one encode {floor:.2f}s; "
          f"`ledger query` with no saved index {first:.2f}s ({first / floor:.2f}x), "
          f"with the saved index {warm:.2f}s ({warm / floor:.2f}x; target <= 2x: {'met' if warm <= 2 * floor else 'MISSED'})")


if __name__ == "__main__":
    sys.exit(main())
