"""Generic tree-sitter chunking: one engine, one node-type table per language.

Walk: parse -> top-level units (types, functions; through namespaces, packages,
wrappers and ERROR regions) -> line regions that partition the file -> chunks.

- A unit takes the comment/attribute lines right above it; code between units
  (imports, constants, statements) rides the next unit when both fit the cap,
  else becomes its own `code_block` chunk; lone closers (`}`, `end`) ride the
  unit before them. So every line of the file lies in some chunk.
- A type over `options.type_max_chars` becomes a header chunk (verbatim lines
  up to its first member; the folded outline in skeleton/analysis_text), one
  chunk per member (with a one-line `// pkg.Type` header; analysis_text also
  carries the type's skeleton, or its signature lines when that is over the
  cap) and a full-type chunk, split at member boundaries past
  `options.type_max_chars` (as C# and TypeScript do). A huge type - its
  signature lines alone over the cap - has no full-type chunk and each member
  sees only the members around it, within its own size (see huge_members).
- Any other oversized unit splits at statement boundaries (line windows when a
  single statement is still too big), never truncated.
- Every chunk's `symbols` and `skeleton` stay within `options.chunk_max_symbols`
  and `options.skeleton_max_chars`; the parts of one unit share its skeleton
  (units.part_skeleton), so a huge unit does not store its outline per part.
- Syntax errors degrade per region: units inside an ERROR node are still found;
  the lines the parser could not place become code between units.

Adding a language means adding a `LanguageTable` to `TABLES`.
"""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

from tree_sitter import Node, Parser, Query, QueryCursor
from tree_sitter_language_pack import get_language

from .languages import extensions_of
from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkPiece, ChunkSymbol
from .redact import cut_redacted
from .text import split_lines
from .units import HEADER_LINE_CHARS, NAME_CHARS, cap_outline, cap_symbols, member_context, parse_bounded, part_skeleton
from .windows import Window, line_windows

_CLOSERS = frozenset("}]);, \t")
# Nesting deeper than this (generated or hostile input) is not searched for units.
_MAX_DEPTH = 64


@dataclass(frozen=True)
class LanguageTable:
    """What the engine needs to know about one grammar; everything else is shared."""

    grammar: str
    # node type -> symbol kind; "@keyword" reads the kind from `kind_field`'s token.
    types: dict[str, str]
    functions: dict[str, str]
    # Namespace-like nodes: their body holds more units; their name qualifies them.
    # Without a body (PHP `namespace X;`) they qualify the siblings after them.
    scopes: dict[str, str] = field(default_factory=dict)
    # File-level package declarations that qualify every unit after them.
    packages: frozenset[str] = frozenset()
    # Nodes that wrap exactly one unit and belong to it (template<>, decorators).
    wrappers: frozenset[str] = frozenset()
    # Nodes searched through for members/units as if they were not there.
    transparent: frozenset[str] = frozenset({"ERROR"})
    # Comment and attribute node types: lines they cover ride the next unit.
    comments: frozenset[str] = frozenset({"comment"})
    attributes: frozenset[str] = frozenset()
    name_fields: tuple[str, ...] = ("name",)
    # Fallback when no name field exists (Kotlin has none): first such child.
    name_types: frozenset[str] = frozenset()
    # Children that hold the name one level down (Go `type_spec`).
    name_holders: frozenset[str] = frozenset()
    body_field: str = "body"
    body_types: frozenset[str] = frozenset()
    kind_field: str = ""
    # Go: methods are declared outside their type; the receiver names the parent.
    receiver_field: str = ""
    line_comment: str = "//"
    # Marker a folded non-brace body becomes in the skeleton.
    fold_marker: str = "…"
    # Python: a function's docstring survives folding.
    docstrings: bool = False
    # Python: a leading underscore (not a dunder) makes a name private; a chunk of one unit
    # carries meta `visibility` (what search's private-twin rule reads).
    underscore_private: bool = False
    # Chunk types: a whole unit of each sort, a full-type chunk, code between units.
    type_chunk: str = "code_block"
    function_chunk: str = "code_block"
    full_chunk: str = "code_block_full"
    code_chunk: str = "code_block"

    def node_types(self) -> set[str]:
        """Every node type the table names (the grammar must know each one)."""
        names = set(self.types) | set(self.functions) | set(self.scopes) | set(self.packages)
        names |= self.wrappers | self.transparent | self.comments | self.attributes
        names |= self.name_types | self.name_holders | self.body_types
        return names - {"ERROR"}


