"""Promotion gated by checks: qdrant_points stages a run's points hidden from queries, the blocking
checks run on the staged view, and only promoted_index switches queries to it. Real DuckDB, Qdrant
local mode and git repos; the one fault injected is a lossy Qdrant client (an upsert that drops a point)."""

from __future__ import annotations

import json

import pytest
from dagster import materialize
from qdrant_client import QdrantClient

from ledger_assets.cli import main
from ledger_assets.defs.assets import ALL_ASSETS
from ledger_assets.defs.resources import EmbedderResource, LedgerResource
from ledger_assets.enrich.order import run_stages
from ledger_assets.ingest import pipeline, points, promotion
from ledger_assets.retrieval.search import search
from ledger_assets.store.qdrant import repo_filter
from tests.conftest import LOG
from tests.ledger_assets.ingest.test_pipeline import SERVICE_PY, Harness, seed

RAISED_FEE = (SERVICE_PY.replace("round(amount * 0.9, 2)", "round(amount * 0.85, 2)  # the fee is 15% now")
              .replace('return f"{room}:{guest}"', 'return f"{room}:{guest.strip()}"'))  # two chunks change
QUERY = "refund an amount minus the fee"


def run(h: Harness):
    return materialize(ALL_ASSETS, partition_key=h.repo_id, instance=h.instance, raise_on_error=False,
                       resources={"ledger": LedgerResource.from_settings(h.settings), "embedder": EmbedderResource()})


def refund_body(h: Harness, embedder) -> str:
    hits = search(h.ledger, embedder, QUERY, repo=h.repo_id, k=10)
    return next(x.payload["content"] for x in hits if "def refund" in x.payload["content"])


def stage_only(h: Harness, embedder) -> points.PointsReport:
    """Every stage of a run up to staged points, without Dagster and without promotion."""
    return run_stages(h.ledger, h.repo_id, "staging-run", LOG, embedder, enrichment=False,
                      promote=False).reports["qdrant_points"]


def all_points(h: Harness) -> list:
    with h.ledger.qdrant.open() as client:
        return list(h.ledger.qdrant.scroll(client, repo_filter(h.repo_id)))


def materialized(result) -> set[str]:
    return {e.event_specific_data.materialization.asset_key.to_user_string()
            for e in result.get_asset_materialization_events()}


def status_json(h: Harness, capsys, monkeypatch) -> dict:
    monkeypatch.setenv("LEDGER_HOME", h.settings.home)
    capsys.readouterr()
    assert main(["status", "--format", "json"]) == 0
    return next(r for r in json.loads(capsys.readouterr().out) if r["repo_id"] == h.repo_id)


@pytest.fixture
def lossy_upsert(monkeypatch):
    """A Qdrant client whose upserts silently drop the last point of each batch."""
    real = QdrantClient.upsert

    def upsert(self, collection_name, points, *args, **kwargs):
        kept = list(points)[:-1]
        return real(self, collection_name, kept, *args, **kwargs) if kept else None

    def install():
        monkeypatch.setattr(QdrantClient, "upsert", upsert)

    return install


def test_staged_points_stay_hidden_until_promoted(tmp_path, git_repo, embedder):
    seed(git_repo)
    h = Harness(tmp_path, git_repo)
    v1 = git_repo.head()
    assert run(h).success
    git_repo.write("src/service.py", RAISED_FEE)
    v2 = git_repo.commit("raise the fee")
    report = stage_only(h, embedder)  # the stages without Dagster, the points staged without promotion
    assert report.checks[0].passed and report.staged_sha == v2
    staged = [p for p in all_points(h) if (p.payload or {}).get("staged")]
    assert staged and all(p.payload["is_latest"] is False and p.payload["staged_sha"] == v2 for p in staged)
    # Staged, not promoted: queries still answer from v1.
    assert "0.9" in refund_body(h, embedder)
    state = promotion.read_state(h.ledger, h.repo_id)
    assert state.promoted_sha == v1 and state.staged_sha == v2 and state.plan is not None
    promotion.promote(h.ledger, h.repo_id, "promote-run", LOG)
    assert "0.85" in refund_body(h, embedder)
    after = all_points(h)
    assert not [p for p in after if (p.payload or {}).get("staged")]
    with h.ledger.db.connect() as con:
        rows = con.execute("SELECT count(*) FROM chunks WHERE repo_id = ?", [h.repo_id]).fetchone()[0]
    assert len(after) == rows  # the replaced points are gone
    # Only the changed chunks were written: each point says when it was, the others stay as they were.
    written = {p.payload["indexed_sha"] for p in after if "def refund" in p.payload["content"]}
    assert written == {v2} and {p.payload["indexed_sha"] for p in after} == {v1, v2}
    assert promotion.read_state(h.ledger, h.repo_id).promoted_sha == v2


