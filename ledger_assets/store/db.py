"""The DuckDB chunk tables.

DuckDB allows one writing process per file, and a second process cannot even
open it read-only while a writer holds it. So nobody holds a connection for
long: every stage opens, writes one transaction, and closes; a process that
finds the file locked waits with backoff (up to `lock_timeout_s`) instead of
failing. Slow work (chunking, embedding, LLM calls) happens outside any
connection. Two repos ingesting at once, a sensor tick and `ledger query`
therefore interleave on short transactions.
"""

from __future__ import annotations

import random
import time
from datetime import datetime, timezone
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb

from ledger_assets.store.served import ensure_served

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR);

-- The latest snapshot of each repo: HEAD and the manifest of its files.
CREATE TABLE IF NOT EXISTS snapshots (
    repo_id VARCHAR PRIMARY KEY, head_sha VARCHAR, source VARCHAR, repo_path VARCHAR,
    taken_utc TIMESTAMP, run_id VARCHAR, files_total INTEGER, files_indexable INTEGER, files_skipped INTEGER
);
CREATE TABLE IF NOT EXISTS manifest (
    repo_id VARCHAR, file_path VARCHAR, blob_hash VARCHAR, size BIGINT, language VARCHAR,
    skip_reason VARCHAR, PRIMARY KEY (repo_id, file_path)
);

