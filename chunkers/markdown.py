"""Markdown: one `md_section` per heading, from the heading to the next one.

Every section's text starts with the breadcrumb of its ancestor headings,
`<!-- Path: A > B > C -->`, so a section cut from deep inside a spec still says
where it belongs; the body is the exact original lines. ATX (`## x`) and setext
(`x` over `===`/`---`) headings count; lines inside fenced code blocks and
YAML/TOML front matter never do. Front matter and any text before the first
heading stay with the first section, so the sections partition the file.

A section over `options.md_section_max_chars` is split on paragraph
boundaries (blank lines outside code fences); each part re-emits the
breadcrumb plus `(part n/m)`. A file without headings is plain text. A file of
more than `options.md_max_sections` sections packs consecutive whole sections
into one chunk, so one file's chunks stay about that many.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkPiece, ChunkResult, ChunkSymbol
from .packs import ranges
from .plain import chunk_plain
from .redact import clip_redacted
from .text import split_lines
from .windows import line_windows

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
# A line that opens some other block cannot be a setext heading's text.
_NOT_SETEXT_TEXT = re.compile(r"^(?: {4}|\t| {0,3}(?:[-*+>]|\d{1,9}[.)])(?:[ \t]|$)| {0,3}<!--)")


# A heading's title as its sections' breadcrumbs and symbols carry it: every part of a section re-emits the
# breadcrumb, so a title as long as the file (a file whose only line breaks are lone carriage returns is one
# line, its first heading the rest of the file) put the whole file into every part: 1.2 MB never finished.
MAX_TITLE_CHARS = 200


def _title(text: str) -> str:
    """A heading's text up to a lone carriage return, and at most MAX_TITLE_CHARS (cut with `…` after its
    redaction: the breadcrumbs carry the cut inside a line, where the pieces' redaction cannot see it)."""
    text = text.split("\r", 1)[0].strip()
    return clip_redacted(text, MAX_TITLE_CHARS)


@dataclass(frozen=True)
class Heading:
    start: int  # 1-based line of the heading (the text line for setext)
    end: int  # last line of the heading (the underline for setext)
    level: int
    title: str


def _front_matter_end(lines: list[str]) -> int:
    """Last line of a leading `---`/`+++` front matter block, else 0."""
    if not lines or lines[0].rstrip() not in ("---", "+++"):
        return 0
    closers = ("---", "...") if lines[0].rstrip() == "---" else ("+++",)
    for i in range(1, len(lines)):
        if lines[i].rstrip() in closers:
            return i + 1
    return 0


def _scan(lines: list[str]) -> tuple[list[Heading], list[bool]]:
    """Headings, and per line whether it lies inside a fence (or front matter)."""
    n = len(lines)
    in_code = [False] * (n + 1)  # index by 1-based line
    headings: list[Heading] = []
    i = _front_matter_end(lines)
    for k in range(1, i + 1):
        in_code[k] = True
    fence: str | None = None
    prev_is_text = False  # previous line could be setext heading text
    while i < n:
        line = lines[i]
        lineno = i + 1
        if fence is not None:
            in_code[lineno] = True
            stripped = line.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]} and len(line) - len(line.lstrip(" ")) <= 3:
                fence = None
            i += 1
            prev_is_text = False
            continue
        opened = _FENCE_OPEN.match(line)
        if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
            fence = opened.group(1)
            in_code[lineno] = True
            i += 1
            prev_is_text = False
            continue
        atx = _ATX.match(line)
        if atx:
            title = _title(_ATX_CLOSING.sub("", atx.group(2) or ""))
            headings.append(Heading(lineno, lineno, len(atx.group(1)), title))
            prev_is_text = False
            i += 1
            continue
        setext = _SETEXT.match(line)
        if setext and prev_is_text:
            level = 1 if setext.group(1)[0] == "=" else 2
            headings.append(Heading(lineno - 1, lineno, level, _title(lines[i - 1])))
            prev_is_text = False
            i += 1
            continue
        prev_is_text = bool(line.strip()) and not _NOT_SETEXT_TEXT.match(line) and not setext
        i += 1
    return headings, in_code


def _breadcrumb(titles: list[str], part: tuple[int, int] | None = None) -> str:
    path = " > ".join(t.replace("-->", "--\u200b>") or "(untitled)" for t in titles)
    suffix = f" (part {part[0]}/{part[1]})" if part else ""
    return f"<!-- Path: {path}{suffix} -->\n"


