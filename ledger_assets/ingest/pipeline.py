"""The ingest, stage by stage: snapshot -> chunk -> (intents) -> embed -> points.

Each stage is a plain function over a `Ledger` and one repo id (one Dagster
partition); it touches only that repo's rows and points, declares what should
exist, and writes only the difference. The Dagster assets (defs/assets.py) are
thin wrappers that turn the returned reports into metadata and checks.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections import Counter, defaultdict
from itertools import groupby
from dataclasses import dataclass, field
from datetime import datetime, timezone

from chunkers import ChunkOptions, chunk_file_guarded, rechunk_key
from chunkers.paths import is_test_path
from chunkers.text import decode, line_count, BinaryContent

from ledger_assets.encode.lexical import words
from ledger_assets.store.ledger import Ledger
from ledger_assets.encode.embedder import (Embedder, embed_groups_with_cache, embed_with_cache, normalize_text,
                                          pool_with_cache, text_hash)
from ledger_assets.ingest.checks import (CheckOutcome, check_idempotent, check_line_coverage,
                                         check_member_symbols)
from ledger_assets.ingest.concepts import assign_concepts
from ledger_assets.ingest.snapshot import LFS_POINTER, ManifestEntry, last_commit_times, read_blobs, stored_manifest, take_snapshot
from ledger_assets.ingest import promotion
from ledger_assets.store.db import bulk_update_chunks, dict_rows, insert_arrow, pack_analysis, temp_keys
from ledger_assets.intents.analysis import analyse_repo

from ledger_assets.encode.joint import Group, joint_key
from ledger_assets.ingest.symbol_texts import (file_symbol_heads, file_symbol_texts, owned_symbols, quoted_share,
                                                told_by_type)


def content_hash(text: str) -> str:
    return text_hash(text)


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
    promotion.finish_interrupted(ledger, repo_id, run_id, log)  # a crash mid-promotion: finished before all else
    s = ledger.settings
    with ledger.db.connect() as con:  # the last snapshot's Git LFS verdicts: unchanged blobs are not read again
        lfs_known = dict(con.execute(
            "SELECT DISTINCT blob_hash, skip_reason FROM manifest WHERE repo_id = ? AND coalesce(skip_reason, '') IN "
            "('', ?) AND coalesce(blob_hash, '') <> ''", [repo_id, LFS_POINTER]).fetchall()) if repo.kind == "git" else {}
    snap = take_snapshot(repo.path, repo.kind, s.max_file_bytes, s.max_pdf_bytes, lfs_known)
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
    files_healed: int = 0


def _piece_rows(repo_id: str, entry: ManifestEntry, pieces) -> list[dict]:
    rows = []
    for idx, p in enumerate(pieces):
        analysis, extends = pack_analysis(p.text, p.analysis_text)
        rows.append({
            "repo_id": repo_id, "file_path": entry.file_path, "chunk_index": idx,
            "content_hash": content_hash(p.text), "chunk_type": p.chunk_type, "language": entry.language,
            "start_line": p.start_line, "end_line": p.end_line, "text": p.text,
            "analysis_text": analysis, "analysis_extends": extends, "header": p.header, "skeleton": p.skeleton,
            "symbols": json.dumps([s.to_dict() for s in p.symbols]),
            "meta": json.dumps(p.meta, sort_keys=True),
        })
    return rows


def chunk_stage(ledger: Ledger, repo_id: str, run_id: str, log,
                options: ChunkOptions | None = None, rebuild: bool = False) -> ChunkReport:
    """Re-chunk new and changed files (every file with `rebuild`), delete the rows of removed ones, run
    the blocking checks. Stored rows of an unchanged file that fail a check (a row lost or damaged
    since) are re-chunked once in the same run, so a rerun at the same HEAD heals them."""
    t0 = time.monotonic()
    options = options or ledger.settings.chunking()
    with ledger.db.connect() as con:
        entries, files, snap = stored_manifest(con, repo_id)
    if snap is None:
        raise RuntimeError(f"no snapshot for repo {repo_id!r}: materialize repo_snapshot first")
    head_sha, source, repo_path = snap
    indexable = {p: e for p, e in entries.items() if not e.skip_reason}
    # Re-chunked: new or changed content, another chunker version, or changed options its chunker reads.
    changed = [e for p, e in sorted(indexable.items())
               if rebuild or files.get(p) != (e.blob_hash, rechunk_key(p, options))]
    removed = sorted(p for p in files if p not in indexable)
    written = _write_chunks(ledger, repo_id, repo_path, source, changed, removed, options, log)
    checks = _chunk_checks(ledger, repo_id, written.pieces_by_file, options)
    heal = sorted({f for c in checks if not c.passed for f in c.files}
                  & set(indexable) - set(written.pieces_by_file))
    if heal:
        log.warning(f"{repo_id}: the stored chunk rows of {len(heal)} unchanged file(s) fail a blocking check "
                    f"({', '.join(heal[:5])}{' ...' if len(heal) > 5 else ''}); re-chunking them")
        again = _write_chunks(ledger, repo_id, repo_path, source, [indexable[p] for p in heal], [], options, log)
        written.merge(again)
        changed += [indexable[p] for p in heal]
        checks = _chunk_checks(ledger, repo_id, written.pieces_by_file, options)
    with ledger.db.connect() as con:
        chunk_types = dict(con.execute(
            "SELECT chunk_type, count(*) FROM chunks WHERE repo_id = ? GROUP BY 1 ORDER BY 2 DESC",
            [repo_id]).fetchall())
    elapsed = time.monotonic() - t0
    report = ChunkReport(
        files_changed=len(changed), files_removed=len(removed),
        files_unchanged=len(indexable) - len(changed), chunk_rows_written=written.rows,
        chunk_rows_deleted=written.deleted, files_skipped_by_chunker=written.skipped, chunk_types=chunk_types,
        total_chunks=sum(chunk_types.values()), notes=written.notes, elapsed_s=elapsed, files_healed=len(heal))
    report.checks = checks
    promotion.record_checks(ledger, repo_id, head_sha, run_id, report.checks)
    ledger.db.add_to_summary(run_id, repo_id, files_changed=len(changed), files_removed=len(removed),
                             chunk_rows_written=written.rows, elapsed_s=elapsed)
    log.info(f"chunks: {len(changed)} files changed ({len(heal)} healed), {len(removed)} removed, "
             f"{written.rows} chunk rows written, {report.total_chunks} chunks in the repo")
    return report


def _chunk_checks(ledger: Ledger, repo_id: str, pieces_by_file: dict, options: ChunkOptions) -> list[CheckOutcome]:
    return [check_line_coverage(ledger, repo_id), check_member_symbols(ledger, repo_id),
            check_idempotent(ledger, repo_id, pieces_by_file, options)]


@dataclass
class _Written:
    rows: int = 0
    deleted: int = 0
    skipped: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    pieces_by_file: dict[str, list[tuple]] = field(default_factory=dict)

    def merge(self, other: "_Written") -> None:
        self.rows += other.rows
        self.deleted += other.deleted
        self.skipped.update(other.skipped)
        self.notes.update(other.notes)
        self.pieces_by_file.update(other.pieces_by_file)


def _write_chunks(ledger: Ledger, repo_id: str, repo_path: str, source: str, changed: list[ManifestEntry],
                  removed: list[str], options: ChunkOptions, log) -> _Written:
    """Chunk `changed` and replace their rows (and files, symbols) in one transaction; delete `removed`."""
    new_rows: list[dict] = []
    file_rows: list[dict] = []
    skipped: dict[str, str] = {}
    notes: dict[str, str] = {}
    pieces_by_file: dict[str, list[tuple]] = {}
    commit_times = last_commit_times(repo_path, [e.file_path for e in changed]) if source == "git" else {}
    for n, (entry, data) in enumerate(read_blobs(repo_path, source, changed), 1):
        result = chunk_file_guarded(entry.file_path, data, options)
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
            "chunker_version": rechunk_key(entry.file_path, options), "language": entry.language, "n_lines": n_lines,
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
        assign_concepts(con, repo_id, new_rows, removed)  # before the touched files' old rows go
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
    return _Written(len(new_rows), int(deleted), skipped, notes, pieces_by_file)


# ---------------------------------------------------------------- intents ---
def intent_stage(ledger: Ledger, repo_id: str, run_id: str, log):
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
    pooled: int = 0  # code vectors made from the chunk's symbol vectors (the `pooled` profile), no model input


_IMPORT_LINE = re.compile(r"^(?:using\s+[\w.=\s]+;|import\s|from\s+\S+\s+import\s|#include\s|package\s)")


def code_text(text: str, symbols: list[dict]) -> str:
    """What the code lane embeds: the chunk led by its symbols' names in words, without its
    import/using lines and blank lines. The model reads its first 256 tokens only, and a C#
    type chunk starts with the file's usings: those tokens named every file's imports, not
    the code (measured with `ledger eval`: code lane R@1 0.261 -> 0.356 and 0.220 -> 0.300 on
    the two efcore golden sets of docs/decisions.md; `similar --mode code` no longer matches files by
    their shared usings). A context header, the file's path above the names, was measured and left
    out (four commit sets, no LLM key, `benchmarks/commit_eval.py`): the code lane alone gained
    (Acc@1 chi 0.440 -> 0.480, jotai 0.247 -> 0.313, MediatR 0.180 -> 0.187, starlette 0.087 ->
    0.080), the fused `--group file` did not (Acc@1 / Acc@5 starlette 0.527 / 0.887 -> 0.527 /
    0.893, chi 0.587 / 0.820 -> 0.580 / 0.820, MediatR 0.320 / 0.667 -> 0.320 / 0.660, jotai
    0.367 / 0.593 -> 0.380 / 0.580; with the docs prior, jotai 0.433 -> 0.460 and chi 0.607 ->
    0.600, the others unchanged), and `similar --mode code` would match chunks by their folder
    as it once did by their usings."""
    names = "; ".join(dict.fromkeys(words(s["name"]) or s["name"] for s in symbols[:4] if s.get("name")))
    body = "\n".join(ln for ln in text.split("\n") if ln.strip() and not _IMPORT_LINE.match(ln))
    return f"{names}\n{body}" if names else body


def design_text(repo_id: str, layer: str | None, intent: str | None) -> str:
    return f"[{repo_id}/{layer or ''}] {intent or ''}"


def embeds_design(profile: str, intent_source: str | None) -> bool:
    """Does this chunk get a design vector? "full": every chunk. The others: only an LLM intent; a keyless one
    is made from the code's own names and declaration, which the other lanes see already (docs/decisions.md)."""
    return profile == "full" or intent_source == "llm"


