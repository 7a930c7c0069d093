"""Razor (.razor, .cshtml): `@code { }` / `@functions { }` blocks as C#, the
markup between them on element boundaries, every line covered.

- A code block is found by its keyword and closed by the C# brace scanner
  (strings and comments skipped). Its C# is parsed by tree-sitter in place: the
  text before the block becomes empty lines and `@code` becomes `class
  Component`, so every member node reports the original file's line numbers.
  One `razor_code` chunk per block with a symbol per member; a block over
  `options.type_max_chars` is packed at member boundaries (statements inside
  an oversized member), the member's signature repeated on a part that starts
  inside it.
- Markup between blocks is one `razor_markup` chunk, or, when over the cap,
  parts cut at the shallowest element (or Razor `{ }`) boundary first. A first
  attempt elsewhere lost 1,274 of 1,395 lines of one Razor file while its chunk
  counts looked better: here every line lies in exactly one chunk.
"""

from __future__ import annotations

import os
import re

from .csharp import _File, _pack, _parse, _add_cuts, _body_of, _doc_above, match_brace
from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkPiece, ChunkSymbol
from .redact import cut_redacted
from .text import TagEnds
from .units import HEADER_LINE_CHARS, cap_outline

_CODE_BLOCK = re.compile(r"@(code|functions)\b[ \t]*\r?\n?[ \t]*\{")
_RAZOR_COMMENT = re.compile(r"@\*.*?(?:\*@|\Z)", re.S)
# Markup tokens, in order, as one pattern of alternatives read them: a comment (`<!-- -->`, `@* *@`) or a raw
# `<script>`/`<style>` element to its end or the end of the markup, a closing tag, an opening tag (attributes to the
# first `>` outside quotes; `/>` self-closing), a brace. Read from position lists, not by the pattern: an opening
# tag's lazy scan for its `>` from every `<` cost the square of a markup of `<` never closed (32 KB: 8.6 CPU s).
_MARKUP_START = re.compile(r"<!--|@\*|</?[A-Za-z]|[{}]")
_RAW_OPEN = re.compile(r"(script|style)\b", re.I)
_CLOSE_TAG = re.compile(r"</([A-Za-z][\w:.\-]*)\s*>")
_TAG_NAME = re.compile(r"[A-Za-z][\w:.\-]*")
VOID_ELEMENTS = frozenset(
    "area base br col embed hr img input link meta param source track wbr".split())


def _code_blocks(text: str) -> list[tuple[int, int, int]]:
    """(keyword offset, `{` offset, `}` offset) of each code block, in order."""
    hidden = [(m.start(), m.end()) for m in _RAZOR_COMMENT.finditer(text)]
    out = []
    pos = 0
    for m in _CODE_BLOCK.finditer(text):
        if m.start() < pos or any(a <= m.start() < b for a, b in hidden):
            continue
        open_pos = m.end() - 1
        close = match_brace(text, open_pos)
        if close < 0:  # unbalanced: the block runs to the end of the file
            close = len(text) - 1
        out.append((m.start(), open_pos, close))
        pos = close + 1
    return out


def _markup_tokens(text: str, lo: int, hi: int) -> list[tuple[int, int, str, str]]:
    """(start, end, kind, name) of each markup token in text[lo:hi] (every search stops at `hi`): kind "open" (name
    the tag's, "/" appended when it closes itself), "close", "brace" (name "{" or "}"), "comment" or "raw". In time
    about linear in the text."""
    attributes_end = TagEnds(text, lo, hi)
    tokens: list[tuple[int, int, str, str]] = []
    resume = lo
    for m in _MARKUP_START.finditer(text, lo, hi):
        at = m.start()
        if at < resume:
            continue
        lead = m.group()
        if lead == "<!--" or lead == "@*":
            close = text.find("-->" if lead == "<!--" else "*@", at + len(lead), hi)
            end = hi if close < 0 else close + (3 if lead == "<!--" else 2)
            tokens.append((at, end, "comment", ""))
        elif lead in "{}":
            end = at + 1
            tokens.append((at, end, "brace", lead))
        elif lead.startswith("</"):
            close = _CLOSE_TAG.match(text, at, hi)
            if not close:
                continue
            end = close.end()
            tokens.append((at, end, "close", close.group(1)))
        else:
            raw = _RAW_OPEN.match(text, at + 1, hi)
            gt = attributes_end(raw.end()) if raw else -1
            if gt >= 0:
                closing = re.compile(rf"</{raw.group(1)}\s*>", re.I).search(text, gt + 1, hi)
                end = closing.end() if closing else hi
                tokens.append((at, end, "raw", raw.group(1)))
            else:
                name = _TAG_NAME.match(text, at + 1, hi)
                gt = attributes_end(name.end())
                if gt < 0:
                    continue
                end = gt + 1
                tokens.append((at, end, "open", name.group() + ("/" if text[gt - 1] == "/" else "")))
        resume = end
    return tokens


