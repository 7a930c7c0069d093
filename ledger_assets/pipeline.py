"""The ingest, stage by stage: snapshot -> chunk -> (intents) -> embed -> points.

Each stage is a plain function over a `Ledger` and one repo id (one Dagster
partition); it touches only that repo's rows and points, declares what should
exist, and writes only the difference. The Dagster assets (assets.py) are
thin wrappers that turn the returned reports into metadata and checks.
"""

from __future__ import annotations

import json
import random
import re
import time
import uuid
from collections import Counter, defaultdict
from itertools import groupby
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from chunkers import CHUNKER_VERSION, DEFAULT_OPTIONS, ChunkOptions, chunk_file_result
from chunkers.text import decode, line_count, BinaryContent
from qdrant_client import models

from . import lexical
from .core import Ledger
from .embedder import Embedder, embed_with_cache, fetch_vectors, normalize_text, text_hash
from .qdrant_store import (CODE_VECTOR, DESIGN_VECTOR, QUALITY_VECTOR, SPARSE_VECTOR, SYMBOL_VECTOR, point_id,
                           repo_filter)
from .quality import quality_vector
from .repos import write_indexed_head
from .snapshot import ManifestEntry, last_commit_times, read_blobs, take_snapshot
from .store import dict_rows, insert_arrow, temp_keys
from .heuristic import words
from .symbol_lane import file_symbol_texts

# Chunk types cut around one declared member: each must carry that member's symbol.
MEMBER_CHUNK_TYPES = frozenset({"cs_member", "py_function", "sql_proc", "sql_table",
                                "openapi_operation", "openapi_schema"})
TRUNCATION_MARKERS = ("[truncated]", "<truncated>", "… (truncated)", "...truncated")
MAX_PAYLOAD_SYMBOLS = 64
# Unchanged files re-chunked by the idempotent check: enough to catch a
# non-deterministic chunker, few enough to keep a no-op run cheap.
IDEMPOTENCE_SAMPLE = 50


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def content_hash(text: str) -> str:
    return text_hash(text)


@dataclass
class CheckOutcome:
    name: str
    passed: bool
    description: str
    metadata: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------- snapshot ---
@dataclass
class SnapshotReport:
    head_sha: str
    source: str
    files_total: int
    files_indexable: int
    skipped: dict[str, int]
    languages: dict[str, int]
    elapsed_s: float


def snapshot_stage(ledger: Ledger, repo_id: str, run_id: str, log) -> SnapshotReport:
    t0 = time.monotonic()
    repo = ledger.registry.get(repo_id)
    s = ledger.settings
    snap = take_snapshot(repo.path, repo.kind, s.max_file_bytes, s.max_pdf_bytes)
    entries = snap.entries
    skipped = Counter(e.skip_reason.split(" (")[0] for e in entries if e.skip_reason)
    languages = Counter(e.language for e in entries if not e.skip_reason)
    with ledger.db.transaction() as con:
        con.execute("DELETE FROM manifest WHERE repo_id = ?", [repo_id])
        insert_arrow(con, "manifest", {
            "repo_id": [repo_id] * len(entries),
            "file_path": [e.file_path for e in entries],
            "blob_hash": [e.blob_hash for e in entries],
            "size": [e.size for e in entries],
            "language": [e.language for e in entries],
            "skip_reason": [e.skip_reason for e in entries],
        })
        con.execute("DELETE FROM snapshots WHERE repo_id = ?", [repo_id])
        con.execute("INSERT INTO snapshots VALUES (?, ?, ?, ?, now(), ?, ?, ?, ?)",
                    [repo_id, snap.head_sha, snap.source, repo.path, run_id, len(entries),
                     len(snap.indexable), len(entries) - len(snap.indexable)])
    elapsed = time.monotonic() - t0
    ledger.db.add_to_summary(run_id, repo_id, head_sha=snap.head_sha, files_scanned=len(entries),
                             files_skipped=len(entries) - len(snap.indexable), elapsed_s=elapsed)
    log.info(f"{repo_id}@{snap.head_sha[:12]}: {len(entries)} files, {len(snap.indexable)} indexable, "
             f"skipped {dict(skipped)}")
    return SnapshotReport(snap.head_sha, snap.source, len(entries), len(snap.indexable), dict(skipped),
                          dict(languages), elapsed)