# The symbols of an API description's chunk: an operation, its operationId, a schema.
API_KINDS = frozenset({"openapi_operation", "openapi_operation_id", "openapi_schema"})
# Symbol kinds that head a section of prose, settings or an API description rather than declare code: such a
# chunk's words are its content, so under `pooled` its code vector stays the embedding of its own text.
SECTION_KINDS = frozenset({"md_heading", "config_section"}) | API_KINDS
POOL_PREFIX = "pool:"


# Under `pooled`, a chunk's code vector is its symbol vectors' mean only where their sentences quote at least this
# share of its code lines: where they read less (a long function), its own text is embedded, which reads up to
# 256 tokens of it (docs/decisions.md, the sixth round).
POOL_MIN_QUOTED = 0.5


def pools_code(profile: str, chunk: dict, symbols: list[dict]) -> bool:
    """Is this chunk's code vector the mean of its symbol vectors (the `pooled` profile)? Only for verbatim code
    owning declarations (`symbols`: those it owns) whose sentences quote at least POOL_MIN_QUOTED of its code
    lines; a chunk owning none (the rest of a long method, a script), a long body, or a section of prose or
    settings embeds its own code text."""
    return (profile == "pooled" and bool(symbols) and not {s.get("kind", "") for s in symbols} & SECTION_KINDS
            and quoted_share(chunk, symbols) >= POOL_MIN_QUOTED)  # 0.0 for a transformed (not verbatim) body


