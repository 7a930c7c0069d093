"""What one embedded text of each lane costs the model (issue 30): texts/s, tokens a text, tokens/s.

    python benchmarks/lane_cost.py HOME REPO_ID [--backend torch|onnx|bf16 ...] [--sample N]

From an ingested LEDGER_HOME: the repo's code texts, design texts and symbol sentences, rebuilt from its
chunks by the ingest's own functions (as `full` embeds them), a spread sample of N of each, encoded in one
call per lane after a warm-up; tokens are the model's word-pieces, cut at its 256-token window as encode
cuts them. Prints one row per backend and lane, and what a chunk of this repo costs in tokens under `full`
against its code text alone: texts a chunk overstates the cost when the extra texts are short.
Figures: benchmarks/ingest_scale.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from itertools import groupby
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ledger_assets.encode.embedder import Embedder, normalize_text  # noqa: E402
from ledger_assets.ingest.pipeline import code_text, design_text  # noqa: E402
from ledger_assets.ingest.symbol_texts import file_symbol_texts  # noqa: E402
from ledger_assets.store.db import dict_rows  # noqa: E402
from ledger_assets.store.ledger import Ledger  # noqa: E402
from ledger_assets.store.settings import LedgerSettings  # noqa: E402


def lane_texts(ledger: Ledger, repo_id: str) -> tuple[int, dict[str, list[str]]]:
    with ledger.db.connect() as con:
        rows = dict_rows(con.execute(
            "SELECT file_path, chunk_index, chunk_type, start_line, end_line, text, header, symbols, layer, intent "
            "FROM chunks WHERE repo_id = ? ORDER BY file_path, chunk_index", [repo_id]))
    texts: dict[str, list[str]] = {"code": [], "design": [], "symbol": []}
    for row in rows:
        row["symbols"] = json.loads(row["symbols"] or "[]")
    for _, group in groupby(rows, key=lambda r: r["file_path"]):
        chunks = list(group)
        for sentences in file_symbol_texts(chunks).values():
            texts["symbol"] += sentences
        for row in chunks:
            texts["code"].append(normalize_text(code_text(row["text"], row["symbols"])))
            texts["design"].append(design_text(repo_id, row["layer"], row["intent"]))
    return len(rows), texts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("home")
    ap.add_argument("repo_id")
    ap.add_argument("--backend", action="append", default=[], help="torch (default), onnx, bf16; repeatable")
    ap.add_argument("--sample", type=int, default=300, help="texts of each lane (default 300)")
    args = ap.parse_args(argv)
    ledger = Ledger(LedgerSettings.from_env(home=args.home))
    chunks, texts = lane_texts(ledger, args.repo_id)
    if not chunks:
        print(f"error: no chunks of {args.repo_id!r} in {args.home}", file=sys.stderr)
        return 2
    per_chunk = {lane: len(t) / chunks for lane, t in texts.items()}
    print(f"{args.repo_id}: {chunks} chunks; texts a chunk under full: "
          + ", ".join(f"{lane} {n:.2f}" for lane, n in per_chunk.items()))
    print("\n| backend | lane | texts | texts/s | tokens a text | tokens/s |\n| --- | --- | ---: | ---: | ---: | ---: |")
    for backend in args.backend or ["torch"]:
        emb = Embedder(backend=backend)
        emb.encode(texts["code"][:16])  # warm-up
        tokenizer = emb.model.tokenizer
        mean_tokens = {}
        for lane, all_texts in texts.items():
            sample = all_texts[::max(1, len(all_texts) // args.sample)][:args.sample]
            if not sample:
                continue
            tokens = sum(min(len(ids), 256) for ids in tokenizer(sample, truncation=False)["input_ids"])
            t0 = time.perf_counter()
            emb.encode(sample)
            dt = time.perf_counter() - t0
            mean_tokens[lane] = tokens / len(sample)
            print(f"| {backend} | {lane} | {len(sample)} | {len(sample) / dt:.1f} | {tokens / len(sample):.0f} | "
                  f"{tokens / dt:,.0f} |")
        full = sum(per_chunk[lane] * mean_tokens.get(lane, 0) for lane in per_chunk)
        print(f"\n{backend}: a chunk's tokens under full {full:.0f}, its code text alone "
              f"{mean_tokens.get('code', 0):.0f}: {full / max(mean_tokens.get('code', 1), 1):.2f}x\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