# ------------------------------------------------------------------ chunks ---
@dataclass
class ChunkReport:
    files_changed: int
    files_removed: int
    files_unchanged: int
    chunk_rows_written: int
    chunk_rows_deleted: int
    files_skipped_by_chunker: dict[str, str]
    chunk_types: dict[str, int]
    total_chunks: int
    notes: dict[str, str]
    elapsed_s: float
    checks: list[CheckOutcome] = field(default_factory=list)


def _manifest(con, repo_id: str) -> tuple[dict[str, ManifestEntry], dict[str, tuple], tuple]:
    entries = {
        r[0]: ManifestEntry(*r)
        for r in con.execute(
            "SELECT file_path, blob_hash, size, language, skip_reason FROM manifest WHERE repo_id = ?",
            [repo_id]).fetchall()
    }
    files = {r[0]: (r[1], r[2]) for r in con.execute(
        "SELECT file_path, blob_hash, chunker_version FROM files WHERE repo_id = ?", [repo_id]).fetchall()}
    snap = con.execute("SELECT head_sha, source, repo_path FROM snapshots WHERE repo_id = ?", [repo_id]).fetchone()
    return entries, files, snap


def _piece_rows(repo_id: str, entry: ManifestEntry, pieces) -> list[dict]:
    rows = []
    for idx, p in enumerate(pieces):
        rows.append({
            "repo_id": repo_id, "file_path": entry.file_path, "chunk_index": idx,
            "content_hash": content_hash(p.text), "chunk_type": p.chunk_type, "language": entry.language,
            "start_line": p.start_line, "end_line": p.end_line, "text": p.text,
            "analysis_text": p.analysis_text, "header": p.header, "skeleton": p.skeleton,
            "symbols": json.dumps([s.to_dict() for s in p.symbols]),
            "meta": json.dumps(p.meta, sort_keys=True),
        })
    return rows