def _markup_cuts(f: _File, s: int, e: int) -> dict[int, int]:
    """Cut levels for lines s..e: the element/brace depth at a line that opens
    something (`<tag`, `@…`) or is blank; lines inside a tag or text get none."""
    text = f.text
    lo, hi = f.offset_of(s), (f.offset_of(e + 1) if e < len(f.lines) else len(text))
    depth_at: dict[int, int] = {}
    depth = 0
    line = s
    next_start = f.offset_of(s)

    def mark_until(pos: int) -> None:
        nonlocal line, next_start
        while line <= e and next_start <= pos:
            depth_at.setdefault(line, depth)
            line += 1
            next_start = f.offset_of(line) if line <= len(f.lines) else len(text) + 1

    for start, end, kind, name in _markup_tokens(text, lo, hi):
        mark_until(start)
        # lines that start inside this token (a multi-line tag) are not cuts
        while line <= e and next_start < end:
            depth_at[line] = -1
            line += 1
            next_start = f.offset_of(line) if line <= len(f.lines) else len(text) + 1
        if kind == "open":
            if not name.endswith("/") and name.lower() not in VOID_ELEMENTS:
                depth += 1
        elif kind == "close" or name == "}":
            depth = max(0, depth - 1)
        elif name == "{":
            depth += 1
    mark_until(hi)
    cuts = {}
    for ln, d in depth_at.items():
        if d < 0 or ln == s:
            continue
        stripped = f.lines[ln - 1].lstrip()
        if not stripped or (stripped[0] in "<@" and not stripped.startswith(("</", "@}"))):
            cuts[ln] = d
    return cuts


def _emit_markup(f: _File, s: int, e: int, component: str, out: list[ChunkPiece]) -> None:
    if not "\n".join(f.lines[s - 1:e]).strip():
        # Blank lines between blocks ride the previous chunk instead of being one.
        if out:
            prev = out[-1]
            if prev.end_line == s - 1 and prev.meta.get("parts", 1) == 1 and f.size(prev.start_line, e) <= f.cap:
                out[-1] = ChunkPiece(prev.header + f.join(prev.start_line, e), prev.chunk_type,
                                     prev.start_line, e, analysis_text=prev.analysis_text,
                                     symbols=prev.symbols, skeleton=prev.skeleton, header=prev.header,
                                     meta=prev.meta)
                return
    cuts = _markup_cuts(f, s, e) if f.size(s, e) > f.cap else {}
    parts = _pack(f, s, e, cuts)
    n = len(parts)
    for k, (a, b, body) in enumerate(parts, 1):
        meta = {"component": component}
        if n > 1:
            meta.update(part=k, parts=n)
        out.append(ChunkPiece(body, "razor_markup", a, b, meta=meta))


