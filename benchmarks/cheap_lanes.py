"""Cheaper dense lanes, replayed on ingested sets before any is built (issue 30, sixth round).

    python benchmarks/cheap_lanes.py NAME=HOME:REPO_ID:GOLDEN.jsonl [...]

For each set (an ingested LEDGER_HOME of the `standard` or `full` profile, its repo id and golden set, as
benchmarks/lane_value.py takes them) each query's lane lists are read once, then one lane is replaced and the
fusion scored again, as `ledger eval` scores it (R@1 / R@5 / MRR@10 at chunk level for doc-comment sets, fusion
and `--group file` Acc@1 / Acc@5 for commit sets), against the stored lanes:

- `static-symbol`: the symbol lane on static vectors, no model pass: MiniLM distilled once into one vector per
  wordpiece (each token alone between [CLS] and [SEP], the mean of the three outputs), a text the SIF-weighted
  sum of its tokens' vectors (Zipf frequencies from the vocabulary's order, a = 1e-4), the query likewise;
- `static-code`: the code lane the same way;
- `mean-of-symbols`: the code vector of a chunk that has symbol vectors is their normalised mean, the query the
  MiniLM query vector; other chunks keep their code vector;
- `pooled`: the same only for the chunks the `pooled` profile pools (ingest/pipeline.py pools_code: code whose
  symbol sentences quote at least half its code lines, no prose or settings). Measure the profile itself with
  commit_eval.py and retrieval_eval.py: its symbol vectors are embedded in other batches (bf16 differs in the
  last bits), so near-ties can fall the other way.

Prints one line per set and variant, with the change against the stored lanes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from itertools import groupby
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from lane_value import LaneSet  # noqa: E402
from ledger_assets.encode.embedder import Embedder, normalize_text  # noqa: E402
from ledger_assets.ingest.pipeline import code_text, pools_code  # noqa: E402
from ledger_assets.ingest.symbol_texts import file_symbol_texts, owned_symbols  # noqa: E402
from ledger_assets.retrieval.names import NAME_LANE, name_lane  # noqa: E402
from ledger_assets.store.db import dict_rows  # noqa: E402
from ledger_assets.store.qdrant import CODE_VECTOR, SYMBOL_VECTOR, latest_filter  # noqa: E402

SIF_A = 1e-4


def distill(model) -> np.ndarray:
    """One 384-d vector per wordpiece: the model's mean output over [CLS] token [SEP]."""
    import torch

    tok, bert = model.tokenizer, model[0].auto_model
    out = []
    with torch.inference_mode():
        for i in range(0, tok.vocab_size, 2048):
            ids = torch.arange(i, min(tok.vocab_size, i + 2048))
            inp = torch.stack([torch.full_like(ids, tok.cls_token_id), ids, torch.full_like(ids, tok.sep_token_id)], 1)
            out.append(bert(input_ids=inp, attention_mask=torch.ones_like(inp)).last_hidden_state.float().mean(1).numpy())
    return np.concatenate(out)


class Static:
    def __init__(self, model):
        self.tok = model.tokenizer
        self.table = distill(model)
        ranks = np.arange(len(self.table), dtype=np.float64)
        self.weight = SIF_A / (SIF_A + 1.0 / ((ranks + 1) * np.log(len(self.table))))

    def __call__(self, text: str) -> np.ndarray:
        ids = self.tok(text, add_special_tokens=False, truncation=True, max_length=256)["input_ids"]
        v = (self.weight[ids, None] * self.table[ids]).sum(0) if ids else np.zeros(self.table.shape[1])
        n = np.linalg.norm(v)
        return (v / n if n else v).astype(np.float32)


def fmt(m: dict, base: dict | None = None) -> str:
    return "  ".join(f"{k} {v:.3f}" + (f" ({v - base[k]:+.3f})" if base else "") for k, v in m.items())