def chunk_stage(ledger: Ledger, repo_id: str, run_id: str, log,
                options: ChunkOptions = DEFAULT_OPTIONS) -> ChunkReport:
    t0 = time.monotonic()
    with ledger.db.connect() as con:
        entries, files, snap = _manifest(con, repo_id)
    if snap is None:
        raise RuntimeError(f"no snapshot for repo {repo_id!r}: materialize repo_snapshot first")
    head_sha, source, repo_path = snap
    indexable = {p: e for p, e in entries.items() if not e.skip_reason}
    changed = [e for p, e in sorted(indexable.items()) if files.get(p) != (e.blob_hash, CHUNKER_VERSION)]
    removed = sorted(p for p in files if p not in indexable)

    new_rows: list[dict] = []
    file_rows: list[dict] = []
    skipped: dict[str, str] = {}
    notes: dict[str, str] = {}
    pieces_by_file: dict[str, list[tuple]] = {}
    commit_times = last_commit_times(repo_path, [e.file_path for e in changed]) if source == "git" else {}
    for n, (entry, data) in enumerate(read_blobs(repo_path, source, changed), 1):
        result = chunk_file_result(entry.file_path, data, options)
        rows = _piece_rows(repo_id, entry, result.pieces)
        if result.notes:
            notes[entry.file_path] = "; ".join(result.notes)
        if result.skip_reason:
            skipped[entry.file_path] = result.skip_reason
        try:
            n_lines = line_count(decode(data)) if entry.language != "pdf" else 0
        except BinaryContent:
            n_lines = 0
        when = commit_times.get(entry.file_path)
        file_rows.append({
            "repo_id": repo_id, "file_path": entry.file_path, "blob_hash": entry.blob_hash,
            "chunker_version": CHUNKER_VERSION, "language": entry.language, "n_lines": n_lines,
            "n_chunks": len(rows), "skip_reason": result.skip_reason, "notes": notes.get(entry.file_path, ""),
            "valid_from_utc": datetime.fromtimestamp(when, timezone.utc).replace(tzinfo=None) if when else None,
        })
        new_rows.extend(rows)
        pieces_by_file[entry.file_path] = [(r["chunk_index"], r["content_hash"], r["start_line"], r["end_line"],
                                            r["chunk_type"]) for r in rows]
        if n % 500 == 0:
            log.info(f"chunked {n}/{len(changed)} changed files")

    touched = [e.file_path for e in changed] + removed
    with ledger.db.transaction() as con:
        temp_keys(con, "touched", touched)
        # Identity that survives renames: reuse a ledger_id seen for the same content, never twice at once.
        kept_ids = {r[0] for r in con.execute(
            "SELECT ledger_id FROM chunks WHERE repo_id = ? AND file_path NOT IN (SELECT k FROM touched)",
            [repo_id]).fetchall()}
        temp_keys(con, "hashes", [r["content_hash"] for r in new_rows])
        known: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for h, lid, path in con.execute(
                "SELECT content_hash, ledger_id, file_path FROM ledger_ids JOIN hashes ON hashes.k = content_hash "
                "WHERE repo_id = ? ORDER BY ledger_id", [repo_id]).fetchall():
            known[h].append((lid, path))
        fresh = []
        for row in new_rows:
            candidates = sorted(known.get(row["content_hash"], []), key=lambda c: c[1] != row["file_path"])
            lid = next((c[0] for c in candidates if c[0] not in kept_ids), None)
            if lid is None:
                lid = str(uuid.uuid4())
                fresh.append((row["content_hash"], lid, row["file_path"]))
            kept_ids.add(lid)
            row["ledger_id"] = lid
        deleted = con.execute(
            "SELECT count(*) FROM chunks WHERE repo_id = ? AND file_path IN (SELECT k FROM touched)",
            [repo_id]).fetchone()[0]
        for table in ("chunks", "symbols", "files"):
            con.execute(f"DELETE FROM {table} WHERE repo_id = ? AND file_path IN (SELECT k FROM touched)", [repo_id])
        if new_rows:
            cols = list(new_rows[0])
            insert_arrow(con, "chunks", {c: [r[c] for r in new_rows] for c in cols})
        sym_rows = [(r["repo_id"], r["file_path"], r["chunk_index"], s) for r in new_rows for s in json.loads(r["symbols"])]
        insert_arrow(con, "symbols", {
            "repo_id": [x[0] for x in sym_rows], "file_path": [x[1] for x in sym_rows],
            "chunk_index": [x[2] for x in sym_rows], "name": [x[3]["name"] for x in sym_rows],
            "kind": [x[3]["kind"] for x in sym_rows], "parent": [x[3]["parent"] for x in sym_rows],
            "start_line": [x[3]["start_line"] for x in sym_rows], "end_line": [x[3]["end_line"] for x in sym_rows],
        })
        if file_rows:
            cols = list(file_rows[0])
            insert_arrow(con, "files", {c: [r[c] for r in file_rows] for c in cols})
            con.execute("UPDATE files SET chunked_utc = now() WHERE repo_id = ? AND chunked_utc IS NULL", [repo_id])
        insert_arrow(con, "ledger_ids", {
            "repo_id": [repo_id] * len(fresh), "content_hash": [f[0] for f in fresh],
            "ledger_id": [f[1] for f in fresh], "file_path": [f[2] for f in fresh],
        })
        chunk_types = dict(con.execute(
            "SELECT chunk_type, count(*) FROM chunks WHERE repo_id = ? GROUP BY 1 ORDER BY 2 DESC",
            [repo_id]).fetchall())
    elapsed = time.monotonic() - t0
    report = ChunkReport(
        files_changed=len(changed), files_removed=len(removed),
        files_unchanged=len(indexable) - len(changed), chunk_rows_written=len(new_rows),
        chunk_rows_deleted=int(deleted), files_skipped_by_chunker=skipped, chunk_types=chunk_types,
        total_chunks=sum(chunk_types.values()), notes=notes, elapsed_s=elapsed)
    report.checks = [
        check_line_coverage(ledger, repo_id),
        check_member_symbols(ledger, repo_id),
        check_idempotent(ledger, repo_id, pieces_by_file, options),
    ]
    ledger.db.add_to_summary(run_id, repo_id, files_changed=len(changed), files_removed=len(removed),
                             chunk_rows_written=len(new_rows), elapsed_s=elapsed)
    log.info(f"chunks: {len(changed)} files changed, {len(removed)} removed, {len(new_rows)} chunk rows written, "
             f"{report.total_chunks} chunks in the repo")
    return report


