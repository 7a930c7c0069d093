"""Brace-depth vs tree-sitter path of the TS/JS chunker, on the same files.

    python benchmarks/ts_paths.py DIR [DIR ...] [--cap 6000]

Per language (ts = .ts/.tsx/.mts/.cts, js = .js/.jsx/.mjs/.cjs) and path: MB/s, chunks, mean / p95 /
max chunk characters, worst-file and mean line coverage, distinct symbols (name, kind, parent, line),
declaration chunks without a symbol, and "blind parts": chunks that are parts of a unit cut by size
rather than by a declaration. It chose `options.ts_tree_sitter` / `options.js_tree_sitter` (both on);
the figures are in benchmarks/README.md, the decision in docs/decisions.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chunkers.model import ChunkOptions  # noqa: E402
from chunkers.text import decode, split_lines  # noqa: E402
from chunkers.typescript import JS_EXTENSIONS, TS_EXTENSIONS, chunk_typescript  # noqa: E402

SKIP_DIRS = {"node_modules", ".git", "dist", "build", "__tests__", "__snapshots__"}


def collect(roots: list[str]) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {"ts": [], "js": []}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in sorted(filenames):
                ext = os.path.splitext(name)[1].lower()
                if name.endswith((".d.ts", ".min.js")) or ".spec." in name or ".test." in name:
                    continue
                lang = "ts" if ext in TS_EXTENSIONS else "js" if ext in JS_EXTENSIONS else ""
                if lang:
                    path = os.path.join(dirpath, name)
                    text = decode(Path(path).read_bytes())
                    if text.strip():
                        out[lang].append((path, text))
    return out


def measure(files: list[tuple[str, str]], options: ChunkOptions) -> dict:
    sizes: list[int] = []
    coverages: list[float] = []
    symbols: set = set()
    no_symbol = blind = 0
    started = time.perf_counter()
    all_pieces = [(path, text, chunk_typescript(path, text, options)) for path, text in files]
    elapsed = time.perf_counter() - started
    for path, text, pieces in all_pieces:
        n = len(split_lines(text))
        covered = bytearray(n + 1)
        for p in pieces:
            covered[p.start_line:p.end_line + 1] = b"\x01" * (p.end_line - p.start_line + 1)
            sizes.append(len(p.text))
            for s in p.symbols:
                symbols.add((path, s.name, s.kind, s.parent, s.start_line))
            if p.chunk_type == "ts_function" and not p.symbols:
                no_symbol += 1
            if p.meta.get("parts") and p.chunk_type != "ts_class_full":
                blind += 1
        coverages.append(sum(covered[1:]) / n if n else 1.0)
    sizes.sort()
    megabytes = sum(len(t.encode()) for _, t in files) / 1e6
    return {
        "mb_s": megabytes / elapsed if elapsed else 0.0,
        "chunks": len(sizes),
        "mean": sum(sizes) // max(1, len(sizes)),
        "p95": sizes[int(len(sizes) * 0.95)] if sizes else 0,
        "max": sizes[-1] if sizes else 0,
        "worst": min(coverages, default=1.0),
        "mean_cov": sum(coverages) / max(1, len(coverages)),
        "symbols": len(symbols),
        "no_symbol": no_symbol,
        "blind": blind,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+")
    parser.add_argument("--cap", type=int, default=ChunkOptions().type_max_chars)
    args = parser.parse_args(argv)
    corpus = collect(args.dirs)
    base = replace(ChunkOptions(), type_max_chars=args.cap)
    print("lang path         files    MB  MB/s chunks mean  p95   max  cov(worst) cov(mean) symbols no-sym blind-parts")
    for lang, files in corpus.items():
        if not files:
            continue
        megabytes = sum(len(t.encode()) for _, t in files) / 1e6
        for name, flag in (("tree-sitter", True), ("brace", False)):
            r = measure(files, replace(base, ts_tree_sitter=flag, js_tree_sitter=flag))
            print(f"{lang:4} {name:12} {len(files):5} {megabytes:5.2f} {r['mb_s']:5.2f} {r['chunks']:6} {r['mean']:5} "
                  f"{r['p95']:5} {r['max']:5} {r['worst']:9.1%} {r['mean_cov']:9.1%} {r['symbols']:7} "
                  f"{r['no_symbol']:6} {r['blind']:11}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