def replay(ls: LaneSet, index, mask, lane: str, queries) -> dict:
    """The set's metrics with `lane`'s list read again from the index as it stands, for these query vectors."""
    saved, new = ls.lists, []
    for ((lanes, syms), t), q in zip(zip(saved, ls.targets), queries):
        lists = {k: v for k, v in lanes.items() if k != NAME_LANE}
        lists[lane] = (index.multi_query(SYMBOL_VECTOR, q, mask, ls.depth) if lane == "symbol"
                       else index.dense_query(CODE_VECTOR, q, mask, ls.depth))
        lists[NAME_LANE] = name_lane(t.query, lists, ls.depth)
        new.append((lists, syms))
    ls.lists = new
    try:
        return ls.variant("default", False)
    finally:
        ls.lists = saved


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", metavar="NAME=HOME:REPO_ID:GOLDEN")
    args = ap.parse_args(argv)
    embedder = Embedder()
    static = Static(embedder.hf_model)
    for spec in args.sets:
        name, rest = spec.split("=", 1)
        home, repo_id, golden = rest.rsplit(":", 2)
        ls = LaneSet(name, home, repo_id, golden, embedder)
        index = ls.searcher.local_index()
        mask = index.mask(latest_filter(repo_id))
        with ls.ledger.db.connect() as con:
            rows = dict_rows(con.execute("SELECT file_path, chunk_index, chunk_type, start_line, end_line, text, "
                                         "header, symbols FROM chunks WHERE repo_id = ? ORDER BY file_path, "
                                         "chunk_index", [repo_id]))
        for r in rows:
            r["symbols"] = json.loads(r["symbols"] or "[]")
        by_key = {(r["file_path"], r["chunk_index"]): r for r in rows}
        sentences = {}
        for path, group in groupby(rows, key=lambda r: r["file_path"]):
            sentences.update({(path, i): s for i, s in file_symbol_texts(list(group)).items()})
        keys = [(p.get("file_path"), p.get("chunk_index")) for p in index.payloads]
        base = ls.variant("default", False)
        print(f"{name} stored           {fmt(base)}", flush=True)
        code, multi = index.dense[CODE_VECTOR], index.multi[SYMBOL_VECTOR]
        queries = [t.query for t in ls.targets]
        static_q = [static(q) for q in queries]
        try:
            owner = [i for i, k in enumerate(keys) for _ in sentences.get(k, ())]
            vecs = [static(s) for k in keys for s in sentences.get(k, ())]
            own = np.asarray(owner, dtype=np.int64)
            starts = np.flatnonzero(np.r_[True, own[1:] != own[:-1]])
            index.multi[SYMBOL_VECTOR] = (np.stack(vecs), own, starts)
            print(f"{name} static-symbol    {fmt(replay(ls, index, mask, 'symbol', static_q), base)}", flush=True)
            index.multi[SYMBOL_VECTOR] = multi
            mat = np.stack([static(normalize_text(code_text(by_key[k]["text"], by_key[k]["symbols"])))
                            if k in by_key else np.zeros(code[0].shape[1], np.float32) for k in keys])
            index.dense[CODE_VECTOR] = (mat, code[1])
            print(f"{name} static-code      {fmt(replay(ls, index, mask, 'code', static_q), base)}", flush=True)
            matrix, own, starts = multi
            mat = code[0].copy()
            ends = np.r_[starts[1:], len(own)]
            for s0, s1 in zip(starts, ends):
                v = matrix[s0:s1].mean(0)
                mat[own[s0]] = v / np.linalg.norm(v)
            index.dense[CODE_VECTOR] = (mat, code[1])
            dense_q = embedder.encode(queries)
            print(f"{name} mean-of-symbols  {fmt(replay(ls, index, mask, 'code', dense_q), base)}", flush=True)
            owners = {}
            for path, group in groupby(rows, key=lambda r: r["file_path"]):
                owners.update({(path, i): syms for i, syms in owned_symbols(list(group)).items()})
            pooled = [i for i, k in enumerate(keys) if k in by_key and pools_code("pooled", by_key[k], owners.get(k, []))]
            keep = code[0].copy()
            keep[pooled] = mat[pooled]
            index.dense[CODE_VECTOR] = (keep, code[1])
            print(f"{name} pooled ({len(pooled)}/{len(keys)}) {fmt(replay(ls, index, mask, 'code', dense_q), base)}",
                  flush=True)
        finally:
            index.dense[CODE_VECTOR], index.multi[SYMBOL_VECTOR] = code, multi
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