def check_line_coverage(ledger: Ledger, repo_id: str) -> CheckOutcome:
    """Every indexed text file: 100% of its lines inside some chunk; no truncation marker."""
    with ledger.db.connect() as con:
        n_lines = dict(con.execute(
            "SELECT file_path, n_lines FROM files WHERE repo_id = ? AND n_lines > 0 AND coalesce(skip_reason, '') = ''",
            [repo_id]).fetchall())
        ranges = con.execute(
            "SELECT file_path, start_line, end_line FROM chunks WHERE repo_id = ? ORDER BY file_path, start_line",
            [repo_id]).fetchall()
        # A truncating chunker ends the body with the marker; the same words inside
        # a body are source text (this very module names them), not a truncation.
        truncated = [r[0] for r in con.execute(
            "SELECT DISTINCT file_path FROM chunks WHERE repo_id = ? AND ("
            + " OR ".join("suffix(rtrim(text, chr(32) || chr(9) || chr(10) || chr(13)), ?)"
                          for _ in TRUNCATION_MARKERS) + ")",
            [repo_id, *TRUNCATION_MARKERS]).fetchall()]
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
    for path in truncated:
        offenders[path] = "chunk with a truncation marker"
    return CheckOutcome(
        "line_coverage", not offenders,
        f"{len(n_lines) - len(offenders)}/{len(n_lines)} files fully covered",
        {"files_checked": len(n_lines), "offending_files": len(offenders),
         "offenders": json.dumps(dict(list(sorted(offenders.items()))[:50]))})


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
         "offenders": json.dumps([f"{f}#{i} ({t})" for f, i, t in rows[:50]])})


def check_idempotent(ledger: Ledger, repo_id: str, chunked_now: dict[str, list[tuple]],
                     options: ChunkOptions = DEFAULT_OPTIONS) -> CheckOutcome:
    """Re-chunking reproduces the stored chunk ids and hashes: the files chunked
    in this run plus a deterministic sample of the unchanged ones."""
    with ledger.db.connect() as con:
        entries, files, snap = _manifest(con, repo_id)
        stored_rows = con.execute(
            "SELECT file_path, chunk_index, content_hash, start_line, end_line, chunk_type FROM chunks "
            "WHERE repo_id = ? ORDER BY file_path, chunk_index", [repo_id]).fetchall()
    stored: dict[str, list[tuple]] = defaultdict(list)
    for path, *rest in stored_rows:
        stored[path].append(tuple(rest))
    unchanged = sorted(p for p in files if p not in chunked_now and p in entries and not entries[p].skip_reason)
    sample = random.Random(repo_id).sample(unchanged, min(IDEMPOTENCE_SAMPLE, len(unchanged)))
    targets = sorted(set(chunked_now) | set(sample))
    offenders = []
    _, source, repo_path = snap
    for entry, data in read_blobs(repo_path, source, [entries[p] for p in targets if p in entries]):
        again = [(i, content_hash(p.text), p.start_line, p.end_line, p.chunk_type)
                 for i, p in enumerate(chunk_file_result(entry.file_path, data, options).pieces)]
        if again != stored.get(entry.file_path, []):
            offenders.append(entry.file_path)
    return CheckOutcome(
        "idempotent", not offenders,
        f"re-chunked {len(targets)} files; {len(offenders)} differ from the stored chunks",
        {"files_rechunked": len(targets), "differing_files": len(offenders),
         "offenders": json.dumps(offenders[:50])})


# ---------------------------------------------------------------- intents ---
def intent_stage(ledger: Ledger, repo_id: str, run_id: str, log):
    from .analysis import analyse_repo

    t0 = time.monotonic()
    report = analyse_repo(ledger, repo_id, run_id, log)
    ledger.db.add_to_summary(run_id, repo_id, intent_skipped=report.intent_skipped,
                             llm_requests=report.llm_requests, llm_cost_usd=report.cost_usd,
                             elapsed_s=time.monotonic() - t0)
    return report


# ------------------------------------------------------------- embeddings ---
@dataclass
class EmbeddingReport:
    chunks: int
    texts: int
    embeddings_computed: int
    cache_hits: int
    elapsed_s: float


_IMPORT_LINE = re.compile(r"^(?:using\s+[\w.=\s]+;|import\s|from\s+\S+\s+import\s|#include\s|package\s)")


