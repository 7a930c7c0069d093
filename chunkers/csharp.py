"""C#: one chunk per top-level type, large types as header + members + full.

- Every top-level type (class, struct, record, interface, enum, delegate under a namespace, a
  file-scoped namespace or the compilation unit) is one `cs_class` chunk: the file's `using`
  directives and `namespace X {` line as a header, then the type's exact lines. Lines between
  units ride the unit that follows; the tail rides the last unit, so the chunks partition the file.
- A type over `options.type_max_chars` becomes three shapes (splitting alone costs recall@1; the
  whole type kept as well recovers recall@5: docs/decisions.md):
  * `cs_class` head: declaration, doc comment and the fields before the first member, verbatim;
    the folded outline of the whole type is its `skeleton` and `analysis_text`, its symbols list
    every member (meta `type_start_line`/`type_end_line` hold the type's range).
  * `cs_member`: one per method, constructor, property, indexer, operator, event, nested type, and
    per field declaration after the first member; text = `// Namespace.Type` + the member's exact
    lines, analysis_text = that plus the type's skeleton. For a "huge" type (outline over the cap
    even without comments) the context is the type's declaration and the neighbouring members,
    at most the member's own size, since a whole outline per member grows with the square of the
    type. A member over the cap splits at statements, header and signature repeated. meta
    `visibility`: the declared accessibility, else C#'s default.
  * `cs_class_full`: the whole type, in parts at member/statement boundaries, never truncated. A
    huge type has none (its parts would be blind windows over members that have chunks of their
    own); each member chunk then runs to the next member's first line, so every line is covered.
  `symbols` and `skeleton` stay within `options.chunk_max_symbols` / `skeleton_max_chars`.
- Top-level statements, or a file with no type -> `cs_file`.
- tree-sitter's C# grammar (0.23.5) lags the language: an ERROR inside a method keeps the method,
  and a region where the grammar lost the type wrapper is re-segmented by a brace scanner.
- Speed: the tree is first built without member bodies, expression bodies and doc comments
  (`_parse_lazily`); wherever it cannot be proven equal to the whole parse, the whole text is parsed.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field

from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkPiece, ChunkSymbol
from .redact import cut_redacted
from .text import LineIndex, line_table
from .units import (HEADER_LINE_CHARS, NAME_CHARS, ParseBudgetExceeded, cap_outline, cap_symbols, member_context,
                    parse_bounded, part_skeleton)
from .windows import line_windows

TYPE_KINDS = {
    "class_declaration": "class",
    "struct_declaration": "struct",
    "record_declaration": "record",
    "record_struct_declaration": "record",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "delegate_declaration": "delegate",
}
# Members that get their own chunk when their type is split.
MEMBER_KINDS = {
    "method_declaration": "method",
    "constructor_declaration": "constructor",
    "destructor_declaration": "destructor",
    "property_declaration": "property",
    "indexer_declaration": "indexer",
    "operator_declaration": "operator",
    "conversion_operator_declaration": "operator",
    "event_declaration": "event",
    "event_field_declaration": "event",
}
# Nodes that only wrap declarations (`#if DEBUG class A {} #endif`).
PREPROC_CONTAINERS = {"preproc_if", "preproc_elif", "preproc_else", "preproc_region"}
# The part of a declaration that holds its body: where statement splits happen.
BODY_TYPES = {"block", "accessor_list", "declaration_list", "arrow_expression_clause",
              "enum_member_declaration_list"}
FOLD = "{ … }"
ARROW_FOLD = "=> …"

_PARSER = None
_LAZY_PARSER = None


def _parser():
    global _PARSER
    if _PARSER is None:
        from tree_sitter_language_pack import get_parser

        _PARSER = get_parser("csharp")
    return _PARSER


def _lazy_parser():
    # A parser of its own: included_ranges is parser state, and _parser()
    # must keep parsing whole texts (the Razor chunker shares it).
    global _LAZY_PARSER
    if _LAZY_PARSER is None:
        from tree_sitter_language_pack import get_parser

        _LAZY_PARSER = get_parser("csharp")
    return _LAZY_PARSER


# ---------------------------------------------------------------- the brace scanner
# Used where tree-sitter lost the structure (and by the Razor chunker to find the
# end of `@code { }`). Strings, chars and comments are skipped so their braces do
# not count; anything it misreads only coarsens a boundary.
_TOKENS = re.compile(
    r"""[^/"'@$;{}]+
    | //[^\n]*
    | /\*.*?(?:\*/|\Z)
    | \$*("{3,}).*?\1
    | (?:\$@|@\$|@)"(?:[^"]|"")*"?
    | \$?"(?:[^"\\\n]|\\.)*"?
    | '(?:[^'\\\n]|\\.){1,10}'
    | (?P<b>[{};])""",
    re.S | re.X,
)
_TRIVIA = re.compile(r"(?:\s+|//[^\n]*|/\*.*?(?:\*/|\Z))*", re.S)
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
_ATTRS = re.compile(r"^\s*(?:\[[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\]\s*)+")
_TYPE_HEAD = re.compile(r"\b(class|struct|interface|enum|record)\s+(?:(?:class|struct)\s+)?(@?[A-Za-z_]\w*)")
_DELEGATE_HEAD = re.compile(r"\bdelegate\b[^(;]*?(@?[A-Za-z_]\w*)\s*(?:<[^()]*>)?\s*\(")
_NAMESPACE_HEAD = re.compile(r"^\s*namespace\s+([\w.@]+)")
_CALL_HEAD = re.compile(r"(~?@?[A-Za-z_]\w*)\s*(?:<[^()]*>)?\s*\(")
_CONTINUES = set("=;,).?:")
_COMMENT_LINE = re.compile(r"\n[^\S\n]*//[^\n]*")


def brace_tokens(text: str, lo: int = 0, hi: int | None = None) -> list[tuple[int, str]]:
    """Positions of `{`, `}` and `;` in text[lo:hi] outside strings, chars and comments."""
    hi = len(text) if hi is None else hi
    return [(m.start("b"), m.group("b")) for m in _TOKENS.finditer(text, lo, hi) if m.group("b")]


def match_brace(text: str, open_pos: int, hi: int | None = None) -> int:
    """Position of the `}` closing the `{` at open_pos, or -1 when unbalanced."""
    depth = 0
    for pos, ch in brace_tokens(text, open_pos, hi):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return pos
    return -1


@dataclass
class _Segment:
    start: int  # first code character (leading comments excluded)
    end: int  # one past the terminator
    block_open: int = -1  # first depth-0 `{`, -1 when none
    block_close: int = -1

    def head(self, text: str) -> str:
        stop = self.block_open if self.block_open >= 0 else self.end
        return _ATTRS.sub("", _COMMENTS.sub(" ", text[self.start:stop]))


def _segments(text: str, lo: int, hi: int) -> list[_Segment]:
    """Depth-0 declarations/statements of text[lo:hi]: each ends at `;` or at the
    `}` closing its block (unless `=`, `;`, `,`... continue it, as in a property
    initializer or a lambda field)."""
    out: list[_Segment] = []
    depth = 0
    start = lo
    block_open = block_close = -1
    for pos, ch in brace_tokens(text, lo, hi):
        if ch == "{":
            if depth == 0 and block_open < 0:
                block_open = pos
            depth += 1
        elif ch == "}":
            if depth == 0:  # a stray close: end whatever is open
                out.append(_Segment(start, pos + 1, block_open, block_close))
                start, block_open, block_close = pos + 1, -1, -1
                continue
            depth -= 1
            if depth == 0:
                if block_close < 0:
                    block_close = pos
                nxt = _TRIVIA.match(text, pos + 1, hi).end()
                if nxt >= hi or text[nxt] not in _CONTINUES:
                    out.append(_Segment(start, pos + 1, block_open, block_close))
                    start, block_open, block_close = pos + 1, -1, -1
        elif depth == 0:  # ';'
            out.append(_Segment(start, pos + 1, block_open, block_close))
            start, block_open, block_close = pos + 1, -1, -1
    if text[start:hi].strip():
        out.append(_Segment(start, hi, block_open, block_close))
    result = []
    for seg in out:
        seg.start = _TRIVIA.match(text, seg.start, seg.end).end()
        if seg.start < seg.end:
            result.append(seg)
    return result


# ---------------------------------------------------------------- model of a file
class _Member:
    # A plain slotted class: one is built per member of every type, in the hot loop.
    __slots__ = ("name", "kind", "start", "end", "node", "body_line", "cuts", "symbol", "others")

    def __init__(self, name: str, kind: str, start: int, end: int, node=None, body_line: int = 0,
                 symbol: ChunkSymbol | None = None) -> None:
        self.name = name
        self.kind = kind
        self.start = start  # 1-based lines of the declaration (attributes included)
        self.end = end
        self.node = node  # tree-sitter node; None when recovered by the scanner
        self.body_line = body_line  # line of the body's opening brace (end of the signature)
        self.cuts: dict[int, int] = {}  # statement boundaries of a recovered member
        # ChunkSymbol(name, kind, <type's qual>, start, end), when built with the member
        self.symbol = symbol
        self.others: tuple[ChunkSymbol, ...] = ()  # `int a, b;`: the symbols after the first


@dataclass
class _Type:
    name: str
    kind: str
    qual: str  # Namespace.Outer.Type
    parent: str
    start: int
    end: int
    members: list[_Member]
    symbols: list[ChunkSymbol]  # the type, then every member (nested ones too)
    skeleton: str
    node: object = None


@dataclass
class _Unit:
    kind: str  # "type" | "statements"
    start: int  # core lines (leading trivia excluded)
    end: int
    namespace: str
    ns_line: int
    ns_style: str  # "block" | "file"
    type: _Type | None = None
    symbols: list[ChunkSymbol] = field(default_factory=list)
    statements: list = field(default_factory=list)  # nodes, for statement cuts


class _File:
    def __init__(self, path: str, text: str, options: ChunkOptions):
        self.path = path
        self.text = text
        # split_lines(text) and the prefix sums of its line lengths; shared
        # with the registry's redaction pass of this text (see line_table).
        lines, pre = line_table(text)
        if text.endswith("\n"):  # the final newline adds no line
            lines, pre = lines[:-1], pre[:-1]
        self.lines = lines
        self.cap = max(200, options.type_max_chars)
        self.options = options
        self.pre = pre
        self.usings: list[tuple[int, str]] = []
        self.units: list[_Unit] = []
        self._index: LineIndex | None = None
        # Lazy parse (see _parse_lazily): the member bodies left out of the
        # tree, as (start_byte, end_byte, FOLD) of their blocks, and every
        # fold the walk made, to prove each left-out range was such a body.
        self.skipped: set[tuple[int, int, str]] = set()
        self.folded: set[tuple[int, int, str]] = set()
        # Expression bodies it left out but their first character: the end
        # of that character (where the tree ends the `=>` clause) -> the end
        # of the whole expression (where the whole parse ends it).
        self.arrow_ends: dict[int, int] = {}
        self.docs: list[int] = []  # offsets of the `///` blocks it left out
        self.doc_blocks: list[tuple[int, int, int, int, int]] = []  # and (start, end, lines, column)
        self.doc_tops: dict[int, int] = {}  # last line -> first line of each such block
        self.ascii = text.isascii()  # then byte offsets into the parsed text are character offsets

    # sizes and text of 1-based inclusive line ranges
    def size(self, s: int, e: int) -> int:
        return self.pre[e] - self.pre[s - 1] + e - s

    def join(self, s: int, e: int) -> str:
        pre = self.pre
        if 1 <= s <= e < len(pre):  # one slice of the text (line k + 1 starts at pre[k] + k)
            return self.text[pre[s - 1] + s - 1:pre[e] + e - 1]
        return "\n".join(self.lines[s - 1:e])

    @property
    def index(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex.of(self.text)
        return self._index

    def line_of(self, offset: int) -> int:
        return self.index.line_of(offset)

    def offset_of(self, line: int) -> int:
        return self.index.offset_of(line)


def _first(node) -> int:
    return node.start_point.row + 1


def _last(node) -> int:
    row, col = node.end_point.row, node.end_point.column
    if col == 0 and row > node.start_point.row:
        row -= 1
    return row + 1


def _qual(*parts: str) -> str:
    return cut_redacted(".".join(p for p in parts if p), 2 * NAME_CHARS)


def _flatten(children):
    """Children of a declaration list, seen through `#if`/`#region` wrappers."""
    for ch in children:
        if ch.type in PREPROC_CONTAINERS:
            yield from _flatten(ch.children)
        else:
            yield ch


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def _name_of(node, t: str | None = None) -> str:
    return cut_redacted(_full_name_of(node, t), NAME_CHARS)


def _full_name_of(node, t: str | None = None) -> str:
    if t is None:
        t = node.type
    if t == "indexer_declaration":
        return "this[]"
    if t == "operator_declaration":
        op = node.child_by_field_name("operator")
        return f"operator {_text(op)}" if op is not None else "operator"
    if t == "conversion_operator_declaration":
        kind = next((c.type for c in node.children if c.type in ("implicit", "explicit")), "")
        target = node.child_by_field_name("type")
        return " ".join(p for p in (kind, "operator", _text(target) if target is not None else "") if p)
    if t == "event_field_declaration":
        for c in node.named_children:
            if c.type == "variable_declaration":
                names = [_text(d.named_children[0]) for d in c.named_children
                         if d.type == "variable_declarator" and d.named_children]
                if names:
                    return ", ".join(names)
    name = node.child_by_field_name("name")
    if name is not None:
        text = _text(name)
        return f"~{text}" if t == "destructor_declaration" else text
    ident = next((c for c in node.named_children if c.type == "identifier"), None)
    return _text(ident) if ident is not None else "?"


def _body_of(node):
    for c in node.children:
        if c.type in BODY_TYPES:
            return c
    return None


def _field_names(node) -> list[str]:
    for c in node.named_children:
        if c.type == "variable_declaration":
            return [_text(d.named_children[0]) for d in c.named_children
                    if d.type == "variable_declarator" and d.named_children]
    return []


# ---------------------------------------------------------------- tree path
def _collect_type(f: _File, node, namespace: str, outer: str) -> _Type:
    kind = TYPE_KINDS[node.type]
    if node.type == "record_declaration" and any(c.type == "struct" for c in node.children):
        kind = "record struct"
    name = _name_of(node)
    parent = _qual(namespace, outer)
    qual = _qual(parent, name)
    members: list[_Member] = []
    symbols = [ChunkSymbol(name, kind, parent, _first(node), _last(node))]
    folds: list[tuple[int, int, str]] = []
    body = _body_of(node)
    if body is not None and body.type == "enum_member_declaration_list":
        for c in body.named_children:
            if c.type == "enum_member_declaration":
                symbols.append(ChunkSymbol(_name_of(c), "enum_member", qual, _first(c), _last(c)))
    elif body is not None and body.type == "declaration_list":
        _collect_members(f, body, namespace, _qual(outer, name), qual, members, symbols, folds)
        if f.skipped:
            if f.arrow_ends:
                ends = f.arrow_ends
                folds[:] = [(a, ends.get(b, b), r) if r is ARROW_FOLD else (a, b, r) for a, b, r in folds]
            f.folded.update(folds)
    return _Type(name, kind, qual, parent, _first(node), _last(node), members, symbols,
                 _skeleton(f, node, folds), node)


def _collect_members(f: _File, body, namespace, outer, qual, members, symbols, folds) -> None:
    _collect_children(f, body.children, namespace, outer, qual, members, symbols, folds)


def _collect_children(f: _File, children, namespace, outer, qual, members, symbols, folds) -> None:
    # Hot loop: doc-comment lines are most of the children, so they leave first.
    for c in children:
        t = c.type
        if t == "comment":
            continue
        if t in PREPROC_CONTAINERS:
            _collect_children(f, c.children, namespace, outer, qual, members, symbols, folds)
        elif t in MEMBER_KINDS:
            # _first/_last inlined: one Point object each
            sp, ep = c.start_point, c.end_point
            start, end = sp.row + 1, ep.row + (0 if ep.column == 0 and ep.row > sp.row else 1)
            name, kind = _name_of(c, t), MEMBER_KINDS[t]
            sym = ChunkSymbol(name, kind, qual, start, end)
            members.append(_Member(name, kind, start, end, c, _fold_member(c, folds) or start, sym))
            symbols.append(sym)
        elif t in TYPE_KINDS:
            nested = _collect_type(f, c, namespace, outer)
            b = _body_of(c)
            members.append(_Member(nested.name, nested.kind, nested.start, nested.end, c,
                                   _first(b) if b is not None else _first(c)))
            symbols.extend(nested.symbols)
            _fold_type(c, folds)
        elif t == "field_declaration":
            kind = "const" if any(m.type == "modifier" and _text(m) == "const" for m in c.children) else "field"
            start, end = _first(c), _last(c)
            syms = [ChunkSymbol(n, kind, qual, start, end) for n in _field_names(c)]
            if syms:
                # A member only where it follows another member (see _emit_type): leading
                # fields stay in the type's head.
                m = _Member(syms[0].name, kind, start, end, c, start, syms[0])
                m.others = tuple(syms[1:])
                members.append(m)
                symbols.extend(syms)
        elif t == "ERROR":
            _recover_members(f, *_line_span(f, _first(c), _last(c)), qual, members, symbols)


_FOLD_FIELDS = ("body", "accessors", "value")
_FOLD_FIELD_IDS: tuple[int, ...] = ()


def _fold_field_ids() -> tuple[int, ...]:
    # Field lookups by id: by name, every call first maps the name to its id.
    global _FOLD_FIELD_IDS
    if not _FOLD_FIELD_IDS:
        language = _parser().language
        _FOLD_FIELD_IDS = tuple(language.field_id_for_name(name) for name in _FOLD_FIELDS)
    return _FOLD_FIELD_IDS


def _fold_body(c, folds) -> bool:
    """Folds `c` when it is a member body (block, `=>` body, accessors); False otherwise."""
    t = c.type
    if t == "block":
        folds.append((c.start_byte, c.end_byte, FOLD))
    elif t == "arrow_expression_clause":
        folds.append((c.start_byte, c.end_byte, ARROW_FOLD))
    elif t == "accessor_list":
        for acc in c.named_children:
            _fold_member(acc, folds)
    else:
        return False
    return True


def _fold_member(node, folds) -> int:
    """Adds the member's body folds; returns the line its body starts on (0: none)."""
    if node.has_error:
        candidates = node.children
    else:
        # A clean member holds its bodies only in these fields: three lookups
        # instead of a Node object for every modifier, type and parameter list.
        ids = _FOLD_FIELD_IDS or _fold_field_ids()
        candidates = [c for c in map(node.child_by_field_id, ids) if c is not None]
    body_line = 0
    for c in candidates:
        if _fold_body(c, folds):
            row = c.start_point.row + 1
            if not body_line or row < body_line:
                body_line = row
    return body_line


