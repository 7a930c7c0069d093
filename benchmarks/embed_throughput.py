"""Embedding stage throughput against raw `model.encode`, same texts, same run.

    python benchmarks/embed_throughput.py [--count 512] [--chars 1500] [--batch 64] [--device auto]

Raw: `model.encode(texts, batch_size)` (normalised, as the stage asks for).
Stage: `embed_with_cache` into a fresh DuckDB file: hashing, the cache lookup,
encoding in slices, and the Arrow bulk insert of every vector. Both runs see
the same synthetic code-like texts of about --chars characters; a warm-up
encode runs first so neither pays for CUDA/kernel initialisation. Prints
chunks/s of both and the ratio (target: stage >= 90% of raw).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from ledger_assets.encode.embedder import Embedder, embed_with_cache, normalize_text, resolve_device, text_hash  # noqa: E402
from ledger_assets.store.db import LedgerDB  # noqa: E402

WORDS = ("invoice", "order", "customer", "total", "price", "ledger", "stock", "quantity", "warehouse", "tax",
         "amount", "line", "payment", "refund", "discount", "currency", "account", "balance", "period")


def synthetic_texts(count: int, chars: int, seed: int = 7) -> list[str]:
    """Distinct code-like texts of about `chars` characters (C#-ish methods)."""
    rng = random.Random(seed)
    texts = []
    for i in range(count):
        name = "".join(w.title() for w in rng.sample(WORDS, 3))
        lines = [f"// chunk {i}", f"public decimal {name}{i}(decimal {rng.choice(WORDS)}, int {rng.choice(WORDS)})",
                 "{"]
        while sum(len(ln) + 1 for ln in lines) < chars - 2:
            a, b, c = rng.sample(WORDS, 3)
            lines.append(f"    var {a}{rng.randint(0, 99)} = {b}.{c.title()}({rng.randint(1, 500)}) * {a};")
        lines.append("}")
        texts.append("\n".join(lines)[:chars])
    return texts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=512, help="number of texts (default 512)")
    ap.add_argument("--chars", type=int, default=1500, help="characters per text (default 1500)")
    ap.add_argument("--batch", type=int, default=64, help="model batch size (default 64)")
    ap.add_argument("--device", default="auto", help="auto (CUDA when present), cpu, cuda, cuda:1, ...")
    ap.add_argument("--repeat", type=int, default=1, help="time each side this many times, keep the best")
    args = ap.parse_args(argv)
    if args.count < 1 or args.chars < 16 or args.batch < 1 or args.repeat < 1:
        print("error: --count, --batch and --repeat must be >= 1 and --chars >= 16", file=sys.stderr)
        return 2
    device = resolve_device("" if args.device == "auto" else args.device)
    embedder = Embedder(device, args.batch)
    texts = [normalize_text(t) for t in synthetic_texts(args.count, args.chars)]
    model = embedder.model
    model.encode(texts[: min(len(texts), args.batch)], batch_size=args.batch, normalize_embeddings=True,
                 show_progress_bar=False)

    def sync() -> None:
        if device.startswith("cuda"):
            import torch

            torch.cuda.synchronize()

    raw_best = stage_best = float("inf")
    computed = 0
    for _ in range(args.repeat):
        sync()
        t0 = time.perf_counter()
        model.encode(texts, batch_size=args.batch, normalize_embeddings=True, convert_to_numpy=True,
                     show_progress_bar=False)
        sync()
        raw_best = min(raw_best, time.perf_counter() - t0)

        with tempfile.TemporaryDirectory(prefix="embed-bench-") as tmp:
            db = LedgerDB(os.path.join(tmp, "ledger.duckdb"))
            with db.connect():
                pass  # schema creation is a one-off, not per-chunk work
            sync()
            t0 = time.perf_counter()
            computed = embed_with_cache(embedder, db, {text_hash(t): t for t in texts})
            sync()
            stage_best = min(stage_best, time.perf_counter() - t0)
    if computed != len(set(texts)):
        print(f"error: the stage computed {computed} vectors for {len(set(texts))} texts", file=sys.stderr)
        return 1
    raw_rate, stage_rate = len(texts) / raw_best, len(texts) / stage_best
    print(f"device={device} count={len(texts)} chars={args.chars} batch={args.batch}")
    print(f"raw model.encode     : {raw_rate:9.1f} chunks/s ({raw_best:.2f} s)")
    print(f"stage embed_with_cache: {stage_rate:9.1f} chunks/s ({stage_best:.2f} s)")
    print(f"ratio stage/raw      : {stage_rate / raw_rate:9.1%} (target >= 90%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