def test_failed_staged_check_keeps_previous_state_until_a_good_run(tmp_path, git_repo, embedder, lossy_upsert,
                                                                  monkeypatch, capsys):
    seed(git_repo)
    h = Harness(tmp_path, git_repo)
    v1 = git_repo.head()
    assert run(h).success
    count_v1 = len(all_points(h))
    git_repo.write("src/service.py", RAISED_FEE)
    v2 = git_repo.commit("raise the fee")

    lossy_upsert()  # a staged write loses a point
    result = run(h)
    evaluation = next(e.event_specific_data for e in result.all_events
                      if e.event_type_value == "ASSET_CHECK_EVALUATION"
                      and e.event_specific_data.asset_check_key.name == "qdrant_in_sync")
    assert not evaluation.passed and evaluation.metadata["missing_points"].value >= 1
    assert "qdrant_points" in materialized(result) and "promoted_index" not in materialized(result)
    # Queries still answer from v1; status says what is served and why HEAD is not.
    assert "0.9" in refund_body(h, embedder)
    row = status_json(h, capsys, monkeypatch)
    assert (row["head"], row["indexed_sha"], row["promoted_sha"]) == (v2, v2, v1)
    assert "qdrant_in_sync" in row["promotion_note"] and row["up_to_date"] is False
    with pytest.raises(promotion.PromotionRefused, match="qdrant_in_sync"):
        promotion.promote(h.ledger, h.repo_id, "by-hand", LOG)
    assert any((p.payload or {}).get("staged") for p in all_points(h))

    monkeypatch.undo()  # the client is whole again: the next run promotes and removes the stale staged points
    result = run(h)
    assert result.success and "promoted_index" in materialized(result)
    assert "0.85" in refund_body(h, embedder)
    after = all_points(h)
    assert not [p for p in after if (p.payload or {}).get("staged")] and len(after) == count_v1
    row = status_json(h, capsys, monkeypatch)
    assert row["promoted_sha"] == row["head"] == v2 and row["promotion_note"] == "" and row["up_to_date"]


def test_versioned_promotion_demotes_the_replaced_version(tmp_path, git_repo, embedder):
    seed(git_repo)
    h = Harness(tmp_path, git_repo, versioning=True)
    assert run(h).success
    git_repo.write("src/service.py", RAISED_FEE)
    git_repo.commit("raise the fee")
    assert run(h).success
    refunds = [p.payload for p in all_points(h) if "def refund" in p.payload["content"]]
    assert sorted(p["is_latest"] for p in refunds) == [False, True]
    old = next(p for p in refunds if not p["is_latest"])
    assert "0.9" in old["content"] and old.get("system_to_utc") and not old.get("staged")


# ------------------------------------------------------ one served state, every read path ---
EXTRA_PY = 'def surcharge_for_late_checkout(hours: int) -> float:\n    """A late checkout costs 12 per hour."""\n    return 12.0 * hours\n'


def test_a_refused_run_changes_no_read_path(tmp_path, git_repo, embedder, monkeypatch, capsys):
    from ledger_assets.retrieval.symbols import symbol_lookup
    from ledger_assets.retrieval.tools import ToolInputError, read_span

    seed(git_repo)
    h = Harness(tmp_path, git_repo)
    v1 = git_repo.head()
    assert run(h).success
    real = pipeline.chunk_file_guarded

    def lossy(path, data, options):  # a chunker bug: the new file loses its last line, coverage fails
        result = real(path, data, options)
        if path == "src/extra.py":
            result.pieces[-1] = type(result.pieces[-1])(**{**result.pieces[-1].__dict__,
                                                           "end_line": result.pieces[-1].end_line - 1})
        return result

    monkeypatch.setattr(pipeline, "chunk_file_guarded", lossy)
    git_repo.write("src/extra.py", EXTRA_PY)
    git_repo.write("src/service.py", RAISED_FEE)
    v2 = git_repo.commit("late checkout")
    result = run(h)
    assert not result.success and "promoted_index" not in materialized(result)
    # The working rows hold v2; no read path sees them.
    with h.ledger.db.connect() as con:
        assert con.execute("SELECT count(*) FROM chunks WHERE file_path = 'src/extra.py'").fetchone()[0]
    assert symbol_lookup(h.ledger, "surcharge_for_late_checkout") == []
    with pytest.raises(ToolInputError, match="not indexed"):
        read_span(h.ledger, "src/extra.py", 1, 2, repo=h.repo_id)
    assert "0.9" in refund_body(h, embedder)
    row = status_json(h, capsys, monkeypatch)
    assert (row["promoted_sha"], row["head"]) == (v1, v2) and "line_coverage" in row["promotion_note"]

    monkeypatch.setattr(pipeline, "chunk_file_guarded", real)  # the chunker fixed: the next run serves v2
    assert run(h).success
    assert [m.file_path for m in symbol_lookup(h.ledger, "surcharge_for_late_checkout")] == ["src/extra.py"]
    assert read_span(h.ledger, "src/extra.py", 1, 1, repo=h.repo_id)["text"].startswith("def surcharge")
    assert "0.85" in refund_body(h, embedder)


