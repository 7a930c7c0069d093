"""Structural quality metrics of one chunk, from its tree-sitter tree: language in, `q_*` fields out.

One walker, languages as data (`LanguageSpec`): the node types that are
functions, branches, loops, catches, booleans, comments, identifiers and
literals. SQL has no usable T-SQL grammar, so it is read as a token stream
with BEGIN/END and CASE/END as the block structure.

Definitions (what the tests pin down):
- q_cyclomatic: McCabe over the chunk = one per function (at least 1) + one
  per if / else-if / loop / catch / case label / ternary / && || and or.
  For a single function that is its McCabe number; for a class chunk, the sum
  over its methods.
- q_cognitive: SonarSource cognitive complexity: +1 for if, else-if, else,
  loops, switch, catch, ternary and each sequence of like boolean operators;
  if/loops/switch/catch/ternary also add their nesting depth; nested
  functions and lambdas deepen the nesting. (No recursion increment.)
- q_loc: lines holding code (not blank, not comment-only); q_comment_density:
  comment lines / (comment lines + code lines), docstrings counted as comments.
- q_max_nesting: deepest nesting of if/loop/switch/try-catch blocks.
- q_param_count: the most parameters of a function in the chunk (self/cls
  not counted); absent when the chunk holds no function.
- q_dup_hash: sha1 of the token stream with comments dropped and every
  identifier and literal replaced by a placeholder, so renamed clones share it.
- q_error_emission: throw/raise statements plus error-level log calls.
"""

from __future__ import annotations

import hashlib
import re
import textwrap
from dataclasses import dataclass
from functools import lru_cache

# Bumped whenever a definition above changes: cached metrics are recomputed.
METRICS_VERSION = "1"

# Calls that emit an error: the last member of a dotted callee (`_logger.LogError`, `console.error`).
ERROR_LOG_MEMBERS = frozenset({"logerror", "logcritical", "error", "critical", "fatal", "exception"})


@dataclass(frozen=True)
class LanguageSpec:
    grammar: str
    functions: frozenset[str]
    ifs: frozenset[str]
    else_clauses: frozenset[str]      # node types of a whole else branch (TS, Python)
    elif_clauses: frozenset[str]      # node types of a whole else-if branch (Python)
    loops: frozenset[str]
    switches: frozenset[str]
    cases: frozenset[str]             # cyclomatic +1 each (case labels, switch arms)
    catches: frozenset[str]
    ternaries: frozenset[str]
    booleans: frozenset[str]          # node types that may hold a boolean operator
    boolean_ops: frozenset[str]
    extra_decisions: frozenset[str]   # cyclomatic only (comprehension for/if)
    params: frozenset[str]
    param_skip: frozenset[str]        # children of a parameter list that are not parameters
    throws: frozenset[str]
    calls: frozenset[str]
    comments: frozenset[str]
    identifiers: frozenset[str]
    literals: frozenset[str]
    wrap_class: bool = False          # a member cut out of its class parses better wrapped in one
    dedent: bool = False


def _fs(*names: str) -> frozenset[str]:
    return frozenset(names)


CSHARP = LanguageSpec(
    grammar="csharp",
    functions=_fs("method_declaration", "constructor_declaration", "destructor_declaration", "operator_declaration",
                  "conversion_operator_declaration", "local_function_statement", "accessor_declaration",
                  "lambda_expression", "anonymous_method_expression"),
    ifs=_fs("if_statement"), else_clauses=_fs(), elif_clauses=_fs(),
    loops=_fs("for_statement", "foreach_statement", "while_statement", "do_statement"),
    switches=_fs("switch_statement", "switch_expression"),
    cases=_fs("case", "switch_expression_arm"),  # `case` tokens: one per label, `case 1: case 2:` counts 2
    catches=_fs("catch_clause"), ternaries=_fs("conditional_expression"),
    booleans=_fs("binary_expression"), boolean_ops=_fs("&&", "||"), extra_decisions=_fs(),
    params=_fs("parameter_list"), param_skip=_fs("comment"),
    throws=_fs("throw_statement", "throw_expression"), calls=_fs("invocation_expression"),
    comments=_fs("comment"), identifiers=_fs("identifier"),
    literals=_fs("string_literal", "verbatim_string_literal", "raw_string_literal", "interpolated_string_expression",
                 "integer_literal", "real_literal", "character_literal"),
    wrap_class=True,
)