def _fold_type(node, folds) -> None:
    body = _body_of(node)
    if body is None or body.type != "declaration_list":
        return
    for c in _flatten(body.children):
        if c.type in TYPE_KINDS:
            _fold_type(c, folds)
        elif c.type in MEMBER_KINDS:
            _fold_member(c, folds)
        elif c.type == "ERROR":
            folds.append((c.start_byte, c.end_byte, _fold_text(_text(c), 0)))


def _doc_above(f: _File, line: int, floor: int) -> int:
    """First line of the comment/attribute block directly above `line` (no blank line between)."""
    s, lines, tops = line, f.lines, f.doc_tops
    while s - 1 > floor:
        top = tops.get(s - 1)
        if top is not None and top > floor:  # a `///` block: every line of it is a comment
            s = top
        elif lines[s - 2].lstrip().startswith(("//", "/*", "*", "[", "#")):
            s -= 1
        else:
            break
    return s


def _skeleton(f: _File, node, folds: list[tuple[int, int, str]]) -> str:
    base = node.start_byte
    if f.ascii:  # byte offsets are character offsets: slices of the text, no decoding
        text = f.text

        def cut(a: int, b: int) -> str:
            return text[a:b]
    else:
        src = node.text

        def cut(a: int, b: int) -> str:
            return src[a - base:b - base].decode("utf-8", "replace")
    out, at = [], base
    for s, e, rep in sorted(folds):
        if s < at:
            continue
        out.append(cut(at, s))
        out.append(rep)
        at = e
    out.append(cut(at, node.end_byte))
    start = _first(node)
    doc = _doc_above(f, start, 0)
    lead = f.join(doc, start - 1) + "\n" if doc < start else ""
    # The first line keeps its indentation (node.text starts at the node).
    indent = f.lines[start - 1][:len(f.lines[start - 1]) - len(f.lines[start - 1].lstrip())]
    return lead + indent + "".join(out)


