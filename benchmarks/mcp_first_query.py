"""First-query latency of `ledger mcp`, through the official MCP client over stdio.

synthesize N points (benchmarks/query_latency.py's shape) into a temp ledger home -> per run: spawn
`ledger mcp`, initialize, then ask a hybrid query (needs the model and the lane index) either at
once or after an idle pause, then a second query -> seconds per step, median over the runs.

    .venv/bin/python benchmarks/mcp_first_query.py                       # 20,000 points, 3 runs each
    .venv/bin/python benchmarks/mcp_first_query.py --home /tmp/mcpq --points 20000 --idle 20

`--fresh-index` removes the saved lane index before each run (the first process after an ingest).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import anyio  # noqa: E402
import numpy as np  # noqa: E402
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from ledger_assets.store import local_index  # noqa: E402
from ledger_assets.store.ledger import Ledger  # noqa: E402
from ledger_assets.store.settings import LedgerSettings  # noqa: E402
from query_latency import synth_point  # noqa: E402

COLLECTION = "latency_bench"


def build(home: str, points: int) -> None:
    ledger = Ledger(LedgerSettings(home=home, collection=COLLECTION))
    rng, nrng = random.Random(7), np.random.default_rng(7)
    with ledger.qdrant.open() as client:
        ledger.qdrant.ensure_collection(client)
        have = client.count(COLLECTION).count
        batch = []
        for i in range(have, points):
            batch.append(synth_point(i, rng, nrng))
            if len(batch) == 1000:
                client.upsert(COLLECTION, batch, wait=True)
                batch = []
        if batch:
            client.upsert(COLLECTION, batch, wait=True)


async def one_run(home: str, idle_s: float) -> dict[str, float]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ledger_assets.cli", "mcp"], cwd=str(ROOT),
        env={**os.environ, "LEDGER_HOME": home, "LEDGER_COLLECTION": COLLECTION, "HF_HUB_OFFLINE": "1",
             "PYTHONPATH": str(ROOT), "LEDGER_CHECK_STALE": "false"})
    out: dict[str, float] = {}
    t0 = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                out["initialize_s"] = time.perf_counter() - t0
                if idle_s:
                    await anyio.sleep(idle_s)
                for name, text in (("first_query_s", "where is the stock reconciled with a physical count"),
                                   ("second_query_s", "validate payment token")):
                    t = time.perf_counter()
                    res = await session.call_tool("query_ledger", {"query": text, "k": 5})
                    out[name] = time.perf_counter() - t
                    assert not res.is_error, res.content
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--points", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--idle", type=float, default=20.0, help="seconds the client waits after initialize (0 = skip)")
    ap.add_argument("--home", help="ledger home to use (default: a temp dir, removed after)")
    ap.add_argument("--fresh-index", action="store_true", help="remove the saved lane index before each run")
    args = ap.parse_args()
    tmp = None if args.home else tempfile.TemporaryDirectory(prefix="ledger-mcpq-")
    home = args.home or tmp.name
    build(home, args.points)
    store = Ledger(LedgerSettings(home=home, collection=COLLECTION)).qdrant
    print(f"{args.points} points, {args.runs} runs per case, median seconds")
    for idle in (0.0, args.idle) if args.idle else (0.0,):
        rows = []
        for _ in range(args.runs):
            if args.fresh_index:
                shutil.rmtree(local_index.saved_dir(store), ignore_errors=True)
            rows.append(anyio.run(one_run, home, idle))
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        print(f"  query {'at once' if not idle else f'after {idle:.0f} s idle'}: "
              + ", ".join(f"{k} {v:.2f}" for k, v in med.items())
              + "   runs: " + "; ".join(f"{r['first_query_s']:.2f}" for r in rows))
    if tmp:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