def code_text(text: str, symbols: list[dict]) -> str:
    """What the code lane embeds: the chunk led by its symbols' names in words, without its
    import/using lines and blank lines. The model reads its first 256 tokens only, and a C#
    type chunk starts with the file's usings: those tokens named every file's imports, not
    the code (measured with `ledger eval`: code lane R@1 0.261 -> 0.356 and 0.220 -> 0.300 on
    the two efcore golden sets of search.py; `similar --mode code` no longer matches files by
    their shared usings)."""
    names = "; ".join(dict.fromkeys(words(s["name"]) or s["name"] for s in symbols[:4] if s.get("name")))
    body = "\n".join(ln for ln in text.split("\n") if ln.strip() and not _IMPORT_LINE.match(ln))
    return f"{names}\n{body}" if names else body


def design_text(repo_id: str, layer: str | None, intent: str | None) -> str:
    return f"[{repo_id}/{layer or ''}] {intent or ''}"


def embedding_stage(ledger: Ledger, repo_id: str, run_id: str, log, embedder: Embedder) -> EmbeddingReport:
    t0 = time.monotonic()
    with ledger.db.connect() as con:
        cur = con.execute(
            "SELECT file_path, chunk_index, chunk_type, start_line, end_line, text, header, symbols, layer, intent, "
            "code_hash, design_hash, symbol_hashes FROM chunks WHERE repo_id = ? ORDER BY file_path, chunk_index",
            [repo_id])
        rows = dict_rows(cur)
    for row in rows:  # parsed once: the code text and the symbol sentences both read them
        row["symbols"] = json.loads(row["symbols"] or "[]")
    texts: dict[str, str] = {}
    updates = []
    symbol_lines = 0
    for _, group in groupby(rows, key=lambda r: r["file_path"]):
        chunks = list(group)
        owned = file_symbol_texts(chunks)
        for row in chunks:
            code_t = normalize_text(code_text(row["text"], row["symbols"]))
            design_t = design_text(repo_id, row["layer"], row["intent"])
            ch, dh = text_hash(code_t), text_hash(design_t)
            texts[ch], texts[dh] = code_t, design_t
            sym_hashes = []
            for sym_t in owned.get(row["chunk_index"], ()):
                sh = text_hash(sym_t)
                texts[sh] = sym_t
                sym_hashes.append(sh)
            symbol_lines += len(sym_hashes)
            sh_json = json.dumps(sym_hashes) if sym_hashes else ""
            if (ch, dh, sh_json) != (row["code_hash"], row["design_hash"], row["symbol_hashes"] or ""):
                updates.append((row["file_path"], row["chunk_index"], ch, dh, sh_json))
    if updates:
        with ledger.db.transaction() as con:
            _bulk_update_chunks(con, repo_id, updates, ("code_hash", "design_hash", "symbol_hashes"))

    def progress(done: int, total: int) -> None:
        log.info(f"embedded {done}/{total} new texts")

    computed = embed_with_cache(embedder, ledger.db, texts, progress)
    elapsed = time.monotonic() - t0
    ledger.db.add_to_summary(run_id, repo_id, embeddings_computed=computed, elapsed_s=elapsed)
    log.info(f"embeddings: {len(texts)} distinct texts ({symbol_lines} symbol lines), {computed} computed, "
             f"{len(texts) - computed} from cache")
    return EmbeddingReport(len(rows), len(texts), computed, len(texts) - computed, elapsed)


def _bulk_update_chunks(con, repo_id: str, updates: list[tuple], columns: tuple[str, ...]) -> None:
    """UPDATE chunks from (file_path, chunk_index, *values) tuples in one statement."""
    import pyarrow as pa

    data = {"file_path": [u[0] for u in updates], "chunk_index": pa.array([u[1] for u in updates], pa.int32())}
    for k, col in enumerate(columns):
        data[col] = [u[2 + k] for u in updates]
    con.register("_upd", pa.table(data))
    try:
        sets = ", ".join(f"{c} = _upd.{c}" for c in columns)
        con.execute(f"UPDATE chunks SET {sets} FROM _upd WHERE chunks.repo_id = ? AND chunks.file_path = _upd.file_path "
                    f"AND chunks.chunk_index = _upd.chunk_index", [repo_id])
    finally:
        con.unregister("_upd")


# ----------------------------------------------------------------- points ---
@dataclass
class PointsReport:
    points_total: int
    written: int
    refreshed: int
    deleted: int
    demoted: int
    collection_created: bool
    elapsed_s: float
    checks: list[CheckOutcome] = field(default_factory=list)


def compact_symbols(symbols_json: str) -> str:
    symbols = json.loads(symbols_json or "[]")[:MAX_PAYLOAD_SYMBOLS]
    return json.dumps([[s["name"], s["kind"], s.get("parent", ""), s["start_line"], s["end_line"]] for s in symbols],
                      separators=(",", ":")) if symbols else ""