def _fold_text(text: str, depth_to_fold: int) -> str:
    """Fold every brace group at `depth_to_fold` of a region the grammar lost."""
    out, at, depth = [], 0, 0
    for pos, ch in brace_tokens(text):
        if ch == "{":
            if depth == depth_to_fold:
                out.append(text[at:pos])
                at = -1
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == depth_to_fold and at == -1:
                out.append(FOLD)
                at = pos + 1
    if at >= 0:
        out.append(text[at:])
    return "".join(out)


# ---------------------------------------------------------------- recovery path
def _classify_member(head: str, type_name: str, has_block: bool) -> tuple[str, str] | None:
    """(kind, name) of a declaration the grammar lost, from its head text; None for a field."""
    m = _TYPE_HEAD.search(head)
    if m and "(" not in head[:m.start()]:
        return m.group(1), m.group(2)
    if re.search(r"\boperator\b", head):
        op = re.search(r"\boperator\s*([^\s(]+)", head)
        return "operator", f"operator {op.group(1)}" if op else "operator"
    if re.search(r"\bthis\s*\[", head):
        return "indexer", "this[]"
    if re.search(r"\bevent\b", head):
        names = re.findall(r"(@?[A-Za-z_]\w*)\s*(?:[;={]|$)", head.strip())
        return "event", names[-1] if names else "event"
    pre_arrow = head.split("=>")[0]
    call = None
    for call in _CALL_HEAD.finditer(pre_arrow):
        break
    if call is not None and "=" not in pre_arrow[:call.start()]:
        name = call.group(1)
        if name.lstrip("~") == type_name:
            return ("destructor" if name.startswith("~") else "constructor"), name
        return "method", name
    if has_block or "=>" in head:
        names = re.findall(r"(@?[A-Za-z_]\w*)\s*$", pre_arrow.strip())
        return "property", names[-1] if names else "?"
    return None


def _line_span(f: _File, s: int, e: int) -> tuple[int, int]:
    return f.offset_of(s), (f.offset_of(e + 1) if e < len(f.lines) else len(f.text))


