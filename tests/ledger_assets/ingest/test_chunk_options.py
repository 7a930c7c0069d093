"""Chunker switches are settings (LEDGER_CHUNK_OPTIONS, the resource's chunk_options): a change re-chunks
exactly the files whose chunker reads a changed option, through the real asset graph."""

from __future__ import annotations

from dagster import materialize

from ledger_assets.defs.assets import ALL_ASSETS
from ledger_assets.defs.resources import EmbedderResource, LedgerResource
from tests.ledger_assets.ingest.test_pipeline import Harness, seed


def run(h: Harness, chunk_options: str):
    settings = h.settings.with_(chunk_options=chunk_options)
    result = materialize(ALL_ASSETS, partition_key=h.repo_id, instance=h.instance, raise_on_error=False,
                         resources={"ledger": LedgerResource.from_settings(settings), "embedder": EmbedderResource()})
    assert result.success
    chunks = next(e.event_specific_data.materialization for e in result.get_asset_materialization_events()
                  if e.event_specific_data.materialization.asset_key.to_user_string() == "chunks")
    return chunks.metadata["files_changed"].value, h.ledger.db


def sql_chunk_types(db) -> list[str]:
    with db.connect() as con:
        return [r[0] for r in con.execute(
            "SELECT chunk_type FROM chunks WHERE file_path = 'db/prices.sql' ORDER BY chunk_index").fetchall()]


def test_a_changed_switch_rechunks_only_the_files_its_chunker_reads(tmp_path, git_repo, embedder):
    seed(git_repo)  # a Python file, a Markdown guide, a SQL file with a table and a procedure
    h = Harness(tmp_path, git_repo)
    changed, db = run(h, "")
    assert changed == 3 and "sql_table" in sql_chunk_types(db)
    changed, db = run(h, "split_sql_tables=false")
    assert changed == 1 and "sql_table" not in sql_chunk_types(db)  # only db/prices.sql, re-chunked
    assert run(h, "split_sql_tables=false,ts_tree_sitter=false")[0] == 0  # the same for these files: nothing
    changed, db = run(h, "split_sql_tables=false,md_section_max_chars=40")
    assert changed == 1  # the guide
    changed, db = run(h, "")
    assert changed == 2 and "sql_table" in sql_chunk_types(db)  # back to the defaults: both again
