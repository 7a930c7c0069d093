"""The asset graph end to end: materialize() on an ephemeral instance, real
DuckDB and Qdrant local mode in temp dirs, over real git repos."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from dagster import DagsterInstance, materialize

from ledger_assets.defs.assets import ALL_ASSETS
from ledger_assets.ingest import pipeline
from ledger_assets.defs.runs import failure_message
from ledger_assets.store.qdrant import point_id, repo_filter
from ledger_assets.defs.resources import EmbedderResource, LedgerResource
from ledger_assets.store.settings import LedgerSettings

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

SERVICE_PY = '''"""Booking service."""


class BookingService:
    """Books and cancels rooms."""

    def book(self, room: str, guest: str) -> str:
        """Reserve a room for a guest."""
        return f"{room}:{guest}"

    def cancel(self, booking_id: str) -> bool:
        """Cancel a booking by id."""
        return bool(booking_id)


def refund(amount: float) -> float:
    """Refund an amount minus the fee."""
    return round(amount * 0.9, 2)
'''

GUIDE_MD = """# Guide

How the booking flow works.

## Booking

Call `book` with a room and a guest.

## Cancelling

Call `cancel` with the booking id.
"""

PRICES_SQL = """CREATE TABLE dbo.Prices (
    Id INT PRIMARY KEY,
    Amount DECIMAL(10, 2)
);
GO

CREATE PROCEDURE dbo.GetPrice @Id INT
AS
BEGIN
    SELECT Amount FROM dbo.Prices WHERE Id = @Id;