def embeds_test_symbols(settings, path: str) -> bool:
    """Do this file's symbols get sentences of their own? A test file's not while `embed_test_symbols` is off (the
    default; `full` keeps them): tests are much of a repo's symbols and sink under the test prior unless the
    question is about tests; for such a question the symbol lane takes test chunks from the code lane instead
    (retrieval/search.py, symbol_lane_for_tests; docs/decisions.md, issue 30's ninth and tenth rounds)."""
    return settings.embed_profile == "full" or settings.embed_test_symbols or not is_test_path(path)


def packs_members(chunk: dict) -> bool:
    """Is this one of the chunks a code file of more than `code_max_chunks` packs its members into
    (chunkers/packs.py)? Its symbols get no sentences: 50,000 generated methods would be 50,000 inputs again;
    its own text, embedded, stands for them, and the name lane still finds each one."""
    return bool(json.loads(chunk.get("meta") or "{}").get("members"))


def stands_in(profile: str, symbols: list[dict]) -> bool:
    """Does a chunk's code vector stand in for its symbols' sentences? Under `pooled`, for a markdown section
    owning its heading (or, in a file of too many sections, the headings of the sections it packs), whose own
    text is embedded anyway (a section is never pooled): the sentence quotes the heading and the section's first
    lines, what that text holds, so a second input for the same lines buys nothing measurable. For an API
    description's operation or schema: its sentences ("openapi_operation_id get item of get api catalog items id.")
    repeat the first line of its own text, which leads with the same words. Not for a
    declaration (its gloss and parent, read alone, are what a question about one method finds) nor for a config
    section (an XML or YAML block's own vector is near every question: it crowds the symbol lane); measured in
    docs/decisions.md, issue 30's eleventh and fourteenth rounds."""
    if profile != "pooled" or not symbols:
        return False
    kinds = {s.get("kind", "") for s in symbols}
    return kinds == {"md_heading"} or kinds <= API_KINDS