-- What was chunked: one row per indexed (or chunker-skipped) file.
CREATE TABLE IF NOT EXISTS files (
    repo_id VARCHAR, file_path VARCHAR, blob_hash VARCHAR, chunker_version VARCHAR,
    language VARCHAR, n_lines INTEGER, n_chunks INTEGER, skip_reason VARCHAR, notes VARCHAR,
    valid_from_utc TIMESTAMP, chunked_utc TIMESTAMP, PRIMARY KEY (repo_id, file_path)
);
CREATE TABLE IF NOT EXISTS chunks (
    repo_id VARCHAR, file_path VARCHAR, chunk_index INTEGER,
    ledger_id VARCHAR, content_hash VARCHAR, chunk_type VARCHAR, language VARCHAR,
    start_line INTEGER, end_line INTEGER, text VARCHAR, analysis_text VARCHAR,
    header VARCHAR, skeleton VARCHAR, symbols JSON, meta JSON,
    analysis_key VARCHAR, intent VARCHAR, layer VARCHAR, pattern VARCHAR, intent_source VARCHAR,
    code_hash VARCHAR, design_hash VARCHAR, symbol_hashes VARCHAR,
    PRIMARY KEY (repo_id, file_path, chunk_index)
);
-- Added with the symbol lane: a JSON list of the text hashes of the symbols a chunk owns.
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS symbol_hashes VARCHAR;
-- True where analysis_text holds only what follows `text` in the analyser's input (pack_analysis);
-- NULL in rows written before it, whose analysis_text is whole.
ALTER TABLE chunks ADD COLUMN IF NOT EXISTS analysis_extends BOOLEAN;
CREATE TABLE IF NOT EXISTS symbols (
    repo_id VARCHAR, file_path VARCHAR, chunk_index INTEGER, name VARCHAR, kind VARCHAR,
    parent VARCHAR, start_line INTEGER, end_line INTEGER
);
-- Identity that survives renames: every content hash ever seen in a repo.
CREATE TABLE IF NOT EXISTS ledger_ids (
    repo_id VARCHAR, content_hash VARCHAR, ledger_id VARCHAR, file_path VARCHAR,
    PRIMARY KEY (repo_id, ledger_id)
);
-- The concept of each chunk identity (ingest/concepts.py): shared by a unit's shapes and versions.
CREATE TABLE IF NOT EXISTS chunk_concepts (
    repo_id VARCHAR, ledger_id VARCHAR, concept_id VARCHAR, PRIMARY KEY (repo_id, ledger_id)
);
-- Deprecation marks (`ledger deprecate`), by ledger_id: set on the live points at once and merged
-- into the payload by every later ingest while the ledger_id lives.
CREATE TABLE IF NOT EXISTS deprecations (
    repo_id VARCHAR, ledger_id VARCHAR, reason VARCHAR, deprecated_utc VARCHAR, target VARCHAR,
    PRIMARY KEY (repo_id, ledger_id)
);
-- Caches shared by all repos.
CREATE TABLE IF NOT EXISTS analyses (
    analysis_key VARCHAR PRIMARY KEY, model VARCHAR, prompt_version VARCHAR,
    intent VARCHAR, layer VARCHAR, pattern VARCHAR, intent_source VARCHAR,
    rubric JSON, risk_note VARCHAR, cost_usd DOUBLE, created_utc TIMESTAMP
);
CREATE TABLE IF NOT EXISTS embeddings (
    model VARCHAR, text_hash VARCHAR, vector FLOAT[], created_utc TIMESTAMP,
    PRIMARY KEY (model, text_hash)
);
-- The LLM rerank of query candidates (retrieval/rerank.py): the model's order per prompt (keyed by the
-- hash of model, prompt version and the exact text sent: question and candidates), and each UTC day's
-- requests and spend, which LEDGER_RERANK_DAILY_REQUESTS / LEDGER_RERANK_DAILY_USD cap.
CREATE TABLE IF NOT EXISTS reranks (
    rerank_key VARCHAR PRIMARY KEY, model VARCHAR, prompt_version VARCHAR, ranked JSON, candidates INTEGER,
    prompt_tokens INTEGER, completion_tokens INTEGER, cost_usd DOUBLE, created_utc TIMESTAMP
);
CREATE TABLE IF NOT EXISTS rerank_spend (
    utc_day DATE PRIMARY KEY, requests INTEGER, prompt_tokens BIGINT, completion_tokens BIGINT, cost_usd DOUBLE
);
-- Extra payload fields from enrichment stages (quality, git, graph): merged into
-- each point's payload; chunk_index -1 = fields for every chunk of the file.
CREATE TABLE IF NOT EXISTS payload_extras (
    repo_id VARCHAR, file_path VARCHAR, chunk_index INTEGER, source VARCHAR, fields JSON,
    PRIMARY KEY (repo_id, file_path, chunk_index, source)
);
-- One row per (run, repo): the ingest summary each stage adds its counts to.
CREATE TABLE IF NOT EXISTS ingest_runs (
    run_id VARCHAR, repo_id VARCHAR, started_utc TIMESTAMP, head_sha VARCHAR,
    files_scanned INTEGER DEFAULT 0, files_skipped INTEGER DEFAULT 0, files_changed INTEGER DEFAULT 0,
    files_removed INTEGER DEFAULT 0, chunk_rows_written INTEGER DEFAULT 0,
    chunks_written INTEGER DEFAULT 0, chunks_skipped INTEGER DEFAULT 0, chunks_deleted INTEGER DEFAULT 0,
    embeddings_computed INTEGER DEFAULT 0, intent_skipped INTEGER DEFAULT 0, llm_requests INTEGER DEFAULT 0,
    llm_cost_usd DOUBLE DEFAULT 0, elapsed_s DOUBLE DEFAULT 0,
    PRIMARY KEY (run_id, repo_id)
);

-- Promotion (ingest/promotion.py), per repo: the sha queries answer from, the sha last staged, the plan
-- that promotes it (what changes for the live points) and why it was not promoted (failed checks).
CREATE TABLE IF NOT EXISTS promotions (
    repo_id VARCHAR PRIMARY KEY, promoted_sha VARCHAR, promoted_utc TIMESTAMP, promoted_run VARCHAR,
    staged_sha VARCHAR, staged_utc TIMESTAMP, staged_run VARCHAR, staged_plan VARCHAR, check_failed VARCHAR
);
-- Set while promotion applies a plan to Qdrant: a run that finds it set (the last one crashed mid-way)
-- finishes that promotion first (every step of a plan can be applied twice).
ALTER TABLE promotions ADD COLUMN IF NOT EXISTS promoting BOOLEAN;