END
GO
"""


def seed(repo) -> str:
    repo.write("src/service.py", SERVICE_PY)
    repo.write("docs/guide.md", GUIDE_MD)
    repo.write("db/prices.sql", PRICES_SQL)
    repo.write("assets/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00binary")
    return repo.commit("seed")


class Harness:
    def __init__(self, tmp_path, repo, versioning: bool = False):
        self.settings = LedgerSettings(home=str(tmp_path / "home"), versioning=versioning, lock_timeout_s=60)
        self.instance = DagsterInstance.ephemeral()
        from ledger_assets.store.ledger import Ledger

        self.ledger = Ledger(self.settings)
        self.repo_id = self.ledger.registry.add(repo.path, "shop").repo_id
        self.instance.add_dynamic_partitions("repos", [self.repo_id])

    def run(self):
        result = materialize(
            ALL_ASSETS, partition_key=self.repo_id, instance=self.instance,
            resources={"ledger": LedgerResource.from_settings(self.settings),
                       "embedder": EmbedderResource()},
            raise_on_error=False,
        )
        assert result.success, [e.message for e in result.all_events if e.is_failure]
        return result, self.ledger.db.summary([result.run_id])

    def points(self, latest_only: bool = False) -> dict[str, dict]:
        with self.ledger.qdrant.open() as client:
            return {str(r.id): r.payload for r in self.ledger.qdrant.scroll(
                client, repo_filter(self.repo_id, latest_only=latest_only))}

    def chunk_rows(self) -> list[tuple]:
        with self.ledger.db.connect() as con:
            return con.execute("SELECT file_path, chunk_index, ledger_id, content_hash FROM chunks "
                               "WHERE repo_id = ? ORDER BY 1, 2", [self.repo_id]).fetchall()


@pytest.fixture
def harness(tmp_path, git_repo, embedder):
    seed(git_repo)
    return Harness(tmp_path, git_repo)


def test_the_assets_follow_the_stage_order():
    """STAGES (enrich/order.py: what tests and benchmarks run) names every asset, each after those it depends on."""
    from ledger_assets.enrich.order import STAGES

    deps = {a.key.to_user_string(): {d.to_user_string() for d in a.dependency_keys} for a in ALL_ASSETS}
    assert sorted(deps) == sorted(STAGES)
    late = {name: sorted(d for d in after if STAGES.index(d) > STAGES.index(name)) for name, after in deps.items()}
    assert {name: d for name, d in late.items() if d} == {}


def test_first_ingest_writes_every_chunk_with_its_payload(harness, git_repo):
    result, summary = harness.run()
    rows = harness.chunk_rows()
    points = harness.points()
    assert summary["files_scanned"] == 4
    assert summary["files_skipped"] == 1  # the PNG, with a recorded reason
    assert summary["chunks_written"] == len(rows) == len(points) > 0
    assert summary["embeddings_computed"] > 0
    files = {r[0] for r in rows}
    assert files == {"src/service.py", "docs/guide.md", "db/prices.sql"}
    pid = point_id("shop", "src/service.py", 0)
    assert pid in points
    payload = points[pid]
    for key in ("repo_id", "file_path", "chunk_index", "content", "content_hash", "chunk_type", "start_line",
                "end_line", "ledger_id", "intent_source", "ingested_utc", "indexed_sha", "indexed_utc",
                "valid_from_utc", "system_from_utc"):
        assert key in payload, key
    assert payload["indexed_sha"] == git_repo.head()
    assert all(v not in ("", None, [], {}) for p in points.values() for v in p.values())
    with harness.ledger.db.connect() as con:
        reason = con.execute("SELECT skip_reason FROM manifest WHERE file_path = 'assets/logo.png'").fetchone()[0]
    assert reason.startswith("binary")
    checks = {e.asset_check_key.name: e.passed for e in
              (ev.event_specific_data for ev in result.all_events if ev.event_type_value == "ASSET_CHECK_EVALUATION")}
    assert checks == {"line_coverage": True, "member_symbols": True, "idempotent": True, "qdrant_in_sync": True}
    mats = {m.asset_key.to_user_string(): m.metadata for m in result.asset_materializations_for_node("chunks")}
    assert mats["chunks"]["total_chunks"].value == len(rows)


def test_unchanged_rerun_writes_nothing(harness):
    harness.run()
    before = harness.points()
    _, summary = harness.run()
    assert summary["chunks_written"] == 0
    assert summary["embeddings_computed"] == 0
    assert summary["chunks_deleted"] == 0
    assert summary["chunks_skipped"] == len(before)
    after = harness.points()
    assert set(after) == set(before)
    assert all(after[k]["ingested_utc"] == before[k]["ingested_utc"] for k in before)


def test_a_new_chunker_version_rechunks_every_file_and_rewrites_only_what_changed(harness, monkeypatch):
    import chunkers

    harness.run()
    before = harness.points()
    monkeypatch.setattr(chunkers, "CHUNKER_VERSION", "next")  # what chunkers.rechunk_key reads
    _, summary = harness.run()
    with harness.ledger.db.connect() as con:
        versions = {r[0] for r in con.execute("SELECT chunker_version FROM files WHERE repo_id = ?",
                                              [harness.repo_id]).fetchall()}
    assert versions == {"next"}  # every stored file was chunked again
    # The same chunker under a new version gives the same chunks: nothing embedded, nothing deleted.
    assert summary["embeddings_computed"] == 0 and summary["chunks_deleted"] == 0
    assert set(harness.points()) == set(before)


def test_modified_file_rewrites_only_its_chunks(harness, git_repo):
    harness.run()
    before = harness.points()
    git_repo.write("docs/guide.md", GUIDE_MD + "\n## Refunds\n\nCall `refund` with the amount.\n")
    head = git_repo.commit("document refunds")
    _, summary = harness.run()
    after = harness.points()
    changed = {k for k in after if k not in before or after[k]["content_hash"] != before[k]["content_hash"]}
    assert changed and all(after[k]["file_path"] == "docs/guide.md" for k in changed)
    guide = {k for k, p in after.items() if p["file_path"] == "docs/guide.md"}
    # Only the guide's points are written: the new section in full, the others' payload (new commit time).
    assert summary["chunks_written"] == len(guide)
    # The new section's own text, one input: it stands for its heading's sentence too (a keyless intent: no design
    # text; `pooled`'s markdown rule, ingest/pipeline.py stands_in).
    assert summary["embeddings_computed"] == 1
    untouched = [k for k in after if k not in guide]
    assert all(after[k]["ingested_utc"] == before[k]["ingested_utc"] for k in untouched)
    assert all(after[k]["system_from_utc"] == before[k]["system_from_utc"] for k in guide - changed)
    assert summary["chunks_deleted"] == 0
    # A point's payload is written only when it changes: the untouched ones are byte for byte as before.
    assert all(after[k] == before[k] for k in untouched)
    assert all(after[k]["indexed_sha"] == head for k in guide)


def test_an_api_descriptions_operations_and_schemas_embed_their_own_text_only(harness, git_repo):
    """An OpenAPI operation's or schema's sentences repeat the first line of its own text: under `pooled` that
    text's vector is its symbol vector too, one model input a chunk (ingest/pipeline.py stands_in)."""
    harness.run()
    git_repo.write("api/petstore.yaml", (FIXTURES / "openapi" / "petstore-v3.yaml").read_text())
    git_repo.commit("describe the API")
    _, summary = harness.run()
    with harness.ledger.db.connect() as con:
        rows = con.execute("SELECT chunk_type, code_hash, symbol_hashes FROM chunks WHERE repo_id = ? AND "
                           "file_path = 'api/petstore.yaml'", [harness.repo_id]).fetchall()
    api = [(code, json.loads(syms or "[]")) for kind, code, syms in rows if kind.startswith("openapi_")]
    assert len(api) == 6  # three operations, three schemas
    assert all(syms == [code] for code, syms in api)
    # the spec's own texts and nothing else: the settings head and the six API chunks (keyless intents: no design)
    assert summary["embeddings_computed"] == len({code for _, code, _ in rows}) == 7