_C_NAMES = frozenset({"identifier", "field_identifier", "type_identifier"})

TABLES: dict[str, LanguageTable] = {}


def _register(table: LanguageTable, language: str) -> None:
    """The table reads the files of `language`: its extensions are the language table's."""
    for ext in extensions_of(language):
        TABLES[ext] = table


_register(LanguageTable(
    grammar="java",
    types={"class_declaration": "class", "interface_declaration": "interface", "enum_declaration": "enum",
           "record_declaration": "record", "annotation_type_declaration": "annotation"},
    functions={"method_declaration": "method", "constructor_declaration": "constructor",
               "compact_constructor_declaration": "constructor"},
    packages=frozenset({"package_declaration"}),
    transparent=frozenset({"ERROR", "enum_body_declarations"}),
    comments=frozenset({"line_comment", "block_comment"}),
), "java")

_register(LanguageTable(
    grammar="go",
    types={"type_declaration": "type"},
    functions={"function_declaration": "function", "method_declaration": "method"},
    packages=frozenset({"package_clause"}),
    name_holders=frozenset({"type_spec", "type_alias"}),
    receiver_field="receiver",
), "go")

_register(LanguageTable(
    grammar="rust",
    types={"struct_item": "struct", "enum_item": "enum", "union_item": "union", "trait_item": "trait",
           "impl_item": "impl"},
    functions={"function_item": "function", "function_signature_item": "function", "macro_definition": "macro"},
    scopes={"mod_item": "module"},
    comments=frozenset({"line_comment", "block_comment"}),
    attributes=frozenset({"attribute_item"}),
    name_fields=("name", "type"),
), "rust")

_register(LanguageTable(
    grammar="kotlin",
    types={"class_declaration": "class", "object_declaration": "object"},
    functions={"function_declaration": "function", "secondary_constructor": "constructor"},
    packages=frozenset({"package_header"}),
    comments=frozenset({"line_comment", "multiline_comment"}),
    # The Kotlin grammar has no name/body fields: the first such child is it.
    name_fields=(),
    name_types=frozenset({"type_identifier", "simple_identifier"}),
    body_field="",
    body_types=frozenset({"class_body", "enum_class_body", "function_body"}),
), "kotlin")

_register(LanguageTable(
    grammar="php",
    types={"class_declaration": "class", "interface_declaration": "interface", "trait_declaration": "trait",
           "enum_declaration": "enum"},
    functions={"function_definition": "function", "method_declaration": "method"},
    scopes={"namespace_definition": "namespace"},
    attributes=frozenset({"attribute_list"}),
), "php")

_register(LanguageTable(
    grammar="ruby",
    types={"class": "class", "singleton_class": "class"},
    functions={"method": "method", "singleton_method": "method"},
    scopes={"module": "module"},
    line_comment="#",
), "ruby")

_register(LanguageTable(
    grammar="c",
    types={"struct_specifier": "struct", "union_specifier": "union", "enum_specifier": "enum"},
    functions={"function_definition": "function"},
    name_fields=("name", "declarator"),
    name_types=_C_NAMES,
), "c")

_register(LanguageTable(
    grammar="cpp",
    types={"class_specifier": "class", "struct_specifier": "struct", "union_specifier": "union",
           "enum_specifier": "enum"},
    functions={"function_definition": "function"},
    scopes={"namespace_definition": "namespace", "linkage_specification": "linkage"},
    wrappers=frozenset({"template_declaration"}),
    name_fields=("name", "declarator"),
    name_types=_C_NAMES | {"qualified_identifier", "operator_name", "destructor_name"},
), "cpp")

_register(LanguageTable(
    grammar="swift",
    types={"class_declaration": "@keyword", "protocol_declaration": "protocol"},
    functions={"function_declaration": "function", "init_declaration": "constructor",
               "protocol_function_declaration": "function", "deinit_declaration": "destructor"},
    comments=frozenset({"comment", "multiline_comment"}),
    name_types=frozenset({"simple_identifier", "type_identifier", "user_type"}),
    kind_field="declaration_kind",
), "swift")

