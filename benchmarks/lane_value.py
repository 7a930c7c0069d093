"""Each lane's worth to the fused ranking against what it costs to embed (issue 19, "embed less").

    python benchmarks/lane_value.py NAME=HOME:REPO_ID:GOLDEN.jsonl [...] [--zero] [--reweight LANE] [--json OUT]

For each set (an ingested LEDGER_HOME, its repo id, a golden set: `ledger golden` doc comments or
`ledger golden --commits`): each query's lane lists are read once, as `ledger eval` reads them, then
fused again for each variant: the default weights (`--group file` under its own,
GROUP_LANE_WEIGHTS); without one lane (-code, -design, -symbol, -sparse,
-name); only the lanes that need no stored embedding (sparse+name; a query vector is not needed
either). Without a lane means the lane was never stored: its list is gone, the name lane reranks the
remaining lanes' candidates only, and the fusion's rules see what is left (a heuristic intent's design
rank counts again when no symbol list is there). `--zero` reads the lists as they are and sets the
lane's weight to 0 instead. The named-symbol pins (a DuckDB lookup, no vector) stay in every variant.

Prints one table, a row per set and variant, with the change against the default:
  doc-comment sets: R@1, R@5, MRR@10 at chunk level, as `ledger eval` scores the fusion;
  commit sets (file-level golden): Acc@1 / Acc@5 of the fusion read as files and of `--group file`.
and a cost table from each home's DuckDB: per embedded lane (code text, design text, symbol
sentences, built from the chunks by the ingest's own functions) the texts a chunk, the distinct texts
(the ingest embeds each hash once), their characters and model tokens (capped at the model's
max_seq_length, which is what it reads) and each lane's share of all three lanes.

`--reweight LANE`: with LANE dropped, a small grid over the other lanes' weights; leave-one-set-out:
the weights with the best mean (over the other sets) of R@1 + R@5, or of fusion and `--group file`
Acc@1 + Acc@5, reported on the held-out set against its default.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from itertools import groupby
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ledger_assets.encode.embedder import Embedder, normalize_text, text_hash  # noqa: E402
from ledger_assets.evaluation.evaluate import _shallow  # noqa: E402
from ledger_assets.evaluation.scoring import (FILE_POOL, K_MAX, first_relevant, first_relevant_file,  # noqa: E402
                                             hit_coords, hit_paths, load_golden, metrics)
from ledger_assets.ingest.pipeline import code_text, design_text  # noqa: E402
from ledger_assets.ingest.symbol_texts import file_symbol_texts  # noqa: E402
from ledger_assets.retrieval.fusion import FUSED_LANES  # noqa: E402
from ledger_assets.retrieval.names import NAME_LANE  # noqa: E402
from ledger_assets.retrieval.search import Searcher, SearchOptions  # noqa: E402
from ledger_assets.store.qdrant import latest_filter  # noqa: E402
from ledger_assets.store.db import dict_rows  # noqa: E402
from ledger_assets.store.ledger import Ledger  # noqa: E402
from ledger_assets.store.settings import (DEFAULT_LANE_WEIGHTS, GROUP_DEPTH, GROUP_LANE_WEIGHTS,  # noqa: E402
                                          LANE_DEPTH, LedgerSettings)

EMBEDDED = ("code", "design", "symbol")
VARIANTS = {"default": set(FUSED_LANES), **{f"-{lane}": set(FUSED_LANES) - {lane} for lane in FUSED_LANES},
            "sparse+name": {"sparse", NAME_LANE},
            # The lean embedding profile (settings.EMBED_PROFILE) on a keyless set: no symbol sentences and no
            # design vector of a heuristic intent, so the code vector is the only one embedded.
            "lean": set(FUSED_LANES) - {"design", "symbol"}}
# Around the defaults (a heuristic intent's design rank is not counted beside the symbol lane: design stays 1).
GRID = {"code": (0.25,), "design": (1.0,), "sparse": (0.75, 1.0, 1.5), "symbol": (1.5, 2.0, 3.0),
        "name": (0.25, 0.5, 1.0)}


class LaneSet:
    """One golden set's lane lists, read once, and its fusion under any lanes and weights."""

    def __init__(self, name: str, home: str, repo_id: str, golden: str, embedder: Embedder):
        self.name, self.repo_id = name, repo_id
        self.ledger = Ledger(LedgerSettings(home=home))
        self.targets = load_golden(golden)
        self.file_level = bool(self.targets[0].files)
        self.searcher = Searcher(self.ledger, embedder)
        self.depth = GROUP_DEPTH if self.file_level else LANE_DEPTH
        dense = embedder.encode([t.query for t in self.targets])
        flt, opts = latest_filter(repo_id), SearchOptions(repo=repo_id, k=K_MAX)
        self.lists: list[tuple[dict, list]] = []
        with self.searcher.session(), self.searcher.client() as client:
            for t, vec in zip(self.targets, dense):
                lanes = self.searcher.lane_results(client, t.query, FUSED_LANES, flt, self.depth, vec.tolist())
                self.lists.append((lanes, self.searcher.symbol_hits(client, t.query, opts, flt)))

    def score(self, keep: set[str], weights: dict[str, float], group_weights: dict[str, float] | None = None
              ) -> dict[str, float]:
        """The set's metrics with only the lanes in `keep` stored, fused under `weights` (and `--group file`
        under `group_weights`, default the same)."""
        s = self.searcher
        s.weights, s.group_weights = weights, group_weights or weights
        out: dict[str, float] = {}
        fused, grouped = [], []
        for (lanes, symbols), t in zip(self.lists, self.targets):
            deep = _shallow(t.query, {k: v for k, v in lanes.items() if k in keep}, self.depth)
            if not self.file_level:
                fused.append(first_relevant(hit_coords(s.combine(deep, symbols, K_MAX, text=t.query)), t))
                continue
            shallow = _shallow(t.query, deep, LANE_DEPTH)  # what `ledger eval` fuses at file level
            fused.append(first_relevant_file(hit_paths(s.combine(shallow, symbols, FILE_POOL, text=t.query)), t))
            grouped.append(first_relevant_file([f.file_path for f in s.group(t.query, deep, symbols, K_MAX)], t))
        if not self.file_level:
            m = metrics(fused)
            return {"R@1": m["recall@1"], "R@5": m["recall@5"], "MRR@10": m["mrr@10"]}
        for label, ranks in (("fusion", fused), ("group", grouped)):
            m = metrics(ranks, "acc")
            out[f"{label} Acc@1"], out[f"{label} Acc@5"] = m["acc@1"], m["acc@5"]
        return out

    def variant(self, name: str, zero: bool) -> dict[str, float]:
        keep = VARIANTS[name]
        if not zero:
            return self.score(keep, dict(DEFAULT_LANE_WEIGHTS), dict(GROUP_LANE_WEIGHTS))

        def zeroed(base: dict[str, float]) -> dict[str, float]:
            return {k: (w if k in keep else 0.0) for k, w in base.items()}
        return self.score(set(FUSED_LANES), zeroed(DEFAULT_LANE_WEIGHTS), zeroed(GROUP_LANE_WEIGHTS))

    def costs(self, embedder: Embedder) -> dict[str, dict]:
        """Per embedded lane: texts a chunk, distinct texts, their characters and capped tokens."""
        with self.ledger.db.connect() as con:
            rows = dict_rows(con.execute(
                "SELECT file_path, chunk_index, chunk_type, start_line, end_line, text, header, symbols, layer, "
                "intent, code_hash, design_hash, symbol_hashes FROM chunks WHERE repo_id = ? "
                "ORDER BY file_path, chunk_index",
                [self.repo_id]))
        texts: dict[str, dict[str, str]] = {lane: {} for lane in EMBEDDED}
        count = dict.fromkeys(EMBEDDED, 0)
        stale = 0  # chunks whose stored hashes differ from the texts rebuilt here
        for row in rows:
            row["symbols"] = json.loads(row["symbols"] or "[]")
        for _, group in groupby(rows, key=lambda r: r["file_path"]):
            chunks = list(group)
            owned = file_symbol_texts(chunks)
            for row in chunks:
                made = {"code": [normalize_text(code_text(row["text"], row["symbols"]))],
                        "design": [design_text(self.repo_id, row["layer"], row["intent"])],
                        "symbol": owned.get(row["chunk_index"], [])}
                hashes = {lane: [text_hash(x) for x in made[lane]] for lane in EMBEDDED}
                stale += (hashes["code"][0], hashes["design"][0], hashes["symbol"]) != (
                    row["code_hash"], row["design_hash"], json.loads(row["symbol_hashes"] or "[]"))
                for lane in EMBEDDED:
                    count[lane] += len(made[lane])
                    texts[lane].update(zip(hashes[lane], made[lane]))
        tokenizer, cap = embedder.model.tokenizer, embedder.model.max_seq_length
        out = {"chunks": len(rows), "stale": stale}
        for lane in EMBEDDED:
            body = list(texts[lane].values())
            ids = tokenizer(body, add_special_tokens=True, truncation=False, verbose=False)["input_ids"] if body else []
            out[lane] = {"texts": count[lane], "per_chunk": count[lane] / max(len(rows), 1), "distinct": len(body),
                         "chars": sum(map(len, body)), "tokens": sum(min(len(i), cap) for i in ids)}
        for key in ("distinct", "chars", "tokens"):
            total = sum(out[lane][key] for lane in EMBEDDED) or 1
            for lane in EMBEDDED:
                out[lane][f"{key}_share"] = out[lane][key] / total
        return out


