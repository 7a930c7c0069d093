"""`ledger deprecate`: mark chunks as deprecated (or clear the mark), so queries leave them out.

target (a chunk `path#index` or its ledger_id, a file path, or a symbol name) -> the chunk rows it
names -> one row per ledger_id in DuckDB's `deprecations` (so every later ingest carries the mark:
points._desired merges it into the payload, and into the fingerprint) -> the live points' payload
field `deprecated` = {"reason", "utc"} set (or deleted) at once, so the next query already sees it.

A mark lives as long as its ledger_id: re-ingests, edits elsewhere and renames of the unchanged
chunk keep it; an edit of the marked chunk itself gives it a new ledger_id, and no mark.
A symbol names the chunks whose subject (ingest/concepts.py) is that symbol or lies inside it: a
member's chunk and its parts; a type's header, its whole-type copy and its members' chunks.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import datetime, timezone

from qdrant_client import models

from ledger_assets.ingest.concepts import qualified_name, subject
from ledger_assets.store.printable import printable, show_path
from ledger_assets.retrieval.symbols import ToolInputError, symbol_lookup
from ledger_assets.store import local_index
from ledger_assets.store.db import deprecated_field, dict_rows
from ledger_assets.store.ledger import Ledger

_CHUNK = re.compile(r"^(?P<path>.+)#(?P<index>\d+)$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)
MAX_REASON_CHARS = 500


@dataclass(frozen=True)
class MarkedChunk:
    file_path: str
    chunk_index: int
    ledger_id: str
    chunk_type: str
    start_line: int
    end_line: int


def _rows(ledger: Ledger, repo_id: str, where: str, params: list) -> list[dict]:
    with ledger.db.connect() as con:
        return dict_rows(con.execute(
            "SELECT file_path, chunk_index, ledger_id, chunk_type, start_line, end_line, symbols FROM served.chunks "
            f"WHERE repo_id = ? AND {where} ORDER BY file_path, chunk_index", [repo_id, *params]))


def resolve_target(ledger: Ledger, repo_id: str, target: str) -> tuple[str, list[dict]]:
    """(kind, chunk rows) for a target: `chunk` (path#index), `ledger_id`, `file` or `symbol`."""
    target = (target or "").strip()
    if not target:
        raise ToolInputError("TARGET is empty: give path#index, a ledger_id, a file path or a symbol name")
    m = _CHUNK.match(target)
    if m:
        rows = _rows(ledger, repo_id, "file_path = ? AND chunk_index = ?",
                     [m["path"].replace("\\", "/").removeprefix("./"), int(m["index"])])
        if not rows:
            raise ToolInputError(f"{show_path(target)}: no such chunk in repo {repo_id!r}")
        return "chunk", rows
    if _UUID.match(target):
        rows = _rows(ledger, repo_id, "ledger_id = ?", [target.lower()])
        return "ledger_id", rows
    rows = _rows(ledger, repo_id, "file_path = ?", [target.replace("\\", "/").removeprefix("./")])
    if rows:
        return "file", rows
    try:
        matches = symbol_lookup(ledger, target, repo_id, limit=200)
    except ToolInputError:
        matches = []
    if not matches:
        raise ToolInputError(f"{show_path(target)!r}: no chunk (path#index), ledger_id, file or symbol of that name "
                             f"in repo {repo_id!r}")
    names = {qualified_name(x.name, x.parent) for x in matches}
    outer = min(names, key=len)
    if all(n == outer or n.startswith(outer + ".") for n in names):
        names = {outer}  # a type and its constructor (`StockLedger`): the type holds it
    if len(names) > 1:
        raise ToolInputError(f"{show_path(target)!r} names {len(names)} symbols ({', '.join(sorted(names)[:6])}): "
                             "qualify it (Type.Member)")
    qualified = names.pop()
    files = sorted({x.file_path for x in matches})
    rows = [r for r in _rows(ledger, repo_id, f"file_path IN ({', '.join('?' for _ in files)})", files)
            if (s := subject(r["symbols"])) and (s == qualified or s.startswith(qualified + "."))]
    if not rows:
        x = matches[0]
        raise ToolInputError(f"{qualified} has no chunk of its own: it is declared inside "
                             f"{x.file_path}#{x.chunk_index} ({x.chunk_type} L{x.chunk_start_line}-"
                             f"L{x.chunk_end_line}), which holds more; deprecate that chunk or its type")
    return "symbol", rows


def deprecate(ledger: Ledger, repo_id: str, target: str, reason: str | None = None, undo: bool = False) -> dict:
    """Mark (or with `undo` clear) the chunks `target` names; returns what was done."""
    if not repo_id:
        raise ToolInputError("REPO is empty")
    with ledger.db.connect() as con:
        known = con.execute("SELECT count(*) FROM served.chunks WHERE repo_id = ?", [repo_id]).fetchone()[0]
    if not known:
        raise ToolInputError(f"repo {show_path(repo_id)!r} has no chunks: register and ingest it first")
    reason = " ".join((reason or "").split())
    if not undo and not reason:
        raise ToolInputError("--reason is required: say why (and what to use instead)")
    if len(reason) > MAX_REASON_CHARS:
        raise ToolInputError(f"--reason is {len(reason)} characters; at most {MAX_REASON_CHARS}")
    kind, rows = resolve_target(ledger, repo_id, target)
    if not rows and not undo:
        raise ToolInputError(f"{show_path(target)}: no chunk with that ledger_id in repo {repo_id!r}")
    ids = sorted({r["ledger_id"] for r in rows} | ({target.strip().lower()} if kind == "ledger_id" else set()))
    utc = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    with ledger.db.transaction() as con:
        marks = ", ".join("?" for _ in ids)
        had = con.execute(f"SELECT count(*) FROM deprecations WHERE repo_id = ? AND ledger_id IN ({marks})",
                          [repo_id, *ids]).fetchone()[0]
        con.execute(f"DELETE FROM deprecations WHERE repo_id = ? AND ledger_id IN ({marks})", [repo_id, *ids])
        if not undo:
            con.executemany("INSERT INTO deprecations VALUES (?, ?, ?, ?, ?)",
                            [[repo_id, lid, reason, utc, target.strip()] for lid in ids])
    if not rows and not had:
        raise ToolInputError(f"{show_path(target)}: no chunk and no mark with that ledger_id in repo {repo_id!r}")
    points = _apply(ledger, repo_id, ids, None if undo else deprecated_field(reason, utc))
    chunks = [asdict(MarkedChunk(r["file_path"], r["chunk_index"], r["ledger_id"], r["chunk_type"],
                                 r["start_line"], r["end_line"])) for r in rows]
    return {"repo_id": repo_id, "target": target.strip(), "target_kind": kind, "undo": undo,
            "deprecated": None if undo else deprecated_field(reason, utc), "chunks": chunks,
            "marks_removed": int(had) if undo else 0, "points_updated": points}


def _apply(ledger: Ledger, repo_id: str, ledger_ids: list[str], mark: dict | None) -> int:
    """Set (or delete) `deprecated` on the points of these ledger_ids, every version; returns how many."""
    if not ledger_ids:
        return 0
    flt = models.Filter(must=[
        models.FieldCondition(key="repo_id", match=models.MatchValue(value=repo_id)),
        models.FieldCondition(key="ledger_id", match=models.MatchAny(any=ledger_ids)),
    ])
    with ledger.qdrant.open() as client:
        if not client.collection_exists(ledger.qdrant.collection):
            return 0
        n = client.count(ledger.qdrant.collection, count_filter=flt, exact=True).count
        folder = None
        if n:
            if mark is None:
                client.delete_payload(ledger.qdrant.collection, keys=["deprecated"], points=flt, wait=True)
            else:
                client.set_payload(ledger.qdrant.collection, {"deprecated": mark}, points=flt, wait=True)
            folder = local_index.build_served(ledger.qdrant, client)
    if n and folder:
        with ledger.db.transaction() as con:
            local_index.set_served_pointer(con, ledger.qdrant, folder)
        local_index.prune_served(ledger.qdrant, folder)
    return n


def format_deprecation(report: dict) -> str:
    verb = "cleared the mark of" if report["undo"] else "deprecated"
    head = (f"{verb} {len(report['chunks'])} chunk(s) of {report['repo_id']} named by {report['target_kind']} "
            f"{report['target']!r} ({report['points_updated']} point(s) updated")
    head += f", {report['marks_removed']} mark(s) removed)" if report["undo"] else ")"
    if report["deprecated"]:
        head += f": {report['deprecated']['reason']}"
    lines = [head]
    lines += [f"  {printable(c['file_path'])}#{c['chunk_index']}  L{c['start_line']}-L{c['end_line']}  [{c['chunk_type']}]  "
              f"{c['ledger_id']}" for c in report["chunks"]]
    return "\n".join(lines)
