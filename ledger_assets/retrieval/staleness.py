"""Is a hit still true of the live file? Checked before a hit is served.

A hit is fresh when the lines at its range still hash to its content hash
(header + live lines, normalised as at ingest), or when its symbol still sits
at those lines in a fresh parse of the live file. Otherwise it is stale; where
the unit moved (same content elsewhere, or its symbol at other lines) the hit
carries its live lines, so an agent reads the right span without re-querying.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from chunkers import chunk_file_guarded
from chunkers.text import BinaryContent, decode, join_lines, split_lines

from ledger_assets.encode.embedder import text_hash


@dataclass(frozen=True)
class Freshness:
    stale: bool
    reason: str = ""
    live_start_line: int | None = None
    live_end_line: int | None = None

    def to_dict(self) -> dict:
        out: dict = {"stale": self.stale}
        if self.reason:
            out["stale_reason"] = self.reason
        if self.live_start_line is not None:
            out["live_start_line"] = self.live_start_line
            out["live_end_line"] = self.live_end_line
        return out


FRESH = Freshness(False)


def primary_symbol(payload: dict) -> tuple | None:
    """(name, kind, parent, start, end) of the unit a chunk is cut around: its first symbol."""
    try:
        symbols = json.loads(payload.get("chunk_symbols") or "[]")
    except (TypeError, ValueError):
        return None
    return tuple(symbols[0]) if symbols else None


class LiveFiles:
    """Reads each live file once per query: its text and, on demand, a fresh parse."""

    def __init__(self) -> None:
        self._text: dict[Path, str | None] = {}
        self._pieces: dict[Path, list] = {}

    def text(self, path: Path) -> str | None:
        if path not in self._text:
            try:
                self._text[path] = decode(path.read_bytes()) if path.is_file() else None
            except (OSError, BinaryContent):
                self._text[path] = None
        return self._text[path]

    def pieces(self, path: Path, rel: str) -> list:
        if path not in self._pieces:
            text = self.text(path)
            self._pieces[path] = chunk_file_guarded(rel, text.encode("utf-8")).pieces if text is not None else []
        return self._pieces[path]


def check_freshness(payload: dict, repo_root: str | Path, header: str | None, live: LiveFiles | None = None) -> Freshness:
    live = live or LiveFiles()
    rel = payload.get("file_path", "")
    root = Path(repo_root)
    path = root / rel
    text = live.text(path)
    if text is None:
        return Freshness(True, "file no longer exists (or is unreadable) in the work tree")
    start, end = int(payload.get("start_line") or 0), int(payload.get("end_line") or 0)
    want = payload.get("content_hash", "")
    lines = split_lines(text)
    if 1 <= start <= end <= len(lines):
        body = join_lines(lines, start, end)
        if header is not None and text_hash(header + body) == want:
            return FRESH
        if header is None and text_hash(body) == want:
            return FRESH
    # The cheap check failed: parse the live file as the ingest would.
    pieces = live.pieces(path, rel)
    for piece in pieces:
        if text_hash(piece.text) == want:
            if (piece.start_line, piece.end_line) == (start, end):
                return FRESH
            return Freshness(True, "unit moved: same content at other lines", piece.start_line, piece.end_line)
    sym = primary_symbol(payload)
    if sym is None:
        return Freshness(True, "lines at the range changed since indexing")
    name, kind, parent, s_start, s_end = (list(sym) + [0, 0, 0, 0, 0])[:5]
    found = [s for p in pieces for s in p.symbols if (s.name, s.kind, s.parent) == (name, kind, parent)]
    if any((s.start_line, s.end_line) == (s_start, s_end) for s in found):
        return FRESH
    if found:
        best = min(found, key=lambda s: abs(s.start_line - s_start))
        return Freshness(True, f"{kind} {name} moved", best.start_line, best.end_line)
    return Freshness(True, f"{kind} {name} is no longer in the file")