def _recover_members(f: _File, lo: int, hi: int, qual: str, members, symbols) -> None:
    """Members of a type-body region (text[lo:hi]) the grammar lost, by the brace scanner."""
    text = f.text
    type_name = qual.rsplit(".", 1)[-1]
    for seg in _segments(text, lo, hi):
        head = seg.head(text)
        found = _classify_member(head, type_name, seg.block_open >= 0)
        start, end = f.line_of(seg.start), f.line_of(seg.end - 1)
        if found is None:
            names = re.findall(r"(@?[A-Za-z_]\w*)\s*(?:=|;|,|$)", head.split("=")[0].strip() + ";")
            if names:
                sym = ChunkSymbol(names[-1], "field", qual, start, end)
                members.append(_Member(sym.name, "field", start, end, None, start, sym))
                symbols.append(sym)
            continue
        kind, name = found
        sym = ChunkSymbol(name, kind, qual, start, end)
        m = _Member(name, kind, start, end, None, f.line_of(seg.block_open) if seg.block_open >= 0 else start, sym)
        if seg.block_open >= 0 and seg.block_close > seg.block_open:
            for inner in _segments(text, seg.block_open + 1, seg.block_close):
                line = f.line_of(inner.start)
                if text[f.offset_of(line):inner.start].strip() == "":
                    m.cuts[line] = 0
        members.append(m)
        symbols.append(sym)


def _recover_region(f: _File, s: int, e: int, namespace: str, ns_line: int, ns_style: str) -> None:
    """Top-level units of a region whose type wrappers the grammar lost."""
    _recover_scope(f, *_line_span(f, s, e), namespace, ns_line, ns_style)


def _recover_scope(f: _File, lo: int, hi: int, namespace: str, ns_line: int, ns_style: str) -> None:
    text = f.text
    for seg in _segments(text, lo, hi):
        head = seg.head(text)
        start, end = f.line_of(seg.start), f.line_of(seg.end - 1)
        ns = _NAMESPACE_HEAD.match(head)
        if ns:
            name = _qual(namespace, ns.group(1))
            if seg.block_open >= 0:
                close = seg.block_close if seg.block_close > 0 else seg.end
                _recover_scope(f, seg.block_open + 1, close, name, start, "block")
            else:
                namespace, ns_line, ns_style = name, start, "file"
            continue
        if re.match(r"\s*(?:global\s+)?using\b", head) and seg.block_open < 0:
            f.usings.append((start, " ".join(text[seg.start:seg.end].split())))
            continue
        if re.match(r"\s*extern\s+alias\b", head):
            continue
        t = _TYPE_HEAD.search(head)
        d = _DELEGATE_HEAD.search(head)
        if t and "(" not in head[:t.start()] and "=" not in head[:t.start()]:
            kind, name = t.group(1), t.group(2)
        elif d and seg.block_open < 0:
            kind, name = "delegate", d.group(1)
        elif re.search(r"\w", head):
            _add_statement(f, start, end, namespace, ns_line, ns_style, None)
            continue
        else:  # a stray brace or semicolon: its line rides a neighbour
            continue
        qual = _qual(namespace, name)
        members: list[_Member] = []
        symbols = [ChunkSymbol(name, kind, namespace, start, end)]
        if seg.block_open >= 0:
            body_lo = seg.block_open + 1
            body_hi = seg.block_close if seg.block_close > seg.block_open else seg.end
            if kind == "enum":
                for nm in re.findall(r"(?:^|,)\s*(?:\[[^\]]*\]\s*)*(@?[A-Za-z_]\w*)", _COMMENTS.sub(" ", text[body_lo:body_hi])):
                    symbols.append(ChunkSymbol(nm, "enum_member", qual, start, end))
            elif body_hi > body_lo:
                _recover_members(f, body_lo, body_hi, qual, members, symbols)
        skeleton = _fold_text(text[f.offset_of(start):seg.end], 1)
        typ = _Type(name, kind, qual, namespace, start, end, members, symbols, skeleton, None)
        f.units.append(_Unit("type", start, end, namespace, ns_line, ns_style, typ, list(symbols)))


def _add_statement(f: _File, start: int, end: int, namespace, ns_line, ns_style, node) -> None:
    last = f.units[-1] if f.units else None
    if last is not None and last.kind == "statements" and last.namespace == namespace:
        last.end = max(last.end, end)
    else:
        last = _Unit("statements", start, end, namespace, ns_line, ns_style)
        f.units.append(last)
    if node is not None:
        last.statements.append(node)
        for c in node.named_children:
            if c.type == "local_function_statement":
                last.symbols.append(ChunkSymbol(_name_of(c), "function", namespace, _first(c), _last(c)))


def _damaged(node) -> bool:
    """A type whose member list the grammar mangled (an ERROR among its members,
    or a missing closing brace): its members come from the scanner instead."""
    if not node.has_error:
        return False
    body = _body_of(node)
    if body is None or body.type != "declaration_list":
        return body is None and node.type != "delegate_declaration"
    last = body.children[-1] if body.children else None
    if last is None or last.type != "}" or last.is_missing:
        return True
    return any(c.type == "ERROR" or c.is_missing for c in _flatten(body.children))


def _walk_scope(f: _File, children, namespace: str, ns_line: int, ns_style: str) -> None:
    children = list(children)
    skip = -1
    recovered = 0  # the last line a region recovered: a region is whole lines, so one line is recovered once

    def recover(first: int, last: int) -> None:
        # Errors sharing a line (`x {}` × 8,000 on one: each region was the whole line, the square of it) are one.
        nonlocal recovered
        if max(first, recovered + 1) <= last:
            _recover_region(f, max(first, recovered + 1), last, namespace, ns_line, ns_style)
            recovered = last

    for i, ch in enumerate(children):
        if i == skip:
            continue
        t = ch.type
        if t in TYPE_KINDS and _damaged(ch) or (
                t in TYPE_KINDS and i + 1 < len(children) and children[i + 1].type == "ERROR"):
            # Recover the type together with the ERROR the grammar split off it.
            end = _last(ch)
            if i + 1 < len(children) and children[i + 1].type == "ERROR":
                end, skip = max(end, _last(children[i + 1])), i + 1
            recover(_first(ch), end)
        elif t in TYPE_KINDS:
            typ = _collect_type(f, ch, namespace, "")
            f.units.append(_Unit("type", typ.start, typ.end, namespace, ns_line, ns_style, typ, list(typ.symbols)))
        elif t == "namespace_declaration":
            name = ch.child_by_field_name("name")
            full = _qual(namespace, _text(name) if name is not None else "")
            body = ch.child_by_field_name("body") or next(
                (c for c in ch.children if c.type == "declaration_list"), None)
            if body is not None:
                _walk_scope(f, body.children, full, _first(ch), "block")
        elif t == "file_scoped_namespace_declaration":
            name = ch.child_by_field_name("name")
            namespace = _qual(namespace, _text(name) if name is not None else "")
            ns_line, ns_style = _first(ch), "file"
            _walk_scope(f, [c for c in ch.children if c.type not in ("qualified_name", "identifier")],
                        namespace, ns_line, ns_style)
        elif t == "using_directive":
            f.usings.append((_first(ch), " ".join(_text(ch).split())))
        elif t == "global_statement":
            _add_statement(f, _first(ch), _last(ch), namespace, ns_line, ns_style, ch)
        elif t in PREPROC_CONTAINERS:
            _walk_scope(f, ch.children, namespace, ns_line, ns_style)
        elif t == "ERROR":
            recover(_first(ch), _last(ch))


