"""TypeScript and JavaScript: one chunk per top-level declaration.

Two paths find the declarations, and both feed one assembly step:

- brace-depth: a small lexer tracks `{ ( [` depth through strings, template literals, comments
  and regex literals; a line beginning at depth 0 with a declaration keyword starts a unit. It
  needs no grammar and never fails: a misread brace only makes one unit coarser.
- tree-sitter (typescript, tsx, javascript): the program's children are the units, a top-level
  ERROR region is re-cut by the brace-depth path, and a class over `options.type_max_chars`
  becomes the C# rule's shapes: a `ts_class` header (outline in `skeleton`), one `ts_function` per
  member (header `// Class`, analysis text carrying the outline) and a `ts_class_full` copy. For
  a huge class (outline itself over the cap) a member's context is the class declaration and its
  neighbours (units.neighbourhood), at most its own size, and there is no full copy.

`options.ts_tree_sitter` / `options.js_tree_sitter` pick the path; both on by default
(benchmarks/ts_paths.py; the reasons in docs/decisions.md).

Assembly: lines between units ride the unit that follows; imports and code before the first
declaration ride the first declaration; top-level code after a declaration rides it while both
fit under the cap, else it is a `ts_file` chunk; a file without declarations is `ts_file`;
consecutive short bindings share one chunk. A unit over the cap is cut at statement lines of the
shallowest depth that fits, then by line windows, into "part k/n" chunks. A line too long for one
chunk (minified code) is sliced; each slice carries the symbols declared in it. `symbols` and
`skeleton` stay within `options.chunk_max_symbols` / `options.skeleton_max_chars`.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

from .languages import extensions_of
from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkPiece, ChunkSymbol
from .redact import cut_redacted
from .text import join_lines, split_lines
from .units import NAME_CHARS, cap_outline, cap_symbols, member_context, parse_bounded, part_skeleton
from .windows import line_windows

# extension -> the grammar's dialect (JSX in TypeScript needs the tsx grammar)
TS_EXTENSIONS = {**dict.fromkeys(extensions_of("typescript"), "typescript"), ".tsx": "tsx"}
JS_EXTENSIONS = dict.fromkeys(extensions_of("javascript"), "javascript")


def dialect_of(path: str) -> str:
    ext = os.path.splitext(path.lower())[1]
    return TS_EXTENSIONS.get(ext) or JS_EXTENSIONS.get(ext) or "javascript"


def uses_tree_sitter(dialect: str, options: ChunkOptions) -> bool:
    return options.js_tree_sitter if dialect == "javascript" else options.ts_tree_sitter


def chunk_typescript(path: str, text: str, options: ChunkOptions = DEFAULT_OPTIONS) -> list[ChunkPiece]:
    """Chunk a .ts/.tsx/.mts/.cts/.js/.jsx/.mjs/.cjs file (chosen by extension, never by content)."""
    dialect = dialect_of(path)
    return chunk_script(text, dialect, options, tree_sitter=uses_tree_sitter(dialect, options))


def chunk_script(text: str, dialect: str, options: ChunkOptions = DEFAULT_OPTIONS,
                 tree_sitter: bool = True, line_offset: int = 0) -> list[ChunkPiece]:
    """Chunk script text; every line number is shifted by `line_offset` (for
    scripts embedded in a component file, whose lines start further down)."""
    lines = split_lines(text)
    if not lines or not text.strip():
        return []
    doc = LineDoc(text, lines)
    units = None
    if tree_sitter:
        try:
            units = _tree_sitter_units(doc, dialect)
        except Exception:  # a grammar failure degrades to the brace path, never loses the file
            units = None
    if units is None:
        units = _brace_units(doc, 1, len(lines))
    pieces = _assemble(doc, units, options)
    if line_offset:
        for p in pieces:
            _shift_piece(p, line_offset)
    return pieces


# --------------------------------------------------------------------------- lexer

_TOKEN = re.compile(r"[{}()\[\]'\"`/]")
_STRING = {"'": re.compile(r"'(?:[^'\\\n]|\\.)*'?", re.S), '"': re.compile(r'"(?:[^"\\\n]|\\.)*"?', re.S)}
_TEMPLATE_STOP = re.compile(r"\\.|`|\$\{", re.S)
_REGEX_LITERAL = re.compile(r"/(?![*/])(?:[^/\\\[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/[A-Za-z]*")
_REGEX_AFTER_CHARS = set("(,=:[!&|?{};+-*%<>~^")
_REGEX_AFTER_WORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void",
                      "throw", "yield", "await", "instanceof"}
_OPEN = {"{": "{", "(": "(", "[": "["}


def _regex_allowed(text: str, i: int) -> bool:
    j = i - 1
    while j >= 0 and text[j] in " \t\r\n":
        j -= 1
    if j < 0:
        return True
    ch = text[j]
    if ch in _REGEX_AFTER_CHARS or ch == "}":
        return True
    if ch.isalnum() or ch in "_$":
        k = j
        while k >= 0 and (text[k].isalnum() or text[k] in "_$"):
            k -= 1
        return text[k + 1:j + 1] in _REGEX_AFTER_WORDS
    return False


def scan_depths(text: str, lines: list[str]) -> tuple[list[int], list[bool]]:
    """Per line (index 1..n): bracket depth at the line's start, and whether the
    line starts in code (not inside a block comment, string or template)."""
    events_off: list[int] = []
    events_depth: list[int] = []
    spans: list[tuple[int, int]] = []  # non-code spans [start, end)
    stack: list[str] = []
    n = len(text)
    pos = 0
    in_template = False
    tpl_start = 0
    while pos < n:
        if in_template:
            m = _TEMPLATE_STOP.search(text, pos)
            if m is None:
                spans.append((tpl_start, n))
                break
            tok = m.group()
            if tok == "`":
                spans.append((tpl_start, m.end()))
                in_template = False
            elif tok == "${":
                spans.append((tpl_start, m.end()))
                stack.append("T")
                events_off.append(m.start())
                events_depth.append(len(stack))
                in_template = False
            pos = m.end()
            continue
        m = _TOKEN.search(text, pos)
        if m is None:
            break
        c = m.group()
        i = m.start()
        pos = i + 1
        if c in _OPEN:
            stack.append(c)
            events_off.append(i)
            events_depth.append(len(stack))
        elif c in "})]":
            if not stack:
                continue
            if stack[-1] == "T":
                if c != "}":
                    continue  # a stray closer inside ${...} must not end the substitution
                stack.pop()
                events_off.append(i)
                events_depth.append(len(stack))
                in_template = True
                tpl_start = i
                continue
            stack.pop()
            events_off.append(i)
            events_depth.append(len(stack))
        elif c == "'" or c == '"':
            end = _STRING[c].match(text, i).end()
            spans.append((i, end))
            pos = end
        elif c == "`":
            in_template = True
            tpl_start = i
        else:  # "/"
            nxt = text[i + 1:i + 2]
            if nxt == "/":
                end = text.find("\n", i)
                pos = n if end < 0 else end
            elif nxt == "*":
                end = text.find("*/", i + 2)
                end = n if end < 0 else end + 2
                spans.append((i, end))
                pos = end
            elif _regex_allowed(text, i):
                m2 = _REGEX_LITERAL.match(text, i)
                if m2 is not None:
                    pos = m2.end()
    depths = [0] * (len(lines) + 2)
    code = [True] * (len(lines) + 2)
    offset = 0
    ei = 0
    si = 0
    depth = 0
    for ln, line in enumerate(lines, 1):
        while ei < len(events_off) and events_off[ei] < offset:
            depth = events_depth[ei]
            ei += 1
        while si < len(spans) and spans[si][1] <= offset:
            si += 1
        depths[ln] = depth
        code[ln] = not (si < len(spans) and spans[si][0] < offset < spans[si][1])
        offset += len(line) + 1
    depths[len(lines) + 1] = depth
    return depths, code


# --------------------------------------------------------------------------- units


@dataclass
class _Unit:
    start: int
    end: int
    kind: str  # "decl" | "import" | "code" | "lead" (decorators: ride the next unit)
    symbols: list[ChunkSymbol] = field(default_factory=list)
    class_node: Any = None  # tree-sitter class node, for the per-member split


class LineDoc:
    """Lines with their depth and cut-point tables (computed lazily by the
    brace lexer, or given by another format's lexer, as SQL does)."""

    def __init__(self, text: str, lines: list[str], depths: tuple[list[int], list[bool]] | None = None):
        self.text = text
        self.lines = lines
        self._depths = depths
        self._prefix: list[int] | None = None
        self.src: bytes = b""
        # Symbol -> character column of its declaration on its first line, for
        # the symbols of a line too long for one chunk (minified code): each
        # slice of that line carries the symbols declared in it.
        self.columns: dict[ChunkSymbol, int] = {}

    @property
    def depths(self) -> tuple[list[int], list[bool]]:
        if self._depths is None:
            self._depths = scan_depths(self.text, self.lines)
        return self._depths

    def size(self, start: int, end: int) -> int:
        """Characters of lines start..end joined by newlines."""
        if self._prefix is None:
            acc = [0]
            for line in self.lines:
                acc.append(acc[-1] + len(line) + 1)
            self._prefix = acc
        return self._prefix[end] - self._prefix[start - 1] - 1

    def body(self, start: int, end: int) -> str:
        return join_lines(self.lines, start, end)


_COMMENT_LINE = re.compile(r"^\s*(?://|/\*|\*|\*/|$)")
_DECL = re.compile(
    r"^[ \t]*(?P<export>export[ \t]+(?P<default>default[ \t]+)?)?(?:declare[ \t]+)?(?:abstract[ \t]+)?"
    r"(?:async[ \t]+)?(?P<kw>function\b[ \t]*\*?|class\b|interface\b|const[ \t]+enum\b|enum\b|const\b|let\b|var\b"
    r"|type\b|namespace\b|module\b)?[ \t]*\*?[ \t]*(?P<name>[A-Za-z_$][\w$]*|'[^']*'|\"[^\"]*\")?")
_IMPORT = re.compile(r"^[ \t]*(?:import\b|export[ \t]*\*|export[ \t]+(?:type[ \t]+)?\{[^}]*\}[ \t]*from\b"
                     r"|['\"]use [a-z ]+['\"];?\s*$|(?:const|let|var)\b[^=]*=\s*require\()")
_ASSIGN_DECL = re.compile(r"^(?P<lhs>module\.exports|exports\.[\w$]+|[\w$]+(?:\.[\w$]+)*\.prototype(?:\.[\w$]+)?)\s*=(?!=)")
_CONTINUATION = re.compile(r"^(?:[.)\]},?:|&+\-*/=<>!%^~]|`)")
_KIND_OF_KEYWORD = {"function": "function", "class": "class", "interface": "interface", "enum": "enum",
                    "const": "variable", "let": "variable", "var": "variable", "type": "type",
                    "namespace": "namespace", "module": "namespace"}
_NEEDS_NAME = {"type", "namespace", "module", "interface", "enum", "class"}


def _classify_line(line: str) -> tuple[str, str, str] | None:
    """(unit kind, symbol name, symbol kind) for a depth-0 statement line."""
    if _IMPORT.match(line):
        return ("import", "", "")
    m = _ASSIGN_DECL.match(line)
    if m:
        kind = "function" if ("function" in line or "=>" in line) else "variable"
        return ("decl", m.group("lhs"), kind)
    m = _DECL.match(line)
    if not m:
        return None
    kw = m.group("kw")
    name = m.group("name") or ""
    if kw:
        base = kw.split()[0].rstrip("*")
        if base == "const" and "enum" in kw:
            base = "enum"
        if base in _NEEDS_NAME and not name and not m.group("default"):
            return None
        kind = _KIND_OF_KEYWORD[base]
        if kind == "variable" and re.search(r"=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[\w$]+\s*=>)", line):
            kind = "function"
        if not name or m.group("default") and base in ("function", "class") and name in ("extends", "implements"):
            name = "default" if m.group("default") else ""
        return ("decl", name.strip("'\""), kind)
    if m.group("default"):
        return ("decl", "default", "variable")
    if m.group("export"):
        return ("code", "", "")
    return None


def _brace_units(doc: LineDoc, first: int, last: int) -> list[_Unit]:
    """Units of lines first..last by the brace-depth rule."""
    lines = doc.lines
    depths, code = doc.depths
    base = min((depths[i] for i in range(first, last + 1)), default=0)
    starts: list[tuple[int, str, str, str]] = []
    for ln in range(first, last + 1):
        if depths[ln] != base or not code[ln]:
            continue
        line = lines[ln - 1]
        if _COMMENT_LINE.match(line):
            continue
        stripped = line.lstrip()
        if stripped.startswith("@"):
            starts.append((ln, "lead", "", ""))
            continue
        info = _classify_line(line)
        if info is not None:
            starts.append((ln, *info))
        elif not line[:1].isspace() and not _CONTINUATION.match(stripped):
            starts.append((ln, "code", "", ""))
    units: list[_Unit] = []
    for idx, (ln, kind, name, skind) in enumerate(starts):
        nxt = starts[idx + 1][0] if idx + 1 < len(starts) else last + 1
        end = nxt - 1
        while end > ln and (not code[end] or _COMMENT_LINE.match(lines[end - 1])):
            end -= 1
        symbols = [ChunkSymbol(name, skind, "", ln, end)] if kind == "decl" and name else []
        units.append(_Unit(ln, end, kind, symbols))
    return units


# --------------------------------------------------------------------------- tree-sitter path

_PARSERS: dict[str, Any] = {}

_FUNCTION_TYPES = {"function_declaration", "generator_function_declaration", "function_signature",
                   "function_expression", "function", "generator_function", "arrow_function"}
_CLASS_TYPES = {"class_declaration", "abstract_class_declaration", "class"}
_SIMPLE_DECL = {"interface_declaration": "interface", "enum_declaration": "enum",
                "type_alias_declaration": "type", "module": "namespace", "internal_module": "namespace"}


def _parser(dialect: str):
    if dialect not in _PARSERS:
        from tree_sitter_language_pack import get_parser

        _PARSERS[dialect] = get_parser(dialect)
    return _PARSERS[dialect]


def _node_text(src: bytes, node) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _name_of(src: bytes, node, default: str = "") -> str:
    name = node.child_by_field_name("name")
    return cut_redacted(_node_text(src, name).strip("'\""), NAME_CHARS) if name is not None else default


def _is_require(node) -> bool:
    while node is not None and node.type in ("await_expression", "member_expression"):
        node = node.named_children[0] if node.named_children else None
    if node is None or node.type != "call_expression":
        return False
    fn = node.child_by_field_name("function")
    return fn is not None and fn.type == "identifier" and fn.text == b"require"


def _describe(src: bytes, node) -> tuple[str, list[tuple[str, str]], Any]:
    """(unit kind, [(symbol name, kind)], class node or None) of a top-level node."""
    t = node.type
    if t == "import_statement":
        return "import", [], None
    if t == "export_statement":
        decl = node.child_by_field_name("declaration")
        if decl is None:
            decl = node.child_by_field_name("value")
            if decl is None:
                if node.child_by_field_name("source") is not None:
                    return "import", [], None
                return "code", [], None
            kind, syms, cls = _describe(src, decl)
            if kind != "decl" or not syms:
                return "decl", [("default", syms[0][1] if syms else "variable")], cls
            return kind, syms, cls
        return _describe(src, decl)
    if t in _FUNCTION_TYPES:
        return "decl", [(_name_of(src, node, "default"), "function")], None
    if t in _CLASS_TYPES:
        return "decl", [(_name_of(src, node, "default"), "class")], node
    if t in _SIMPLE_DECL:
        return "decl", [(_name_of(src, node), _SIMPLE_DECL[t])], None
    if t in ("lexical_declaration", "variable_declaration"):
        syms = []
        all_require = True
        for d in node.named_children:
            if d.type != "variable_declarator":
                continue
            value = d.child_by_field_name("value")
            all_require = all_require and value is not None and _is_require(value)
            kind = "function" if value is not None and value.type in _FUNCTION_TYPES else (
                "class" if value is not None and value.type == "class" else "variable")
            name = d.child_by_field_name("name")
            if name is not None and name.type == "identifier":
                syms.append((_node_text(src, name), kind))
        if syms and all_require:
            return "import", [], None
        return "decl", syms, None
    if t == "ambient_declaration":
        for c in node.named_children:
            kind, syms, _ = _describe(src, c)
            if kind == "decl":
                return kind, syms, None
        return "decl", [], None
    if t == "expression_statement" and node.named_children:
        inner = node.named_children[0]
        if inner.type == "internal_module":
            return _describe(src, inner)
        if inner.type == "assignment_expression":
            left = inner.child_by_field_name("left")
            lhs = _node_text(src, left) if left is not None else ""
            if _ASSIGN_DECL.match(lhs + " ="):
                right = inner.child_by_field_name("right")
                kind = "function" if right is not None and right.type in _FUNCTION_TYPES else "variable"
                return "decl", [(lhs, kind)], None
    return "code", [], None


def _tree_sitter_units(doc: LineDoc, dialect: str) -> list[_Unit]:
    src = doc.text.encode("utf-8")
    doc.src = src
    tree = parse_bounded(_parser(dialect), src)  # (past its budget: the brace path, chunk_script)
    units: list[_Unit] = []
    ascii_text = doc.text.isascii()
    row, byte_col, char_col = -1, 0, 0  # the last node's start, for character columns
    columns = doc.columns
    for node in tree.root_node.children:
        t = node.type
        if t == "comment":
            continue
        start, end = node.start_point[0] + 1, node.end_point[0] + 1
        if node.end_point[1] == 0 and end > start:
            end -= 1
        if t == "ERROR" or node.is_missing:
            units.extend(_brace_units(doc, start, end))
            continue
        if t == "decorator":
            units.append(_Unit(start, end, "lead"))
            continue
        kind, syms, cls = _describe(src, node)
        symbols = [ChunkSymbol(name, skind, "", start, end) for name, skind in syms if name]
        if symbols:
            r, c = node.start_point
            if ascii_text:
                char_col = c
            else:  # characters since the previous node on the row (both start on a character)
                if r != row:
                    byte_col = char_col = 0
                char_col += len(src[node.start_byte - (c - byte_col):node.start_byte].decode("utf-8", "replace"))
            row, byte_col = r, c
            for sym in symbols:
                columns.setdefault(sym, char_col)
        units.append(_Unit(start, end, kind, symbols, cls))
    # Several statements on one line (`a(); b();`, `}; foo()`) share that line: one unit.
    merged: list[_Unit] = []
    for u in units:
        if merged and u.start <= merged[-1].end:
            prev = merged[-1]
            prev.end = max(prev.end, u.end)
            prev.symbols.extend(u.symbols)
            if u.kind == "decl" or prev.kind == "lead":
                prev.kind = "decl" if u.kind in ("decl", "lead") or prev.kind == "decl" else u.kind
            prev.class_node = None
        else:
            merged.append(u)
    return merged


# --------------------------------------------------------------------------- assembly


@dataclass
class _Group:
    start: int
    end: int
    units: list[_Unit]

    @property
    def decls(self) -> list[_Unit]:
        return [u for u in self.units if u.kind == "decl"]


def _assemble(doc: LineDoc, units: list[_Unit], options: ChunkOptions) -> list[ChunkPiece]:
    n = len(doc.lines)
    units = [u for u in units if u.kind != "lead"]
    if not units:
        return _emit(doc, 1, n, "ts_file", [], options)
    # Extended ranges: the lines after the previous unit (trivia, decorators) ride this one.
    spans: list[tuple[int, int, _Unit]] = []
    prev_end = 0
    for i, u in enumerate(units):
        end = u.end if i + 1 < len(units) else n
        spans.append((prev_end + 1, end, u))
        prev_end = end
    groups: list[_Group] = []
    lead: list[tuple[int, int, _Unit]] = []  # imports and code before the first declaration
    for s, e, u in spans:
        if not groups:
            lead.append((s, e, u))
            if u.kind == "decl":
                groups.append(_Group(lead[0][0], e, [x[2] for x in lead]))
            continue
        last = groups[-1]
        if u.kind == "decl":
            groups.append(_Group(s, e, [u]))
        elif not last.decls or doc.size(last.start, e) <= options.type_max_chars:
            # Top-level code after a declaration rides it while both fit under the cap.
            last.end = e
            last.units.append(u)
        else:
            groups.append(_Group(s, e, [u]))
    if lead and not groups:
        groups.append(_Group(lead[0][0], lead[-1][1], [x[2] for x in lead]))
    pieces: list[ChunkPiece] = []
    for g in _merge_bindings(doc, groups, options):
        pieces.extend(_emit_group(doc, g, options))
    return pieces


_BINDING_KINDS = {"variable", "type"}


def _is_binding(doc: LineDoc, g: _Group) -> bool:
    """A group of short bindings (`let count = 0`, `type Id = string`): alone each
    says too little to be a chunk of its own."""
    decls = g.decls
    if not decls or any(u.class_node is not None for u in g.units):
        return False
    if any(s.kind not in _BINDING_KINDS for u in decls for s in u.symbols):
        return False
    return all(sum(1 for ln in range(u.start, u.end + 1) if doc.lines[ln - 1].strip()) <= 3 for u in g.units)


def _merge_bindings(doc: LineDoc, groups: list[_Group], options: ChunkOptions) -> list[_Group]:
    out: list[_Group] = []
    for g in groups:
        if out and _is_binding(doc, g) and _is_binding(doc, out[-1]) \
                and doc.size(out[-1].start, g.end) <= options.type_max_chars:
            out[-1] = _Group(out[-1].start, g.end, out[-1].units + g.units)
        else:
            out.append(g)
    return out


def _emit_group(doc: LineDoc, g: _Group, options: ChunkOptions) -> list[ChunkPiece]:
    decls = g.decls
    symbols = [s for u in g.units for s in u.symbols]
    chunk_type = "ts_function" if decls else "ts_file"
    skeleton = cap_outline(_skeleton(doc, g, options.type_max_chars), options.skeleton_max_chars)
    if doc.size(g.start, g.end) > options.type_max_chars and len(decls) == 1 and decls[0].class_node is not None:
        split = _split_class(doc, g, decls[0], options)
        if split:
            return split
    return _emit(doc, g.start, g.end, chunk_type, symbols, options, skeleton=skeleton)


def _emit(doc: LineDoc, start: int, end: int, chunk_type: str, symbols: list[ChunkSymbol],
          options: ChunkOptions, skeleton: str = "", header: str = "", analysis_prefix: str = "",
          label: str = "", analysis_text: str = "", meta: dict | None = None,
          analysis_suffix: str = "") -> list[ChunkPiece]:
    """One verbatim chunk of lines start..end, or its parts when over the cap; `meta` (a member's
    visibility) rides every part, with every symbol (up to options.chunk_max_symbols) but a slice
    of an over-long line, which carries its own. `analysis_suffix`: the analysis text
    is the chunk's text and then it (stored as the suffix alone: store.db.pack_analysis)."""
    meta = meta or {}
    limit = options.chunk_max_symbols
    skeleton = cap_outline(skeleton, options.skeleton_max_chars)
    if doc.size(start, end) <= options.type_max_chars:
        body = doc.body(start, end)
        analysis = analysis_text or (analysis_prefix + body if analysis_prefix else "")
        if analysis_suffix:
            analysis = header + body + analysis_suffix
        return [ChunkPiece(text=header + body, chunk_type=chunk_type, start_line=start, end_line=end,
                           analysis_text=analysis, symbols=cap_symbols(symbols, limit), skeleton=skeleton,
                           header=header, meta=dict(meta))]
    # Leave room for the part header so a part's whole text stays near the cap.
    ranges = split_range(doc, start, end, max(200, options.type_max_chars - len(header) - 300))
    n = len(ranges)
    name = label or ", ".join(s.name for s in symbols[:3]) or "top-level code"
    first = symbols[0].start_line if symbols and start <= symbols[0].start_line <= end else start
    signature = next((doc.lines[i - 1].strip() for i in range(first, end + 1)
                      if doc.lines[i - 1].strip() and not _COMMENT_LINE.match(doc.lines[i - 1])
                      and not doc.lines[i - 1].lstrip().startswith("@")), "")
    signature = cut_redacted(signature, 200)
    out = []
    sliced: dict[int, int] = {}  # line -> characters of it in earlier parts
    slice_index: dict[int, tuple[list[int], list[int], list[int], list[int]]] = {}
    for k, (s, e, body) in enumerate(ranges, 1):
        part_header = header + f"// {name} (part {k}/{n})\n"
        if k > 1 and signature:
            part_header += f"// {signature}\n"
        analysis = analysis_prefix + body if analysis_prefix else ""
        if analysis_suffix:
            analysis = part_header + body + analysis_suffix
        own = symbols
        if s == e and len(body) < len(doc.lines[s - 1]):  # a slice of one over-long line
            at = sliced.get(s, 0)
            sliced[s] = at + len(body)
            if s not in slice_index:
                slice_index[s] = _slice_index(doc, symbols, s)
            own = _symbols_in_slice(symbols, slice_index[s], at, at + len(body))
        out.append(ChunkPiece(text=part_header + body, chunk_type=chunk_type, start_line=s, end_line=e,
                              analysis_text=analysis, symbols=cap_symbols(own, limit),
                              skeleton=part_skeleton(skeleton, n, doc.size(start, end), options.skeleton_max_chars),
                              header=part_header, meta={"part": k, "parts": n, **meta}))
    return out


def _slice_index(doc: LineDoc, symbols: list[ChunkSymbol], line: int) -> tuple[list[int], list[int], list[int], list[int]]:
    """For the slices of one over-long line: (indexes of the symbols reaching it
    from earlier lines, of those on it whose column is not known, then the
    columns and indexes of the others, sorted by column)."""
    columns = doc.columns
    through, unknown, placed = [], [], []
    for i, sym in enumerate(symbols):
        if sym.start_line < line <= sym.end_line:
            through.append(i)
        elif sym.start_line == line:
            col = columns.get(sym)
            if col is None:
                unknown.append(i)
            else:
                placed.append((col, i))
    placed.sort()
    return through, unknown, [c for c, _ in placed], [i for _, i in placed]


def _symbols_in_slice(symbols: list[ChunkSymbol], index, lo: int, hi: int) -> list[ChunkSymbol]:
    """The symbols a slice (characters lo..hi of its line) carries: those declared
    in it, those declared on earlier lines that reach it, and, in the first
    slice, those of the line whose column is not known; in their order."""
    through, unknown, cols, order = index
    picked = through + (unknown if lo == 0 else []) + order[bisect_left(cols, lo):bisect_left(cols, hi)]
    return [symbols[i] for i in sorted(picked)]


_CLOSER_LINE = re.compile(r"^\s*[})\]]")


def split_range(doc: LineDoc, start: int, end: int, max_chars: int) -> list[tuple[int, int, str]]:
    """Cut lines start..end into pieces of at most max_chars: at lines allowed
    as cut points (statement starts) of the shallowest depth that fits, then by line windows (one over-long line
    is sliced, keeping its number)."""
    depths, code = doc.depths
    lines = doc.lines
    base = min(depths[start:end + 1])

    def rec(s: int, e: int, level: int) -> list[tuple[int, int, str]]:
        if doc.size(s, e) <= max_chars:
            return [(s, e, doc.body(s, e))]
        if level > base + 6:
            return [(w.start_line, w.end_line, w.text) for w in line_windows(lines, s, e, max_chars, 0)]
        cuts = [ln for ln in range(s + 1, e + 1)
                if code[ln] and depths[ln] <= level and lines[ln - 1].strip() and not _CLOSER_LINE.match(lines[ln - 1])]
        # A comment or decorator directly above a cut belongs to the piece below it.
        lifted = set()
        for c in cuts:
            while c - 1 > s and _LEAD_LINE.match(lines[c - 2]):
                c -= 1
            lifted.add(c)
        cuts = sorted(lifted)
        if not cuts:
            return rec(s, e, level + 1)
        bounds = [s] + cuts + [e + 1]
        out: list[tuple[int, int, str]] = []
        cur = bounds[0]
        for i in range(1, len(bounds)):
            nxt = bounds[i]
            if doc.size(cur, nxt - 1) > max_chars:
                atom_start = bounds[i - 1]
                if doc.size(atom_start, nxt - 1) > max_chars:
                    # The atom itself is too big: cut it deeper, together with
                    # the short run before it so that run is not left alone.
                    out.extend(rec(cur, nxt - 1, level + 1))
                    cur = nxt
                else:
                    out.append((cur, atom_start - 1, doc.body(cur, atom_start - 1)))
                    cur = atom_start
        if cur <= e:
            out.append((cur, e, doc.body(cur, e)))
        return out

    return rec(start, end, base)


_LEAD_LINE = re.compile(r"^\s*(?://|/\*|\*|--|@)")


# --------------------------------------------------------------------------- skeleton


def _fold(text: str) -> str:
    line = " ".join(text.split())
    return cut_redacted(line, 240)


def _skeleton(doc: LineDoc, g: _Group, line_max: int = 1 << 62) -> str:
    """Depth-0 outline of a group: each unit's first line, bodies folded (a
    first line over `line_max`, minified code, folded to its first words)."""
    out = []
    for u in g.units:
        if u.kind == "import":
            continue
        if u.class_node is not None and doc.src:
            out.append(_class_outline(doc, u.class_node, u.start))
            continue
        first = doc.lines[u.start - 1].rstrip()
        if len(first) > line_max:
            out.append(_fold(first) + " …")
            continue
        if u.end > u.start:
            first += " … }" if first.endswith("{") else " …"
        out.append(first.strip())
    return "\n".join(out)


_MEMBER_TYPES = {"method_definition", "method_signature", "abstract_method_signature", "class_static_block",
                 "public_field_definition", "field_definition", "index_signature"}


def _member_body(node):
    body = node.child_by_field_name("body")
    if body is not None:
        return body
    value = node.child_by_field_name("value")
    if value is not None and value.type in _FUNCTION_TYPES:
        return value.child_by_field_name("body")
    return None


def _member_signature(src: bytes, node) -> str:
    body = _member_body(node)
    if body is not None and body.type == "statement_block":
        return _fold(src[node.start_byte:body.start_byte].decode("utf-8", "replace")) + " { … }"
    text = _node_text(src, node)
    first = text.split("\n", 1)[0]
    return _fold(first) + (" …" if "\n" in text else "")


def _class_outline(doc: LineDoc, cls, unit_start: int) -> str:
    """Decorators, the declaration, then one folded line per member."""
    src = doc.src
    body = cls.child_by_field_name("body")
    row = cls.start_point[0]
    if body is None:
        return doc.lines[row].strip()
    decorators = [doc.lines[ln - 1].strip() for ln in range(unit_start, row + 1)
                  if doc.lines[ln - 1].lstrip().startswith("@")]
    # `export` / `export default` sit before the class node on its line.
    before = doc.lines[row][:len(doc.lines[row].encode("utf-8")[:cls.start_point[1]].decode("utf-8", "replace"))]
    head = _fold(before + src[cls.start_byte:body.start_byte].decode("utf-8", "replace"))
    if head.startswith("@"):
        head = head.split(" ", 1)[-1] if not decorators else head
    members = ["  " + _member_signature(src, m) for m in body.named_children if m.type in _MEMBER_TYPES]
    return "\n".join([*decorators, head.strip() + " {", *members, "}"])


# --------------------------------------------------------------------------- large classes

_MEMBER_KIND = {"method_definition": "method", "method_signature": "method", "abstract_method_signature": "method",
                "class_static_block": "static_block", "public_field_definition": "property",
                "field_definition": "property", "index_signature": "property"}


def _is_member_unit(src: bytes, node) -> bool:
    if node.type in ("method_definition", "method_signature", "abstract_method_signature", "class_static_block"):
        return True
    if node.type in ("public_field_definition", "field_definition"):
        value = node.child_by_field_name("value")
        return value is not None and value.type in _FUNCTION_TYPES
    return False


def _member_symbol(src: bytes, node, parent: str) -> ChunkSymbol:
    kind = _MEMBER_KIND.get(node.type, "property")
    name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
    name = _node_text(src, name_node) if name_node is not None else ("static" if node.type == "class_static_block" else "")
    if kind == "method":
        if name == "constructor":
            kind = "constructor"
        else:
            for c in node.children:
                if c.type in ("get", "set") and c.end_byte <= (name_node.start_byte if name_node else c.end_byte):
                    kind = "getter" if c.type == "get" else "setter"
    elif kind == "property" and _is_member_unit(src, node):
        kind = "method"
    return ChunkSymbol(name, kind, parent, node.start_point[0] + 1, node.end_point[0] + 1)


def _member_visibility(src: bytes, node) -> str:
    """`private`, `protected` or `public` as declared (TypeScript's `accessibility_modifier`);
    a `#name` is private; anything else is public, TypeScript's default."""
    for c in node.children:
        if c.type == "accessibility_modifier":
            return _node_text(src, c).strip()
    name = node.child_by_field_name("name") or node.child_by_field_name("property")
    return "private" if name is not None and name.type == "private_property_identifier" else "public"


def _split_class(doc: LineDoc, g: _Group, unit: _Unit, options: ChunkOptions) -> list[ChunkPiece]:
    """Header + one chunk per member + the full class; [] when the class cannot
    be cut on lines (members sharing the declaration's line)."""
    src = doc.src
    cls = unit.class_node
    body = cls.child_by_field_name("body")
    if body is None:
        return []
    class_name = _name_of(src, cls, "default")
    parent = class_name
    kids = body.named_children
    starts: list[tuple[int, Any]] = []  # (first line incl. leading comments/decorators, member node)
    for i, m in enumerate(kids):
        if not _is_member_unit(src, m):
            continue
        first = m.start_point[0] + 1
        j = i - 1
        while j >= 0 and kids[j].type in ("comment", "decorator") and kids[j].end_point[0] + 1 >= first - 1:
            # stop at a comment sharing a line with the previous member
            if j > 0 and kids[j - 1].end_point[0] == kids[j].start_point[0]:
                break
            first = kids[j].start_point[0] + 1
            j -= 1
        if starts and first <= starts[-1][1].end_point[0] + 1:
            continue  # shares a line with the previous member: rides it
        starts.append((first, m))
    class_first = cls.start_point[0] + 1
    if not starts or starts[0][0] <= max(g.start, class_first):
        return []
    full_outline = _class_outline(doc, cls, unit.start)
    outline = cap_outline(full_outline, options.skeleton_max_chars)
    member_symbols = [_member_symbol(src, m, parent) for _, m in starts]
    class_symbol = ChunkSymbol(class_name, "class", "", unit.start, unit.end)
    pieces = []
    head_end = starts[0][0] - 1
    prefix = doc.body(g.start, unit.start - 1) + "\n" if unit.start > g.start else ""
    others = [s for u in g.units if u is not unit for s in u.symbols]
    pieces.extend(_emit(doc, g.start, head_end, "ts_class", others + [class_symbol] + member_symbols,
                        options, skeleton=outline,
                        analysis_text=prefix + cap_outline(outline, options.type_max_chars), label=class_name))
    header = f"// {class_name}\n"
    huge = len(full_outline) > options.type_max_chars
    if huge:
        # The whole outline in every member would grow with the square of the
        # class (issue 16): each member sees the class's declaration and the
        # members around it (see units.neighbourhood).
        lines = full_outline.split("\n")
        signatures = [m for m in body.named_children if m.type in _MEMBER_TYPES]
        at = {m.start_byte: i for i, m in enumerate(signatures)}
        head_lines = len(lines) - len(signatures) - 1  # decorators and the declaration line
        head, member_lines = "\n".join(lines[:head_lines]), lines[head_lines:-1]
        # What every context holds besides outline lines: the declaration, the closing brace,
        # two "… N more members" lines and the blank line after the text.
        fixed = len(head) + 4 + 2 * len(f"  // … {len(member_lines)} more members\n")
    for idx, (first, m) in enumerate(starts):
        last = starts[idx + 1][0] - 1 if idx + 1 < len(starts) else g.end
        sym = member_symbols[idx]
        visibility = {"visibility": _member_visibility(src, m)}
        if huge:
            # The member's text, then at most its own size of context (none where no
            # neighbour's line fits): stored as the context alone.
            room = min(options.member_context_chars, doc.size(first, min(last, m.end_point[0] + 1)) - fixed)
            context = member_context(head, member_lines, at.get(m.start_byte, 0), room, "}", "  ")
            pieces.extend(_emit(doc, first, last, "ts_function", [sym], options, skeleton=_member_signature(src, m),
                                header=header, analysis_suffix=f"\n\n{context}" if context else "",
                                label=f"{class_name}.{sym.name}", meta=visibility))
            continue
        pieces.extend(_emit(doc, first, last, "ts_function", [sym], options, skeleton=_member_signature(src, m),
                            header=header, analysis_prefix=f"{header}{outline}\n\n",
                            label=f"{class_name}.{sym.name}", meta=visibility))
    if huge:
        # No whole-class copy: its parts would be blind windows over members that have
        # chunks of their own (the member chunks run from one member to the next, so they
        # cover every line of the body without it).
        return pieces
    # The whole class too: measured on C#, splitting alone cost recall@1 that the full shape recovers.
    full_start = max(g.start, _leading_start(doc, g, unit))
    pieces.extend(_emit(doc, full_start, unit.end, "ts_class_full", [class_symbol] + member_symbols, options,
                        skeleton=outline, label=class_name))
    return pieces


def _leading_start(doc: LineDoc, g: _Group, unit: _Unit) -> int:
    """First line of the comments/decorators directly above the unit."""
    ln = unit.start
    while ln - 1 >= g.start and doc.lines[ln - 2].strip() and (
            _COMMENT_LINE.match(doc.lines[ln - 2]) or doc.lines[ln - 2].lstrip().startswith("@")):
        ln -= 1
    return ln


def _shift_piece(p: ChunkPiece, offset: int) -> None:
    p.start_line += offset
    p.end_line += offset
    p.symbols = [ChunkSymbol(s.name, s.kind, s.parent, s.start_line + offset, s.end_line + offset)
                 for s in p.symbols]