def bar_score(m: dict[str, float]) -> float:
    """What a choice of weights is judged by: R@1 + R@5, or the mean of fusion and group Acc@1 + Acc@5."""
    keys = [k for k in m if k.endswith(("@1", "@5"))]
    return sum(m[k] for k in keys) * 2 / len(keys)


def reweight(sets: list[LaneSet], lane: str, defaults: dict[str, dict]) -> list[str]:
    """Leave-one-set-out over GRID with `lane` dropped (its weight is moot); "lean": design and symbol dropped,
    the code lane's weight searched too (it is the only dense lane left)."""
    dropped = {"design", "symbol"} if lane == "lean" else {lane}
    free = [k for k in FUSED_LANES if k not in dropped]
    grid_of = dict(GRID, code=(0.25, 0.5, 1.0, 2.0)) if lane == "lean" else GRID
    grid = [dict(zip(free, w), **dict.fromkeys(dropped, 0.0)) for w in itertools.product(*(grid_of[k] for k in free))]
    keep = set(FUSED_LANES) - dropped
    table = {s.name: [s.score(keep, w) for w in grid] for s in sets}
    lines = [f"-{lane}, reweighted ({len(grid)} grid points), leave-one-set-out:"]
    for held in sets:
        others = [s.name for s in sets if s is not held] or [held.name]
        best = max(range(len(grid)), key=lambda i: (sum(bar_score(table[o][i]) for o in others), -i))
        m = table[held.name][best]
        lines.append(f"  {held.name:<12} {' '.join(f'{k}={v:g}' for k, v in grid[best].items() if k in free):<44} "
                     + "  ".join(f"{k} {v:.3f} ({v - defaults[held.name][k]:+.3f})" for k, v in m.items()))
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sets", nargs="+", help="NAME=HOME:REPO_ID:GOLDEN.jsonl")
    ap.add_argument("--zero", action="store_true", help="set a lane's weight to 0 instead of removing its list")
    ap.add_argument("--reweight", action="append", default=[], choices=(*FUSED_LANES, "lean"),
                    help="drop LANE and choose the others' weights leave-one-set-out (repeatable)")
    ap.add_argument("--no-cost", action="store_true", help="skip the cost table")
    ap.add_argument("--json", type=Path, help="write every figure here")
    args = ap.parse_args(argv)
    embedder = Embedder()
    sets = []
    for spec in args.sets:
        name, sep, rest = spec.partition("=")
        home, repo_id, golden = (rest.split(":", 2) + ["", ""])[:3]
        if not sep or not Path(home).is_dir() or not repo_id or not Path(golden).is_file():
            raise SystemExit(f"{spec}: want NAME=HOME:REPO_ID:GOLDEN.jsonl")
        sets.append(LaneSet(name, home, repo_id, golden, embedder))
        print(f"{name}: {len(sets[-1].targets)} queries, lanes read", file=sys.stderr, flush=True)
    report: dict = {"mode": "zero" if args.zero else "drop", "sets": {}}
    print(f"fused figures ({report['mode']}), change against default in brackets")
    for s in sets:
        rows = {v: s.variant(v, args.zero) for v in VARIANTS}
        report["sets"][s.name] = {"queries": len(s.targets), "level": "file" if s.file_level else "chunk",
                                  "variants": rows}
        print(f"{s.name} ({len(s.targets)} queries, {'file' if s.file_level else 'chunk'} level)")
        for v, m in rows.items():
            print(f"  {v:<12} " + "  ".join(f"{k} {x:.3f} ({x - rows['default'][k]:+.3f})" for k, x in m.items()))
    if not args.no_cost:
        print(f"\nembedding cost (distinct texts are embedded once; tokens capped at the model's max length)\n"
              f"{'set':<12} {'lane':<7} {'texts':>7} {'/chunk':>7} {'distinct':>8} {'chars':>10} {'share':>6} "
              f"{'tokens':>9} {'share':>6}")
        for s in sets:
            c = report["sets"][s.name]["cost"] = s.costs(embedder)
            for lane in EMBEDDED:
                x = c[lane]
                print(f"{s.name:<12} {lane:<7} {x['texts']:>7} {x['per_chunk']:>7.2f} {x['distinct']:>8} "
                      f"{x['chars']:>10} {x['chars_share']:>6.1%} {x['tokens']:>9} {x['tokens_share']:>6.1%}")
            print(f"{s.name:<12} ({c['chunks']} chunks; {c['stale']} with stored hashes unlike the rebuilt texts)")
    defaults = {n: r["variants"]["default"] for n, r in report["sets"].items()}
    for lane in args.reweight:
        lines = reweight(sets, lane, defaults)
        report.setdefault("reweight", {})[lane] = lines
        print("\n" + "\n".join(lines))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
