r"""SQL: one chunk per database object.

An object starts on a line matching `^[ \t]*(CREATE [OR ALTER|OR REPLACE] |
ALTER ) PROC|PROCEDURE|FUNCTION|VIEW|TRIGGER|TABLE`, tried line by line on
lines that begin in code (not in a comment, string or quoted identifier). The
indent class is `[ \t]`, never `\s`: under MULTILINE, `\s*` matched across the
newline and put a blank line above as the object's start line.

Not every CREATE is an object: T-SQL requires CREATE PROC/FUNCTION/VIEW/
TRIGGER to open its batch, so once one starts, nothing starts again before the
next `GO`; a CREATE inside a BEGIN...END block, a `#temp` table and a `@table`
variable are statements of the enclosing object; `ALTER TABLE t` right after
the object for `t` rides it (pg_dump writes `ALTER TABLE t OWNER TO ...`).

Ranges: the preamble (USE, SET, comments) rides the first object; an object
ends at its first `GO`, and what follows that GO (SET options, comments) rides
the next object, whose chunk starts at the first non-blank line after the GO;
without GO, the comment block directly above an object rides it.

`sql_proc` chunks carry kinds sql_procedure / sql_function / sql_view /
sql_trigger, `sql_table` chunks kind sql_table; each chunk has the one
schema-qualified symbol of its object (`[dbo].[sp_Blitz]` -> `dbo.sp_Blitz`).
`options.split_sql_tables=False` drops table candidates before anything else
looks at them, so its output is exactly the chunker without table boundaries.
An object over `options.type_max_chars` is cut at statement lines ("part
k/n"). A file with no object returns [] and the registry's plain fallback
takes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkPiece, ChunkSymbol
from .redact import cut_redacted
from .text import split_lines
from .typescript import LineDoc, split_range
from .units import HEADER_LINE_CHARS, NAME_CHARS

_NAME_PART = r"(?:\[[^\]\n]+\]|\"[^\"\n]+\"|`[^`\n]+`|[\w@#$]+)"
_OBJECT = re.compile(
    r"[ \t]*(?P<verb>CREATE|ALTER)\s+(?:OR\s+(?:ALTER|REPLACE)\s+)?(?:DEFINER\s*=\s*\S+\s+)?"
    r"(?:(?:GLOBAL|LOCAL)\s+)?(?:(?:TEMPORARY|TEMP|UNLOGGED|MATERIALIZED)\s+)?"
    r"(?P<obj>PROCEDURE|PROC|FUNCTION|VIEW|TRIGGER|TABLE)\b\s*"
    r"(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(?:ONLY\s+)?"
    rf"(?P<name>{_NAME_PART}(?:\s*\.\s*{_NAME_PART}){{0,3}})?",
    re.I)
_KIND = {"PROCEDURE": "sql_procedure", "PROC": "sql_procedure", "FUNCTION": "sql_function",
         "VIEW": "sql_view", "TRIGGER": "sql_trigger", "TABLE": "sql_table"}
_GO = re.compile(r"^[ \t]*GO(?:[ \t]+\d+)?[ \t]*(?:--.*)?$", re.I)
# Lines a part may start with. BEGIN and END are not among them: BEGIN belongs
# to the AS/IF/WHILE above it, END to the block it closes.
_STATEMENT = re.compile(
    r"^[ \t]*(?:--|/\*|;|(?:SELECT|INSERT|UPDATE|DELETE|MERGE|WITH|IF|ELSE|WHILE|DECLARE|SET|EXEC|EXECUTE"
    r"|RETURN|PRINT|RAISERROR|THROW|TRUNCATE|OPEN|FETCH|CLOSE|DEALLOCATE|CREATE|ALTER|DROP|GRANT|FOR|LOOP"
    r"|PERFORM|RAISE|CALL|COMMIT|ROLLBACK)\b)", re.I)
_TOKEN = re.compile(r"--|/\*|'|\"|\[|`|\$[A-Za-z_]*\$|\b(?:BEGIN|END|CASE)\b|[()]"
                    r"|^[ \t]*GO[ \t]*(?:\d+[ \t]*)?(?=--|$)", re.I | re.M)
# MySQL scripts use $$ as a DELIMITER, not as PostgreSQL's dollar quote.
_DELIMITER = re.compile(r"^[ \t]*DELIMITER\b", re.I | re.M)
# BEGIN that opens no block: transactions and Service Broker verbs; "BEGIN;" is PostgreSQL's transaction.
_BEGIN_NO_BLOCK = re.compile(r"\s*(?:;|TRAN\b|TRANSACTION\b|WORK\b|DISTRIBUTED\b|DIALOG\b|CONVERSATION\b|$)", re.I)
_END_NO_BLOCK = re.compile(r"[ \t]+(?:IF|LOOP|WHILE|REPEAT|FOR)\b", re.I)


def chunk_sql(path: str, text: str, options: ChunkOptions = DEFAULT_OPTIONS) -> list[ChunkPiece]:
    lines = split_lines(text)
    if not lines or not text.strip():
        return []
    code, block, paren = _lex(text, lines)
    objects = _objects(lines, code, block, options.split_sql_tables)
    if not objects:
        return []
    go = [False] + [code[i] and bool(_GO.match(lines[i - 1])) for i in range(1, len(lines) + 1)]
    starts = [1]
    for prev, obj in zip(objects, objects[1:]):
        starts.append(_chunk_start(lines, code, go, prev.line, obj.line))
    depths = [block[i] + paren[i] for i in range(len(block))]
    cut_ok = [code[i] and (paren[i] > 0 or i == 0 or i > len(lines) or bool(_STATEMENT.match(lines[i - 1])))
              for i in range(len(code))]
    doc = LineDoc(text, lines, (depths, cut_ok))
    pieces: list[ChunkPiece] = []
    for i, obj in enumerate(objects):
        start = starts[i]
        end = starts[i + 1] - 1 if i + 1 < len(objects) else len(lines)
        sym_end = _object_end(lines, go, obj.line, end)
        symbol = ChunkSymbol(obj.name, obj.kind, "", obj.line, sym_end)
        chunk_type = "sql_table" if obj.kind == "sql_table" else "sql_proc"
        # (its first line, as each part repeats it: at most a header line's length, cut after redaction)
        skeleton = cut_redacted(lines[obj.line - 1].strip(), HEADER_LINE_CHARS)
        if doc.size(start, end) <= options.type_max_chars:
            pieces.append(ChunkPiece(text=doc.body(start, end), chunk_type=chunk_type, start_line=start,
                                     end_line=end, symbols=[symbol], skeleton=skeleton))
            continue
        ranges = split_range(doc, start, end, max(200, options.type_max_chars - 300))
        n = len(ranges)
        for k, (s, e, body) in enumerate(ranges, 1):
            header = f"-- {obj.name} (part {k}/{n})\n"
            if k > 1:
                header += f"-- {cut_redacted(skeleton, 200)}\n"
            pieces.append(ChunkPiece(text=header + body, chunk_type=chunk_type, start_line=s, end_line=e,
                                     symbols=[symbol], skeleton=skeleton, header=header,
                                     meta={"part": k, "parts": n}))
    return pieces


@dataclass(frozen=True)
class _Object:
    line: int
    kind: str
    name: str
    verb: str


def qualified_name(raw: str) -> str:
    """`[dbo].[sp_Blitz]` -> `dbo.sp_Blitz`; `"public"."users"` -> `public.users`; unqualified stays unqualified."""
    parts = re.findall(_NAME_PART, raw or "")
    return ".".join(p[1:-1] if p[:1] in "[\"`" else p for p in parts)


def _objects(lines: list[str], code: list[bool], block: list[int], split_tables: bool) -> list[_Object]:
    has_go = any(code[i] and _GO.match(lines[i - 1]) for i in range(1, len(lines) + 1))
    out: list[_Object] = []
    in_batch_object = False  # a proc/function/view/trigger owns its batch until the next GO
    joined = "\n".join(lines)
    offset = 0
    for ln, line in enumerate(lines, 1):
        line_offset = offset
        offset += len(line) + 1
        if not code[ln]:
            continue
        if has_go and _GO.match(line):
            in_batch_object = False
            continue
        if not line.lstrip()[:6].upper().startswith(("CREATE", "ALTER")):
            continue
        m = _OBJECT.match(joined, line_offset)
        if m is None or block[ln] > 0 or (has_go and in_batch_object):
            continue
        kind = _KIND[m.group("obj").upper()]
        name = cut_redacted(qualified_name(m.group("name") or ""), 2 * NAME_CHARS)
        if kind == "sql_table":
            if not split_tables or name[:1] in "#@" or not name:
                continue
            if m.group("verb").upper() == "ALTER" and out and out[-1].kind == "sql_table" and out[-1].name == name:
                continue
        elif has_go:
            in_batch_object = True
        out.append(_Object(ln, kind, name, m.group("verb").upper()))
    return out


def _chunk_start(lines: list[str], code: list[bool], go: list[bool], prev_line: int, line: int) -> int:
    for ln in range(prev_line + 1, line):
        if go[ln]:
            nxt = ln + 1
            while nxt < line and not lines[nxt - 1].strip():
                nxt += 1
            return nxt
    start = line
    while start - 1 > prev_line and lines[start - 2].strip() and (
            not code[start - 1] or lines[start - 2].lstrip().startswith(("--", "/*"))):
        start -= 1
    return start


def _object_end(lines: list[str], go: list[bool], line: int, end: int) -> int:
    last = line
    for ln in range(line, end + 1):
        if go[ln]:
            break
        if lines[ln - 1].strip():
            last = ln
    return last


def _lex(text: str, lines: list[str]) -> tuple[list[bool], list[int], list[int]]:
    """Per line (1..n): starts in code?, BEGIN/END/CASE depth, parenthesis depth."""
    spans: list[tuple[int, int]] = []
    events: list[tuple[int, int, int]] = []  # (offset, block depth, paren depth) after the token
    block = paren = 0
    pos, n = 0, len(text)
    dollar_quotes = _DELIMITER.search(text) is None
    while pos < n:
        m = _TOKEN.search(text, pos)
        if m is None:
            break
        tok = m.group()
        i = m.start()
        pos = m.end()
        up = tok.upper()
        if tok == "--":
            end = text.find("\n", i)
            pos = n if end < 0 else end
        elif tok == "/*":
            end = text.find("*/", i + 2)
            pos = n if end < 0 else end + 2
            spans.append((i, pos))
        elif tok == "'":
            end = i + 1
            while True:
                end = text.find("'", end)
                if end < 0:
                    end = n
                    break
                if text.startswith("''", end):
                    end += 2
                    continue
                end += 1
                break
            spans.append((i, end))
            pos = end
        elif tok in ('"', "`", "["):
            close = "]" if tok == "[" else tok
            end = text.find(close, i + 1)
            newline = text.find("\n", i + 1)
            if tok == "[" and (end < 0 or 0 <= newline < end):
                continue  # an array subscript or a stray bracket, not a quoted identifier
            pos = n if end < 0 else end + 1
            spans.append((i, pos))
        elif tok.startswith("$"):
            if not dollar_quotes:
                continue
            end = text.find(tok, pos)
            pos = n if end < 0 else end + len(tok)
            spans.append((i, pos))
        elif tok == "(":
            paren += 1
            events.append((i, block, paren))
        elif tok == ")":
            paren = max(0, paren - 1)
            events.append((i, block, paren))
        elif up == "BEGIN":
            if not _BEGIN_NO_BLOCK.match(text, pos):
                block += 1
                events.append((i, block, paren))
        elif up == "CASE":
            block += 1
            events.append((i, block, paren))
        elif up == "END":
            if not _END_NO_BLOCK.match(text, pos):
                block = max(0, block - 1)
                events.append((i, block, paren))
        else:  # a GO line: a batch ends, whatever was left open
            block = paren = 0
            events.append((i, block, paren))
    count = len(lines)
    code = [True] * (count + 2)
    blocks = [0] * (count + 2)
    parens = [0] * (count + 2)
    offset = ei = si = 0
    b = p = 0
    for ln, line in enumerate(lines, 1):
        while ei < len(events) and events[ei][0] < offset:
            _, b, p = events[ei]
            ei += 1
        while si < len(spans) and spans[si][1] <= offset:
            si += 1
        code[ln] = not (si < len(spans) and spans[si][0] < offset < spans[si][1])
        blocks[ln] = b
        parens[ln] = p
        offset += len(line) + 1
    return code, blocks, parens