_register(LanguageTable(
    grammar="scala",
    types={"class_definition": "class", "trait_definition": "trait", "object_definition": "object",
           "enum_definition": "enum"},
    functions={"function_definition": "function", "function_declaration": "function"},
    packages=frozenset({"package_clause"}),
    comments=frozenset({"comment", "block_comment"}),
), "scala")


# --------------------------------------------------------------------------- parsing helpers

@lru_cache(maxsize=None)
def _language(grammar: str):
    return get_language(grammar)


@lru_cache(maxsize=None)
def _trivia_query(grammar: str, types: tuple[str, ...]) -> Query | None:
    if not types:
        return None
    return Query(_language(grammar), "[" + " ".join(f"({t})" for t in types) + "] @trivia")


def _start_line(node: Node) -> int:
    return node.start_point[0] + 1


def _end_line(node: Node) -> int:
    row, col = node.end_point
    # A node that swallows its line break ends on the line before (Rust `//` comments).
    if col == 0 and row > node.start_point[0]:
        return row
    return row + 1


@dataclass
class _Unit:
    node: Node          # outer node (with its wrapper)
    decl: Node          # the declaration itself
    name: str
    kind: str
    is_type: bool
    parent: str         # qualified name of what encloses it ("" at file level)
    start: int
    end: int

    @property
    def qual(self) -> str:
        return f"{self.parent}.{self.name}" if self.parent else self.name


@dataclass
class _Region:
    start: int
    end: int
    units: list[_Unit]


