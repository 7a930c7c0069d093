"""The served rows: what every read path answers from.

The stages write the working tables (snapshots, manifest, files, chunks, symbols) while a run goes;
the blocking checks judge them there. A read (`ledger symbol`, `read-span`, `similar`, `status`,
the MCP tools, a query's headers) must see only what passed: promotion copies the repo's working
rows into the `served` schema in the same DuckDB transaction that records its promoted sha. Chunks
and symbols are copied file by file, only where a file's rows differ, so a commit that changes k
files rewrites the rows of k files.
"""

from __future__ import annotations

import duckdb

SERVED = "served"
# Small per-file or per-repo rows: replaced whole for the repo.
WHOLE_TABLES = ("snapshots", "manifest", "files")
# Per-chunk rows: rewritten only for the files whose chunk rows differ.
CHUNK_TABLES = ("chunks", "symbols")
TABLES = WHOLE_TABLES + CHUNK_TABLES


def _columns(con: duckdb.DuckDBPyConnection, schema: str, table: str) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in con.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = ? AND table_name = ? "
        "ORDER BY ordinal_position", [schema, table]).fetchall()]


def ensure_served(con: duckdb.DuckDBPyConnection) -> None:
    """Create the served tables (a ledger from before them: filled from the working rows of every repo
    that was promoted, which is what its queries answered from) and add columns the working tables
    gained since."""
    con.execute(f"CREATE SCHEMA IF NOT EXISTS {SERVED}")
    for table in TABLES:
        have = dict(_columns(con, SERVED, table))
        if not have:
            con.execute(f"CREATE TABLE {SERVED}.{table} AS SELECT * FROM main.{table} WHERE repo_id IN "
                        "(SELECT repo_id FROM promotions WHERE coalesce(promoted_sha, '') <> '' "
                        "AND staged_plan IS NULL AND check_failed IS NULL)")
            continue
        for name, kind in _columns(con, "main", table):
            if name not in have:
                con.execute(f'ALTER TABLE {SERVED}.{table} ADD COLUMN "{name}" {kind}')


def publish(con: duckdb.DuckDBPyConnection, repo_id: str) -> int:
    """Make the repo's working rows the served ones, inside the caller's transaction. Returns the number of
    files whose chunk rows were rewritten."""
    for table in WHOLE_TABLES:
        con.execute(f"DELETE FROM {SERVED}.{table} WHERE repo_id = ?", [repo_id])
        con.execute(f"INSERT INTO {SERVED}.{table} BY NAME SELECT * FROM main.{table} WHERE repo_id = ?", [repo_id])
    digest = ("SELECT file_path, md5(string_agg(CAST(c AS VARCHAR), chr(1) ORDER BY chunk_index)) AS d "
              "FROM {t} c WHERE repo_id = ? GROUP BY file_path")
    con.execute("DROP TABLE IF EXISTS _differ")
    con.execute(
        f"CREATE TEMP TABLE _differ AS SELECT coalesce(w.file_path, s.file_path) AS file_path "
        f"FROM ({digest.format(t='main.chunks')}) w FULL OUTER JOIN ({digest.format(t=SERVED + '.chunks')}) s "
        "USING (file_path) WHERE w.d IS DISTINCT FROM s.d", [repo_id, repo_id])
    for table in CHUNK_TABLES:
        con.execute(f"DELETE FROM {SERVED}.{table} WHERE repo_id = ? AND file_path IN (SELECT file_path FROM _differ)",
                    [repo_id])
        con.execute(f"INSERT INTO {SERVED}.{table} BY NAME SELECT * FROM main.{table} "
                    "WHERE repo_id = ? AND file_path IN (SELECT file_path FROM _differ)", [repo_id])
    return con.execute("SELECT count(*) FROM _differ").fetchone()[0]


def forget(con: duckdb.DuckDBPyConnection, repo_id: str) -> int:
    """Delete the repo's served rows (purge); returns how many."""
    removed = 0
    for table in TABLES:
        removed += con.execute(f"SELECT count(*) FROM {SERVED}.{table} WHERE repo_id = ?", [repo_id]).fetchone()[0]
        con.execute(f"DELETE FROM {SERVED}.{table} WHERE repo_id = ?", [repo_id])
    return int(removed)


def served_chunk_count(con: duckdb.DuckDBPyConnection, repo_id: str) -> int:
    return int(con.execute(f"SELECT count(*) FROM {SERVED}.chunks WHERE repo_id = ?", [repo_id]).fetchone()[0])