def test_a_chunk_packing_many_sections_embeds_its_own_text_once(harness, git_repo):
    """Over `md_max_sections` a markdown chunk packs several sections, each heading a symbol: its own text's vector
    stands in for all their sentences, one model input a chunk, as for one section (ingest/pipeline.py stands_in);
    the packing is in the chunks asset's notes."""
    harness.run()
    git_repo.write("CHANGES.md", "".join(f"## 2.{i}\n\nFixed the booking of room {i}.\n\n" for i in range(9)))
    git_repo.commit("a changelog")
    harness.settings = harness.settings.with_(chunk_options="md_max_sections=3")
    result, summary = harness.run()
    with harness.ledger.db.connect() as con:
        rows = con.execute("SELECT symbols, code_hash, symbol_hashes FROM chunks WHERE repo_id = ? AND "
                           "file_path = 'CHANGES.md' ORDER BY chunk_index", [harness.repo_id]).fetchall()
    assert [s["name"] for syms, _, _ in rows for s in json.loads(syms)] == [f"2.{i}" for i in range(9)]
    assert len(rows) < 9  # where a pack ends is anchored in its sections' text (chunkers/packs.py)
    assert all(json.loads(hashes) == [code] for _, code, hashes in rows)  # one symbol vector: the chunk's own
    assert summary["embeddings_computed"] == len(rows)  # the changelog's chunks, nothing else
    chunks = next(e.event_specific_data.materialization for e in result.get_asset_materialization_events()
                  if e.event_specific_data.materialization.asset_key.to_user_string() == "chunks")
    assert "consecutive sections share a chunk" in chunks.metadata["chunker_notes"].value["CHANGES.md"]


def test_a_chunk_packing_many_members_embeds_its_own_text_and_no_sentences(harness, git_repo):
    """Over `code_max_chunks` a code chunk packs several members (chunkers/packs.py): its symbols get no sentences,
    or 50,000 generated methods would be 50,000 model inputs again; its own text is its one input (ingest/pipeline.py
    packs_members), and the packing is in the chunks asset's notes."""
    harness.run()
    git_repo.write("src/generated.py", "".join(f"def rate_{i}(night):\n    return night * {i}\n\n\n" for i in range(12)))
    git_repo.commit("generated rates")
    harness.settings = harness.settings.with_(chunk_options="code_max_chunks=3")
    result, _ = harness.run()
    with harness.ledger.db.connect() as con:
        rows = con.execute("SELECT symbols, code_hash, symbol_hashes, meta FROM chunks WHERE repo_id = ? AND "
                           "file_path = 'src/generated.py' ORDER BY chunk_index", [harness.repo_id]).fetchall()
    assert [s["name"] for syms, *_ in rows for s in json.loads(syms)] == [f"rate_{i}" for i in range(12)]
    assert len(rows) <= 4 and all(json.loads(meta)["members"] == len(json.loads(syms)) for syms, *_, meta in rows)
    assert all(not hashes for _, _, hashes, _ in rows)  # no sentence: the name lane still finds each function
    assert all(not code.startswith(pipeline.POOL_PREFIX) for _, code, _, _ in rows)  # its own text, embedded
    chunks = next(e.event_specific_data.materialization for e in result.get_asset_materialization_events()
                  if e.event_specific_data.materialization.asset_key.to_user_string() == "chunks")
    assert "consecutive members share a chunk" in chunks.metadata["chunker_notes"].value["src/generated.py"]


def test_cosmetic_reformat_keeps_content_hash_and_embeddings(harness, git_repo):
    harness.run()
    before = {(f, i): h for f, i, _, h in harness.chunk_rows()}
    git_repo.write("db/prices.sql", PRICES_SQL.replace("\n", "   \r\n"))
    git_repo.commit("CRLF and trailing spaces")
    _, summary = harness.run()
    after = {(f, i): h for f, i, _, h in harness.chunk_rows()}
    assert after == before
    assert summary["embeddings_computed"] == 0


