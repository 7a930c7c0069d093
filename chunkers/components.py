""".vue and .svelte single-file components.

Each `<script>` block (`setup`, `context="module"`, `lang="ts"`) is chunked by
the TypeScript/JavaScript chunker and its lines are mapped back to the
component file: the script is chunked in place, with everything outside the
block's content blanked, so line k of the script is line k of the file and the
`<script>` / `</script>` tag lines ride its first and last chunks. `<style>`
blocks become `component_style` chunks and the rest (the template / markup)
`component_template` chunks, cut at top-level element lines when over the
cap, so coverage stays 100%.

A component whose scripts are all `src`-only has no code here to cut: it falls
back to the raw component (plain windows). An empty file yields nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkPiece
from .plain import chunk_plain
from .text import LineIndex, TagEnds, join_lines, split_lines
from .typescript import chunk_script, uses_tree_sitter
from .windows import line_windows

# A block is `<script …>…</script>` or `<style …>…</style>`; attributes may hold ">" inside quotes (Vue's
# generic="T extends Record<string, any>"). Found by position lists, not by one pattern's lazy scan to the
# closing tag: a file of unclosed `<script>` tags cost the square of its size that way (160 KB: 11 CPU s).
_OPENING = re.compile(r"<(script|style)\b", re.I)
_CLOSING = re.compile(r"</(script|style)\s*>", re.I)
_LANG = re.compile(r"""\blang\s*=\s*["']?([\w-]+)""", re.I)
_SRC = re.compile(r"""\bsrc\s*=""", re.I)


def chunk_component(path: str, text: str, options: ChunkOptions = DEFAULT_OPTIONS) -> list[ChunkPiece]:
    lines = split_lines(text)
    if not lines or not text.strip():
        return []
    index = LineIndex.of(text)
    blocks = []  # (kind, attrs, first line, last line, content start offset, content end offset)
    for kind, start, attrs, c_start, c_end, end in _find_blocks(text):
        first = index.line_of(start)
        last = index.line_of(end - 1)
        if blocks and first <= blocks[-1][3]:
            continue  # shares a line with the previous block: it stays markup
        blocks.append((kind, attrs, first, last, c_start, c_end))
    scripts = [b for b in blocks if b[0] == "script"]
    if scripts and all(_SRC.search(b[1]) and not text[b[4]:b[5]].strip() for b in scripts):
        return chunk_plain(path, text, options.plain_max_chars, options.plain_overlap_chars)
    pieces: list[ChunkPiece] = []
    cursor = 1  # first line not yet chunked
    for kind, attrs, first, last, c_start, c_end in blocks:
        if first > cursor:
            pieces.extend(_markup(lines, cursor, first - 1, options))
        if kind == "script" and text[c_start:c_end].strip():
            pieces.extend(_script(text, lines, index, attrs, first, last, c_start, c_end, options))
        else:
            pieces.extend(_region(lines, first, last, "component_style" if kind == "style" else "component_template",
                                  options, {"block": kind}))
        cursor = last + 1
    if cursor <= len(lines):
        pieces.extend(_markup(lines, cursor, len(lines), options))
    return _absorb_blank(pieces, lines)


def _blank_comments(text: str) -> str:
    """The text with each `<!-- … -->` blanked but for its line breaks (a block inside one is not a block)."""
    parts, pos = [], 0
    while (start := text.find("<!--", pos)) >= 0 and (end := text.find("-->", start + 4)) >= 0:
        end += 3
        parts += [text[pos:start], re.sub(r"[^\n]", " ", text[start:end])]
        pos = end
    return "".join(parts) + text[pos:]


def _find_blocks(text: str) -> list[tuple[str, int, str, int, int, int]]:
    """Each block, in order, as (kind, tag start, attributes, content start, content end, end): an opening tag, its
    attributes to the first `>` outside quotes, and the first closing tag of its kind after it. In time about
    linear in the text, whatever is left unclosed."""
    searchable = _blank_comments(text)
    closing: dict[str, list[tuple[int, int]]] = {"script": [], "style": []}
    for m in _CLOSING.finditer(searchable):
        closing[m.group(1).lower()].append((m.start(), m.end()))
    attributes_end = TagEnds(searchable)
    blocks, resume = [], 0
    for m in _OPENING.finditer(searchable):
        if m.start() < resume:
            continue
        gt = attributes_end(m.end())
        if gt < 0:
            continue
        kind, closes = m.group(1).lower(), closing[m.group(1).lower()]
        k = bisect_left(closes, (gt + 1, -1))
        if k == len(closes):
            continue
        blocks.append((kind, m.start(), searchable[m.end():gt], gt + 1, closes[k][0], closes[k][1]))
        resume = closes[k][1]
    return blocks


