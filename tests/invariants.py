"""The chunk invariants of docs/architecture.md, as assertions every chunker test uses."""

from __future__ import annotations

from chunkers import TRANSFORMED_TYPES, ChunkPiece
from chunkers.text import decode, split_lines

TRUNCATION_MARKERS = ("[truncated]", "… (truncated)", "<truncated>", "...truncated")


def uncovered_lines(pieces: list[ChunkPiece], n_lines: int) -> list[int]:
    covered = bytearray(n_lines + 2)
    for p in pieces:
        for line in range(max(p.start_line, 1), min(p.end_line, n_lines) + 1):
            covered[line] = 1
    return [line for line in range(1, n_lines + 1) if not covered[line]]


def assert_lossless(pieces: list[ChunkPiece], data: bytes | str) -> None:
    """Invariant 1: every line of the file lies inside some chunk; nothing truncated."""
    text = decode(data) if isinstance(data, bytes) else data
    lines = split_lines(text)
    if not text.strip():
        return
    missing = uncovered_lines(pieces, len(lines))
    assert not missing, f"{len(missing)} uncovered lines, first {missing[:10]}"
    for p in pieces:
        assert 1 <= p.start_line <= p.end_line <= len(lines), (p.chunk_type, p.start_line, p.end_line, len(lines))
        # A truncating chunker ends a chunk with its marker; the same words inside source are just text.
        assert not p.text.rstrip().endswith(TRUNCATION_MARKERS), f"truncation marker at the end of {p.chunk_type}"


def assert_exact(pieces: list[ChunkPiece], data: bytes | str) -> None:
    """Invariant 2: a verbatim chunk's body is the original lines at its range
    (or a slice of one over-long line)."""
    text = decode(data) if isinstance(data, bytes) else data
    lines = split_lines(text)
    for p in pieces:
        if p.chunk_type in TRANSFORMED_TYPES or p.start_line == 0:
            continue
        assert p.text.startswith(p.header), f"header not a prefix of text ({p.chunk_type} {p.start_line})"
        original = "\n".join(lines[p.start_line - 1:p.end_line])
        body = p.body
        assert body == original or (body and body in original), (
            f"{p.chunk_type} L{p.start_line}-{p.end_line}: body differs from the original lines\n"
            f"--- body ---\n{body[:400]}\n--- original ---\n{original[:400]}"
        )


def assert_invariants(pieces: list[ChunkPiece], data: bytes | str) -> None:
    assert_lossless(pieces, data)
    assert_exact(pieces, data)