def test_rename_keeps_ledger_id(harness, git_repo):
    harness.run()
    ids_before = {(f, i): lid for f, i, lid, _ in harness.chunk_rows() if f == "src/service.py"}
    git_repo.git("mv", "src/service.py", "src/booking.py")
    git_repo.commit("rename")
    _, summary = harness.run()
    rows = harness.chunk_rows()
    ids_after = {(f, i): lid for f, i, lid, _ in rows if f == "src/booking.py"}
    assert sorted(ids_after.values()) == sorted(ids_before.values())
    assert not any(f == "src/service.py" for f, *_ in rows)
    assert summary["embeddings_computed"] == 0  # same text, cached vectors
    points = harness.points()
    assert not any(p["file_path"] == "src/service.py" for p in points.values())


def test_deleted_file_points_are_gone(harness, git_repo):
    harness.run()
    n_sql = sum(1 for p in harness.points().values() if p["file_path"] == "db/prices.sql")
    git_repo.git("rm", "-q", "db/prices.sql")
    git_repo.commit("drop prices")
    _, summary = harness.run()
    assert summary["chunks_deleted"] == n_sql > 0
    assert not any(p["file_path"] == "db/prices.sql" for p in harness.points().values())
    assert not any(f == "db/prices.sql" for f, *_ in harness.chunk_rows())


def test_versioning_keeps_history_and_one_latest(tmp_path, git_repo, embedder):
    seed(git_repo)
    h = Harness(tmp_path, git_repo, versioning=True)
    h.run()
    first = h.points()
    _, summary = h.run()  # unchanged: refreshed in place, no new version
    assert summary["chunks_written"] == 0 and set(h.points()) == set(first)
    git_repo.write("docs/guide.md", GUIDE_MD.replace("How the booking flow works.", "How booking works, step by step."))
    git_repo.commit("reword")
    _, summary = h.run()
    everything = h.points()
    latest = h.points(latest_only=True)
    # One new version; the guide's other sections only get their new commit time, in place.
    assert summary["chunks_written"] == sum(1 for p in latest.values() if p["file_path"] == "docs/guide.md")
    assert len(everything) == len(first) + 1
    demoted = [p for p in everything.values() if p.get("is_latest") is False]
    assert len(demoted) == 1 and demoted[0]["file_path"] == "docs/guide.md"
    slots = [(p["file_path"], p["chunk_index"]) for p in latest.values()]
    assert len(slots) == len(set(slots)) == len(h.chunk_rows())


def test_existing_collection_with_wrong_size_is_refused(tmp_path, git_repo, embedder):
    from qdrant_client import models

    seed(git_repo)
    h = Harness(tmp_path, git_repo)
    with h.ledger.qdrant.open() as client:
        client.create_collection("ledger_chunks", vectors_config={
            "code_vector": models.VectorParams(size=768, distance=models.Distance.COSINE)})
    result = materialize(ALL_ASSETS, partition_key=h.repo_id, instance=h.instance,
                         resources={"ledger": LedgerResource.from_settings(h.settings), "embedder": EmbedderResource()},
                         raise_on_error=False)
    assert not result.success
    failure = next(e for e in result.all_events if e.event_type_value == "STEP_FAILURE")
    assert failure.step_key == "qdrant_points"
    message = failure_message(failure)
    assert "768-d" in message and "Nothing was written" in message
    with h.ledger.qdrant.open() as client:
        assert client.count("ledger_chunks").count == 0