TYPESCRIPT = LanguageSpec(
    grammar="typescript",
    functions=_fs("function_declaration", "generator_function_declaration", "method_definition", "function_expression",
                  "function", "generator_function", "arrow_function"),
    ifs=_fs("if_statement"), else_clauses=_fs("else_clause"), elif_clauses=_fs(),
    loops=_fs("for_statement", "for_in_statement", "while_statement", "do_statement"),
    switches=_fs("switch_statement"), cases=_fs("switch_case"),
    catches=_fs("catch_clause"), ternaries=_fs("ternary_expression"),
    booleans=_fs("binary_expression"), boolean_ops=_fs("&&", "||"), extra_decisions=_fs(),
    params=_fs("formal_parameters"), param_skip=_fs("comment"),
    throws=_fs("throw_statement"), calls=_fs("call_expression"),
    comments=_fs("comment"),
    identifiers=_fs("identifier", "property_identifier", "type_identifier", "shorthand_property_identifier",
                    "shorthand_property_identifier_pattern", "private_property_identifier", "statement_identifier"),
    literals=_fs("string", "template_string", "number", "regex"),
    wrap_class=True,
)

JAVASCRIPT = LanguageSpec(**{**TYPESCRIPT.__dict__, "grammar": "javascript"})
TSX = LanguageSpec(**{**TYPESCRIPT.__dict__, "grammar": "tsx"})

PYTHON = LanguageSpec(
    grammar="python",
    functions=_fs("function_definition", "lambda"),
    ifs=_fs("if_statement"), else_clauses=_fs("else_clause"), elif_clauses=_fs("elif_clause"),
    loops=_fs("for_statement", "while_statement"),
    switches=_fs("match_statement"), cases=_fs("case_clause"),
    catches=_fs("except_clause", "except_group_clause"), ternaries=_fs("conditional_expression"),
    booleans=_fs("boolean_operator"), boolean_ops=_fs("and", "or"),
    extra_decisions=_fs("for_in_clause", "if_clause"),
    params=_fs("parameters", "lambda_parameters"),
    param_skip=_fs("comment", "keyword_separator", "positional_separator"),
    throws=_fs("raise_statement"), calls=_fs("call"),
    comments=_fs("comment"), identifiers=_fs("identifier"),
    literals=_fs("string", "concatenated_string", "integer", "float"),
    dedent=True,
)

SPECS: dict[str, LanguageSpec] = {"csharp": CSHARP, "typescript": TYPESCRIPT, "javascript": JAVASCRIPT,
                                  "tsx": TSX, "python": PYTHON}
SUPPORTED_LANGUAGES = frozenset(SPECS) | {"sql"}


@lru_cache(maxsize=None)
def _parser(grammar: str):
    from tree_sitter_language_pack import get_parser

    return get_parser(grammar)


def _count_errors(node) -> int:
    if not node.has_error:
        return 0
    stack, n = [node], 0
    while stack:
        cur = stack.pop()
        if cur.type == "ERROR" or cur.is_missing:
            n += 1
        stack.extend(c for c in cur.children if c.has_error or c.type == "ERROR" or c.is_missing)
    return n


