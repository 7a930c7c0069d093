"""Symbol lookup: a name (bare, `Type.Member`, `Namespace::Type`) to the chunks that declare it.

Used by `ledger symbol`, the MCP tool and the search's named-symbol resolution.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

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

    @property
    def qualified_name(self) -> str:
        return f"{self.parent}.{self.name}" if self.parent else self.name

    def to_dict(self) -> dict:
        return {**asdict(self), "qualified_name": self.qualified_name}


_QUALIFIED = re.compile(r"^[A-Za-z_@$][\w$]*(?:(?:\.|::)[A-Za-z_@$~][\w$]*)*$")


def symbol_lookup(ledger: Ledger, name: str, repo: str | None = None, limit: int = 50) -> list[SymbolMatch]:
    """Exact, case-insensitive; `Type.Member` matches a member whose parent ends with `Type`.

    A symbol is listed in every chunk shape that holds it (member, type header,
    full type); each match points at the most specific one (the shortest range).
    """
    raw = (name or "").strip().removesuffix("()")
    if not _QUALIFIED.match(raw):
        raise ToolInputError(f"{name!r} is not a symbol name (use Name, Type.Member or Namespace.Type.Member)")
    parts = re.split(r"\.|::", raw.lower())
    leaf, qual = parts[-1], ".".join(parts[:-1])
    sql = ("SELECT s.repo_id, s.file_path, s.name, s.kind, coalesce(s.parent, ''), s.start_line, s.end_line, "
           "c.chunk_index, c.chunk_type, c.start_line, c.end_line "
           "FROM symbols s JOIN chunks c USING (repo_id, file_path, chunk_index) "
           "WHERE lower(s.name) = ? ")
    params: list = [leaf]
    if qual:
        sql += "AND (lower(replace(s.parent, '::', '.')) = ? OR ends_with(lower(replace(s.parent, '::', '.')), ?)) "
        params += [qual, "." + qual]
    if repo:
        sql += "AND s.repo_id = ? "
        params.append(repo)
    # The chunk that holds the whole symbol, shortest first (a type header lists its members too).
    sql += ("ORDER BY s.repo_id, s.file_path, s.start_line, s.kind, s.name, "
            "(c.start_line <= s.start_line AND c.end_line >= s.end_line) DESC, "
            "(c.end_line - c.start_line), c.chunk_index")
    with ledger.db.connect() as con:
        rows = con.execute(sql, params).fetchall()
    best: dict[tuple, SymbolMatch] = {}
    for row in rows:
        m = SymbolMatch(*row)
        key = (m.repo_id, m.file_path, m.name, m.kind, m.parent, m.start_line, m.end_line)
        if key not in best:  # rows come shortest chunk first
            best[key] = m
    matches = list(best.values())
    exact = [m for m in matches if m.name == raw.split(".")[-1].split("::")[-1]]
    ordered = exact + [m for m in matches if m not in exact]
    return ordered[:limit]


def format_symbols(matches: list[SymbolMatch]) -> str:
    if not matches:
        return "no such symbol"
    return "\n".join(f"{m.kind:<12} {m.qualified_name}  {m.repo_id}:{m.file_path}:{m.start_line}-{m.end_line}"
                     f"  [{m.chunk_type} L{m.chunk_start_line}-L{m.chunk_end_line}]" for m in matches)