def test_failing_blocking_check_stops_qdrant_points(tmp_path, git_repo, embedder, monkeypatch):
    seed(git_repo)
    h = Harness(tmp_path, git_repo)
    h.run()
    # A chunker that loses the guide's last section: line coverage fails, and re-chunking cannot heal it.
    real = pipeline.chunk_file_guarded

    def lossy(path, data, options):
        result = real(path, data, options)
        if path == "docs/guide.md":
            result.pieces[:] = result.pieces[:-1]
        return result

    monkeypatch.setattr(pipeline, "chunk_file_guarded", lossy)
    git_repo.write("docs/guide.md", GUIDE_MD + "\n## Refunds\n\nCall `refund` with the amount.\n")
    git_repo.commit("document refunds")
    result = materialize(ALL_ASSETS, partition_key=h.repo_id, instance=h.instance,
                         resources={"ledger": LedgerResource.from_settings(h.settings), "embedder": EmbedderResource()},
                         raise_on_error=False)
    evaluations = [e.event_specific_data for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"]
    coverage = next(e for e in evaluations if e.asset_check_key.name == "line_coverage")
    assert not coverage.passed
    assert "docs/guide.md" in json.dumps(coverage.metadata["offenders"].value)
    materialized = {m.asset_key.to_user_string() for m in result.get_asset_materialization_events() and
                    [e.event_specific_data.materialization for e in result.get_asset_materialization_events()]}
    assert "chunks" in materialized and "qdrant_points" not in materialized
    # promoted_index says so on its own page: an observation naming the failed check.
    observed = [e.event_specific_data.asset_observation for e in result.all_events
                if e.event_type_value == "ASSET_OBSERVATION"]
    blocked = [o for o in observed if o.asset_key.to_user_string() == "promoted_index"]
    assert blocked and "line_coverage" in blocked[0].description and blocked[0].partition == h.repo_id


def test_a_damaged_row_of_an_unchanged_file_heals_at_the_same_head(tmp_path, git_repo, embedder):
    seed(git_repo)
    h = Harness(tmp_path, git_repo)
    h.run()
    rows = sorted(h.chunk_rows())
    with h.ledger.db.connect() as con:  # a row lost since (a bad restore, a hand edit)
        con.execute("DELETE FROM chunks WHERE file_path = 'docs/guide.md' AND chunk_index = 1")
    result = materialize(ALL_ASSETS, partition_key=h.repo_id, instance=h.instance,
                         resources={"ledger": LedgerResource.from_settings(h.settings), "embedder": EmbedderResource()},
                         raise_on_error=False)
    assert result.success
    chunks_meta = next(e.event_specific_data.materialization.metadata for e in result.get_asset_materialization_events()
                       if e.event_specific_data.materialization.asset_key.to_user_string() == "chunks")
    assert chunks_meta["files_healed"].value == 1
    assert sorted(h.chunk_rows()) == rows
    with h.ledger.db.connect() as con:  # a row's text altered in place, its hash left as it was
        con.execute("UPDATE chunks SET text = 'tampered' WHERE file_path = 'src/service.py' AND chunk_index = 0")
    h.run()
    with h.ledger.db.connect() as con:
        texts = [r[0] for r in con.execute("SELECT text FROM chunks WHERE file_path = 'src/service.py'").fetchall()]
        served = [r[0] for r in con.execute("SELECT text FROM served.chunks WHERE file_path = 'src/service.py'").fetchall()]
    assert "tampered" not in texts and sorted(texts) == sorted(served)


def test_truncation_marker_fails_coverage_only_at_the_end_of_a_chunk(ledger, git_repo, embedder):
    from ledger_assets.ingest import pipeline
    from tests.conftest import ingest_core

    # A source file that merely names a marker (like this project's own pipeline.py) is fine.
    git_repo.write("markers.py", 'MARKERS = ("[truncated]", "<truncated>")\n\n\ndef first():\n    return MARKERS[0]\n')
    git_repo.commit("markers")
    rid = ledger.registry.add(git_repo.path, "markers").repo_id
    ingest_core(ledger, rid, embedder)
    assert pipeline.check_line_coverage(ledger, rid).passed
    with ledger.db.connect() as con:
        con.execute("UPDATE chunks SET text = text || '\n... [truncated]' WHERE repo_id = ? AND chunk_index = 0", [rid])
    outcome = pipeline.check_line_coverage(ledger, rid)
    assert not outcome.passed
    assert json.loads(outcome.metadata["offenders"]) == {"markers.py": "chunk with a truncation marker"}


def test_the_graphs_table_in_the_ui_keeps_one_row_per_chunk_whatever_a_path_holds(tmp_path, git_repo, embedder):
    """code_graph's `top_central` is a markdown table in the Dagster UI: a path's `|` or line break would add a cell
    or end the table (issue 33)."""
    seed(git_repo)
    name = "src/pay|ment\nnote.py"
    git_repo.write(name, "from service import refund\n\n\ndef settle(amount):\n    return refund(amount)\n")
    git_repo.commit("a hostile name that calls into the service")
    result, _ = Harness(tmp_path, git_repo).run()
    [graph] = [m.metadata for m in result.asset_materializations_for_node("code_graph")]
    rows = graph["top_central"].value.splitlines()
    assert rows[:2] == ["| chunk | PageRank | blast radius |", "| --- | ---: | ---: |"]
    assert any("pay\\|ment\\nnote.py#" in row for row in rows[2:]), rows
    for row in rows[2:]:  # four unescaped pipes: three cells
        assert len(re.findall(r"(?<!\\)\|", row)) == 4, row