class _Walk:
    """One pass over a tree, restricted to the bytes of the chunk body."""

    def __init__(self, spec: LanguageSpec, lo: int, hi: int):
        self.spec, self.lo, self.hi = spec, lo, hi
        self.units = self.cyclomatic = self.cognitive = self.max_depth = self.errors = 0
        self.param_counts: list[int] = []
        self.comment_rows: set[int] = set()
        self.code_rows: set[int] = set()
        self.tokens: list[str] = []

    def inside(self, n) -> bool:
        return n.end_byte > self.lo and n.start_byte < self.hi

    def leaves(self, n, docstring: bool = False) -> None:
        spec = self.spec
        if not self.inside(n):
            return
        t = n.type
        if t in spec.comments or docstring:
            self.comment_rows.update(range(n.start_point[0], n.end_point[0] + 1))
            return
        if t in spec.literals or n.child_count == 0:
            self.code_rows.update(range(n.start_point[0], n.end_point[0] + 1))
            if t in spec.literals:
                self.tokens.append("$lit")
            elif t in spec.identifiers:
                self.tokens.append("$id")
            elif n.text:
                self.tokens.append(n.text.decode("utf-8", "replace"))
            return
        if spec is not PYTHON:  # only Python has docstrings (_is_docstring)
            for c in n.children:
                self.leaves(c)
            return
        for i, c in enumerate(n.children):
            self.leaves(c, docstring=self._is_docstring(n, c, i))

    def _is_docstring(self, parent, child, index: int) -> bool:
        if self.spec is not PYTHON:
            return False
        target = child
        if child.type == "expression_statement" and child.named_child_count == 1:
            target = child.named_children[0]
        if target.type != "string" or parent.type not in ("block", "module"):
            return False
        first = next((c for c in parent.children if c.type != "comment"), None)
        return first is not None and first.start_byte == child.start_byte

    def _else_if(self, n) -> bool:
        if n.type not in self.spec.ifs:  # before n.parent, which builds a node object
            return False
        parent = n.parent
        if parent is None:
            return False
        if parent.type in self.spec.else_clauses:
            return True
        prev = n.prev_sibling
        return parent.type in self.spec.ifs and prev is not None and prev.type == "else"

    def _bool_op(self, n) -> str:
        if n.type not in self.spec.booleans:
            return ""
        op = n.child_by_field_name("operator")
        text = op.type if op is not None else ""
        return text if text in self.spec.boolean_ops else ""

    def _params(self, n) -> None:
        plist = n.child_by_field_name("parameters")
        if plist is None:
            plist = next((c for c in n.children if c.type in self.spec.params), None)
        if plist is None or plist.type not in self.spec.params:
            return
        names = [c for c in plist.named_children if c.type not in self.spec.param_skip]
        if names and self.spec is PYTHON and names[0].type == "identifier" and names[0].text in (b"self", b"cls"):
            names = names[1:]
        self.param_counts.append(len(names))

    def visit(self, n, nest: int, depth: int, in_unit: bool) -> None:
        if not self.inside(n):
            return
        spec, t = self.spec, n.type
        child_nest, child_depth = nest, depth
        if t in spec.functions:
            if in_unit:
                child_nest = nest + 1
            else:
                self.units += 1
                child_nest = 0
                self._params(n)
            in_unit = True
        elif self._else_if(n) or t in spec.elif_clauses:
            self.cyclomatic += 1
            self.cognitive += 1
        elif t in spec.else_clauses:
            if not any(c.type in spec.ifs for c in n.named_children):
                if n.parent is not None and n.parent.type in spec.ifs:
                    self.cognitive += 1
        elif t == "else" and n.parent is not None and n.parent.type in spec.ifs and not spec.else_clauses:
            nxt = n.next_sibling
            if nxt is None or nxt.type not in spec.ifs:
                self.cognitive += 1
        elif t in spec.ifs or t in spec.loops or t in spec.catches:
            self.cyclomatic += 1
            self.cognitive += 1 + nest
            child_nest, child_depth = nest + 1, depth + 1
        elif t in spec.switches:
            self.cognitive += 1 + nest
            child_nest, child_depth = nest + 1, depth + 1
        elif t in spec.ternaries:
            self.cyclomatic += 1
            self.cognitive += 1 + nest
            child_nest = nest + 1
        elif t in spec.cases:
            if not (t == "switch_expression_arm" and n.named_child_count and n.named_children[0].type == "discard"):
                self.cyclomatic += 1
        elif t in spec.extra_decisions:
            self.cyclomatic += 1
        elif t == "try_statement":
            child_depth = depth + 1
        elif t in spec.throws:
            self.errors += 1
        elif t in spec.calls:
            callee = n.child_by_field_name("function")
            text = callee.text.decode("utf-8", "replace") if callee is not None and callee.text else ""
            if "." in text and text.rsplit(".", 1)[1].strip().lower() in ERROR_LOG_MEMBERS:
                self.errors += 1
        op = self._bool_op(n)
        if op:
            self.cyclomatic += 1
            parent = n.parent
            while parent is not None and parent.type in ("parenthesized_expression",):
                parent = parent.parent
            if parent is None or self._bool_op(parent) != op:
                self.cognitive += 1
        self.max_depth = max(self.max_depth, child_depth)
        for c in n.children:
            self.visit(c, child_nest, child_depth, in_unit)