def _paragraph_blocks(lines: list[str], start: int, end: int, in_code: list[bool]) -> list[tuple[int, int]]:
    """Line ranges that may not be cut: a run of lines ending at a blank line outside code."""
    blocks: list[tuple[int, int]] = []
    s = start
    for ln in range(start, end + 1):
        if ln == end or (not lines[ln - 1].strip() and not in_code[ln]):
            blocks.append((s, ln))
            s = ln + 1
    return blocks


def _split_section(lines: list[str], start: int, end: int, budget: int,
                   in_code: list[bool]) -> list[tuple[int, int, str]]:
    """Greedy packing of paragraph blocks into (start, end, body) of at most
    `budget` chars; a block alone over budget is cut by line windows."""
    parts: list[tuple[int, int, str]] = []
    cur_start, cur_size = 0, 0
    for bs, be in _paragraph_blocks(lines, start, end, in_code):
        size = sum(len(lines[k - 1]) + 1 for k in range(bs, be + 1)) - 1
        if cur_start and cur_size + 1 + size <= budget:
            cur_size += 1 + size
            parts[-1] = (cur_start, be, "")
            continue
        if size <= budget:
            cur_start, cur_size = bs, size
            parts.append((bs, be, ""))
            continue
        cur_start, cur_size = 0, 0
        parts.extend((w.start_line, w.end_line, w.text) for w in line_windows(lines, bs, be, budget, 0))
    return [(s, e, body or "\n".join(lines[s - 1:e])) for s, e, body in parts]


def chunk_markdown(path: str, text: str, options: ChunkOptions = DEFAULT_OPTIONS) -> list[ChunkPiece]:
    return chunk_markdown_result(path, text, options).pieces


def chunk_markdown_result(path: str, text: str, options: ChunkOptions = DEFAULT_OPTIONS) -> ChunkResult:
    """The sections of `chunk_markdown`, with a note when a file has more than `options.md_max_sections`: then
    consecutive sections share a chunk, whole (a changelog of 100,000 headings was 100,000 chunks to embed)."""
    lines = split_lines(text)
    headings, in_code = _scan(lines)
    if not headings:
        return ChunkResult(chunk_plain(path, text, options.plain_max_chars, options.plain_overlap_chars))
    stack: list[Heading] = []
    sections: list[tuple[int, int, list[str], ChunkSymbol, Heading]] = []
    for idx, h in enumerate(headings):
        while stack and stack[-1].level >= h.level:
            stack.pop()
        parents = [a.title for a in stack]
        stack.append(h)
        start = 1 if idx == 0 else h.start
        end = headings[idx + 1].start - 1 if idx + 1 < len(headings) else len(lines)
        symbol = ChunkSymbol(h.title, "md_heading", " > ".join(parents), h.start, end)
        sections.append((start, end, parents + [h.title], symbol, h))
    if len(sections) > options.md_max_sections:
        texts = ["\n".join(lines[s[0] - 1:s[1]]) + "\n" for s in sections]
        spans = ranges(texts, options.md_max_sections, options.md_section_max_chars)
    else:
        spans = [(i, i + 1) for i in range(len(sections))]
    pieces: list[ChunkPiece] = []
    for i, j in spans:
        start, end, titles, symbol, h = sections[i]
        header = _breadcrumb(titles)
        if j - i > 1:
            end = sections[j - 1][1]
            pieces.append(ChunkPiece(text=header + "\n".join(lines[start - 1:end]), chunk_type="md_section",
                                     start_line=start, end_line=end, symbols=[s[3] for s in sections[i:j]],
                                     header=header, meta={"heading_level": h.level, "sections": j - i}))
            continue
        body = "\n".join(lines[start - 1:end])
        if len(header) + len(body) <= options.md_section_max_chars:
            pieces.append(ChunkPiece(text=header + body, chunk_type="md_section", start_line=start,
                                     end_line=end, symbols=[symbol], header=header,
                                     meta={"heading_level": h.level}))
            continue
        budget = max(256, options.md_section_max_chars - len(_breadcrumb(titles, (999, 999))))
        parts = _split_section(lines, start, end, budget, in_code)
        for k, (ps, pe, body) in enumerate(parts, 1):
            header = _breadcrumb(titles, (k, len(parts)))
            pieces.append(ChunkPiece(text=header + body, chunk_type="md_section", start_line=ps, end_line=pe,
                                     symbols=[symbol], header=header,
                                     meta={"heading_level": h.level, "part": k, "parts": len(parts)}))
    notes = (f"{len(sections):,} sections, over md_max_sections={options.md_max_sections:,}: "
             f"consecutive sections share a chunk ({len(pieces):,} chunks)",) if len(spans) < len(sections) else ()
    return ChunkResult(pieces, notes=notes)
