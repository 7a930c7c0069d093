"""What a run with nothing to do still pays (issue 30), through real Dagster runs: real git repos, DuckDB and
Qdrant local mode in temp dirs. A same-HEAD re-run loads no model, promotes nothing and leaves the promoted
state as it was, while every blocking check still runs and gates."""

from __future__ import annotations

from ledger_assets.ingest import promotion
from ledger_assets.store.registry import indexed_head_path
from tests.ledger_assets.ingest.test_pipeline import SERVICE_PY, Harness, seed


def _metadata(result, asset: str) -> dict:
    return next({k: getattr(v, "value", v) for k, v in e.event_specific_data.materialization.metadata.items()}
                for e in result.get_asset_materialization_events()
                if e.event_specific_data.materialization.asset_key.to_user_string() == asset)


def _checks(result) -> dict[str, bool]:
    return {ev.asset_check_key.name: ev.passed for ev in
            (e.event_specific_data for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION")}


def _promotion_row(h: Harness) -> tuple:
    with h.ledger.db.connect() as con:
        return con.execute("SELECT promoted_sha, promoted_utc, promoted_run FROM promotions WHERE repo_id = ?",
                           [h.repo_id]).fetchone()


def test_a_same_head_rerun_loads_no_model_and_promotes_nothing(tmp_path, git_repo, embedder):
    seed(git_repo)
    h = Harness(tmp_path, git_repo)
    first, _ = h.run()
    assert _metadata(first, "embeddings")["model_loaded"] is True
    assert _metadata(first, "promoted_index")["noop"] is False
    promoted = _promotion_row(h)
    heads = indexed_head_path(h.settings.home_path, h.repo_id).stat().st_mtime_ns

    again, summary = h.run()
    emb = _metadata(again, "embeddings")
    assert emb["model_loaded"] is False and emb["embeddings_computed"] == 0
    assert emb["model_note"].startswith("not loaded: nothing new to embed")
    # Every blocking check still ran, and passed, before promoted_index.
    assert _checks(again) == {"line_coverage": True, "member_symbols": True, "idempotent": True,
                              "qdrant_in_sync": True}
    meta = _metadata(again, "promoted_index")
    assert meta["noop"] is True and "Qdrant not opened" in meta["summary"]
    assert meta["promoted_sha"] == git_repo.head() and meta["dagster/row_count"] == summary["chunks_skipped"] > 0
    assert _promotion_row(h) == promoted  # not re-promoted: the same sha, time and run
    assert indexed_head_path(h.settings.home_path, h.repo_id).stat().st_mtime_ns == heads
    state = promotion.read_state(h.ledger, h.repo_id)
    assert state.plan is None and not state.check_failed and not state.promoting

    # A commit that changes a chunk is promoted as before.
    git_repo.write("src/service.py", SERVICE_PY.replace("0.9, 2", "0.85, 2"))
    v2 = git_repo.commit("raise the fee")
    third, _ = h.run()
    meta = _metadata(third, "promoted_index")
    assert meta["noop"] is False and meta["points_made_live"] >= 1 and meta["promoted_sha"] == v2
    assert _promotion_row(h)[2] == third.run_id


def test_ledger_ingest_ends_its_process_when_the_run_ends(tmp_path, git_repo, monkeypatch):
    """`ledger ingest` as a person runs it, in a process of its own: once the model was loaded, the
    interpreter's teardown (freeing torch and every module) took 2-6 s after the run had ended; the process
    now ends at once, with the run fully recorded. A timing test, with room for a loaded machine."""
    import json
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    from dagster import DagsterEventType, DagsterInstance, DagsterRunStatus

    seed(git_repo)
    home = tmp_path / "home"
    env = dict(os.environ, LEDGER_HOME=str(home), HF_HUB_OFFLINE="1")
    env.pop("DAGSTER_HOME", None)
    root = Path(__file__).resolve().parents[3]

    def ledger(*args: str) -> tuple[float, str]:
        out = subprocess.run([sys.executable, "-m", "ledger_assets.cli", *args], env=env, cwd=root,
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        return time.time(), out.stdout

    ledger("add-repo", git_repo.path, "--id", "shop")
    ended, stdout = ledger("ingest", "shop", "--format", "json")
    report = json.loads(stdout)
    assert report["success"] and report["embeddings_computed"] > 0  # the model was loaded
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster"))
    instance = DagsterInstance.get()
    run_id = report["runs"][0]
    assert instance.get_run_by_id(run_id).status == DagsterRunStatus.SUCCESS
    done = [r.timestamp for r in instance.all_logs(run_id, of_type=DagsterEventType.RUN_SUCCESS)]
    instance.dispose()
    assert len(done) == 1
    assert ended - done[0] < 2.0, f"the process ended {ended - done[0]:.2f} s after its run"