def test_an_empty_commit_writes_no_point_and_a_doc_may_end_with_a_marker(tmp_path, git_repo, embedder):
    seed(git_repo)
    git_repo.write("docs/log.md", "# Log excerpt\n\nThe tool prints its last line as\n\n    output ... [truncated]\n")
    git_repo.commit("a doc that quotes a truncated log")
    h = Harness(tmp_path, git_repo)
    assert run(h).success  # the doc's own text ends with the marker: not a truncation
    before = {p.id: p.payload for p in all_points(h)}
    git_repo.commit("empty")
    result = run(h)
    assert result.success
    promoted = next(e.event_specific_data.materialization.metadata for e in result.get_asset_materialization_events()
                    if e.event_specific_data.materialization.asset_key.to_user_string() == "promoted_index")
    assert promoted["points_made_live"].value == 0 and promoted["payloads_updated"].value == 0
    assert {p.id: p.payload for p in all_points(h)} == before  # not one payload rewritten
    assert promotion.read_state(h.ledger, h.repo_id).promoted_sha == git_repo.head()


def test_a_promotion_cut_short_is_finished_by_the_next_run(tmp_path, git_repo, embedder, monkeypatch):
    seed(git_repo)
    h = Harness(tmp_path, git_repo)
    assert run(h).success
    git_repo.write("src/service.py", RAISED_FEE)
    v2 = git_repo.commit("raise the fee")
    assert stage_only(h, embedder).checks[0].passed

    def crash(*args, **kwargs):  # the process dies after the new points went live, before the old retire
        raise SystemExit("killed")

    monkeypatch.setattr(QdrantClient, "delete", crash)
    with pytest.raises(SystemExit):
        promotion.promote(h.ledger, h.repo_id, "promote-run", LOG)
    monkeypatch.undo()
    state = promotion.read_state(h.ledger, h.repo_id)
    assert state.promoting and state.promoted_sha != v2 and "interrupted" in state.note(v2)
    assert state.plan.head_sha == v2 and state.plan.staged and isinstance(state.plan, promotion.StagedPlan)
    with h.ledger.db.transaction() as con:  # the journal as the dict version wrote it: a `refresh` list too
        old = json.loads(con.execute("SELECT staged_plan FROM promotions WHERE repo_id = ?", [h.repo_id]).fetchone()[0])
        assert json.dumps(old) == state.plan.to_json()  # the same JSON as before the plan was typed
        old["refresh"] = [pid for pid, _ in state.plan.overwrite][:1]
        con.execute("UPDATE promotions SET staged_plan = ? WHERE repo_id = ?", [json.dumps(old), h.repo_id])
    assert promotion.read_state(h.ledger, h.repo_id).plan == state.plan
    # Two live points for the changed slots now; a query still answers each chunk once.
    hits = search(h.ledger, embedder, QUERY, repo=h.repo_id, k=20)
    assert len({x.key for x in hits}) == len(hits)
    assert run(h).success  # the next run finishes the cut promotion first, then has nothing left to do
    state = promotion.read_state(h.ledger, h.repo_id)
    assert not state.promoting and state.promoted_sha == v2
    live = [p for p in all_points(h) if p.payload.get("is_latest")]
    with h.ledger.db.connect() as con:
        served = con.execute("SELECT count(*) FROM served.chunks WHERE repo_id = ?", [h.repo_id]).fetchone()[0]
    assert len(live) == len({(p.payload["file_path"], p.payload["chunk_index"]) for p in live}) == served
    assert "0.85" in refund_body(h, embedder)


def test_status_and_reads_report_a_lost_index(tmp_path, git_repo, embedder, monkeypatch, capsys):
    import shutil

    seed(git_repo)
    h = Harness(tmp_path, git_repo)
    assert run(h).success
    monkeypatch.setenv("LEDGER_HOME", h.settings.home)
    assert main(["status"]) == 0
    capsys.readouterr()
    shutil.rmtree(h.settings.qdrant_path)  # the vector index is lost
    assert main(["status", "--format", "json"]) == 1
    out, err = capsys.readouterr()
    row = json.loads(out)[0]
    assert not row["index_ok"] and not row["up_to_date"] and "collection 'ledger_chunks' is gone" in row["index_problem"]
    assert f"ledger ingest {h.repo_id} --rebuild" in err
    assert main(["query", "refund", "--repo", "ghost"]) == 2
    assert "unknown repo 'ghost'" in capsys.readouterr().err
    assert run(h).success  # a run at the same HEAD writes the points again
    assert main(["status"]) == 0
    capsys.readouterr()
    h.settings.duckdb_path.unlink()  # the chunk tables are lost: reads say so, not "no hits"
    assert main(["query", "refund", "--repo", h.repo_id]) == 1
    assert "has no promoted index" in capsys.readouterr().err
    assert main(["symbol", "refund", "--repo", h.repo_id]) == 1
    assert main(["status"]) == 1
