"""Chunking throughput and line coverage: ours against the usual peers.

    python benchmarks/chunk_throughput.py DIR [--ext .cs] [--chunk-chars 6000] [--tools a,b]
                                          [--rounds N] [--peer NAME]

Every tool chunks the same files of DIR in this one process, file by file (the
tree is streamed, never held in memory). Per tool it prints MB/s (chunking
time only), the number of chunks, and the mean and worst per-file coverage of
non-blank lines, and its speed as a ratio to `--peer` (default: llama-index
CodeSplitter, the fastest tree-sitter peer). With `--rounds N` every tool
runs N times, the tools taking turns (so that a change in the machine's load
falls on all of them alike), and the fastest round counts. Coverage of a tool that returns bare strings is measured by
locating each chunk in the file; a peer that is not installed (or cannot run
offline) is reported with the reason instead of figures.

Peers: llama-index `CodeSplitter`, chonkie `CodeChunker`, astchunk
`ASTChunkBuilder`, langchain `RecursiveCharacterTextSplitter.from_language`.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from chunkers import ChunkOptions, chunk_file  # noqa: E402
from chunkers.text import LineIndex, decode, split_lines  # noqa: E402

# extension -> (tree-sitter-language-pack name, langchain Language member)
LANGUAGES = {
    ".cs": ("csharp", "CSHARP"),
    ".py": ("python", "PYTHON"),
    ".ts": ("typescript", "TS"),
    ".java": ("java", "JAVA"),
}

# A chunker under test: text -> list of (start_line, end_line) or list of str.
Chunker = Callable[[str, str, bytes], list]


@dataclass
class Tally:
    name: str
    seconds: float = 0.0
    bytes: int = 0
    chunks: int = 0
    files: int = 0
    coverage_sum: float = 0.0
    worst: float = 1.0
    worst_file: str = ""
    failures: int = 0
    error: str = ""
    partial_files: list[str] = field(default_factory=list)


def iter_files(root: str, ext: str) -> Iterator[str]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.lower().endswith(ext):
                yield os.path.join(dirpath, name)


def coverage_of_ranges(text: str, ranges: list[tuple[int, int]]) -> float:
    lines = split_lines(text)
    wanted = [i for i, line in enumerate(lines, 1) if line.strip()]
    if not wanted:
        return 1.0
    covered = bytearray(len(lines) + 2)
    for s, e in ranges:
        for i in range(max(1, s), min(e, len(lines)) + 1):
            covered[i] = 1
    return sum(covered[i] for i in wanted) / len(wanted)


def ranges_of_strings(text: str, chunks: list[str], index: LineIndex) -> list[tuple[int, int]]:
    """Where each returned chunk lies in the file: found as a whole, or else
    line by line (a peer may strip or re-indent)."""
    ranges = []
    cursor = 0
    for chunk in chunks:
        needle = chunk.strip()
        if not needle:
            continue
        pos = text.find(needle, cursor)
        if pos < 0:
            pos = text.find(needle)
        if pos >= 0:
            ranges.append((index.line_of(pos), index.line_of(pos + len(needle) - 1)))
            cursor = pos + 1
            continue
        at = cursor
        for line in chunk.split("\n"):
            stripped = line.strip()
            if not stripped:
                continue
            pos = text.find(stripped, at)
            if pos >= 0:
                line_no = index.line_of(pos)
                ranges.append((line_no, line_no))
                at = pos + len(stripped)
    return ranges


def make_tools(ext: str, chunk_chars: int, wanted: set[str] | None) -> list[tuple[str, Chunker | None, str]]:
    ts_name, lc_name = LANGUAGES.get(ext, ("csharp", "CSHARP"))
    tools: list[tuple[str, Chunker | None, str]] = []

    def add(name: str, build: Callable[[], Chunker]) -> None:
        if wanted and name not in wanted:
            return
        try:
            tools.append((name, build(), ""))
        except ImportError as exc:
            # chonkie >= 1.7 imports tree-sitter-language-pack 1.x APIs (it
            # downloads grammars), which the pinned 0.13.0 does not have.
            tools.append((name, None, f"not installed or incompatible: {str(exc)[:100]}"))
        except Exception as exc:  # installed but cannot run here (e.g. wants to download grammars)
            tools.append((name, None, f"unavailable: {type(exc).__name__}: {str(exc)[:120]}"))

    options = ChunkOptions(type_max_chars=chunk_chars)

    def ours():
        def run(path, text, data):
            return [(p.start_line, p.end_line) for p in chunk_file(path, data, options)]
        return run

    def llama():
        from llama_index.core.node_parser import CodeSplitter
        from tree_sitter_language_pack import get_parser

        splitter = CodeSplitter(language=ts_name, parser=get_parser(ts_name), max_chars=chunk_chars,
                                chunk_lines=10_000, chunk_lines_overlap=1)
        return lambda path, text, data: splitter.split_text(text)

    def chonkie():
        from chonkie import CodeChunker

        chunker = CodeChunker(language=ts_name, chunk_size=chunk_chars, tokenizer="character")

        def run(path, text, data):
            index = LineIndex.of(text)
            return [(index.line_of(c.start_index), index.line_of(max(c.start_index, c.end_index - 1)))
                    for c in chunker.chunk(text)]
        return run

    def astchunk():
        from astchunk import ASTChunkBuilder

        builder = ASTChunkBuilder(max_chunk_size=chunk_chars, language=ts_name, metadata_template="default")
        return lambda path, text, data: [c["content"] for c in builder.chunkify(text)]

    def langchain():
        from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

        splitter = RecursiveCharacterTextSplitter.from_language(
            getattr(Language, lc_name), chunk_size=chunk_chars, chunk_overlap=0)
        return lambda path, text, data: splitter.split_text(text)

    def ours_chunker_only():
        # The format's chunker without the registry's redaction pass, to show
        # where the time goes.
        from chunkers.registry import TEXT_CHUNKERS, _resolve

        fn = _resolve(TEXT_CHUNKERS[ext])
        return lambda path, text, data: [(p.start_line, p.end_line) for p in fn(path, text, options)]

    add("code-ledger", ours)
    add("code-ledger (no redaction)", ours_chunker_only)
    add("llama-index CodeSplitter", llama)
    add("chonkie CodeChunker", chonkie)
    add("astchunk", astchunk)
    add("langchain from_language", langchain)
    return tools


def measure(name: str, run: Chunker, root: str, ext: str) -> Tally:
    tally = Tally(name)
    for path in iter_files(root, ext):
        with open(path, "rb") as fh:
            data = fh.read()
        try:
            text = decode(data)
        except ValueError:
            continue
        if not text.strip():
            continue
        start = time.perf_counter()
        try:
            out = run(path, text, data)
        except Exception:
            out = None
        tally.seconds += time.perf_counter() - start
        tally.bytes += len(data)
        tally.files += 1
        if out is None:
            tally.failures += 1
            cov = 0.0
        else:
            tally.chunks += len(out)
            if out and isinstance(out[0], str):
                ranges = ranges_of_strings(text, out, LineIndex.of(text))
            else:
                ranges = out
            cov = coverage_of_ranges(text, ranges)
        tally.coverage_sum += cov
        if cov < tally.worst:
            tally.worst, tally.worst_file = cov, os.path.relpath(path, root)
        if cov < 1.0:
            tally.partial_files.append(path)
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir")
    parser.add_argument("--ext", default=".cs")
    parser.add_argument("--chunk-chars", type=int, default=ChunkOptions().type_max_chars,
                        help="the size budget given to every tool (ours: type_max_chars)")
    parser.add_argument("--tools", default="", help="comma-separated subset of tool names")
    parser.add_argument("--rounds", type=int, default=1,
                        help="run every tool N times, taking turns; the fastest round counts")
    parser.add_argument("--peer", default="llama-index CodeSplitter", help="the tool the ratios are to")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.dir):
        print(f"chunk_throughput: {args.dir}: not a directory", file=sys.stderr)
        return 2
    ext = args.ext if args.ext.startswith(".") else "." + args.ext
    wanted = {t.strip() for t in args.tools.split(",") if t.strip()} or None
    # Warm the page cache so the first tool is not charged for disk reads.
    total = 0
    for path in iter_files(args.dir, ext):
        total += os.path.getsize(path)
    for path in iter_files(args.dir, ext):
        with open(path, "rb") as fh:
            fh.read()
    print(f"{args.dir}: {total / 1e6:.1f} MB of {ext} files, budget {args.chunk_chars} chars per chunk")
    print(f"{'tool':<28} {'MB/s':>7} {'ratio':>7} {'chunks':>8} {'mean cov':>9} {'worst cov':>10} {'<100%':>6}  worst file")
    tools = make_tools(ext, args.chunk_chars, wanted)
    tallies: dict[str, Tally] = {}
    for _round in range(max(1, args.rounds)):
        for name, run, _reason in tools:
            if run is not None:
                t = measure(name, run, args.dir, ext)
                best = tallies.get(name)
                if best is None or t.seconds < best.seconds:
                    tallies[name] = t
    peer = tallies.get(args.peer)
    peer_mbps = peer.bytes / 1e6 / peer.seconds if peer and peer.seconds else 0.0
    for name, run, reason in tools:
        if run is None:
            print(f"{name:<28} {reason}")
            continue
        t = tallies[name]
        mbps = t.bytes / 1e6 / t.seconds if t.seconds else 0.0
        mean = t.coverage_sum / t.files if t.files else 1.0
        fails = f" ({t.failures} files raised)" if t.failures else ""
        ratio = f"{mbps / peer_mbps:6.2f}x" if peer_mbps else f"{'-':>7}"
        print(f"{name:<28} {mbps:7.2f} {ratio} {t.chunks:8d} {mean:9.2%} {t.worst:10.2%} {len(t.partial_files):6d}"
              f"  {t.worst_file if t.worst < 1 else '-'}{fails}", flush=True)
    if peer_mbps:
        print(f"(ratio: MB/s over {args.peer}'s, best of {max(1, args.rounds)} round(s))")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak_mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