# ---------------------------------------------------------------- splitting
def _add_cuts(f: _File, node, level: int, cuts: dict[int, int]) -> None:
    """Cut candidates before each named child of `node` that starts its line;
    comments ride the statement below them; oversized children add deeper cuts."""
    if f.skipped and ((node.start_byte, node.end_byte, FOLD) in f.skipped or node.end_byte in f.arrow_ends):
        raise _NeedBodies  # statement cuts need what the lazy parse left out
    prev_comment_end = -10
    node_first = _first(node)
    children = node.named_children
    docs = f.docs
    if docs and bisect_left(docs, node.start_byte) != bisect_left(docs, node.end_byte):
        children = _with_doc_blocks(f, node, children)
    for c in children:
        if type(c) is tuple:  # a `///` block the lazy parse left out: comments, one per line
            _s, _e, first, last, column = c
            if prev_comment_end < first - 1 and first > node_first:
                line = f.lines[first - 1]
                if not line[:column].strip() or column > len(line):
                    if cuts.get(first, 1 << 30) > level:
                        cuts[first] = level
            prev_comment_end = last
            continue
        first = _first(c)
        attached = prev_comment_end >= first - 1
        prev_comment_end = _last(c) if c.type == "comment" else -10
        if c.type == "comment" and attached:
            prev_comment_end = _last(c)
        if not attached and first > node_first:
            line = f.lines[first - 1]
            if not line[:c.start_point.column].strip() or c.start_point.column > len(line):
                if cuts.get(first, 1 << 30) > level:
                    cuts[first] = level
        if c.end_byte - c.start_byte > f.cap:
            target = _body_of(c) if (c.type in MEMBER_KINDS or c.type in TYPE_KINDS) else c
            if target is not None:
                _add_cuts(f, target, level + 1, cuts)


def _with_doc_blocks(f: _File, node, children) -> list:
    """node's named children and, in order, the `///` blocks the lazy parse
    left out between them (as (start, end, first line, last line, column))."""
    docs, blocks = f.docs, f.doc_blocks
    out = []
    i = bisect_left(docs, node.start_byte)
    for c in children:
        start = c.start_byte
        while i < len(docs) and docs[i] < start:
            out.append(blocks[i])
            i += 1
        out.append(c)
        end = c.end_byte
        while i < len(docs) and docs[i] < end:  # inside this child: not a child of node
            i += 1
    end = node.end_byte
    while i < len(docs) and docs[i] < end:
        out.append(blocks[i])
        i += 1
    return out


def _pack(f: _File, s: int, e: int, cuts: dict[int, int]) -> list[tuple[int, int, str]]:
    """Lines s..e as consecutive parts of at most `cap` chars, cutting at the
    shallowest boundaries first; a stretch without any boundary is windowed."""
    out: list[tuple[int, int, str]] = []
    _pack_into(f, s, e, cuts, sorted(cuts), out)
    return out


def _pack_into(f: _File, a: int, b: int, cuts: dict[int, int], rows: list[int],
               out: list[tuple[int, int, str]]) -> None:
    # A module function, not a closure calling itself: such a closure is a
    # reference cycle holding the file's whole tree of objects until the
    # cyclic GC runs (measured: ~7% of chunking time spent in the GC).
    if f.size(a, b) <= f.cap:
        out.append((a, b, f.join(a, b)))
        return
    inner = [r for r in rows if a < r <= b]
    if not inner:
        for w in line_windows(f.lines, a, b, f.cap, 0):
            out.append((w.start_line, w.end_line, w.text))
        return
    level = min(cuts[r] for r in inner)
    bounds = [a] + [r for r in inner if cuts[r] == level] + [b + 1]
    cur_a, cur_b = bounds[0], bounds[1] - 1
    for k in range(1, len(bounds) - 1):
        seg_a, seg_b = bounds[k], bounds[k + 1] - 1
        if f.size(cur_a, seg_b) <= f.cap:
            cur_b = seg_b
        else:
            _pack_into(f, cur_a, cur_b, cuts, rows, out)
            cur_a, cur_b = seg_a, seg_b
    _pack_into(f, cur_a, cur_b, cuts, rows, out)


def _symbols_in(symbols: list[ChunkSymbol], s: int, e: int) -> list[ChunkSymbol]:
    return [sym for sym in symbols if sym.start_line <= e and sym.end_line >= s]


# ---------------------------------------------------------------- emitting chunks
# A type's chunk repeats the file's using directives before it: at most this many (a file of 50,000 usings and
# 2,000 types repeated all of them in each).
_HEADER_USINGS = 100


def _file_header(f: _File, unit: _Unit, start: int) -> str:
    parts = [u for line, u in f.usings if line < start] if f.usings and f.usings[0][0] < start else []
    if len(parts) > _HEADER_USINGS:
        parts = parts[:_HEADER_USINGS] + [f"// … {len(parts) - _HEADER_USINGS} more using directives"]
    parts = [cut_redacted(p, HEADER_LINE_CHARS) for p in parts]
    if unit.namespace and start > unit.ns_line:
        parts.append(f"namespace {unit.namespace} {{" if unit.ns_style == "block" else f"namespace {unit.namespace};")
    return "\n".join(parts) + "\n" if parts else ""


def _member_cuts(f: _File, m: _Member) -> dict[int, int]:
    if m.node is None:
        return dict(m.cuts)
    cuts: dict[int, int] = {}
    body = _body_of(m.node)
    if body is not None:
        _add_cuts(f, body, 0, cuts)
    return cuts


def _emit_type(f: _File, unit: _Unit, s: int, e: int, out: list[ChunkPiece]) -> None:
    typ = unit.type
    header = _file_header(f, unit, s)
    if f.size(s, e) <= f.cap:
        out.append(ChunkPiece(header + f.join(s, e), "cs_class", s, e,
                              symbols=cap_symbols(unit.symbols, f.options.chunk_max_symbols),
                              skeleton=cap_outline(typ.skeleton, f.options.skeleton_max_chars), header=header))
        return
    meta_range = {"type_start_line": typ.start, "type_end_line": typ.end}
    # A field sharing its first line with another member gives way to it (the later check drops
    # a member starting where the previous one did).
    members = sorted(typ.members, key=lambda m: (m.start, m.kind in _FIELD_KINDS))
    # Fields before the first other member are the head's; a field after one is a member of its own
    # (an event-id table between its factory methods, a field declared next to the code using it).
    first = next((m.start for m in members if m.kind not in _FIELD_KINDS), None)
    members = [m for m in members if m.kind not in _FIELD_KINDS or (first is not None and m.start > first)]
    # Member chunk ranges: the member plus its doc comment/attributes, never
    # reaching into the previous member.
    spans = []
    floor = typ.start
    for m in members:
        if m.start <= floor and spans:
            continue
        ms = max(_doc_above(f, m.start, floor), s)
        spans.append((ms, max(ms, min(m.end, e)), m))
        floor = m.end
    if not spans:  # a huge enum or a type of fields only: cs_class parts
        cuts: dict[int, int] = {}
        if typ.node is not None and _body_of(typ.node) is not None:
            _add_cuts(f, _body_of(typ.node), 0, cuts)
        _emit_parts(f, s, e, cuts, "cs_class", header, unit.symbols, typ.skeleton, out, unit)
        return
    options = f.options
    skeleton = cap_outline(typ.skeleton, options.skeleton_max_chars)
    symbols = cap_symbols(unit.symbols, options.chunk_max_symbols)
    # 1. the head: declaration, doc comment and leading fields, verbatim
    head_end = max(s, spans[0][0] - 1)
    # The analyser reads the outline up to the type cap, as it reads any other chunk (a
    # 48,000-character outline was 12k tokens a request and stored twice).
    analysis = header + cap_outline(skeleton, f.cap)
    head_parts = _pack(f, s, head_end, {})
    for k, (a, b, body) in enumerate(head_parts, 1):
        meta = dict(meta_range)
        if len(head_parts) > 1:
            meta.update(part=k, parts=len(head_parts))
        part_skel, part_analysis = skeleton, analysis
        if k > 1:  # a head in parts (thousands of leading fields): the first has the outline, the rest a share
            part_skel = part_skeleton(skeleton, len(head_parts), f.size(s, head_end), options.skeleton_max_chars)
            part_analysis = header + part_skel
        out.append(ChunkPiece(header + body, "cs_class", a, b, analysis_text=part_analysis,
                              symbols=list(symbols), skeleton=part_skel, header=header, meta=meta))
    # 2. members
    context = typ.skeleton
    if len(context) > f.cap:
        # A huge type's full outline would repeat in every member's analysis
        # input; signatures alone keep the surface at a fraction of the tokens.
        # (Every line whose lstrip() starts with `//` goes, with the line
        # break before it, in one regex pass: `[^\S\n]` is exactly the
        # whitespace lstrip() removes.)
        context = _COMMENT_LINE.sub("", "\n" + context)[1:]
    huge = False
    if len(context) > f.cap:
        # No whole-type copy: its parts would be blind windows over hundreds of
        # members that have chunks of their own (issue 16: a third of such a
        # type's stored bytes). A member's chunk runs to the next member's, the
        # last to the type's end, so the lines between members stay covered.
        own = [f.size(ms, me) for ms, me, _m in spans]
        spans = [(ms, max(me, (spans[i + 1][0] - 1) if i + 1 < len(spans) else e), m)
                 for i, (ms, me, m) in enumerate(spans)]
        # Still over the cap: the whole outline in every member would grow with
        # the square of the type (issue 16). Each member sees the type's
        # declaration and the members around it (see units.neighbourhood).
        huge = True
        head, outline = _type_head(f, typ), [_outline_line(f, m) for _ms, _me, m in spans]
        closing = _indent_of(f.lines[typ.start - 1]) + "}"
        budget = options.member_context_chars
        # What every context holds besides outline lines: the tail's title, the
        # declaration, the closing brace and two "… N more members" lines.
        fixed = len(_member_tail(typ, head + "\n" + closing)) + 2 * len(f"{closing}// … {len(spans)} more members\n")
        for i, (ms, me, m) in enumerate(spans):
            # Never more context than the member's own size: a long method gets
            # the whole budget, a short one its nearest neighbours, and a member
            # too small for any (a field, an auto-property, a short method) no
            # outline at all: it would only repeat its own line between "… N
            # more members" lines, and the header of its text names the type
            # (issue 16: a third of a field-heavy generated class's stored bytes).
            context = member_context(head, outline, i, min(budget, own[i] - fixed), closing, _indent_of(outline[i]))
            _emit_member(f, typ, m, ms, me, context, out)
    else:
        tail = _member_tail(typ, context)
        for ms, me, m in spans:
            _emit_member(f, typ, m, ms, me, context, out, tail)
    if huge:
        return
    # 3. the whole type
    cuts = {}
    for ms, _me, m in spans:
        cuts[ms] = 0
        if f.size(ms, _me) > f.cap:
            for r, lvl in _member_cuts(f, m).items():
                cuts.setdefault(r, lvl + 1)
    _emit_parts(f, s, e, cuts, "cs_class_full", header, unit.symbols, "", out, unit)