def _payload(row: dict, repo_id: str) -> dict:
    meta = json.loads(row["meta"] or "{}")
    payload = {
        "repo_id": repo_id, "file_path": row["file_path"], "chunk_index": row["chunk_index"],
        "content": row["text"], "content_hash": row["content_hash"], "chunk_type": row["chunk_type"],
        "language": row["language"], "start_line": row["start_line"], "end_line": row["end_line"],
        "skeleton": row["skeleton"], "chunk_symbols": compact_symbols(row["symbols"]),
        "ledger_id": row["ledger_id"], "layer": row["layer"], "pattern": row["pattern"],
        "intent": row["intent"], "intent_source": row["intent_source"],
        "valid_from_utc": row["valid_from_utc"].isoformat() + "Z" if row["valid_from_utc"] else "",
        "start_page": meta.get("start_page"), "end_page": meta.get("end_page"),
        "part": meta.get("part"), "parts": meta.get("parts"), "visibility": meta.get("visibility"),
    }
    return {k: v for k, v in payload.items() if v not in (None, "", [], {})}


def _fingerprint(payload: dict, code_hash: str, design_hash: str, quality: list[float],
                 symbol_hashes: list[str] | None = None) -> str:
    """`vectors:payload` — the first half changes only when a vector would, so a
    payload-only change (a new commit time, an enrichment field) is written as a
    payload overwrite, without re-sending vectors."""
    vectors = text_hash(json.dumps([code_hash, design_hash, quality, payload.get("content"),
                                    payload.get("file_path"), payload.get("intent")]
                                   + ([symbol_hashes] if symbol_hashes else []), sort_keys=True))[:16]
    return vectors + ":" + text_hash(json.dumps(payload, sort_keys=True))[:16]


def _same_vectors(fp_a: str | None, fp_b: str | None) -> bool:
    return bool(fp_a and fp_b) and fp_a.split(":")[0] == fp_b.split(":")[0]


