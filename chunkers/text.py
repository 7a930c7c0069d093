"""Decoding, line bookkeeping and text scanning shared by the chunkers.

Line numbers are 1-based and count `\n` line breaks only; CRLF becomes LF
before anything else, which keeps every line number unchanged.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from itertools import accumulate

BOM = "\ufeff"


class BinaryContent(ValueError):
    """The bytes are not text (NUL bytes); the file is skipped with this reason."""


# Byte-order marks, longest first: UTF-32 LE's BOM starts with UTF-16 LE's.
_BOMS = (
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\xfe\xff", "utf-16-be"),
    (b"\xff\xfe", "utf-16-le"),
)


def bom_encoding(data: bytes) -> str | None:
    """The UTF-16/UTF-32 encoding a leading byte-order mark declares, else None (UTF-8 is the default)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    return None


def looks_binary(data: bytes) -> bool:
    """NUL bytes in the first 8 KiB, unless a UTF-16/32 BOM says they are part of the text."""
    if bom_encoding(data):
        return False
    return b"\x00" in data[:8192]


def decode(data: bytes) -> str:
    """Bytes -> text: BOM stripped, invalid UTF-8 replaced, CRLF -> LF.

    A UTF-16 or UTF-32 byte-order mark selects that encoding (invalid units
    replaced); without one the bytes are UTF-8. Raises BinaryContent for NUL
    bytes (binary data, or a NUL character in decoded UTF-16/32 text), the
    only input refused.
    """
    encoding = bom_encoding(data)
    if encoding:
        bom_len = 4 if encoding.startswith("utf-32") else 2
        text = data[bom_len:].decode(encoding, errors="replace")
        if "\x00" in text[:8192]:
            raise BinaryContent(f"binary content (NUL characters in {encoding.upper()} text)")
        return text.replace("\r\n", "\n")
    if b"\x00" in data[:8192]:
        raise BinaryContent("binary content (NUL bytes)")
    text = data.decode("utf-8", errors="replace")
    if text.startswith(BOM):
        text = text[1:]
    return text.replace("\r\n", "\n")


def split_lines(text: str) -> list[str]:
    """The file's lines without their line breaks; '' -> []. A final newline adds no line."""
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


# The last text's table: a file's chunker and the registry's redaction pass
# both need it, and splitting a large file twice shows in the throughput.
_TABLE: tuple = ("", [""], [0, 0])


def line_table(text: str) -> tuple[list[str], list[int]]:
    """`text.split("\n")` and the prefix sums of those lines' lengths (pre[k]:
    characters in the first k lines, so line k + 1 starts at pre[k] + k).

    The result for the last text is kept (matched by identity, never by
    content): treat both lists as read-only.
    """
    global _TABLE
    table = _TABLE
    if table[0] is text:
        return table[1], table[2]
    lines = text.split("\n")
    pre = [0, *accumulate(map(len, lines))]
    _TABLE = (text, lines, pre)
    return lines, pre


def line_count(text: str) -> int:
    return len(split_lines(text))


def join_lines(lines: list[str], start: int, end: int) -> str:
    """Lines start..end (1-based, inclusive) joined with '\n', no trailing newline."""
    return "\n".join(lines[start - 1:end])


@dataclass
class LineIndex:
    """Maps character offsets in a text to 1-based line numbers."""

    starts: list[int]

    @classmethod
    def of(cls, text: str) -> "LineIndex":
        starts = [0]
        find = text.find
        pos = find("\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = find("\n", pos + 1)
        return cls(starts)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def offset_of(self, line: int) -> int:
        return self.starts[line - 1]


_TAG_END = re.compile(r"""[>"']""")


class TagEnds:
    """Where a markup tag's attributes end, read from a position: the first `>` outside quotes in text[lo:hi], or -1
    (a quote never closed, or no `>`). Found from the positions of `>` and quotes, each walk remembered, so asking at
    every `<` of a text costs about linear time together, where a pattern's scan from each `<` cost the square."""

    def __init__(self, text: str, lo: int = 0, hi: int | None = None):
        self.text = text
        self.ends = [m.start() for m in _TAG_END.finditer(text, lo, len(text) if hi is None else hi)]
        self.quotes = {q: [p for p in self.ends if text[p] == q] for q in "\"'"}
        self.found: dict[int, int] = {}  # where attributes resume -> the tag's `>` (-1: never closed)

    def __call__(self, at: int) -> int:
        text, ends, found = self.text, self.ends, self.found
        path = []
        while True:
            if at in found:
                result = found[at]
                break
            path.append(at)
            i = bisect.bisect_left(ends, at)
            if i == len(ends):
                result = -1
                break
            mark = ends[i]
            if text[mark] == ">":
                result = mark
                break
            same = self.quotes[text[mark]]
            j = bisect.bisect_left(same, mark + 1)
            if j == len(same):  # a quote never closed: no `>` ends these attributes
                result = -1
                break
            at = same[j] + 1  # past the quoted value
        for p in path:
            found[p] = result
        return result