def settings_only(profile: str, symbols: list[dict]) -> bool:
    """Does a chunk of settings keep no symbol vector? Under `pooled`, when every symbol it owns is a config section
    (a `.csproj` block, a workflow job, a `package.json` key): its own text is embedded (a section is never pooled),
    and a sentence quoting the same block's first lines sits near many questions in the symbol lane, as its own
    vector there did (docs/decisions.md, issue 30's eleventh and twelfth rounds)."""
    return profile == "pooled" and bool(symbols) and all(s.get("kind", "") == "config_section" for s in symbols)


def whole_parts(profile: str, chunks: list[dict], owners: dict[int, list[dict]]) -> dict[int, list[int]]:
    """A type's whole copy (`*_full`, owning no symbol) -> the chunks of its file that start within it: under
    `pooled` its code vector is the mean of theirs, no model input. Its own text read only the first 256 tokens of
    the type, what its first member chunk reads already; the mean reads every member (docs/decisions.md, issue
    30's twelfth round). A copy with no such chunk embeds its text."""
    if profile != "pooled":
        return {}
    out = {}
    for whole in chunks:
        if whole["chunk_type"].endswith("_full") and not owners.get(whole["chunk_index"]):
            parts = [c["chunk_index"] for c in chunks if not c["chunk_type"].endswith("_full")
                     and whole["start_line"] <= c["start_line"] <= whole["end_line"]]
            if parts:
                out[whole["chunk_index"]] = parts
    return out


def pool_key(symbol_hashes: list[str]) -> str:
    """The cache key of a pooled code vector: its parts' hashes, in order (a changed sentence is a new key)."""
    return POOL_PREFIX + text_hash("\x1e".join(symbol_hashes))


LEAN_LEAD_CHARS = 400


