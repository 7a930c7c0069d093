"""The checks that gate the ingest: run inside their stage, reported as Dagster asset checks.

line_coverage, member_symbols and idempotent gate `chunks`; qdrant_in_sync gates `qdrant_points` (on the staged view: see ingest/promotion.py).
Each returns a `CheckOutcome` whose metadata names the offending files or chunks.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from chunkers import DEFAULT_OPTIONS, ChunkOptions, chunk_file_guarded

from ledger_assets.encode.embedder import text_hash
from ledger_assets.ingest.snapshot import read_blobs, stored_manifest
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.qdrant import repo_filter

# Chunk types cut around one declared member: each must carry that member's symbol.
MEMBER_CHUNK_TYPES = frozenset({"cs_member", "py_function", "sql_proc", "sql_table",
                                "openapi_operation", "openapi_schema"})
TRUNCATION_MARKERS = ("[truncated]", "<truncated>", "… (truncated)", "...truncated")
# Unchanged files re-chunked by the idempotent check: enough to catch a
# non-deterministic chunker, few enough to keep a no-op run cheap.
IDEMPOTENCE_SAMPLE = 50


@dataclass
class CheckOutcome:
    name: str
    passed: bool
    description: str
    metadata: dict[str, Any] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)  # the offending files, whole (metadata lists 50)



def check_line_coverage(ledger: Ledger, repo_id: str) -> CheckOutcome:
    """Every indexed text file: 100% of its lines inside some chunk, as many chunk rows as its chunker
    gave, and no chunk cut short (a truncation marker the file itself does not hold there)."""
    with ledger.db.connect() as con:
        n_lines = dict(con.execute(
            "SELECT file_path, n_lines FROM files WHERE repo_id = ? AND n_lines > 0 AND coalesce(skip_reason, '') = ''",
            [repo_id]).fetchall())
        ranges = con.execute(
            "SELECT file_path, start_line, end_line FROM chunks WHERE repo_id = ? ORDER BY file_path, start_line",
            [repo_id]).fetchall()
        row_counts = con.execute(
            "SELECT f.file_path, f.n_chunks, count(c.chunk_index) FROM files f LEFT JOIN chunks c USING (repo_id, file_path) "
            "WHERE f.repo_id = ? AND coalesce(f.skip_reason, '') = '' GROUP BY 1, 2 HAVING count(c.chunk_index) <> f.n_chunks",
            [repo_id]).fetchall()
        # A truncating chunker ends the body with the marker; the same words inside
        # a body are source text (this very module names them), not a truncation.
        marked = con.execute(
            "SELECT file_path, end_line FROM chunks WHERE repo_id = ? AND ("
            + " OR ".join("suffix(rtrim(text, chr(32) || chr(9) || chr(10) || chr(13)), ?)"
                          for _ in TRUNCATION_MARKERS) + ")",
            [repo_id, *TRUNCATION_MARKERS]).fetchall()
        entries, _, snap = stored_manifest(con, repo_id) if marked else ({}, {}, None)
    by_file: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for path, start, end in ranges:
        by_file[path].append((start, end))
    offenders = {}
    for path, total in n_lines.items():
        covered_to, missing = 0, 0
        for start, end in sorted(by_file.get(path, [])):
            if start > covered_to + 1:
                missing += start - covered_to - 1
            covered_to = max(covered_to, end)
        missing += max(0, total - covered_to)
        if missing:
            offenders[path] = f"{missing}/{total} lines uncovered"
    for path, want, have in row_counts:
        offenders.setdefault(path, f"{have} chunk rows stored of the {want} its chunker gave")
    for path in _cut_short(marked, entries, snap):
        offenders[path] = "chunk with a truncation marker"
    return CheckOutcome(
        "line_coverage", not offenders,
        f"{len(n_lines) - len(offenders)}/{len(n_lines)} files fully covered",
        {"files_checked": len(n_lines), "offending_files": len(offenders),
         "offenders": json.dumps(dict(list(sorted(offenders.items()))[:50]))},
        files=sorted(offenders))


def _cut_short(marked: list[tuple[str, int]], entries: dict, snap) -> list[str]:
    """Files with a chunk ending in a truncation marker that the file's own line there does not end with."""
    if not marked:
        return []
    ends: dict[str, set[int]] = defaultdict(set)
    for path, end in marked:
        ends[path].add(end)
    cut = set(p for p in ends if p not in entries)
    _, source, repo_path = snap
    for entry, data in read_blobs(repo_path, source, [entries[p] for p in sorted(ends) if p in entries]):
        lines = data.decode("utf-8", "replace").splitlines()
        for end in ends[entry.file_path]:
            at = min(end, len(lines))
            while at > 1 and not lines[at - 1].strip():  # the chunk's last non-blank line
                at -= 1
            if not (at >= 1 and lines[at - 1].rstrip().endswith(TRUNCATION_MARKERS)):
                cut.add(entry.file_path)
    return sorted(cut)