-- Payload enrichment (enrich/stages.py).
-- Structural metrics per (metrics version, grammar, chunk content hash), shared by all repos.
CREATE TABLE IF NOT EXISTS chunk_metrics (metrics_key VARCHAR PRIMARY KEY, fields JSON, created_utc TIMESTAMP);
-- What each enrichment stage last computed from, per repo: an equal key means nothing to do.
CREATE TABLE IF NOT EXISTS enrich_state (
    repo_id VARCHAR, source VARCHAR, input_key VARCHAR, head_sha VARCHAR, updated_utc TIMESTAMP,
    PRIMARY KEY (repo_id, source)
);
-- Per-file git facts at the indexed HEAD, folded across renames (the base of the next incremental pass).
CREATE TABLE IF NOT EXISTS git_history (
    repo_id VARCHAR, file_path VARCHAR, last_sha VARCHAR, last_utc TIMESTAMP, last_msg VARCHAR,
    authors JSON, recent_ct JSON, PRIMARY KEY (repo_id, file_path)
);
-- The code graph: chunk -> chunk references (src_chunk/dst_chunk -1 = file level).
CREATE TABLE IF NOT EXISTS code_graph (
    repo_id VARCHAR, src_file VARCHAR, src_chunk INTEGER, dst_file VARCHAR, dst_chunk INTEGER,
    dst_symbol VARCHAR, kind VARCHAR
);
"""

SUMMARY_COUNTERS = (
    "files_scanned", "files_skipped", "files_changed", "files_removed", "chunk_rows_written",
    "chunks_written", "chunks_skipped", "chunks_deleted", "embeddings_computed",
    "intent_skipped", "llm_requests", "llm_cost_usd", "elapsed_s",
)


class LedgerLockTimeout(RuntimeError):
    """The DuckDB file stayed locked by another process for longer than the timeout."""


def _is_lock_error(exc: Exception) -> bool:
    msg = str(exc).lower()
    return "lock" in msg and ("conflicting" in msg or "could not set lock" in msg)


class LedgerDB:
    def __init__(self, path: Path | str, lock_timeout_s: float = 120.0):
        self.path = Path(path)
        self.lock_timeout_s = lock_timeout_s
        self._schema_ready = False

    @contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A short-lived connection; waits while another process holds the file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + self.lock_timeout_s
        delay = 0.05
        while True:
            try:
                con = duckdb.connect(str(self.path))
                break
            except duckdb.Error as exc:
                if not _is_lock_error(exc):
                    raise
                if time.monotonic() >= deadline:
                    raise LedgerLockTimeout(
                        f"{self.path} stayed locked by another process for {self.lock_timeout_s:.0f}s: {exc}"
                    ) from exc
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 1.0)
        try:
            if not self._schema_ready:
                con.execute(SCHEMA)
                ensure_served(con)
                self._schema_ready = True
            yield con
        finally:
            con.close()

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self.connect() as con:
            con.execute("BEGIN TRANSACTION")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")

    # ---- the ingest summary -------------------------------------------------
    def add_to_summary(self, run_id: str, repo_id: str, head_sha: str | None = None, **counts) -> None:
        unknown = set(counts) - set(SUMMARY_COUNTERS)
        if unknown:
            raise ValueError(f"unknown summary counters: {sorted(unknown)}")
        with self.transaction() as con:
            con.execute(
                "INSERT INTO ingest_runs (run_id, repo_id, started_utc) VALUES (?, ?, now()) "
                "ON CONFLICT DO NOTHING", [run_id, repo_id])
            if head_sha:
                con.execute("UPDATE ingest_runs SET head_sha = ? WHERE run_id = ? AND repo_id = ?",
                            [head_sha, run_id, repo_id])
            for name, value in counts.items():
                con.execute(f"UPDATE ingest_runs SET {name} = {name} + ? WHERE run_id = ? AND repo_id = ?",
                            [value, run_id, repo_id])

    def summary(self, run_ids: list[str]) -> dict:
        total = {name: 0 for name in SUMMARY_COUNTERS}
        if not run_ids:
            return total
        with self.connect() as con:
            marks = ",".join("?" * len(run_ids))
            row = con.execute(
                f"SELECT {', '.join(f'coalesce(sum({c}), 0)' for c in SUMMARY_COUNTERS)} "
                f"FROM ingest_runs WHERE run_id IN ({marks})", run_ids).fetchone()
        for name, value in zip(SUMMARY_COUNTERS, row):
            total[name] = (round(float(value), 3) if name == "elapsed_s" else
                       round(float(value), 6) if name == "llm_cost_usd" else int(value))
        return total


def utcnow() -> datetime:
    """Now, as the TIMESTAMP columns hold it: naive UTC."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