class _Document:
    """One file being chunked: its lines, its tree, its table and options."""

    def __init__(self, path: str, text: str, table: LanguageTable, options: ChunkOptions, module: str = ""):
        self.path = path
        self.table = table
        self.options = options
        self.cap = max(200, options.type_max_chars)
        self.module = module
        self.lines = split_lines(text)
        self.n = len(self.lines)
        self.src = text.encode("utf-8")
        self.tree = parse_bounded(Parser(_language(table.grammar)), self.src, table.grammar)  # (past it: plain windows)
        cum = [0]
        for line in self.lines:
            cum.append(cum[-1] + len(line) + 1)
        self.cum = cum
        starts = [0]
        pos = self.src.find(b"\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = self.src.find(b"\n", pos + 1)
        self.byte_starts = starts
        self.trivia = self._trivia_lines()
        self.extra_symbols: list[ChunkSymbol] = []

    # ---- measures

    def chars(self, start: int, end: int) -> int:
        return self.cum[end] - self.cum[start - 1] - 1 if end >= start else 0

    def body_text(self, start: int, end: int) -> str:
        return "\n".join(self.lines[start - 1:end])

    def node_text(self, node: Node) -> str:
        return self.src[node.start_byte:node.end_byte].decode("utf-8", errors="replace")

    def blank(self, line: int) -> bool:
        return not self.lines[line - 1].strip()

    def _trivia_lines(self) -> set[int]:
        """Lines holding nothing but comments or attributes."""
        t = self.table
        query = _trivia_query(t.grammar, tuple(sorted(t.comments | t.attributes)))
        if query is None:
            return set()
        out: set[int] = set()
        for node in self._trivia_nodes(query, t.comments | t.attributes):
            s, e = _start_line(node), min(_end_line(node), self.n)
            if s > self.n:
                continue
            if self.lines[s - 1].encode("utf-8")[:node.start_point[1]].strip():
                continue  # code before the comment on its first line
            last_ok = True
            if node.end_point[0] + 1 == e:
                last = self.lines[e - 1].encode("utf-8")
                last_ok = not last[node.end_point[1]:].strip()
            out.update(range(s, e + (1 if last_ok else 0)))
        return out

    def _trivia_nodes(self, query: Query, types: frozenset[str]) -> list[Node]:
        """The comment and attribute nodes: by the query, or, in a tree with errors, by a walk of every node (the
        query cursor took the square of the tokens of a flat tree of `/*` never closed, Scala's; on a clean tree it
        is the faster)."""
        root = self.tree.root_node
        if not root.has_error:
            return [node for nodes in QueryCursor(query).captures(root).values() for node in nodes]
        found, stack = [], [root]
        while stack:
            node = stack.pop()
            if node.is_named and node.type in types:
                found.append(node)
            if node.child_count:
                stack.extend(reversed(node.children))
        return found

    # ---- names and kinds

    def name_of(self, node: Node, depth: int = 0) -> str:
        t = self.table
        if depth > 8:
            return ""
        for fname in t.name_fields:
            child = node.child_by_field_name(fname)
            if child is None:
                continue
            if child.type.endswith("declarator") and child.type != node.type:
                inner = self.name_of(child, depth + 1)
                if inner:
                    return inner
                continue
            return _clean_name(self.node_text(child))
        for child in node.named_children:
            if child.type in t.name_types:
                return _clean_name(self.node_text(child))
        for child in node.named_children:
            if child.type in t.name_holders:
                return self.name_of(child, depth + 1)
        return ""

    def kind_of(self, decl: Node) -> str:
        kind = self.table.types.get(decl.type) or self.table.functions.get(decl.type, "")
        if kind == "@keyword":
            token = decl.child_by_field_name(self.table.kind_field) if self.table.kind_field else None
            kind = self.node_text(token) if token is not None else "class"
        return kind

    def body_of(self, node: Node) -> Node | None:
        body = node.child_by_field_name(self.table.body_field) if self.table.body_field else None
        if body is not None:
            return body
        for child in node.named_children:
            if child.type in self.table.body_types:
                return child
        return None

    def unwrap(self, node: Node) -> Node | None:
        """The type/function declaration `node` is or wraps, else None."""
        t = self.table
        for _ in range(4):
            if node.type in t.types or node.type in t.functions:
                return node
            if node.type not in t.wrappers:
                return None
            inner = node.child_by_field_name("definition")
            if inner is None:
                inner = next((c for c in node.named_children
                              if c.type in t.types or c.type in t.functions or c.type in t.wrappers), None)
            if inner is None:
                return None
            node = inner
        return None

    def make_unit(self, node: Node, decl: Node, parent: str, inside_type: bool) -> _Unit:
        t = self.table
        is_type = decl.type in t.types
        kind = self.kind_of(decl)
        if not is_type and kind == "function" and inside_type:
            kind = "method"
        elif kind == "method" and not inside_type and not t.receiver_field:
            kind = "function"  # Ruby's top-level `def`
        if t.receiver_field and not inside_type:
            receiver = decl.child_by_field_name(t.receiver_field)
            if receiver is not None:
                type_name = _first_of_type(receiver, "type_identifier")
                if type_name is not None:
                    name = _clean_name(self.node_text(type_name))
                    parent = f"{parent}.{name}" if parent else name
        start = _start_line(node)
        return _Unit(node, decl, self.name_of(decl) or "<anonymous>", kind, is_type, parent,
                     start, max(start, min(_end_line(node), self.n)))

    # ---- unit discovery

    def top_units(self) -> list[_Unit]:
        units: list[_Unit] = []
        self._collect(self.tree.root_node, "", units, 0)
        return units

    def _collect(self, node: Node, qual: str, out: list[_Unit], depth: int) -> None:
        t = self.table
        if depth > _MAX_DEPTH:
            return
        base = qual
        for child in node.named_children:
            ctype = child.type
            decl = self.unwrap(child)
            if decl is not None:
                out.append(self.make_unit(child, decl, qual, inside_type=False))
            elif ctype in t.scopes:
                name = self.name_of(child)
                body = self.body_of(child)
                if body is None:
                    qual = _join(base, name)
                    continue
                if name:
                    self.extra_symbols.append(ChunkSymbol(name, t.scopes[ctype], qual, _start_line(child),
                                                          min(_end_line(child), self.n)))
                self._collect(body, _join(qual, name), out, depth + 1)
            elif ctype in t.packages:
                qual = _join(base, _package_name(self.node_text(child)))
            elif ctype in t.transparent:
                self._collect(child, qual, out, depth + 1)

    def members(self, unit: _Unit, depth: int = 0) -> list[_Unit]:
        body = self.body_of(unit.decl)
        out: list[_Unit] = []
        if body is None or not unit.is_type:
            return out
        # Depth-first over transparent containers, keeping source order.
        def visit(container: Node, d: int) -> None:
            if d > _MAX_DEPTH:
                return
            for child in container.named_children:
                decl = self.unwrap(child)
                if decl is not None:
                    out.append(self.make_unit(child, decl, unit.qual, inside_type=True))
                elif child.type in self.table.transparent:
                    visit(child, d + 1)
        visit(body, depth)
        return out

    def symbols(self, unit: _Unit, depth: int = 0) -> list[ChunkSymbol]:
        out = [ChunkSymbol(unit.name, unit.kind, unit.parent, unit.start, unit.end)]
        if unit.is_type and depth < _MAX_DEPTH:
            for member in self.members(unit):
                out.extend(self.symbols(member, depth + 1))
        return out

    # ---- line regions

    def lead(self, unit_start: int, floor: int) -> int:
        """First line of the comments/attributes/blank lines right above a unit."""
        line = unit_start
        while line - 1 >= floor and (line - 1 in self.trivia or self.blank(line - 1)):
            line -= 1
        return line

    def only_closers(self, start: int, end: int) -> bool:
        """True when lines start..end close what came before (`}`, `end`, `#endif`) and nothing more."""
        for line in range(start, end + 1):
            if line in self.trivia:
                continue
            stripped = self.lines[line - 1].strip()
            if stripped.startswith("#endif"):
                continue
            stripped = stripped.split(self.table.line_comment, 1)[0].strip()
            if stripped in ("", "end") or not set(stripped) - _CLOSERS:
                continue
            return False
        return True

    def regions(self, units: list[_Unit], floor: int, ceiling: int, in_type: bool = False) -> list[_Region]:
        """Partition lines floor..ceiling into unit regions and code regions.

        Inside a type (`in_type`), the lines before the first member are the
        header and the type's closing lines belong to the type, not a member.
        """
        groups: list[list[_Unit]] = []
        for unit in sorted(units, key=lambda u: (u.start, u.end)):
            if unit.start < floor or unit.end > ceiling:
                continue
            if groups and unit.start <= max(u.end for u in groups[-1]):
                groups[-1].append(unit)
            else:
                groups.append([unit])
        regions: list[_Region] = []
        pos = floor
        for group in groups:
            start = group[0].start
            end = max(u.end for u in group)
            lead = self.lead(start, pos)
            if pos < lead:
                if regions and regions[-1].units and self.only_closers(pos, lead - 1):
                    regions[-1].end = lead - 1
                elif (regions or not in_type) and self.chars(pos, end) <= self.cap:
                    lead = pos
                else:
                    regions.append(_Region(pos, lead - 1, []))
            regions.append(_Region(lead, end, group))
            pos = end + 1
        if pos <= ceiling:
            if not in_type and regions and regions[-1].units and self.only_closers(pos, ceiling):
                regions[-1].end = ceiling
            else:
                regions.append(_Region(pos, ceiling, []))
        return regions

    # ---- splitting

    def cut_lines(self, node: Node, start: int, end: int) -> list[int]:
        """Lines where a part may begin: starts of statements, finer inside big ones."""
        cuts: set[int] = set()
        stack = [(node, 0)]
        while stack:
            current, depth = stack.pop()
            for child in current.named_children:
                s = _start_line(child)
                if start < s <= end:
                    cuts.add(s)
                if depth < _MAX_DEPTH and child.end_byte - child.start_byte > self.cap:
                    stack.append((child, depth + 1))
        return sorted(cuts)

    def pack(self, start: int, end: int, cuts: list[int], cap: int) -> list[Window]:
        """Greedy parts of at most `cap` characters, cut only at `cuts` where possible."""
        parts: list[Window] = []
        cut_cum = [self.cum[c - 1] for c in cuts]
        s = start
        while s <= end:
            if self.chars(s, end) <= cap:
                parts.append(Window(s, end, self.body_text(s, end)))
                break
            limit = cap + 1 + self.cum[s - 1]
            k = bisect.bisect_right(cut_cum, limit) - 1
            if k >= 0 and cuts[k] > s:
                parts.append(Window(s, cuts[k] - 1, self.body_text(s, cuts[k] - 1)))
                s = cuts[k]
                continue
            k = bisect.bisect_right(cuts, s)
            nxt = cuts[k] if k < len(cuts) else end + 1
            parts.extend(line_windows(self.lines, s, nxt - 1, cap, 0))
            s = nxt
        return parts

    def signature(self, unit: _Unit) -> str:
        """The declaration's lines up to where its body opens, annotations and comments left out."""
        start = _start_line(unit.decl)
        body = self.body_of(unit.decl)
        end = start
        if body is not None:
            end = _start_line(body)
            if end > start and not self.lines[end - 1].encode("utf-8")[:body.start_point[1]].strip():
                end -= 1  # the body opens its own line (Python blocks, Allman braces)
        end = min(end, start + 4, self.n)
        kept = [cut_redacted(self.lines[i - 1].strip(), HEADER_LINE_CHARS) for i in range(start, end + 1)
                if i not in self.trivia and not self.lines[i - 1].lstrip().startswith(("@", "#["))]
        return "\n".join(line for line in kept if line)

    # ---- skeleton

    def fold(self, start: int, end: int, units: Iterable[_Unit]) -> str:
        """Lines start..end with every function body folded."""
        bodies: list[Node] = []
        for unit in units:
            self._function_bodies(unit, bodies, 0)
        lo = self.byte_starts[start - 1]
        hi = self.byte_starts[end] - 1 if end < len(self.byte_starts) else len(self.src)
        out: list[bytes] = []
        pos = lo
        for body in sorted(bodies, key=lambda b: b.start_byte):
            if body.start_byte < pos or body.end_byte > hi:
                continue
            out.append(self.src[pos:body.start_byte])
            out.append(self._folded(body).encode("utf-8"))
            pos = body.end_byte
        out.append(self.src[pos:hi])
        return b"".join(out).decode("utf-8", errors="replace").lstrip("\n").rstrip()

    def _function_bodies(self, unit: _Unit, out: list[Node], depth: int) -> None:
        if unit.is_type:
            if depth < _MAX_DEPTH:
                for member in self.members(unit):
                    self._function_bodies(member, out, depth + 1)
            return
        body = self.body_of(unit.decl)
        if body is not None and body.end_byte > body.start_byte:
            out.append(body)

    def _folded(self, body: Node) -> str:
        text = self.node_text(body)
        if text.startswith("{"):
            return "{ … }"
        if text.startswith("="):
            return "= …"
        if self.table.docstrings and body.named_children:
            first = body.named_children[0]
            if first.type == "expression_statement" and first.named_child_count == 1:
                first = first.named_children[0]
            if first.type == "string":
                indent = " " * body.start_point[1]
                return f"{self.node_text(first)}\n{indent}{self.table.fold_marker}"
        return self.table.fold_marker

    # ---- chunks

    def header_line(self, qual: str, suffix: str = "") -> str:
        name = cut_redacted(_join(self.module, qual), HEADER_LINE_CHARS)
        return f"{self.table.line_comment} {name}{suffix}\n" if name else ""

    def piece(self, window: Window, chunk_type: str, header: str = "", symbols: list[ChunkSymbol] | None = None,
              skeleton: str = "", analysis_extra: str = "", meta: dict | None = None,
              unit_chars: int = 0) -> ChunkPiece:
        """`unit_chars`: the size of the unit whose parts this is one of (see cap_skeleton)."""
        text = header + window.text
        meta = dict(meta or {})
        meta.setdefault("language", self.table.grammar)
        options = self.options
        return ChunkPiece(text=text, chunk_type=chunk_type, start_line=window.start_line, end_line=window.end_line,
                          analysis_text=f"{text}\n\n{analysis_extra}" if analysis_extra else "",
                          symbols=cap_symbols(symbols or [], options.chunk_max_symbols),
                          skeleton=self.cap_skeleton(skeleton, meta.get("parts", 1), unit_chars),
                          header=header, meta=meta)

    def cap_skeleton(self, skeleton: str, parts: int = 1, unit_chars: int = 0) -> str:
        """See units.part_skeleton: a unit's parts repeat its skeleton, each within its share."""
        return part_skeleton(skeleton, parts, unit_chars, self.options.skeleton_max_chars, self.table.line_comment)

    def chunk(self) -> list[ChunkPiece]:
        if self.n == 0:
            return []
        pieces: list[ChunkPiece] = []
        for region in self.regions(self.top_units(), 1, self.n):
            if region.units:
                pieces.extend(self.unit_region(region))
            else:
                pieces.extend(self.code_region(region))
        for sym in self.extra_symbols:
            for p in pieces:
                if p.start_line <= sym.start_line <= p.end_line:
                    p.symbols.insert(0, sym)
                    break
        return pieces

    def code_region(self, region: _Region) -> list[ChunkPiece]:
        t = self.table
        if self.chars(region.start, region.end) <= self.cap:
            return [self.piece(Window(region.start, region.end, self.body_text(region.start, region.end)),
                               t.code_chunk)]
        cuts = self.cut_lines(self.tree.root_node, region.start, region.end)
        parts = self.pack(region.start, region.end, cuts, self.cap)
        return [self.piece(w, t.code_chunk, meta={"part": k, "parts": len(parts)}) for k, w in enumerate(parts, 1)]

    def chunk_type(self, unit: _Unit) -> str:
        return self.table.type_chunk if unit.is_type else self.table.function_chunk

    def unit_region(self, region: _Region, header: str = "", analysis_extra: str = "",
                    role: str = "") -> list[ChunkPiece]:
        units = region.units
        unit = units[0]
        size = self.chars(region.start, region.end)
        symbols = [s for u in units for s in self.symbols(u)]
        meta = {"role": role} if role else {}
        meta.update(self.visibility(units))
        if size <= self.cap:
            window = Window(region.start, region.end, self.body_text(region.start, region.end))
            return [self.piece(window, self.chunk_type(unit), header, symbols,
                               self.fold(region.start, region.end, units), analysis_extra, meta)]
        if len(units) == 1 and unit.is_type and self.members(unit):
            return self.split_type(region, unit)
        return self.split_unit(region, units, symbols, analysis_extra, meta)

    def split_unit(self, region: _Region, units: list[_Unit], symbols: list[ChunkSymbol],
                   analysis_extra: str, meta: dict) -> list[ChunkPiece]:
        """`meta`: the unit's own (role, visibility), carried by every part."""
        unit = units[0]
        node = unit.node if len(units) == 1 else self.tree.root_node
        parts = self.pack(region.start, region.end, self.cut_lines(node, region.start, region.end), self.cap)
        signature = self.signature(unit)
        skeleton = self.fold(region.start, region.end, units)
        out = []
        n = len(parts)
        for k, window in enumerate(parts, 1):
            header = self.header_line(unit.qual, f" (part {k}/{n})")
            if k > 1 and signature and window.start_line > _start_line(unit.decl):
                header += f"{signature}\n"
            own = [s for s in symbols
                   if s.start_line <= window.end_line and s.end_line >= window.start_line] or symbols[:1]
            out.append(self.piece(window, self.chunk_type(unit), header, own, skeleton, analysis_extra,
                                  {"part": k, "parts": n, **meta}, self.chars(region.start, region.end)))
        return out

    def visibility(self, units: list[_Unit]) -> dict[str, str]:
        if not self.table.underscore_private or len(units) != 1:
            return {}
        name = units[0].name
        dunder = name.startswith("__") and name.endswith("__")
        return {"visibility": "private" if name.startswith("_") and not dunder else "public"}

    def outline_line(self, member: _Unit) -> str:
        """One line of a member's declaration (the outline a member of a large type sees)."""
        return "    " + self.signature(member).split("\n")[-1]

    def huge_members(self, head: str, members: list[_Unit], outline: list[str], regions: list[_Region],
                     first: int, member_header: str) -> list[ChunkPiece]:
        """The members of a type whose signature lines alone are over the cap (issue 16: each
        member carried up to `type_max_chars` of them, 50x a generated class's bytes).

        Each member sees the type's declaration and the members around it, the whole context
        at most its own size (units.neighbourhood), and none where no neighbour's line fits.
        No whole-type copy: its parts would be blind windows over members that have chunks of
        their own. So the lines between members (class attributes, comments) are chunks of
        their own, as between top-level units, and closing lines ride the member before them:
        the chunks still cover every line. `head`: the type's declaration line."""
        comment = self.table.line_comment
        budget = self.options.member_context_chars
        fixed = len(head) + 3 + 2 * len(f"    {comment} … {len(members)} more members\n")
        index = {id(m): i for i, m in enumerate(members)}
        kept: list[_Region] = []
        for r in regions:
            if r.end < first:
                continue  # the header's
            if not r.units and kept and kept[-1].units and self.only_closers(r.start, r.end):
                kept[-1].end = r.end
            else:
                kept.append(r)
        out: list[ChunkPiece] = []
        for r in kept:
            if not r.units:
                out.extend(self.code_region(r))
                continue
            room = min(budget, self.chars(r.start, r.end) - fixed)
            context = member_context(head, outline, index[id(r.units[0])], room, "", "    ", comment)
            out.extend(self.unit_region(r, member_header, context, role="member"))
        return out

    def split_type(self, region: _Region, unit: _Unit) -> list[ChunkPiece]:
        """Header + one chunk per member + the full type: both shapes serve retrieval (a huge
        type has no full one: see huge_members)."""
        t = self.table
        members = self.members(unit)
        skeleton = self.fold(region.start, region.end, [unit])
        all_symbols = self.symbols(unit)
        body = self.body_of(unit.decl)
        body_line = _start_line(body) if body is not None else unit.start
        first = members[0]
        floor = body_line + 1 if first.start > body_line else first.start
        regions = self.regions(members, max(floor, region.start), region.end, in_type=True)
        member_regions = [r for r in regions if r.units]
        out: list[ChunkPiece] = []
        header_end = (member_regions[0].start - 1) if member_regions else region.end
        if header_end >= region.start:
            cuts = self.cut_lines(body if body is not None else unit.node, region.start, header_end)
            parts = self.pack(region.start, header_end, cuts, self.cap)
            for k, window in enumerate(parts, 1):
                meta = {"role": "header"}
                if len(parts) > 1:
                    meta.update(part=k, parts=len(parts))
                p = self.piece(window, self.chunk_type(unit), "", all_symbols, skeleton, "", meta,
                               self.chars(region.start, header_end))
                # The analyser reads the outline up to the type cap, as it reads any other chunk.
                outline = cap_outline(p.skeleton, self.cap, self.table.line_comment)
                p.analysis_text = outline if k == 1 else f"{window.text}\n\n{outline}"
                out.append(p)
        member_header = self.header_line(unit.qual)
        # The outline every member's analysis_text carries: the full skeleton when it fits
        # the cap, else the declaration and one signature line per member; when those are
        # still over the cap (a huge type), each member sees only its neighbours.
        context = skeleton
        if len(skeleton) > self.cap:
            head, outline = self.signature(unit).split("\n")[-1], [self.outline_line(m) for m in members]
            context = "\n".join([head, *outline])
            if member_regions and len(context) > self.cap:
                out.extend(self.huge_members(head, members, outline, regions, member_regions[0].start, member_header))
                return out
        for mregion in member_regions:
            out.extend(self.unit_region(mregion, member_header, context, role="member"))
        member_cuts = sorted({r.start for r in member_regions if r.start > region.start})
        full = self.pack(region.start, region.end, member_cuts, self.cap)
        for k, window in enumerate(full, 1):
            meta = {"role": "full"}
            suffix = ""
            if len(full) > 1:
                meta.update(part=k, parts=len(full))
                suffix = f" (part {k}/{len(full)})"
            own = [s for s in all_symbols if s.start_line <= window.end_line and s.end_line >= window.start_line]
            out.append(self.piece(window, t.full_chunk, self.header_line(unit.qual, suffix) if suffix else "",
                                  own or all_symbols[:1], skeleton, "", meta, self.chars(region.start, region.end)))
        return out


def _first_of_type(node: Node, node_type: str) -> Node | None:
    stack = [node]
    while stack:
        current = stack.pop(0)
        if current.type == node_type:
            return current
        stack.extend(current.named_children)
    return None


def _clean_name(text: str) -> str:
    name = text.strip().splitlines()[0] if text.strip() else ""
    if "<" in name and not name.startswith("operator"):
        name = name.split("<", 1)[0].strip()
    return cut_redacted(name, NAME_CHARS)


def _package_name(text: str) -> str:
    words = text.replace(";", " ").replace("{", " ").split()
    name = words[-1] if len(words) > 1 else ""
    return _normalize_qual(name)


def _normalize_qual(name: str) -> str:
    return name.replace("\\", ".").replace("::", ".").strip(".")


def _join(parent: str, name: str) -> str:
    name = _normalize_qual(name)
    if not name:
        return parent
    return f"{parent}.{name}" if parent else name


def chunk_with_table(path: str, text: str, table: LanguageTable, options: ChunkOptions = DEFAULT_OPTIONS,
                     module: str = "") -> list[ChunkPiece]:
    """Chunk `text` with the engine and one table (the per-language entry points call this)."""
    return _Document(path, text, table, options, module).chunk()


def chunk_treesitter(path: str, text: str, options: ChunkOptions = DEFAULT_OPTIONS) -> list[ChunkPiece]:
    table = TABLES.get(os.path.splitext(path.lower())[1])
    if table is None:
        return []
    return chunk_with_table(path, text, table, options)