def check_member_symbols(ledger: Ledger, repo_id: str) -> CheckOutcome:
    with ledger.db.connect() as con:
        rows = con.execute(
            "SELECT file_path, chunk_index, chunk_type FROM chunks WHERE repo_id = ? AND chunk_type IN ("
            + ",".join("?" * len(MEMBER_CHUNK_TYPES)) + ") AND json_array_length(symbols) = 0",
            [repo_id, *sorted(MEMBER_CHUNK_TYPES)]).fetchall()
        total = con.execute(
            "SELECT count(*) FROM chunks WHERE repo_id = ? AND chunk_type IN ("
            + ",".join("?" * len(MEMBER_CHUNK_TYPES)) + ")", [repo_id, *sorted(MEMBER_CHUNK_TYPES)]).fetchone()[0]
    return CheckOutcome(
        "member_symbols", not rows, f"{total - len(rows)}/{total} per-member chunks carry their own symbol",
        {"member_chunks": int(total), "without_symbol": len(rows),
         "offenders": json.dumps([f"{f}#{i} ({t})" for f, i, t in rows[:50]])}, files=sorted({f for f, _, _ in rows}))


def check_idempotent(ledger: Ledger, repo_id: str, chunked_now: dict[str, list[tuple]],
                     options: ChunkOptions = DEFAULT_OPTIONS) -> CheckOutcome:
    """Re-chunking reproduces the stored chunk ids and hashes: the files chunked
    in this run plus a deterministic sample of the unchanged ones. Every stored
    row's text must still hash to its content hash (a row altered since)."""
    with ledger.db.connect() as con:
        entries, files, snap = stored_manifest(con, repo_id)
        stored_rows = con.execute(
            "SELECT file_path, chunk_index, content_hash, start_line, end_line, chunk_type, text FROM chunks "
            "WHERE repo_id = ? ORDER BY file_path, chunk_index", [repo_id]).fetchall()
    stored: dict[str, list[tuple]] = defaultdict(list)
    altered = set()
    for path, *rest, text in stored_rows:
        stored[path].append(tuple(rest))
        if text_hash(text or "") != rest[1]:
            altered.add(path)
    unchanged = sorted(p for p in files if p not in chunked_now and p in entries and not entries[p].skip_reason)
    sample = random.Random(repo_id).sample(unchanged, min(IDEMPOTENCE_SAMPLE, len(unchanged)))
    targets = sorted(set(chunked_now) | set(sample))
    offenders = []
    _, source, repo_path = snap
    for entry, data in read_blobs(repo_path, source, [entries[p] for p in targets if p in entries]):
        again = [(i, text_hash(p.text), p.start_line, p.end_line, p.chunk_type)
                 for i, p in enumerate(chunk_file_guarded(entry.file_path, data, options).pieces)]
        if again != stored.get(entry.file_path, []):
            offenders.append(entry.file_path)
    offenders = sorted(set(offenders) | altered)
    return CheckOutcome(
        "idempotent", not offenders,
        f"re-chunked {len(targets)} files; {len(offenders)} differ from the stored chunks",
        {"files_rechunked": len(targets), "differing_files": len(offenders),
         "offenders": json.dumps(offenders[:50])}, files=offenders)



def check_qdrant_in_sync_with(client, ledger: Ledger, repo_id: str, expected: dict[tuple[str, int], str],
                              staged_sha: str | None = None, retired=frozenset()) -> CheckOutcome:
    """One point per chunk row, with the row's content hash, and no other point. `expected`: slot ->
    content hash. With `staged_sha`, the view checked is the one promotion would serve: the live
    points not in `retired`, plus the points staged for that sha (ingest/promotion.py)."""
    latest: Counter = Counter()
    stale_content = []
    for rec in ledger.qdrant.scroll(client, repo_filter(repo_id, latest_only=staged_sha is None),
                                    ["file_path", "chunk_index", "content_hash", "is_latest", "staged", "staged_sha"]):
        p = rec.payload or {}
        if p.get("staged"):
            if staged_sha is None or p.get("staged_sha") != staged_sha:
                continue
        elif p.get("is_latest", True) is not True or str(rec.id) in retired:
            continue
        key = (p.get("file_path"), p.get("chunk_index"))
        latest[key] += 1
        want = expected.get(key)
        if want and want != p.get("content_hash"):
            stale_content.append(f"{key[0]}#{key[1]}")
    orphans = [f"{k[0]}#{k[1]}" for k in latest if k not in expected]
    missing = [f"{k[0]}#{k[1]}" for k in expected if k not in latest]
    doubled = [f"{k[0]}#{k[1]}" for k, n in latest.items() if n > 1]
    ok = not (orphans or missing or doubled or stale_content)
    what = "staged view" if staged_sha else "latest points"
    return CheckOutcome(
        "qdrant_in_sync", ok,
        f"{sum(latest.values())} points in the {what} for {len(expected)} chunk rows",
        {"chunk_rows": len(expected), "latest_points": sum(latest.values()), "orphan_points": len(orphans),
         "missing_points": len(missing), "duplicate_latest": len(doubled), "stale_content": len(stale_content),
         "offenders": json.dumps((orphans + missing + doubled + stale_content)[:50])})