def _absorb_blank(pieces: list[ChunkPiece], lines: list[str]) -> list[ChunkPiece]:
    """Blank lines between blocks ride the chunk above (the first chunk below, at the top)."""
    out: list[ChunkPiece] = []
    for p in pieces:
        blank = not join_lines(lines, p.start_line, p.end_line).strip()
        if blank and out and p.start_line == out[-1].end_line + 1:
            prev = out[-1]
            prev.end_line = p.end_line
            prev.text = prev.header + join_lines(lines, prev.start_line, prev.end_line)
            continue
        out.append(p)
    if len(out) > 1 and not join_lines(lines, out[0].start_line, out[0].end_line).strip():
        first, nxt = out[0], out[1]
        nxt.start_line = first.start_line
        nxt.text = nxt.header + join_lines(lines, nxt.start_line, nxt.end_line)
        out = out[1:]
    return out


def _script(text: str, lines: list[str], index: LineIndex, attrs: str, first: int, last: int,
            c_start: int, c_end: int, options: ChunkOptions) -> list[ChunkPiece]:
    lang = (_LANG.search(attrs).group(1).lower() if _LANG.search(attrs) else "js")
    dialect = {"ts": "typescript", "typescript": "typescript", "tsx": "tsx"}.get(lang, "javascript")
    # Lines first..last with everything but the script content blanked: the
    # tag text becomes spaces, so each line keeps its number.
    region_start = index.offset_of(first)
    region_end = index.offset_of(last) + len(lines[last - 1])
    masked = re.sub(r"[^\n]", " ", text[region_start:c_start]) + text[c_start:c_end] + \
        re.sub(r"[^\n]", " ", text[c_end:region_end])
    pieces = chunk_script(masked, dialect, options, tree_sitter=uses_tree_sitter(dialect, options),
                          line_offset=first - 1)
    # The script chunker saw blanked tag lines: cover them, then restore the original text.
    if pieces:
        pieces[0].start_line = min(pieces[0].start_line, first)
        pieces[-1].end_line = max(pieces[-1].end_line, last)
    masked_lines = split_lines(masked)
    for p in pieces:
        original = join_lines(lines, p.start_line, p.end_line)
        body = p.body
        seen = "\n".join(masked_lines[p.start_line - first:p.end_line - first + 1])
        if body == seen or body not in original:
            new_body = original
        else:
            new_body = body  # a slice of one over-long line: still a slice of the original
        if p.analysis_text and body and p.analysis_text.endswith(body):
            p.analysis_text = p.analysis_text[:len(p.analysis_text) - len(body)] + new_body
        p.text = p.header + new_body
        p.meta = {**p.meta, "block": "script", "lang": dialect}
        if re.search(r"\bsetup\b", attrs):
            p.meta["setup"] = True
    return pieces


def _markup(lines: list[str], start: int, end: int, options: ChunkOptions) -> list[ChunkPiece]:
    # Whitespace between blocks rides along as markup so no line is lost.
    return _region(lines, start, end, "component_template", options, {"block": "template"})


def _region(lines: list[str], start: int, end: int, chunk_type: str, options: ChunkOptions,
            meta: dict) -> list[ChunkPiece]:
    """Lines start..end verbatim; over the cap, cut before the least-indented element lines."""
    body = join_lines(lines, start, end)
    if len(body) <= options.type_max_chars:
        return [ChunkPiece(text=body, chunk_type=chunk_type, start_line=start, end_line=end, meta=dict(meta))]
    ranges = _cut_by_indent(lines, start, end, options.type_max_chars)
    n = len(ranges)
    return [ChunkPiece(text=t, chunk_type=chunk_type, start_line=s, end_line=e,
                       meta={**meta, "part": k, "parts": n}) for k, (s, e, t) in enumerate(ranges, 1)]


def _cut_by_indent(lines: list[str], start: int, end: int, max_chars: int) -> list[tuple[int, int, str]]:
    indents = sorted({len(l) - len(l.lstrip()) for l in lines[start - 1:end] if l.strip()})
    out: list[tuple[int, int, str]] = []
    cur = start
    size = -1
    for ln in range(start, end + 1):
        line = lines[ln - 1]
        stripped = line.lstrip()
        cut_ok = (ln > cur and stripped.startswith("<") and not stripped.startswith("</")
                  and len(line) - len(stripped) <= (indents[1] if len(indents) > 1 else indents[0]))
        if cut_ok and size + 1 + len(line) > max_chars:
            out.append((cur, ln - 1, join_lines(lines, cur, ln - 1)))
            cur, size = ln, -1
        size += 1 + len(line)
    out.append((cur, end, join_lines(lines, cur, end)))
    # A run with no element line to cut at is windowed, never truncated.
    final: list[tuple[int, int, str]] = []
    for s, e, t in out:
        if len(t) > max_chars:
            final.extend((w.start_line, w.end_line, w.text) for w in line_windows(lines, s, e, max_chars, 0))
        else:
            final.append((s, e, t))
    return final
