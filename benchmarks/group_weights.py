"""`--group file`'s lane weights chosen leave-one-set-out on file-level golden sets (commit sets, questions about tests).

    python benchmarks/group_weights.py NAME=HOME:REPO_ID:GOLDEN.jsonl [...] [--code 0.25,0.375,0.5]
        [--sparse 1.5,1.75,2] [--symbol 1] [--name 0.5] [--before code=0.5,sparse=1.5] [--floor 0.02]

Each set's lane lists are read once (lane_value.py's reader, as `ledger eval` reads them), then `--group file` is
scored at every point of the grid (design stays 1: a keyless set has no design vector to weigh). Prints Acc@1 / Acc@5
per point and set, then for each set held out: among the points that keep every OTHER set within --floor Acc@1 and
Acc@5 of its figure at --before, the one with the best mean Acc@1 + Acc@5 over the others (a tie: the first point in
the order the values are given), and what it gives the held-out set. `--floor 1` is plain leave-one-set-out. The chunk
query's weights are the shipped ones throughout.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from lane_value import LaneSet  # noqa: E402
from ledger_assets.encode.embedder import Embedder  # noqa: E402
from ledger_assets.retrieval.fusion import FUSED_LANES  # noqa: E402
from ledger_assets.store.settings import DEFAULT_LANE_WEIGHTS, GROUP_LANE_WEIGHTS  # noqa: E402


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.split(","))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", help="NAME=HOME:REPO_ID:GOLDEN.jsonl (a file-level golden set)")
    for lane, default in (("code", "0.25,0.375,0.5"), ("sparse", "1.5,1.75,2"), ("symbol", "1"), ("name", "0.5")):
        ap.add_argument(f"--{lane}", type=_floats, default=_floats(default), help=f"{lane} weights (default {default})")
    ap.add_argument("--before", default="code=0.5,sparse=1.5", help="the weights the floor is measured from "
                    "(lanes not named: the shipped group weights)")
    ap.add_argument("--floor", type=float, default=0.02, help="how far below its before figure a set may fall")
    args = ap.parse_args(argv)
    if len(args.sets) < 2:
        ap.error("leave-one-set-out needs at least two sets")
    if args.floor < 0:
        ap.error("--floor must be 0 or more")
    try:
        named = {k.strip(): float(v) for k, v in (p.split("=") for p in args.before.split(","))}
    except ValueError:
        ap.error(f"--before {args.before!r}: want lane=weight,...")
    if set(named) - set(FUSED_LANES):
        ap.error(f"--before: unknown lanes {sorted(set(named) - set(FUSED_LANES))}; lanes are {', '.join(FUSED_LANES)}")
    before = {**GROUP_LANE_WEIGHTS, **named}
    specs = []
    for spec in args.sets:
        name, _, rest = spec.partition("=")
        parts = rest.rsplit(":", 2)
        if not name or len(parts) != 3 or not Path(parts[2]).is_file():
            ap.error(f"{spec!r}: want NAME=HOME:REPO_ID:GOLDEN.jsonl (an existing golden file)")
        specs.append((name, *parts))
    embedder = Embedder()
    sets = []
    for name, home, repo_id, golden in specs:
        sets.append(LaneSet(name, home, repo_id, golden, embedder))
        if not sets[-1].file_level:
            raise SystemExit(f"{name}: not a file-level golden set (ledger golden --commits)")
    grid = [dict(zip(FUSED_LANES, w)) for w in itertools.product(
        *((1.0,) if lane == "design" else getattr(args, lane) for lane in FUSED_LANES))]
    if before not in grid:
        grid.append(before)

    def acc(s: LaneSet, weights: dict) -> tuple[float, float]:
        m = s.score(set(FUSED_LANES), dict(DEFAULT_LANE_WEIGHTS), weights)
        return m["group Acc@1"], m["group Acc@5"]
    table = {s.name: [acc(s, w) for w in grid] for s in sets}
    base = {n: rows[grid.index(before)] for n, rows in table.items()}
    label = [" / ".join(f"{w[k]:g}" for k in ("code", "sparse", "symbol", "name")) for w in grid]
    print("| code / sparse / symbol / name | " + " | ".join(table) + " |")
    print("| --- " * (len(table) + 1) + "|")
    for i, lab in enumerate(label):
        print(f"| {lab}{' (before)' if grid[i] == before else ''} | "
              + " | ".join(f"{rows[i][0]:.3f} / {rows[i][1]:.3f}" for rows in table.values()) + " |")

    def holds(i: int, names: list[str]) -> bool:
        return all(table[n][i][k] >= base[n][k] - args.floor - 1e-9 for n in names for k in (0, 1))
    print(f"\nleave-one-set-out (best mean Acc@1 + Acc@5 over the others, each other set within {args.floor} of before):")
    for held in table:
        others = [n for n in table if n != held]
        fit = [i for i in range(len(grid)) if holds(i, others)]  # never empty: `before` holds every set
        best = max(fit, key=lambda i: (sum(sum(table[o][i]) for o in others), -i))
        a1, a5 = table[held][best]
        print(f"  {held:<14} {label[best]:<24} {a1:.3f} / {a5:.3f}  (before {base[held][0]:.3f} / {base[held][1]:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