def _indent_of(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def _clip(line: str, limit: int = 200) -> str:
    return line if len(line) <= limit else cut_redacted(line, limit).rstrip() + " …"


def _type_head(f: _File, typ: _Type) -> str:
    """The type's declaration lines (attributes and comments left out) up to its `{`."""
    end, limit = typ.start, min(typ.end, typ.start + 8)
    while end < limit and "{" not in f.lines[end - 1]:
        end += 1
    kept = [_clip(line.rstrip()) for line in f.lines[typ.start - 1:end]
            if line.strip() and not line.lstrip().startswith(("[", "//", "/*", "*"))]
    return "\n".join(kept)


def _outline_line(f: _File, m: _Member) -> str:
    """One line of a member's declaration, its body folded (the neighbourhood's outline)."""
    last = max(m.start, min(m.body_line or m.start, m.end, m.start + 6))
    words = [line.strip() for line in f.lines[m.start - 1:last]]
    words = [w for w in words if w and not w.startswith(("[", "//", "/*", "*"))]
    text = " ".join(words) or f.lines[m.start - 1].strip()
    brace = text.find("{") if m.end > m.start else -1
    if brace >= 0:
        text = text[:brace].rstrip() + " " + FOLD
    elif text.endswith("=>"):
        text += " …"
    elif m.end > last and not text.endswith((";", "}")):
        text += " …"
    return _indent_of(f.lines[m.start - 1]) + _clip(text)


def _emit_parts(f, s, e, cuts, chunk_type, header, symbols, skeleton, out, unit=None) -> None:
    parts = _pack(f, s, e, cuts)
    n = len(parts)
    options = f.options
    limit = options.chunk_max_symbols
    for k, (a, b, body) in enumerate(parts, 1):
        if unit is not None:
            header = _file_header(f, unit, a)
        out.append(ChunkPiece(header + body, chunk_type, a, b,
                              symbols=cap_symbols(_symbols_in(symbols, a, b) if n > 1 else symbols, limit),
                              skeleton=part_skeleton(skeleton, n, f.size(s, e), options.skeleton_max_chars),
                              header=header,
                              meta={"part": k, "parts": n} if n > 1 else {}))


def _emit_member(f: _File, typ: _Type, m: _Member, s: int, e: int, context: str, out,
                 tail: str | None = None) -> None:
    """`tail`: the analysis text's type context (see _member_tail), shared by a type's members."""
    own = m.symbol
    if own is None or own.parent != typ.qual:
        own = ChunkSymbol(m.name, m.kind, typ.qual, m.start, m.end)
    if tail is None:
        tail = _member_tail(typ, context)
    nested = []
    if m.kind in _NESTED_KINDS:
        prefix = _qual(typ.qual, m.name)
        nested = [sym for sym in typ.symbols if sym.parent.startswith(prefix) and m.start <= sym.start_line <= m.end]
    elif m.others:  # `int a, b;`: one declaration, every name
        nested = list(m.others)
    own_symbols = cap_symbols([own, *nested], f.options.chunk_max_symbols)
    visibility = _visibility(f, typ, m)
    parts = _pack(f, s, e, _member_cuts(f, m)) if f.size(s, e) > f.cap else [(s, e, f.join(s, e))]
    n = len(parts)
    signature = (cut_redacted(f.join(m.start, max(m.start, min(m.body_line, m.end))), 2 * HEADER_LINE_CHARS)
                 if n > 1 else "")
    for k, (a, b, body) in enumerate(parts, 1):
        header = f"// {typ.qual}" + (f" (part {k}/{n})" if n > 1 else "") + "\n"
        if k > 1 and a > m.body_line:
            header += signature + "\n"
        text = header + body
        meta = {"visibility": visibility, "part": k, "parts": n} if n > 1 else {"visibility": visibility}
        out.append(ChunkPiece(
            text, "cs_member", a, b, analysis_text=text + tail if tail else "",
            symbols=list(own_symbols), skeleton="", header=header, meta=meta))


def _visibility(f: _File, typ: _Type, m: _Member) -> str:
    """The member's declared accessibility (`private protected`, `public`...), else C#'s default:
    public in an interface or for an explicit interface implementation, private elsewhere."""
    access = []
    explicit = False
    if m.node is not None:
        # Fast path, most members: the access words on the declaration's first line (no
        # attribute there), before its parameters, initializer or accessors.
        line = f.lines[m.start - 1]
        if "[" not in line and line.isascii():  # byte columns are character columns
            head = _HEAD_END.split(line[m.node.start_point.column:], 1)[0]
            access = _ACCESS_WORD.findall(head)
            if access:
                return " ".join(access)
        for c in m.node.children:  # one pass: this runs for every member of every split type
            t = c.type
            if t == "modifier":
                word = c.child(0).type if c.child_count else _text(c)  # the keyword token
                if word in _ACCESS:
                    access.append(word)
            elif t == "explicit_interface_specifier":
                explicit = True
    else:  # recovered by the scanner: the words of its declaration, before `(`, `=`, `{` or `;`
        head = _ATTRIBUTES.sub(" ", f.join(m.start, min(m.end, m.start + 20)))
        access = _ACCESS_WORD.findall(_HEAD_END.split(head, 1)[0])
    if access:
        return " ".join(access)
    return "public" if explicit or typ.kind == "interface" else "private"


_ACCESS = ("public", "protected", "private", "internal", "file")
_ACCESS_WORD = re.compile(r"\b(?:%s)\b" % "|".join(_ACCESS))
# Attribute sections and comment lines, which may hold any word, before a recovered declaration.
_ATTRIBUTES = re.compile(r"\[[^\]\n]*\]|^[ \t]*//[^\n]*", re.M)
# Where a declaration's modifiers end: its parameters, initializer, accessors or end.
_HEAD_END = re.compile(r"[(={;]")
_NESTED_KINDS = frozenset(("class", "struct", "record", "interface", "enum", "record struct"))
_FIELD_KINDS = frozenset(("field", "const"))


def _member_tail(typ: _Type, context: str) -> str:
    """What follows a member's text in its analysis text ("" for no context: the text alone)."""
    return f"\n\n// enclosing type {typ.qual}:\n{context}" if context else ""


def _emit_statements(f: _File, unit: _Unit, s: int, e: int, out: list[ChunkPiece]) -> None:
    header = _file_header(f, unit, s)
    cuts: dict[int, int] = {}
    for node in unit.statements:
        first = _first(node)
        if first > s:
            cuts.setdefault(first, 0)
        if node.end_byte - node.start_byte > f.cap:
            _add_cuts(f, node, 1, cuts)
    _emit_parts(f, s, e, cuts, "cs_file", header, unit.symbols, "", out, unit)


def _parse(f: _File, data: bytes | None = None) -> None:
    try:
        root = parse_bounded(_parser(), f.text.encode("utf-8") if data is None else data, "csharp").root_node
    except ParseBudgetExceeded:  # hostile input, past a budget of units.parse_bounded: the scanner segments it
        root = None
    if root is None or root.type == "ERROR":
        # The grammar gave up on the whole file: the scanner segments it.
        _recover_region(f, 1, len(f.lines), "", 0, "block")
    else:
        _walk_scope(f, root.children, "", 0, "block")


class _NeedBodies(Exception):
    """The chunks of a lazily parsed file need what its member bodies hold."""


# A method/constructor/accessor body as the usual layout writes it: `{` alone
# on its line, after a line ending the signature (`)`, a `where` constraint or
# an accessor keyword), closed by `}` alone at the same indentation.
_BODY_OPEN = re.compile(rb"\{[ \t]*\n")  # then: nothing but indentation before it
_TYPE_WORD = re.compile(rb"\b(?:class|struct|record|interface|namespace|enum)\s+[@\w]")
_ACCESSOR_WORDS = frozenset((b"get", b"set", b"init", b"add", b"remove"))
_ACCESSOR_MODIFIERS = frozenset((b"public", b"private", b"protected", b"internal", b"readonly"))


def _body_ranges(data: bytes, cap: int, poison: list[int]) -> list[tuple[int, int]]:
    """(offset of `{`, offset of its `}`) of the likely member bodies of data:
    members whose span (doc comment included) is under `cap` bytes, since a
    larger one is split at its statements, which needs its body parsed, and
    bodies holding no `poison` offset (see _RISKY).

    Only a guess from the layout: _parse_lazily proves every range against
    the tree and parses the whole text when one is not a member body. A type
    or namespace body (or a property's accessor list) is searched inside; any
    other block (a field's lambda or initializer, a body left in) is passed
    over whole, so that no block nested in it is mistaken for a member body."""
    out = []
    search, rfind, find = _BODY_OPEN.search, data.rfind, data.find
    half = cap // 2
    m = search(data)
    while m is not None:
        at = m.end() - 1  # the newline ending the `{` line
        open_pos = m.start()
        start = rfind(b"\n", 0, open_pos)  # the newline before the `{` line
        indent = data[start + 1:open_pos]
        if start < 0 or indent.strip():
            m = search(data, at)
            continue
        width = len(indent)
        ls = rfind(b"\n", 0, start) + 1
        line = data[ls:start]
        prev = line.strip()
        # The declaration's first line: the nearest one at the brace's
        # indentation (most often the line above).
        head, head_at, end = b"", 0, start
        for _ in range(64):
            if line.startswith(indent) and line[width:width + 1] not in b" \t":
                head, head_at = line, ls
                break
            if ls == 0:
                break
            end = ls - 1
            ls = rfind(b"\n", 0, end) + 1
            line = data[ls:end]
        if not prev or _TYPE_WORD.search(head):
            m = search(data, at)
            continue
        words = prev.split()
        # (a comment ending in `)` above a block: a statement block, not a body)
        body = (prev[-1:] == b")" and not prev.startswith((b"//", b"/*", b"*")) or words[0] == b"where"
                or words[-1] in _ACCESSOR_WORDS and _ACCESSOR_MODIFIERS.issuperset(words[:-1]))
        if not body and (prev[-1:].isalnum() or prev[-1:] in b"_]"):
            m = search(data, at)  # a property's accessors: their bodies are inside
            continue
        close = find(b"\n" + indent + b"}", at)
        if close >= 0:
            close += 1 + width
            if body and data[close + 1:close + 2] in (b"\n", b"") and close - open_pos < cap and (
                    close - open_pos < half or close - _doc_start(data, head_at) < cap) and (
                    _free_of(poison, open_pos, close)):
                out.append((open_pos, close))
            at = close
        m = search(data, at)
    return out


def _free_of(poison: list[int], lo: int, hi: int) -> bool:
    """No `poison` offset (sorted) in lo..hi."""
    return not poison or bisect_left(poison, lo) == bisect_left(poison, hi)


def _doc_start(data: bytes, at: int) -> int:
    """Offset of the comment/attribute lines directly above the line at `at`."""
    while at > 0:
        ls = data.rfind(b"\n", 0, at - 1) + 1
        if not data[ls:at].lstrip().startswith((b"//", b"/*", b"*", b"[", b"#")):
            break
        at = ls
    return at


# Syntax that tree-sitter-c-sharp 0.23.5 mis-parses so badly that the error
# can leave the method body it is in (measured on EF Core: the whole file
# becomes an ERROR, or a type's member list is lost): `$@"""…"""`, a
# null-conditional assignment (`a?.B = c`, C# 14) and conditional directives
# (`#if` branches with unbalanced braces). A body holding one is parsed, so
# the tree and the chunker's recovery are what the whole parse gives.
_RISKY = (
    re.compile(rb'@\$?"""'),
)
_CONDITIONAL = re.compile(rb"\?[.\[]")
_ASSIGN = re.compile(rb"[^=!<>]=(?![=>])")
_STATEMENT_END = re.compile(rb"[;\n]")


def _conditional_assignments(data: bytes) -> list[int]:
    """Where `re.finditer(rb'\\?(?:\\.|\\[)[^;\\n]*?[^=!<>]=(?![=>])', data)` starts, in linear time: from every
    `?.` the pattern looked to its line's end for an `=`, the square of a line of many `?.` (docs/decisions.md)."""
    starts: list[int] = []
    at, end = 0, -1
    while (m := _CONDITIONAL.search(data, at)) is not None:
        if m.end() > end:  # the statement's end (`;` or a newline), found once for all its `?.`
            stop = _STATEMENT_END.search(data, m.end())
            end = stop.start() if stop else len(data)
        # the `=` may follow the `;` or newline itself, as `[^=!<>]` matched it
        assign = _ASSIGN.search(data, m.end(), end + 3)
        if assign is None or assign.start() > end:
            at = end + 1  # no later `?.` of this statement finds one either
            continue
        starts.append(m.start())
        at = assign.end()
    return starts


_DIRECTIVE = re.compile(rb'\n[ \t]*#[ \t]*(?:if|elif|else|endif)\b')
_DOC_BLOCK = re.compile(rb"///[^\n]*(?:\n[ \t]*///[^\n]*)*")
# An expression body on its own line(s), as the usual layout writes it:
# `=>` first on its line, then `expr;` ending a line, with no brace, bracket,
# string, char, comment or directive in expr and its parentheses balanced (so
# that its `;` is the member's). The parse keeps `=>`, the expression's first
# character (a letter: an identifier, so still an expression) and the `;`.
# Nor `async` as a name: this grammar version mis-parses it (as it does `[a]`
# collection expressions), and the error must stay what the whole parse gives.
_ARROW_LINE = re.compile(rb"\n[ \t]*=>[ \t]*\n?[ \t]*[A-Za-z]")
_ARROW_STOP = re.compile(rb"[{}\[\]\"'/@$#]|async")
_EOL = re.compile(rb"[ \t]*(?:\n|$)")
_BLANK = re.compile(rb"[ \t\r\x0b\x0c]*")  # what bytes.strip() removes, newline aside
# The third field of a left-out range: the offset of an expression body's `=>`, or one of these.
_BODY_GAP, _DOC_GAP = -1, -2


def _parse_lazily(f: _File, data: bytes) -> bool:
    """Parse and walk f without the member bodies, expression bodies and `///`
    doc comments; False when that cannot be proven to give what the whole
    parse gives (then f must be discarded and the whole text parsed).

    Member bodies and doc comments are most of a C# file and the chunks need
    nothing inside them but their extent (until a member is split at its
    statements: _NeedBodies). Measured on EF Core (26 MB, 2,827 files): the
    files taking this path parse in 2.8 s instead of 5.0 s; leaving out the
    `=> expr;` bodies too (0.7 MB) saves another ~0.35 s of parsing. A body
    range is accepted only when the tree has no error and the walk folded
    exactly that `{`..`}` as a member or accessor body; an expression body
    when folded as a member's `=>` clause, or inside a member body folded whole."""
    poison = [m.start() for p in _RISKY for m in p.finditer(data)] + _conditional_assignments(data)
    if b"#if" in data:
        poison.extend(m.start() for m in _DIRECTIVE.finditer(data))
    poison.sort()
    ranges = _body_ranges(data, f.cap, poison)
    gaps = [(o + 1, c, _BODY_GAP) for o, c in ranges]
    if b"\n" in data and b"=>" in data:
        _arrow_gaps(data, f.cap // 2, poison, gaps)
    # Doc comment blocks (`///` lines) are left out too: comments matter to
    # nothing but statement cuts, which see each block as what the whole
    # parse gives (a comment per line) through _with_doc_blocks.
    rfind = data.rfind
    blank = _BLANK.fullmatch
    docs = []
    for m in _DOC_BLOCK.finditer(data):
        at = m.start()
        if blank(data, rfind(b"\n", 0, at) + 1, at):
            docs.append((at, m.end(), _DOC_GAP))
    if not gaps and not docs:
        return False
    from tree_sitter import Range

    # Included: everything but the gaps. Points are rows and byte columns,
    # counted incrementally.
    included = []
    append = included.append
    count = data.count
    row, at, end = 0, 0, -1
    lo, lo_point = 0, (0, 0)
    doc_blocks = []
    skipped = {(o, c + 1, FOLD) for o, c in ranges}
    arrows = set()
    arrow_ends = f.arrow_ends
    for gap_lo, gap_hi, arrow in sorted(gaps + docs):
        if gap_lo < end:  # a doc block or an expression body inside a left-out body is already out
            continue
        if arrow >= 0:  # an expression body: the offset of its `=>`
            arrow_ends[gap_lo] = gap_hi
            arrows.add((arrow, gap_hi, ARROW_FOLD))
        end = gap_hi
        row += count(b"\n", at, gap_lo)
        column = gap_lo - rfind(b"\n", 0, gap_lo) - 1
        append(Range(lo_point, (row, column), lo, gap_lo))
        first = row
        row += count(b"\n", gap_lo, gap_hi)
        at = lo = gap_hi
        lo_point = (row, gap_hi - rfind(b"\n", 0, gap_hi) - 1)
        if arrow == _DOC_GAP:
            doc_blocks.append((gap_lo, gap_hi, first + 1, row + 1, column))
    end_row = row + count(b"\n", at)
    append(Range(lo_point, (end_row, len(data) - (rfind(b"\n") + 1)), lo, len(data)))
    parser = _lazy_parser()
    parser.included_ranges = included
    try:
        root = parse_bounded(parser, data, "csharp").root_node
    except ParseBudgetExceeded:
        return False
    if root.has_error:
        return False
    f.skipped = skipped | arrows
    f.doc_blocks = doc_blocks
    f.docs = [block[0] for block in doc_blocks]
    f.doc_tops = {block[3]: block[2] for block in doc_blocks}
    _walk_scope(f, root.children, "", 0, "block")
    folded = f.folded
    if not skipped.issubset(folded):
        return False
    loose = arrows.difference(folded)
    # An expression body that is not a member's: a local function's, inside
    # a member body the walk folded whole (one too large to leave out), where
    # nothing reads its inside. Anywhere else: not proven.
    return not loose or _inside_folds(loose, folded)


def _arrow_gaps(data: bytes, half: int, poison: list[int], gaps: list) -> None:
    """(first byte left out, end of the expression, offset of `=>`) of each
    expression body `_ARROW_LINE` finds, shorter than `half` (see _ARROW_STOP)."""
    find, count, stop, eol = data.find, data.count, _ARROW_STOP.search, _EOL.match
    for m in _ARROW_LINE.finditer(data):
        lo = m.end()  # after the expression's first character
        semi = find(b";", lo)
        if semi < 0 or semi - lo >= half or stop(data, lo - 1, semi) or not eol(data, semi + 1):
            continue
        hi = semi
        while data[hi - 1] in b" \t\n":  # the clause ends with the expression's last token
            hi -= 1
        if lo < hi and count(b"(", lo, hi) == count(b")", lo, hi) and _free_of(poison, lo, hi):
            gaps.append((lo, hi, data.index(b"=>", m.start())))


def _inside_folds(spans, folded) -> bool:
    blocks = [(a, b) for a, b, r in folded if r == FOLD]
    return all(any(a0 <= a and b <= b0 for a0, b0 in blocks) for a, b, _r in spans)


def chunk_csharp(path: str, text: str, options: ChunkOptions = DEFAULT_OPTIONS, *,
                 lazy: bool = True) -> list[ChunkPiece]:
    """lazy=False always parses the whole text (the reference the lazy parse is tested against)."""
    f = _File(path, text, options)
    n = len(f.lines)
    if n == 0 or not text.strip():
        return []
    data = text.encode("utf-8")
    if lazy and _parse_lazily(f, data):
        try:
            return _emit(f, n)
        except _NeedBodies:
            pass
    f = _File(path, text, options)
    _parse(f, data)
    return _emit(f, n)


def _emit(f: _File, n: int) -> list[ChunkPiece]:
    units = sorted(f.units, key=lambda u: (u.start, -u.end))
    # Units become a partition: each takes the lines since the previous one;
    # a unit inside the previous one's lines (two types on one line) is merged.
    kept: list[_Unit] = []
    for u in units:
        if kept and u.end <= kept[-1].end:
            kept[-1].symbols.extend(u.symbols)
            continue
        kept.append(u)
    out: list[ChunkPiece] = []
    if not kept:
        _emit_parts(f, 1, n, {}, "cs_file", "", [], "", out)
        return out
    prev_end = 0
    for i, u in enumerate(kept):
        s = prev_end + 1
        e = n if i == len(kept) - 1 else max(u.end, s)
        if u.kind == "type":
            _emit_type(f, u, s, e, out)
        else:
            _emit_statements(f, u, s, e, out)
        prev_end = e
    return out
