"""Many small units of one file packed into fewer chunks, whole.

A generated file of 100,000 headings or 50,000 one-line methods was as many chunks, each a text to embed: an
hour of CPU for one file, with every other repo waiting behind it. Over a cap (`md_max_sections`,
`code_max_chunks`), consecutive units share a chunk instead: never a unit cut, every unit still a symbol of
the chunk holding it, its size bounded, and where a chunk ends anchored in its units' text, so an edit to such a
file re-embeds the chunks it touches, not half the file.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

from .model import ChunkOptions, ChunkPiece


def ranges(texts: Sequence[str], cap: int, max_chars: int,
           joins: Sequence[bool] | None = None) -> list[tuple[int, int]]:
    """Index ranges [i, j) of consecutive units, each together at most `max_chars` (a range that would grow past
    it ends early; a unit alone over it stays alone). `joins[j]` False: unit j may not share a chunk with unit
    j - 1 (the range before it ends there).

    With m the power of two at or above n / `cap`, a range ends after a unit whose text hashes into the first 1 / m
    of the hash space (an anchor), or at 4m units: n / m ranges on average, between `cap` / 2 and `cap` for a
    large n. Where a range ends depends on its units' text, not their place in the file: a unit added, removed or
    changed changes the range holding it (and the next one where it is or was an anchor), where ranges cut every
    n / `cap` units all shifted and half a file's chunks were new texts to embed. m moves only when n crosses a
    doubling of `cap`."""
    n = len(texts)
    if n == 0:
        return []
    mean = 1 << max(0, (-(-n // cap) - 1).bit_length())  # the power of two at or above n / cap
    cut, longest = _SPACE // mean, 4 * mean
    out: list[tuple[int, int]] = []
    i = 0
    while i < n:
        j, size = i + 1, len(texts[i])
        while (j < n and j - i < longest and not _anchor(texts[j - 1], cut) and size + len(texts[j]) <= max_chars
               and (joins is None or joins[j])):
            size += len(texts[j])
            j += 1
        out.append((i, j))
        i = j
    return out


_SPACE = 1 << 64


def _anchor(text: str, cut: int) -> bool:
    """Does a range end after this unit? Its text's hash, so the same text decides the same way anywhere."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()) < cut


def _verbatim(piece: ChunkPiece, lines: list[str]) -> bool:
    """Is the piece's body exactly its file lines, so a pack can hold it by line range?"""
    return (0 < piece.start_line <= piece.end_line <= len(lines) and "part" not in piece.meta
            and piece.body == "\n".join(lines[piece.start_line - 1:piece.end_line]))


def pack_members(pieces: list[ChunkPiece], lines: list[str], options: ChunkOptions) -> tuple[list[ChunkPiece], str]:
    """A code file's pieces, and a note, when there are more than `options.code_max_chunks`: then runs of
    consecutive members (the same chunk type and header, verbatim, each past the one before) share a chunk of
    at most `type_max_chars` characters and `chunk_max_symbols` symbols, its text the lines they span. A type's
    header and whole copies stay as they were. At or under the cap, the pieces as they are and no note."""
    cap = options.code_max_chunks
    if len(pieces) <= cap:
        return pieces, ""
    ok = [_verbatim(p, lines) for p in pieces]
    joins = [False] + [ok[k] and ok[k - 1] and pieces[k].chunk_type == pieces[k - 1].chunk_type
                       and pieces[k].header == pieces[k - 1].header
                       and pieces[k].start_line > pieces[k - 1].end_line for k in range(1, len(pieces))]
    out: list[ChunkPiece] = []
    for i, j in _bounded(pieces, ranges([p.text for p in pieces], cap, options.type_max_chars, joins),
                         options.chunk_max_symbols):
        if j - i == 1:
            out.append(pieces[i])
            continue
        first, last = pieces[i], pieces[j - 1]
        body = "\n".join(lines[first.start_line - 1:last.end_line])
        shared = {k: v for k, v in first.meta.items() if all(p.meta.get(k) == v for p in pieces[i + 1:j])}
        out.append(ChunkPiece(text=first.header + body, chunk_type=first.chunk_type, start_line=first.start_line,
                              end_line=last.end_line, symbols=[s for p in pieces[i:j] for s in p.symbols],
                              skeleton=first.skeleton, header=first.header, meta={**shared, "members": j - i}))
    if len(out) == len(pieces):
        return pieces, ""
    return out, (f"{len(pieces):,} chunks, over code_max_chunks={cap:,}: consecutive members share a chunk "
                 f"({len(out):,} chunks)")


def _bounded(pieces: list[ChunkPiece], spans: list[tuple[int, int]], max_symbols: int) -> list[tuple[int, int]]:
    """`spans`, each cut where its pieces' symbols together would pass `max_symbols`."""
    out = []
    for i, j in spans:
        start, count = i, 0
        for k in range(i, j):
            n = len(pieces[k].symbols)
            if k > start and count + n > max_symbols:
                out.append((start, k))
                start, count = k, 0
            count += n
        out.append((start, j))
    return out