def insert_arrow(con: duckdb.DuckDBPyConnection, table: str, columns: dict, on_conflict: str = "") -> int:
    """Bulk insert through Arrow (executemany costs ~1 ms a row; this, microseconds)."""
    import pyarrow as pa

    data = pa.table(columns)
    if data.num_rows == 0:
        return 0
    name = f"_bulk_{table}"
    con.register(name, data)
    try:
        cols = ", ".join(data.column_names)
        con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM {name} {on_conflict}")
    finally:
        con.unregister(name)
    return data.num_rows


def deprecation_marks(con: duckdb.DuckDBPyConnection, repo_id: str) -> dict[str, dict]:
    """ledger_id -> the payload field `deprecated` ({"reason", "utc"}) of the repo's marked chunks."""
    return {lid: deprecated_field(reason, utc) for lid, reason, utc in con.execute(
        "SELECT ledger_id, reason, deprecated_utc FROM deprecations WHERE repo_id = ?", [repo_id]).fetchall()}


def deprecated_field(reason: str, utc: str) -> dict:
    return {"reason": reason or "", "utc": utc}


def table_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    """(name, type) of each column of a table, in order."""
    return [(r[0], r[1]) for r in con.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? AND table_schema = 'main' "
        "ORDER BY ordinal_position", [table]).fetchall()]


def pack_analysis(text: str, analysis_text: str) -> tuple[str, bool]:
    """The stored form of a chunk's analyser input: a member's analysis_text is its
    text followed by the enclosing type's context, so only the context is stored
    (flag True); any other analysis_text is stored whole (flag False). Without it
    every member's text was stored twice (issue 16: half the bytes of a large
    type's member chunks)."""
    if text and len(analysis_text) > len(text) and analysis_text.startswith(text):
        return analysis_text[len(text):], True
    return analysis_text, False


def unpack_analysis(stored: str | None, text: str | None, extends: bool | None) -> str:
    """The chunk's analysis_text again, from pack_analysis's form ("" = the text alone)."""
    return (text or "") + (stored or "") if extends else (stored or "")


def dict_rows(cur: duckdb.DuckDBPyConnection) -> list[dict]:
    """The rows of an executed query as dicts keyed by column name."""
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def temp_keys(con: duckdb.DuckDBPyConnection, name: str, keys) -> None:
    """A temp table `name(k)` holding `keys`, to join against instead of IN (...) lists."""
    import pyarrow as pa

    con.execute(f"DROP TABLE IF EXISTS {name}")
    con.register(f"_{name}", pa.table({"k": pa.array(sorted(set(keys)), pa.string())}))
    con.execute(f"CREATE TEMP TABLE {name} AS SELECT k FROM _{name}")
    con.unregister(f"_{name}")


def bulk_update_chunks(con, repo_id: str, updates: list[tuple], columns: tuple[str, ...]) -> None:
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
