"""Symbol lookup: a name (bare, `Type.Member`, `Namespace::Type`) to the chunks that declare it.

Used by `ledger symbol`, the MCP tool and the search's named-symbol resolution.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace

from ledger_assets.store.printable import printable
from ledger_assets.store.ledger import Ledger


class ToolInputError(ValueError):
    """Bad input to a tool (path outside the repo, unknown symbol syntax, bad sha): exit 2."""


@dataclass(frozen=True)
class SymbolMatch:
    repo_id: str
    file_path: str
    name: str
    kind: str
    parent: str
    start_line: int
    end_line: int
    chunk_index: int
    chunk_type: str
    chunk_start_line: int
    chunk_end_line: int
    # The other chunks of a unit split into parts (a long method, function or procedure): (index, start, end).
    other_parts: tuple[tuple[int, int, int], ...] = ()

    @property
    def qualified_name(self) -> str:
        return f"{self.parent}.{self.name}" if self.parent else self.name

    def to_dict(self) -> dict:
        out = asdict(self)
        out["other_parts"] = [{"chunk_index": i, "start_line": a, "end_line": b} for i, a, b in self.other_parts]
        return {**out, "qualified_name": self.qualified_name}


# A name part: an identifier, or a SQL name in [brackets], "quotes" or `backticks`.
_PART = r"(?:[A-Za-z_@$~][\w$]*|\[[^\[\]]+\]|\"[^\"]+\"|`[^`]+`)"
_QUALIFIED = re.compile(rf"^{_PART}(?:(?:\.|::){_PART})*$")
_QUOTES = "[]\"`"


def _parts(name: str) -> list[str]:
    """`[dbo].[Orders]` -> ["dbo", "orders"]; `Ns::Type.Member` -> ["ns", "type", "member"]."""
    return [p.strip(_QUOTES).lower() for p in re.findall(rf"{_PART}", name)]


def symbol_lookup(ledger: Ledger, name: str, repo: str | None = None, limit: int = 50) -> list[SymbolMatch]:
    """Exact, case-insensitive; `Type.Member` matches a member whose parent ends with `Type`.

    SQL objects are stored under their schema-qualified name (`dbo.GetOrders`): `dbo.GetOrders`,
    `[dbo].[GetOrders]` and the bare `GetOrders` all find them. Each match points at the chunk
    that holds the declaration (for a unit split into parts, the part with its first line; a type
    header that merely lists the member comes after) and lists the unit's other parts.
    """
    raw = (name or "").strip().removesuffix("()")
    if not _QUALIFIED.match(raw):
        raise ToolInputError(f"{name!r} is not a symbol name (use Name, Type.Member, Namespace.Type.Member "
                             "or schema.object)")
    parts = _parts(raw)
    leaf, qual, dotted = parts[-1], ".".join(parts[:-1]), ".".join(parts)
    sql = ("SELECT s.repo_id, s.file_path, s.name, s.kind, coalesce(s.parent, ''), s.start_line, s.end_line, "
           "c.chunk_index, c.chunk_type, c.start_line, c.end_line "
           "FROM served.symbols s JOIN served.chunks c USING (repo_id, file_path, chunk_index) "
           "WHERE ((lower(s.name) = ? ")
    params: list = [leaf]
    if qual:
        sql += "AND (lower(replace(s.parent, '::', '.')) = ? OR ends_with(lower(replace(s.parent, '::', '.')), ?)) "
        params += [qual, "." + qual]
    # SQL objects: the stored name is schema-qualified and may keep its brackets.
    sql += (") OR (s.kind LIKE 'sql_%' AND (lower(replace(replace(s.name, '[', ''), ']', '')) = ? "
            "OR ends_with(lower(replace(replace(s.name, '[', ''), ']', '')), ?)))) ")
    params += [dotted, "." + dotted]
    if repo:
        sql += "AND s.repo_id = ? "
        params.append(repo)
    # The chunk that holds the declaration line first, then the one that holds the whole symbol, shortest first.
    sql += ("ORDER BY s.repo_id, s.file_path, s.start_line, s.kind, s.name, "
            "(c.start_line <= s.start_line AND c.end_line >= s.start_line) DESC, "
            "(c.start_line <= s.start_line AND c.end_line >= s.end_line) DESC, "
            "(c.end_line - c.start_line), c.chunk_index")
    with ledger.db.connect() as con:
        rows = con.execute(sql, params).fetchall()
    best: dict[tuple, SymbolMatch] = {}
    parts_of: dict[tuple, list[tuple[int, int, int]]] = {}
    for row in rows:
        m = SymbolMatch(*row)
        key = (m.repo_id, m.file_path, m.name, m.kind, m.parent, m.start_line, m.end_line)
        if key not in best:  # rows come declaration chunk first
            best[key] = m
            parts_of[key] = []
        elif (m.chunk_type == best[key].chunk_type and m.chunk_start_line > best[key].chunk_end_line
              and m.chunk_end_line <= m.end_line):
            parts_of[key].append((m.chunk_index, m.chunk_start_line, m.chunk_end_line))  # a later part of a split unit
    matches = [replace(m, other_parts=tuple(sorted(parts_of[k], key=lambda p: p[1]))) if parts_of[k] else m
               for k, m in best.items()]
    leaf_as_typed = re.split(r"\.|::", raw)[-1].strip(_QUOTES)
    exact = [m for m in matches if re.split(r"\.|::", m.name)[-1].strip(_QUOTES) == leaf_as_typed]
    ordered = exact + [m for m in matches if m not in exact]
    return ordered[:limit]


def format_symbols(matches: list[SymbolMatch]) -> str:
    if not matches:
        return "no such symbol"
    out = []
    for m in matches:
        where = printable(f"{m.qualified_name}  {m.repo_id}:{m.file_path}")
        line = (f"{m.kind:<12} {where}:{m.start_line}-{m.end_line}"
                f"  [{m.chunk_type} L{m.chunk_start_line}-L{m.chunk_end_line}]")
        if m.other_parts:
            line += "  + parts " + ", ".join(f"L{a}-L{b}" for _, a, b in m.other_parts)
        out.append(line)
    return "\n".join(out)