def points_stage(ledger: Ledger, repo_id: str, run_id: str, log) -> PointsReport:
    t0 = time.monotonic()
    s = ledger.settings
    now = utcnow().isoformat(timespec="seconds") + "Z"
    with ledger.db.connect() as con:
        head_sha = con.execute("SELECT head_sha FROM snapshots WHERE repo_id = ?", [repo_id]).fetchone()[0]
        cur = con.execute(
            "SELECT c.*, f.valid_from_utc FROM chunks c LEFT JOIN files f USING (repo_id, file_path) "
            "WHERE c.repo_id = ? ORDER BY c.file_path, c.chunk_index", [repo_id])
        rows = dict_rows(cur)
        extras: dict[tuple[str, int], dict] = defaultdict(dict)
        for path, idx, fields_json in con.execute(
                "SELECT file_path, chunk_index, fields FROM payload_extras WHERE repo_id = ? "
                "ORDER BY file_path, chunk_index, source", [repo_id]).fetchall():
            extras[(path, idx)].update(json.loads(fields_json or "{}"))
        rubrics = dict(con.execute(
            "SELECT a.analysis_key, a.rubric FROM analyses a JOIN chunks c ON c.analysis_key = a.analysis_key "
            "WHERE c.repo_id = ?", [repo_id]).fetchall())
    desired: dict[tuple[str, int], dict] = {}
    for row in rows:
        payload = _payload(row, repo_id)
        for extra in (extras.get((row["file_path"], -1)), extras.get((row["file_path"], row["chunk_index"]))):
            if extra:
                payload.update({k: v for k, v in extra.items() if v not in (None, "", [], {}) and k not in payload})
        rubric = json.loads(rubrics.get(row["analysis_key"]) or "{}")
        quality = quality_vector(row["text"], rubric)
        symbol_hashes = json.loads(row["symbol_hashes"] or "[]")
        fp = _fingerprint(payload, row["code_hash"], row["design_hash"], quality, symbol_hashes)
        payload["fingerprint"] = fp
        desired[(row["file_path"], row["chunk_index"])] = {"row": row, "payload": payload, "quality": quality,
                                                           "symbol_hashes": symbol_hashes}

    written = refreshed = deleted = demoted = 0
    with ledger.qdrant.open() as client:
        created = ledger.qdrant.ensure_collection(client)
        symbol_lane = ledger.qdrant.has_symbol_lane(client)
        if not symbol_lane:
            log.warning(f"collection {ledger.qdrant.collection!r} predates the symbol lane (no {SYMBOL_VECTOR!r}): "
                        "points are written without it; point LEDGER_COLLECTION at a new name to enable it")
        existing = {}  # (file, index) -> (id, fingerprint, content_hash) of the latest point
        stale_ids = []
        since: dict[str, str] = {}  # point id -> when its content first entered
        same_content: dict[str, str] = {}  # point id -> its content hash
        for rec in ledger.qdrant.scroll(client, repo_filter(repo_id),
                                        ["file_path", "chunk_index", "fingerprint", "content_hash", "is_latest",
                                         "system_from_utc"]):
            p = rec.payload or {}
            if p.get("system_from_utc"):
                since[str(rec.id)] = p["system_from_utc"]
                same_content[str(rec.id)] = p.get("content_hash")
            if p.get("is_latest", True) is False:
                continue
            key = (p.get("file_path"), p.get("chunk_index"))
            if key in existing:  # two latest points for one slot: keep one, retire the other
                stale_ids.append(str(rec.id))
                continue
            existing[key] = (str(rec.id), p.get("fingerprint"), p.get("content_hash"))

        to_upsert: list[tuple[str, dict]] = []
        to_overwrite: list[tuple[str, dict]] = []
        to_refresh: list[str] = []
        to_demote: list[str] = list(stale_ids)
        ticks = time.time_ns() // 100
        for key, want in desired.items():
            have = existing.get(key)
            if not s.versioning:
                pid = point_id(repo_id, key[0], key[1])
                if have and have[0] == pid and have[1] == want["payload"]["fingerprint"]:
                    to_refresh.append(pid)
                elif have and have[0] == pid and _same_vectors(have[1], want["payload"]["fingerprint"]):
                    to_overwrite.append((pid, want))
                else:
                    to_upsert.append((pid, want))
                    if have and have[0] != pid:
                        to_demote.append(have[0])
                continue
            if have and have[2] == want["payload"]["content_hash"]:
                # Same content: refresh the current latest in place, no new version.
                if have[1] == want["payload"]["fingerprint"]:
                    to_refresh.append(have[0])
                elif _same_vectors(have[1], want["payload"]["fingerprint"]):
                    to_overwrite.append((have[0], want))
                else:
                    to_upsert.append((have[0], want))
            else:
                to_upsert.append((point_id(repo_id, key[0], key[1], ticks), want))
                if have:
                    to_demote.append(have[0])
        gone = [have[0] for key, have in existing.items() if key not in desired]

        if to_upsert:
            hashes = [h for _, w in to_upsert
                      for h in (w["row"]["code_hash"], w["row"]["design_hash"], *w["symbol_hashes"])]
            vectors = fetch_vectors(ledger.db, "all-MiniLM-L6-v2", hashes)
            batch: list[models.PointStruct] = []
            for pid, want in to_upsert:
                row = want["row"]
                sym_hashes = want["symbol_hashes"] if symbol_lane else []
                missing = [h for h in (row["code_hash"], row["design_hash"], *sym_hashes) if h not in vectors]
                if missing:
                    raise RuntimeError(f"no cached embedding for {row['file_path']}#{row['chunk_index']}: "
                                       "materialize `embeddings` first")
                # A cosmetic change keeps the content hash, and with it when this content entered.
                first = since.get(pid, now) if same_content.get(pid) == want["payload"]["content_hash"] else now
                payload = dict(want["payload"], is_latest=True, indexed_sha=head_sha, indexed_utc=now,
                               ingested_utc=first, system_from_utc=first)
                sparse = lexical.document_vector(
                    f"{row['file_path']}\n{row['text']}\n{payload.get('intent', '')}")
                vec: dict = {CODE_VECTOR: vectors[row["code_hash"]].tolist(),
                             DESIGN_VECTOR: vectors[row["design_hash"]].tolist(),
                             QUALITY_VECTOR: want["quality"]}
                if sparse.indices:
                    vec[SPARSE_VECTOR] = sparse
                if sym_hashes:
                    vec[SYMBOL_VECTOR] = [vectors[h].tolist() for h in sym_hashes]
                batch.append(models.PointStruct(id=pid, vector=vec, payload=payload))
                if len(batch) >= s.upsert_batch:
                    client.upsert(ledger.qdrant.collection, batch, wait=True)
                    written += len(batch)
                    batch = []
                    log.info(f"upserted {written}/{len(to_upsert)} points")
            if batch:
                client.upsert(ledger.qdrant.collection, batch, wait=True)
                written += len(batch)
        # Same vectors, new payload: overwrite the payload only, keeping when this content entered.
        ops = [models.OverwritePayloadOperation(overwrite_payload=models.SetPayload(
            payload=dict(want["payload"], is_latest=True, indexed_sha=head_sha, indexed_utc=now,
                         ingested_utc=since.get(pid, now), system_from_utc=since.get(pid, now)),
            points=[pid])) for pid, want in to_overwrite]
        for i in range(0, len(ops), 256):
            client.batch_update_points(ledger.qdrant.collection, ops[i:i + 256], wait=True)
        written += len(to_overwrite)
        if to_refresh:
            for i in range(0, len(to_refresh), 1024):
                client.set_payload(ledger.qdrant.collection, {"indexed_sha": head_sha, "indexed_utc": now},
                                   points=to_refresh[i:i + 1024], wait=True)
            refreshed = len(to_refresh)
        if s.versioning:
            retire = to_demote + gone
            if retire:
                client.set_payload(ledger.qdrant.collection, {"is_latest": False, "system_to_utc": now},
                                   points=retire, wait=True)
            demoted = len(retire)
        else:
            retire = to_demote + gone
            if retire:
                client.delete(ledger.qdrant.collection, points_selector=models.PointIdsList(points=retire), wait=True)
            deleted = len(retire)
        check = check_qdrant_in_sync_with(client, ledger, repo_id, desired)
    if check.passed:
        write_indexed_head(s.home_path, repo_id, head_sha)
    elapsed = time.monotonic() - t0
    ledger.db.add_to_summary(run_id, repo_id, chunks_written=written, chunks_skipped=refreshed,
                             chunks_deleted=deleted + demoted, elapsed_s=elapsed)
    log.info(f"qdrant: {written} points written, {refreshed} unchanged (payload refresh), "
             f"{deleted} deleted, {demoted} demoted")
    return PointsReport(len(desired), written, refreshed, deleted, demoted, created, elapsed, [check])