def _emit_code(f: _File, path: str, options: ChunkOptions, kw_pos: int, open_pos: int, close: int,
               s: int, e: int, component: str, out: list[ChunkPiece]) -> None:
    text = f.text
    open_line = f.line_of(open_pos)
    # The block's C# with the original line numbers: empty lines before it,
    # `class Component` where `@code` stood.
    synthetic = "\n" * (open_line - 1) + f"class {component} " + text[open_pos:close + 1] + "\n"
    sf = _File(path, synthetic, options)
    _parse(sf)
    typ = next((u.type for u in sf.units if u.type is not None), None)
    members = sorted(typ.members, key=lambda m: m.start) if typ is not None else []
    symbols = [ChunkSymbol(sym.name, sym.kind, component if sym.parent == typ.qual else sym.parent,
                           sym.start_line, sym.end_line) for sym in typ.symbols[1:]] if typ else []
    keyword = text[kw_pos:open_pos].strip()
    skeleton = ""
    if typ is not None:
        skeleton = typ.skeleton.replace(f"class {component} ", f"{keyword} ", 1)
    header = f"// {component} {keyword}\n"
    if f.size(s, e) <= f.cap:
        out.append(ChunkPiece(f.join(s, e), "razor_code", s, e, symbols=symbols, skeleton=skeleton,
                              meta={"component": component}))
        return
    cuts: dict[int, int] = {}
    floor = open_line
    spans = []
    for m in members:
        if m.start <= floor:
            continue
        ms = _doc_above(f, m.start, floor)
        if ms > s:
            cuts[ms] = 0
        spans.append(m)
        floor = m.end
        # A member of a damaged block can end past the block's last line (the grammar's
        # recovery in the synthetic text): its size counts the block's lines only.
        if f.size(ms, max(ms, min(m.end, e))) > f.cap and m.node is not None:
            body = _body_of(m.node)
            if body is not None:
                inner: dict[int, int] = {}
                _add_cuts(sf, body, 0, inner)
                for r, lvl in inner.items():
                    cuts.setdefault(r, lvl + 1)
    parts = _pack(f, s, e, cuts)
    n = len(parts)
    # Every part repeats the block's outline: whole where the block is small, else a bounded one (the whole outline of
    # a block of 3,000 members in each of its parts grew with the square of the block, as C#'s members did, issue 16).
    options = f.options
    context = (skeleton if len(skeleton) <= options.type_max_chars
               else cap_outline(skeleton, options.member_context_chars))
    skeleton = cap_outline(skeleton, options.skeleton_max_chars)
    for k, (a, b, body) in enumerate(parts, 1):
        part_header = header.rstrip("\n") + (f" (part {k}/{n})" if n > 1 else "") + "\n"
        inside = next((m for m in spans if m.start < a <= m.end), None)
        if inside is not None and a > inside.body_line:
            part_header += cut_redacted(f.join(inside.start, max(inside.start, min(inside.body_line, inside.end))),
                                        2 * HEADER_LINE_CHARS) + "\n"
        out.append(ChunkPiece(
            part_header + body, "razor_code", a, b,
            symbols=[sym for sym in symbols if sym.start_line <= b and sym.end_line >= a],
            skeleton=skeleton, header=part_header,
            analysis_text=f"{part_header}{body}\n\n// {component} {keyword} outline:\n{context}",
            meta={"component": component, "part": k, "parts": n} if n > 1 else {"component": component}))


def chunk_razor(path: str, text: str, options: ChunkOptions = DEFAULT_OPTIONS) -> list[ChunkPiece]:
    f = _File(path, text, options)
    n = len(f.lines)
    if n == 0 or not text.strip():
        return []
    component = re.sub(r"\W", "_", os.path.basename(path).split(".")[0]) or "Component"
    if component[0].isdigit():
        component = "_" + component
    out: list[ChunkPiece] = []
    at = 1  # first line not yet in a chunk
    for kw_pos, open_pos, close in _code_blocks(text):
        s, e = f.line_of(kw_pos), f.line_of(close)
        if e < at:
            continue
        s = max(s, at)
        # Markup sharing the block's first or last line stays with the block.
        if s > at:
            _emit_markup(f, at, s - 1, component, out)
        _emit_code(f, path, options, kw_pos, open_pos, close, s, e, component, out)
        at = e + 1
    if at <= n:
        _emit_markup(f, at, n, component, out)
    return out
