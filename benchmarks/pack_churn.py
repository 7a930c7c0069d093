"""What one edit to a packed file costs a re-ingest: the chunk texts that are new after it (each one an embedding;
a text seen before reuses its vector). Run on demand:

    python benchmarks/pack_churn.py [--members 50000] [--sections 20000]

Two generated files past their caps (chunkers/packs.py): a C# class of one-line methods (`code_max_chunks`) and a
changelog of headings (`md_max_sections`). Each edit is made once: a member (a section) added at the start, in the
middle, at the end, one removed from the middle, one changed in the middle. Prints chunks before, chunks after and
new texts for each.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chunkers import chunk_file_result  # noqa: E402


def _method(i: int | str) -> str:
    return f"void M{i}() {{ Run({i!r}); }}\n".replace("'", '"')


def _section(i: int | str) -> str:
    return f"## 1.0.{i}\n\n- fixed bug {i}\n\n"


def _edits(units: list[str], make) -> dict[str, list[str]]:
    mid = len(units) // 2
    return {"added at the start": [make("new"), *units],
            "added in the middle": [*units[:mid], make("new"), *units[mid:]],
            "added at the end": [*units, make("new")],
            "removed from the middle": [*units[:mid], *units[mid + 1:]],
            "changed in the middle": [*units[:mid], make(f"{mid}x"), *units[mid + 1:]]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--members", type=int, default=50_000, help="one-line methods in the C# file")
    ap.add_argument("--sections", type=int, default=20_000, help="headings in the changelog")
    args = ap.parse_args(argv)
    files = {"Generated.cs": (lambda units: "class A {\n" + "".join(units) + "}\n",
                              [_method(i) for i in range(args.members)], _method),
             "CHANGELOG.md": (lambda units: "".join(units), [_section(i) for i in range(args.sections)], _section)}
    print("| file | edit | chunks before | chunks after | new chunk texts | seconds |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for name, (render, units, make) in files.items():
        before = {p.text for p in chunk_file_result(name, render(units).encode()).pieces}
        for edit, changed in _edits(units, make).items():
            t0 = time.process_time()
            after = [p.text for p in chunk_file_result(name, render(changed).encode()).pieces]
            seconds = time.process_time() - t0
            print(f"| {name} ({len(units):,}) | {edit} | {len(before):,} | {len(after):,} | "
                  f"{sum(t not in before for t in after):,} | {seconds:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