def _tree_metrics(spec: LanguageSpec, body: str) -> dict:
    if spec.dedent:
        body = textwrap.dedent(body)
    parser = _parser(spec.grammar)
    data = body.encode("utf-8")
    tree = parser.parse(data)
    lo, hi, root = 0, len(data), tree.root_node
    if spec.wrap_class and root.has_error:
        prefix = b"class __LedgerWrap {\n"
        wrapped = parser.parse(prefix + data + b"\n}\n")
        if _count_errors(wrapped.root_node) < _count_errors(root):
            lo, hi, root = len(prefix), len(prefix) + len(data), wrapped.root_node
    w = _Walk(spec, lo, hi)
    w.visit(root, 0, 0, False)
    w.leaves(root)
    comment_only = w.comment_rows - w.code_rows
    return _finish(max(1, w.units) + w.cyclomatic, w.cognitive, len(w.code_rows), len(comment_only), w.max_depth,
                   max(w.param_counts) if w.param_counts else None, w.tokens, w.errors)


def _finish(cyclomatic: int, cognitive: int, loc: int, comment_lines: int, max_nesting: int,
            params: int | None, tokens: list[str], errors: int) -> dict:
    total = loc + comment_lines
    out = {
        "q_cyclomatic": cyclomatic,
        "q_cognitive": cognitive,
        "q_loc": loc,
        "q_comment_density": round(comment_lines / total, 3) if total else 0.0,
        "q_max_nesting": max_nesting,
        "q_error_emission": errors,
        "dup_tokens": len(tokens),
        "q_dup_hash": hashlib.sha1("\x1f".join(tokens).encode("utf-8")).hexdigest()[:16] if tokens else None,
    }
    if params is not None:
        out["q_param_count"] = params
    return out


# ------------------------------------------------------------------- SQL ---
_SQL_TOKEN = re.compile(
    r"(?P<comment>--[^\n]*|/\*.*?\*/)"
    r"|(?P<string>N?'(?:[^']|'')*')"
    r"|(?P<name>\[[^\]\n]*\]|\"[^\"\n]*\"|@@?[A-Za-z_][\w@$#]*|[A-Za-z_#][\w$#]*)"
    r"|(?P<number>\d+(?:\.\d+)?)"
    r"|(?P<punct>[^\s\w])",
    re.S)
SQL_KEYWORDS = frozenset("""
add all alter and as asc begin between by case cast catch check close commit constraint create cross cursor
deallocate declare default delete desc distinct drop else end exec execute exists fetch for foreign from full
function go goto group having if in index inner insert into is join key left like merge next not null of off on
open or order outer output over partition primary print proc procedure raiserror references return returns
right rollback select set table then throw top tran transaction trigger truncate try union unique update use
using values view when where while with matched source target nocount int bigint varchar nvarchar datetime
datetime2 bit decimal numeric char nchar money float date time varbinary uniqueidentifier tinyint smallint
""".split())
_SQL_BEGIN_NOT_BLOCK = frozenset({"tran", "transaction", "distributed", "dialog", "conversation"})


