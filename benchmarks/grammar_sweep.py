"""Which chunker takes more than linear time on a run of one construct? Each unit is repeated n and 4n times and
chunked (`chunk_file_result`, one extension at a time); a reading where 4x the input costs more than 8x the time
(and over half a second) is flagged. The figures and what was done about them: benchmarks/hostile_files.md.

    python benchmarks/grammar_sweep.py [--ext .cs .java ...] [--unit 'x <' ...] [--n 2000] [--guarded]

`--guarded` chunks as the ingest does (`chunk_file_guarded`: a file of 4 KB or more in a worker process under CPU
and memory limits) and times wall seconds, the worker's work included; a reading a limit stopped says which.

A flagged reading is a lead, not a verdict: time a third size before calling it the square. The default units are
the shapes the sweeps of 2026-12-05 used (ambiguous tokens, openings never closed, runs of operators).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from chunkers.registry import chunk_file_result  # noqa: E402
from chunkers.sandbox import chunk_file_guarded  # noqa: E402

EXTS = [".cs", ".ts", ".tsx", ".js", ".java", ".kt", ".go", ".rs", ".swift", ".scala", ".py", ".rb", ".php", ".cpp",
        ".c"]
UNITS = ["x <", "x<", "List<", "a<b<", "f<", "<T", "x is List<", "Func<", "x <[", "x <{", "x {{", "x {}", "x /*",
         "x ?", "x ? y", "x :", "x ::", "@x", "#x", "x.", "x ->", "x =>", "x |", "x &", "x *", "*x", "&x", "x as",
         "x is", "new x", "x[", "(x)y", "(x)(", "x<y,", "typeof(", "${", "x!", "x?.", "x??", "x..", "..x", "case x:",
         "@{", "#if x\n", "'", "x '", "\\", "x\\\n", "$(", "`", "x `", "/", "x /", "x //\n", "%", "x %", "^", "~",
         "x ?:", "x?", "x!!", "x::<", "x.<", "x <:", "x =~", "x ~>", "x |>", "x <|", "#[", "&mut x", "'a x",
         "x -> y", "fn(", "func(", "def(", "do |", "x do", "end x", "begin x", "x if", "x then"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ext", nargs="*", default=EXTS, help="extensions to chunk as (default: every tree-sitter one)")
    ap.add_argument("--unit", nargs="*", default=UNITS, help="the constructs to repeat")
    ap.add_argument("--n", type=int, default=2000, help="repetitions of the first size (the second is 4x)")
    ap.add_argument("--guarded", action="store_true", help="chunk in the ingest's worker process, timing wall seconds")
    args = ap.parse_args(argv)
    clock, chunk = (time.monotonic, chunk_file_guarded) if args.guarded else (time.process_time, chunk_file_result)
    print(f"{'ext':7} {'unit':18} {'n s':>8} {'4n s':>9}  ({'wall' if args.guarded else 'CPU'})")
    for ext in args.ext:
        for unit in args.unit:
            times, stopped = [], ""
            for n in (args.n, 4 * args.n):
                data = (unit * n).encode()
                start = clock()
                result = chunk("sweep" + ext, data)
                times.append(clock() - start)
                stopped = stopped or next((f"  stopped at {n}: {x[:60]}" for x in (result.skip_reason, *result.notes)
                                           if "limit" in x), "")
                if times[-1] > 30:  # past this the second size is not waited for
                    times.append(float("inf"))
                    break
            flag = "  <-- more than linear" if times[1] > 8 * max(times[0], 0.02) and times[1] > 0.5 else ""
            print(f"{ext:7} {unit!r:18} {times[0]:8.2f} {times[1]:9.2f}{flag}{stopped}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
