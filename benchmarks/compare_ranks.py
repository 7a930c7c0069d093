"""Two `ledger eval` reports of the same golden set, query by query: which queries one run answers in the top k and
the other does not, with each lane's rank in both (the drift of a set's figure, read where it happens).

    python benchmarks/compare_ranks.py BEFORE/report.json AFTER/report.json [--system fusion:group_file] [--k 1]

Reports are file-level ones (`commit_eval.py`'s, `ledger eval` on a commit set): their `per_query` block. Prints one line a changed
query: `rank before -> after`, the query, then `lane before->after` for each fused lane (None: not in the top 10).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _hit(rank: int | None, k: int) -> bool:
    return rank is not None and rank <= k


def changed(before: dict, after: dict, system: str, k: int) -> list[str]:
    b, a = before["per_query"], after["per_query"]
    if b["queries"] != a["queries"]:
        raise SystemExit("the two reports are not of the same golden set (their queries differ)")
    if system not in b["ranks"] or system not in a["ranks"]:
        raise SystemExit(f"no system {system!r} in both reports; they have {', '.join(sorted(b['ranks']))}")
    lanes = [name for name in b["ranks"] if name.startswith("lane:") and name in a["ranks"]]
    out = []
    for i, query in enumerate(b["queries"]):
        rb, ra = b["ranks"][system][i], a["ranks"][system][i]
        if _hit(rb, k) != _hit(ra, k):
            moves = " ".join(f"{lane[5:]} {b['ranks'][lane][i]}->{a['ranks'][lane][i]}" for lane in lanes)
            out.append(f"{'lost' if _hit(rb, k) else 'won '} {rb}->{ra}  {query[:70]!r}  {moves}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--system", default="fusion:group_file", help="the ranking compared (default fusion:group_file)")
    ap.add_argument("--k", type=int, default=1, help="a query counts as answered at rank <= k (default 1)")
    args = ap.parse_args(argv)
    if args.k < 1:
        ap.error("--k must be 1 or more")
    reports = []
    for path in (args.before, args.after):
        report = json.loads(path.read_text(encoding="utf-8"))
        if "per_query" not in report:
            raise SystemExit(f"{path}: no per_query block (a chunk-level report, or one from before 2026-12-04)")
        reports.append(report)
    lines = changed(*reports, args.system, args.k)
    print("\n".join(lines) if lines else "no query changed")
    won = sum(1 for ln in lines if ln.startswith("won"))
    print(f"{won} won, {len(lines) - won} lost at rank <= {args.k} ({args.system}, {len(reports[0]['per_query']['queries'])} queries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
