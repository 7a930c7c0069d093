"""Plain text: one chunk up to 3,000 characters, else 3,000-character windows
with 200 characters of overlap on line boundaries. Chunk type `plain`."""

from __future__ import annotations

from .model import ChunkPiece
from .text import split_lines
from .windows import PLAIN_MAX_CHARS, PLAIN_OVERLAP_CHARS, line_windows


def chunk_plain(
    path: str,
    text: str,
    max_chars: int = PLAIN_MAX_CHARS,
    overlap_chars: int = PLAIN_OVERLAP_CHARS,
    chunk_type: str = "plain",
) -> list[ChunkPiece]:
    lines = split_lines(text)
    if not lines or not text.strip():
        return []
    windows = line_windows(lines, 1, len(lines), max_chars, overlap_chars)
    n = len(windows)
    pieces = []
    for k, w in enumerate(windows, 1):
        meta = {"part": k, "parts": n} if n > 1 else {}
        pieces.append(ChunkPiece(text=w.text, chunk_type=chunk_type, start_line=w.start_line,
                                 end_line=w.end_line, meta=meta))
    return pieces