def check_qdrant_in_sync_with(client, ledger: Ledger, repo_id: str, desired: dict) -> CheckOutcome:
    latest: Counter = Counter()
    stale_content = []
    for rec in ledger.qdrant.scroll(client, repo_filter(repo_id, latest_only=True),
                                    ["file_path", "chunk_index", "content_hash"]):
        p = rec.payload or {}
        key = (p.get("file_path"), p.get("chunk_index"))
        latest[key] += 1
        want = desired.get(key)
        if want and want["payload"]["content_hash"] != p.get("content_hash"):
            stale_content.append(f"{key[0]}#{key[1]}")
    orphans = [f"{k[0]}#{k[1]}" for k in latest if k not in desired]
    missing = [f"{k[0]}#{k[1]}" for k in desired if k not in latest]
    doubled = [f"{k[0]}#{k[1]}" for k, n in latest.items() if n > 1]
    ok = not (orphans or missing or doubled or stale_content)
    return CheckOutcome(
        "qdrant_in_sync", ok,
        f"{sum(latest.values())} latest points for {len(desired)} chunk rows",
        {"chunk_rows": len(desired), "latest_points": sum(latest.values()), "orphan_points": len(orphans),
         "missing_points": len(missing), "duplicate_latest": len(doubled), "stale_content": len(stale_content),
         "offenders": json.dumps((orphans + missing + doubled + stale_content)[:50])})


def check_qdrant_in_sync(ledger: Ledger, repo_id: str) -> CheckOutcome:
    with ledger.db.connect() as con:
        rows = con.execute("SELECT file_path, chunk_index, content_hash FROM chunks WHERE repo_id = ?",
                           [repo_id]).fetchall()
    desired = {(f, i): {"payload": {"content_hash": h}} for f, i, h in rows}
    with ledger.qdrant.open() as client:
        if not client.collection_exists(ledger.qdrant.collection):
            return CheckOutcome("qdrant_in_sync", not desired, "collection missing", {"chunk_rows": len(desired)})
        return check_qdrant_in_sync_with(client, ledger, repo_id, desired)
