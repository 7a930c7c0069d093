"""`--group file`'s decay, RRF k, test prior and docs prior chosen leave-one-set-out, with a floor, from reports.

    python benchmarks/group_settings.py NAME=REPORT.json [...] [--floor 0.02] [--ratio 1.2]

Each REPORT.json is one `commit_eval.py` report (WORK/NAME/report.json, or report-tests.json for questions about
tests): its `sweep` holds `--group file` Acc@1 / Acc@5 at every point of evaluate.GROUP_GRID, all read from the
same ranking, so no index is opened here. For each set held out: among the points that keep every OTHER set
within --floor Acc@1 and Acc@5 of its figure at the shipped point (and, for a commit set, --ratio times its best
baseline's Acc@1 where the shipped point already is), the one with the best mean Acc@1 + Acc@5 over the others
(a tie: the point changing fewest of the four from the shipped ones, then the first in the grid's order), and
what it gives the held-out set. Then every set at each point some fold chose. `commit_eval.py` prints plain
leave-one-repo-out, no floor; this is the fifteenth round's protocol (benchmarks/ingest_scale.md) for these four
settings. The lane weights are the shipped ones. A question about tests has a decay and RRF k of its own
(GROUP_TESTS_*): choose for the commit sets and for sets of questions about tests apart (a `-tests.json` report is
read from the tests' shipped point).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ledger_assets.store.settings import (DOCS_PRIOR, GROUP_DECAY, GROUP_RRF_K, GROUP_TESTS_DECAY,  # noqa: E402
                                         GROUP_TESTS_RRF_K, TEST_PRIOR)

KEYS = ("decay", "rrf_k", "test_prior", "docs_prior")
SHIPPED = (GROUP_DECAY, GROUP_RRF_K, TEST_PRIOR, DOCS_PRIOR)
SHIPPED_TESTS = (GROUP_TESTS_DECAY, GROUP_TESTS_RRF_K, TEST_PRIOR, DOCS_PRIOR)


def load(spec: str) -> tuple[str, dict[tuple, tuple[float, float]], float | None]:
    """One set: its name, Acc@1 / Acc@5 at each point, and its best baseline's Acc@1 (None for a tests set)."""
    name, sep, path = spec.partition("=")
    if not sep or not Path(path).is_file():
        raise SystemExit(f"{spec!r}: want NAME=REPORT.json (an existing commit_eval.py report)")
    report = json.loads(Path(path).read_text(encoding="utf-8"))
    grid = {tuple(row[k] for k in KEYS): (row["acc@1"], row["acc@5"])
            for row in report.get("sweep", []) if row["system"] == "fusion:group_file"}
    tests = Path(path).name.endswith("-tests.json")
    shipped = SHIPPED_TESTS if tests else SHIPPED
    if shipped not in grid:
        raise SystemExit(f"{name}: {path} has no sweep row at the shipped point {dict(zip(KEYS, shipped))}")
    return name, grid, None if tests else report["best_baseline"]["acc@1"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", help="NAME=REPORT.json")
    ap.add_argument("--floor", type=float, default=0.02, help="how far below its shipped figure a set may fall")
    ap.add_argument("--ratio", type=float, default=1.2, help="a commit set's Acc@1 ÷ best baseline kept at least "
                    "this where the shipped point has it")
    args = ap.parse_args(argv)
    if len(args.sets) < 2:
        ap.error("leave-one-set-out needs at least two sets")
    sets = [load(s) for s in args.sets]
    kinds = {best is None for _, _, best in sets}
    if len(kinds) > 1:
        ap.error("commit sets and sets of questions about tests have settings of their own: choose for each apart")
    shipped = SHIPPED_TESTS if kinds == {True} else SHIPPED
    points = [p for p in sets[0][1] if all(p in g for _, g, _ in sets)]

    def holds(p: tuple, name: str, grid: dict, best: float | None) -> bool:
        (a1, a5), (b1, b5) = grid[p], grid[shipped]
        if a1 < b1 - args.floor - 1e-9 or a5 < b5 - args.floor - 1e-9:
            return False
        return best is None or b1 < args.ratio * best or a1 >= args.ratio * best - 1e-9

    def label(p: tuple) -> str:
        return " / ".join(f"{v:g}" for v in p)

    chosen = collections.Counter()
    print(f"leave-one-set-out: decay / RRF k / test prior / docs prior with the best mean Acc@1 + Acc@5 over the "
          f"others, each other set within {args.floor} of the shipped {label(shipped)}")
    for name, grid, best in sets:
        others = [s for s in sets if s[0] != name]
        fit = [p for p in points if all(holds(p, *o) for o in others)]  # never empty: the shipped point holds
        pick = max(fit, key=lambda p: (round(sum(sum(g[p]) for _, g, _ in others), 9),
                                       sum(a == b for a, b in zip(p, shipped)), -points.index(p)))
        chosen[pick] += 1
        (a1, a5), (b1, b5) = grid[pick], grid[shipped]
        ratio = f"  {a1 / best:.2f}x best baseline (shipped {b1 / best:.2f}x)" if best else ""
        print(f"  {name:<16} {label(pick):<22} {a1:.3f} / {a5:.3f}  (shipped {b1:.3f} / {b5:.3f}){ratio}")
    print("\nevery set at each point chosen (folds), then the shipped point:")
    print("| decay / RRF k / test prior / docs prior | folds | " + " | ".join(n for n, _, _ in sets) + " |")
    print("| --- " * (len(sets) + 2) + "|")
    for p, n in [*chosen.most_common(), *([] if shipped in chosen else [(shipped, 0)])]:
        print(f"| {label(p)}{' (shipped)' if p == shipped else ''} | {n} | "
              + " | ".join(f"{g[p][0]:.3f} / {g[p][1]:.3f}" for _, g, _ in sets) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