def sql_tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, line) tokens of T-SQL/ANSI SQL; comments come back as kind 'comment'."""
    out = []
    line = 0
    pos = 0
    for m in _SQL_TOKEN.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        kind = m.lastgroup or "punct"
        out.append((kind, m.group(), line))
    return out


def _sql_metrics(body: str) -> dict:
    toks = sql_tokens(body)
    code_rows: set[int] = set()
    comment_rows: set[int] = set()
    stream: list[str] = []
    words: list[tuple[str, str, int]] = []  # (lower word or token, kind, line) without comments
    for kind, text, line in toks:
        span = range(line, line + text.count("\n") + 1)
        if kind == "comment":
            comment_rows.update(span)
            continue
        code_rows.update(span)
        low = text.lower()
        words.append((low, kind, line))
        if kind == "string" or kind == "number":
            stream.append("$lit")
        elif kind == "name" and (low not in SQL_KEYWORDS or text.startswith(("[", '"'))):
            stream.append("$id")
        else:
            stream.append(low)

    cyclomatic, cognitive, errors, max_depth = 1, 0, 0, 0
    # Frames: "control" (a BEGIN..END that is the body of IF/ELSE/WHILE), "catch", "case", "block" (plain).
    frames: list[str] = []
    pending_control = False
    params: set[str] | None = None
    in_header, header_depth = False, 0
    n = len(words)

    def nesting() -> int:
        return sum(1 for f in frames if f in ("control", "catch", "case"))

    i = 0
    while i < n:
        w, kind, _ = words[i]
        nxt = words[i + 1][0] if i + 1 < n else ""
        prev = words[i - 1][0] if i else ""
        if w in ("procedure", "proc", "function") and prev in ("create", "alter", "or") and params is None:
            in_header, header_depth, params = True, 0, set()
        elif in_header:
            # T-SQL parameter defaults are constants, so every @name in the header is a parameter.
            if w == "(":
                header_depth += 1
            elif w == ")":
                header_depth -= 1
            elif header_depth <= 0 and w == "as":
                in_header = False
            elif kind == "name" and w.startswith("@") and not w.startswith("@@"):
                params.add(w)
        if w == "if":
            cyclomatic += 1
            if prev == "else":
                cognitive += 1
            else:
                cognitive += 1 + nesting()
            pending_control = True
        elif w == "while":
            cyclomatic += 1
            cognitive += 1 + nesting()
            pending_control = True
        elif w == "else" and (not frames or frames[-1] != "case"):
            if nxt != "if":
                cognitive += 1
                pending_control = True
        elif w == "case":
            cognitive += 1 + nesting()
            frames.append("case")
        elif w == "when" and frames and frames[-1] == "case":
            cyclomatic += 1
        elif w == "begin":
            if nxt == "catch":
                cyclomatic += 1
                cognitive += 1 + nesting()
                frames.append("catch")
                i += 1
            elif nxt == "try":
                frames.append("block")
                i += 1
            elif nxt in _SQL_BEGIN_NOT_BLOCK:
                pass
            else:
                frames.append("control" if pending_control else "block")
            pending_control = False
        elif w == "end":
            if frames:
                frames.pop()
            if nxt in ("try", "catch"):
                i += 1
        elif w in ("throw", "raiserror"):
            errors += 1
        elif w == ";":
            pending_control = False
        max_depth = max(max_depth, sum(1 for f in frames if f in ("control", "catch")))
        i += 1
    comment_only = comment_rows - code_rows
    # A header-less procedure (no CREATE PROCEDURE) leaves params None: the chunk holds no routine.
    return _finish(cyclomatic, cognitive, len(code_rows), len(comment_only), max_depth,
                   len(params) if params is not None else None, stream, errors)


# ----------------------------------------------------------------- entry ---
def chunk_body(text: str, header: str | None) -> str:
    """What the chunker cut from the file: `text` minus its context header."""
    if header and text.startswith(header):
        return text[len(header):]
    return text


def metrics_for(language: str, text: str) -> dict | None:
    """The q_* metrics of one chunk body, or None for a language without a table here."""
    if not text.strip():
        return None
    if language == "sql":
        return _sql_metrics(text)
    spec = SPECS.get(language)
    if spec is None:
        return None
    return _tree_metrics(spec, text)