def lean_lead(intent: str | None, heads: list[str]) -> str:
    """The lean profile's lead of the code text: the keyless intent sentence and the owned symbols'
    sentences without their code (gloss, kind, name, parent, doc), at most LEAN_LEAD_CHARS, so the
    one vector a chunk keeps carries what the design vector and the symbol lane carried."""
    parts = [" ".join((intent or "").split())] + heads
    return " ".join(p for p in parts if p)[:LEAN_LEAD_CHARS]


def _code_span(code: str, body: list[str]) -> tuple[int, int] | None:
    """Where a symbol's declaration and first body lines (`symbol_code`) stand in the code text, [start, end)
    in characters: what its `joint` head reads. None where the declaration is not found (it reads all)."""
    if not body:
        return None
    lines = code.split("\n")
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln) + 1)
    first = next((i for i, ln in enumerate(lines) if ln.strip() == body[0]), None)
    if first is None:
        return None
    last = next((i for i in range(first, min(len(lines), first + 3 * len(body) + 2)) if lines[i].strip() == body[-1]),
                min(len(lines) - 1, first + len(body) - 1))
    return (starts[first], starts[last + 1] - 1)


def embedding_stage(ledger: Ledger, repo_id: str, run_id: str, log, embedder: Embedder) -> EmbeddingReport:
    t0 = time.monotonic()
    with ledger.db.connect() as con:
        cur = con.execute(
            "SELECT file_path, chunk_index, chunk_type, start_line, end_line, text, header, symbols, layer, intent, "
            "intent_source, code_hash, design_hash, symbol_hashes, meta FROM chunks WHERE repo_id = ? "
            "ORDER BY file_path, chunk_index", [repo_id])
        rows = dict_rows(cur)
    for row in rows:  # parsed once: the code text and the symbol sentences both read them
        row["symbols"] = json.loads(row["symbols"] or "[]")
    texts: dict[str, str] = {}
    groups: dict[str, Group] = {}  # the joint profile's inputs (encode/joint.py)
    pools: dict[str, list[str]] = {}  # the pooled profile's code vectors: key -> the symbol hashes it averages
    whole_pools: dict[str, list[str]] = {}  # a type's whole copy: key -> its member chunks' code vector keys
    updates = []
    symbol_lines = 0
    profile = ledger.settings.embed_profile
    skipped_tests = stood_in = no_sentence = told = 0
    for path, group in groupby(rows, key=lambda r: r["file_path"]):
        chunks = list(group)
        owners = owned_symbols(chunks) if profile in ("standard", "full", "pooled") else {}
        if owners and not embeds_test_symbols(ledger.settings, path):
            owners, skipped_tests = {}, skipped_tests + 1
        settings = {idx for idx, syms in owners.items() if settings_only(profile, syms)}
        settings |= {c["chunk_index"] for c in chunks if c["chunk_index"] in owners and packs_members(c)}
        owners = {idx: syms for idx, syms in owners.items() if idx not in settings}
        if profile == "pooled":
            by_index = {c["chunk_index"]: c for c in chunks}
            kept = {idx: told_by_type(by_index[idx], syms) for idx, syms in owners.items()}
            told += sum(len(owners[idx]) - len(syms) for idx, syms in kept.items())
            owners = kept
        no_sentence += len(settings)
        stood = {idx for idx, syms in owners.items() if stands_in(profile, syms)}  # no sentence written for these
        stood_in += len(stood)
        owned = file_symbol_texts(chunks, owned={i: s for i, s in owners.items() if i not in stood}) if owners else {}
        heads = file_symbol_texts(chunks, head_only=True) if profile == "lean" else {}
        joint = file_symbol_heads(chunks) if profile == "joint" else {}
        wholes = whole_parts(profile, chunks, owners)
        codes: dict[int, str] = {}
        rows_out = []
        for row in chunks:
            code_t = normalize_text(code_text(row["text"], row["symbols"]))
            sym_hashes = []
            if row["chunk_index"] in joint:  # one input: the code and its symbols' heads (encode/joint.py)
                leads = [head for head, _ in joint[row["chunk_index"]]]
                sees = [_code_span(code_t, body) for _, body in joint[row["chunk_index"]]]
                key = joint_key([*leads, code_t, json.dumps(sees)])
                groups[key] = Group((*leads, code_t), tuple(sees))
                sym_hashes = [f"{key}:{i}" for i in range(len(leads))]
                ch = f"{key}:{len(leads)}"
            else:
                if profile == "lean" and not embeds_design(profile, row["intent_source"]):  # the lead stands in
                    lead = lean_lead(row["intent"], heads.get(row["chunk_index"], []))
                    code_t = normalize_text(f"{lead}\n{code_t}") if lead else code_t
                ch = ""
                if row["chunk_index"] in wholes:
                    ch = "whole"  # keyed below, once its parts' keys are known
                elif not pools_code(profile, row, owners.get(row["chunk_index"], [])):
                    ch = text_hash(code_t)
                    texts[ch] = code_t
            dh = ""
            if embeds_design(profile, row["intent_source"]):
                design_t = design_text(repo_id, row["layer"], row["intent"])
                dh = text_hash(design_t)
                texts[dh] = design_t
            if row["chunk_index"] in stood:  # its own text, embedded above, is its heading's symbol vector too
                sym_hashes.append(ch)
            for sym_t in owned.get(row["chunk_index"], ()):
                sh = text_hash(sym_t)
                texts[sh] = sym_t
                sym_hashes.append(sh)
            if not ch:  # pooled: the code vector is the mean of the symbol vectors just listed
                ch = pool_key(sym_hashes)
                pools[ch] = sym_hashes
            symbol_lines += len(sym_hashes)
            codes[row["chunk_index"]] = ch
            rows_out.append((row, dh, json.dumps(sym_hashes) if sym_hashes else ""))
        for idx, parts in wholes.items():
            codes[idx] = pool_key([codes[p] for p in parts])
            whole_pools[codes[idx]] = [codes[p] for p in parts]
        for row, dh, sh_json in rows_out:
            ch = codes[row["chunk_index"]]
            if (ch, dh, sh_json) != (row["code_hash"], row["design_hash"] or "", row["symbol_hashes"] or ""):
                updates.append((row["file_path"], row["chunk_index"], ch, dh, sh_json))
    if updates:
        with ledger.db.transaction() as con:
            bulk_update_chunks(con, repo_id, updates, ("code_hash", "design_hash", "symbol_hashes"))

    def progress(done: int, total: int) -> None:
        log.info(f"embedded {done}/{total} new texts")

    computed = embed_with_cache(embedder, ledger.db, texts, progress)
    computed_groups, alone = embed_groups_with_cache(embedder, ledger.db, groups, progress)
    computed += computed_groups + alone
    pooled = pool_with_cache(embedder, ledger.db, pools)  # after the symbol vectors it averages; no model input
    pooled += pool_with_cache(embedder, ledger.db, whole_pools)  # after the member chunks' code vectors
    elapsed = time.monotonic() - t0
    # A joint group is one input; its leads encoded alone (they did not fit) are counted when computed.
    inputs = len(texts) + len(groups) + alone
    ledger.db.add_to_summary(run_id, repo_id, embeddings_computed=computed, elapsed_s=elapsed)
    log.info(f"embeddings ({profile} profile): {inputs} distinct model inputs ({symbol_lines} symbol vectors) for "
             f"{len(rows)} chunks, {computed} computed, {inputs - computed} from cache"
             + (f"; {len(pools)} code vectors pooled from symbol vectors ({pooled} new)" if pools else "")
             + (f"; {len(whole_pools)} whole types' code vectors pooled from their members'" if whole_pools else "")
             + (f"; {stood_in} code vectors standing in for their symbols' sentences" if stood_in else "")
             + (f"; {told} members without a sentence of their own (their type's sentence quotes them)"
                if told else "")
             + (f"; {no_sentence} chunks of settings or of packed members without symbol sentences"
                if no_sentence else "")
             + (f"; {skipped_tests} test files' symbols without sentences (their code text stands for them)"
                if skipped_tests else ""))
    return EmbeddingReport(len(rows), inputs, computed, inputs - computed, elapsed, pooled=len(pools) + len(whole_pools))
