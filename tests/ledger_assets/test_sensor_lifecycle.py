"""git_head_sensor and the run lifecycle on the ledger's own Dagster instance: the project's dagster.yaml,
SQLite storage under a temp DAGSTER_HOME. A tick's result is stored the way the daemon stores it (its
asset events, then its partition requests); a launched run is a run record carrying the request's tags."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import uuid

import pytest
from dagster import (AddDynamicPartitionsRequest, AssetCheckEvaluation, AssetKey, AssetRecordsFilter, DagsterEventType,
                     DagsterRun, DagsterRunStatus, RunsFilter)

from ledger_assets.cli import main
from ledger_assets.ingest import pipeline
from ledger_assets.defs.runs import dagster_instance
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.registry import indexed_head_path, write_indexed_head
from ledger_assets.store.settings import LedgerSettings
from tests.conftest import LOG
from tests.ledger_assets.store.test_concurrency import Collect, key_heads, sensor_tick

PARTITIONS = "repos"


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("LEDGER_HOME", str(home))
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster"))
    for var in ("QDRANT_URL", "QDRANT_API_KEY", "GROQ_API_KEY", "GROQ_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    settings = LedgerSettings(home=str(home))
    instance = dagster_instance(settings)
    yield settings, Ledger(settings), instance
    instance.dispose()


def store(result, instance) -> None:
    """What the sensor daemon does with a tick's result before it launches runs."""
    for event in result.asset_events:
        instance.report_runless_asset_event(event)
    for request in result.dynamic_partitions_requests:
        if isinstance(request, AddDynamicPartitionsRequest):
            instance.add_dynamic_partitions(request.partitions_def_name, [
                k for k in request.partition_keys if not instance.has_dynamic_partition(request.partitions_def_name, k)])
        else:
            for key in request.partition_keys:
                instance.delete_dynamic_partition(request.partitions_def_name, key)


def add_run(instance, partition: str, status: DagsterRunStatus, job: str = "ingest", **tags: str) -> DagsterRun:
    failed = status == DagsterRunStatus.FAILURE
    run = instance.add_run(DagsterRun(job_name=job, run_id=uuid.uuid4().hex,
                                      status=DagsterRunStatus.STARTED if failed else status,
                                      tags={"dagster/partition": partition, **tags}))
    if failed:
        instance.report_run_failed(run)
    return instance.get_run_by_id(run.run_id)


def launch(result, instance, status: DagsterRunStatus) -> list[DagsterRun]:
    """The daemon launched each requested run; it ended with `status` (or is still running)."""
    return [add_run(instance, r.partition_key, status, **{"dagster/run_key": r.run_key,
                                                          "dagster/sensor_name": "git_head_sensor"})
            for r in result.run_requests]


def registered_repo(make_repo, ledger, instance, rid: str = "shop") -> str:
    repo = make_repo(rid)
    repo.write("a.py", "x = 1\n")
    head = repo.commit()
    ledger.registry.add(repo.path, rid)
    instance.add_dynamic_partitions(PARTITIONS, [rid])
    return head


# ------------------------------------------------------------- freshness ---
def test_a_second_runless_check_evaluation_of_a_partition_breaks_dagsters_storage(home):
    """Why the sensor does not report index_fresh as a runless check evaluation (reproduction)."""
    _, _, instance = home
    instance.add_dynamic_partitions(PARTITIONS, ["shop"])
    verdict = dict(asset_key=AssetKey("promoted_index"), check_name="index_fresh", partition="shop")
    instance.report_runless_asset_event(AssetCheckEvaluation(passed=True, **verdict))
    with pytest.raises(Exception, match="UNIQUE constraint failed: asset_check_executions"):
        instance.report_runless_asset_event(AssetCheckEvaluation(passed=False, **verdict))


def test_each_change_of_freshness_is_stored_and_the_cursor_moves_on(home, git_repo):
    settings, ledger, instance = home
    settings = settings.with_(freshness_max_lag_s=600)
    git_repo.write("a.py", "x = 1\n")
    old = git_repo.commit()
    ledger.registry.add(git_repo.path, "shop")
    instance.add_dynamic_partitions(PARTITIONS, ["shop"])
    write_indexed_head(settings.home_path, "shop", old)

    cursor, verdicts, log = None, [], Collect()
    for step in ("fresh", "stale", "same", "fresh again"):
        if step == "stale":  # a commit made two hours ago that no run has promoted
            git_repo.write("a.py", "x = 2\n")
            ago = time.strftime("%Y-%m-%dT%H:%M:%S+0000", time.gmtime(time.time() - 7200))
            new = git_repo.commit("bump", env={"GIT_COMMITTER_DATE": ago, "GIT_AUTHOR_DATE": ago})
        if step == "fresh again":
            write_indexed_head(settings.home_path, "shop", new)
        result = sensor_tick(settings, instance, cursor, log=log)
        store(result, instance)  # raised on the second verdict when it was a runless check evaluation
        verdicts.append([e.metadata["fresh"].value if "fresh" in e.metadata else e.passed
                         for e in result.asset_events])
        cursor = result.cursor
    assert verdicts == [[True], [False], [], [True]]

    records = instance.fetch_observations(AssetRecordsFilter(asset_key=AssetKey("promoted_index"),
                                                             asset_partitions=["shop"]), limit=10, ascending=True)
    stored = [r.asset_observation.metadata for r in records.records]
    assert [m["fresh"].value for m in stored] == [True, False, True]
    assert stored[1]["lag_s"].value >= 7000
    stale_lines = [m for m in log.messages if m.startswith("WARNING git_head_sensor: repo shop: index stale:")]
    assert len(stale_lines) == 1 and "120 min behind" in stale_lines[0], log.messages


# --------------------------------------------------------- one repo's error ---
def test_an_error_on_one_repo_is_one_warning_line_and_the_others_are_still_requested(home, make_repo):
    settings, ledger, instance = home
    registered_repo(make_repo, ledger, instance, "bad")
    good_head = registered_repo(make_repo, ledger, instance, "good")
    indexed_head_path(settings.home_path, "bad").mkdir(parents=True)  # its heads file unreadable: an OSError

    log = Collect()
    result = sensor_tick(settings, instance, log=log)
    store(result, instance)
    assert key_heads(result) == [f"good@{good_head}"]
    lines = [m for m in log.messages if "bad" in m]
    assert len(lines) == 1 and lines[0].startswith("WARNING git_head_sensor: repo bad: IsADirectoryError"), lines
    assert "\n" not in lines[0]

    # Every repo erred: still a result, whose skip reason says so.
    ledger.registry.remove("good")
    alone = sensor_tick(settings, instance, result.cursor)
    assert alone.run_requests == [] and "failed on bad" in alone.skip_reason.skip_message
    assert "no HEAD moved" not in alone.skip_reason.skip_message

    # A cursor mangled by hand: the tick starts afresh instead of raising on every tick.
    afresh = sensor_tick(settings, instance, "{not json", log=log)
    assert "failed on bad" in afresh.skip_reason.skip_message
    assert any(m.startswith("WARNING git_head_sensor: cursor unreadable") for m in log.messages), log.messages

    # An unreadable registry: a skip that says why, the cursor kept, no partition touched.
    settings.registry_path.write_text("{not json", encoding="utf-8")
    broken = sensor_tick(settings, instance, alone.cursor)
    assert broken.run_requests == [] and broken.dynamic_partitions_requests == []
    assert "registry unreadable" in broken.skip_reason.skip_message and broken.cursor == alone.cursor


# ------------------------------------------------------- one run per partition ---
@pytest.mark.parametrize("job,status", [("__ASSET_JOB", DagsterRunStatus.STARTED),
                                        ("__ASSET_JOB_0", DagsterRunStatus.STARTING),
                                        ("ingest", DagsterRunStatus.NOT_STARTED)])
def test_no_request_while_any_run_of_the_partition_is_queued_or_running(home, make_repo, job, status):
    """The UI's Materialize runs __ASSET_JOB; a backfill may run another job: each holds its partition."""
    settings, ledger, instance = home
    head = registered_repo(make_repo, ledger, instance)
    run = instance.add_run(DagsterRun(job_name=job, run_id=uuid.uuid4().hex, status=status,
                                      tags={"dagster/partition": "shop"}))
    waiting = sensor_tick(settings, instance)
    assert waiting.run_requests == []
    reason = waiting.skip_reason.skip_message
    assert "queued or in flight" in reason and run.run_id[:8] in reason and job in reason, reason
    instance.delete_run(run.run_id)
    assert key_heads(sensor_tick(settings, instance, waiting.cursor)) == [f"shop@{head}"]


def test_the_instance_runs_one_run_per_partition_at_a_time(home):
    """dagster.yaml's tag limit, as the queued run coordinator applies it."""
    from dagster._utils.tags import TagConcurrencyLimitsCounter

    _, _, instance = home
    limits = instance.get_concurrency_config().run_queue_config.tag_concurrency_limits
    running = DagsterRun(job_name="__ASSET_JOB", run_id="a" * 32, status=DagsterRunStatus.STARTED,
                         tags={"dagster/partition": "shop"})
    counter = TagConcurrencyLimitsCounter(limits, [running])
    queued = {p: DagsterRun(job_name="ingest", run_id=uuid.uuid4().hex,  # the counter reads tags only
                            tags={"dagster/partition": p}) for p in ("shop", "docs")}
    assert counter.is_blocked(queued["shop"]) and not counter.is_blocked(queued["docs"])


def test_a_killed_ledger_ingest_does_not_hold_its_partition(home, make_repo):
    """execute_in_process has no run worker to monitor: a run whose `ledger ingest` process died
    would stay STARTED for ever. The guard marks it failed instead."""
    settings, ledger, instance = home
    head = registered_repo(make_repo, ledger, instance)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    run = add_run(instance, "shop", DagsterRunStatus.STARTED, **{"ledger/source": "cli", "ledger/pid": str(dead.pid),
                                                                  "ledger/host": socket.gethostname()})
    result = sensor_tick(settings, instance)
    assert key_heads(result) == [f"shop@{head}"]
    assert instance.get_run_by_id(run.run_id).status == DagsterRunStatus.FAILURE


def test_remove_repo_refuses_while_a_run_of_it_is_in_flight(home, git_repo, capsys):
    _, ledger, instance = home
    git_repo.write("a.py", "x = 1\n")
    git_repo.commit()
    assert main(["add-repo", str(git_repo.path), "--id", "shop"]) == 0
    run = add_run(instance, "shop", DagsterRunStatus.STARTED, job="__ASSET_JOB")
    assert main(["remove-repo", "shop", "--purge"]) == 1
    err = capsys.readouterr().err
    assert "queued or in flight" in err and run.run_id[:8] in err and len(err.strip().splitlines()) == 1
    assert "shop" in ledger.registry.load() and instance.has_dynamic_partition(PARTITIONS, "shop")


# ------------------------------------------------------------ remove and re-add ---
def test_a_partition_deleted_in_the_ui_unregisters_its_repo(home, git_repo, capsys):
    settings, ledger, instance = home
    git_repo.write("a.py", "x = 1\n")
    head = git_repo.commit()
    assert main(["add-repo", str(git_repo.path), "--id", "shop"]) == 0
    first = sensor_tick(settings, instance)
    store(first, instance)
    launch(first, instance, DagsterRunStatus.SUCCESS)
    pipeline.snapshot_stage(ledger, "shop", "r1", LOG)  # rows of the repo, as its run wrote them
    write_indexed_head(settings.home_path, "shop", head)

    instance.delete_dynamic_partition(PARTITIONS, "shop")  # the UI's "Delete partition"
    log = Collect()
    after = sensor_tick(settings, instance, first.cursor, log=log)
    store(after, instance)
    assert after.run_requests == [] and after.dynamic_partitions_requests == []
    assert not instance.has_dynamic_partition(PARTITIONS, "shop")
    assert "shop" not in ledger.registry.load()
    (line,) = [m for m in log.messages if "git_head_sensor: repo shop" in m]
    assert line.startswith("WARNING") and "partition was deleted" in line and "remove-repo shop --purge" in line

    # What the line says works: the rows go, though the repo is no longer registered.
    capsys.readouterr()
    assert main(["remove-repo", "shop", "--purge"]) == 0
    assert "no longer registered" in capsys.readouterr().out
    with ledger.db.connect() as con:
        assert con.execute("SELECT count(*) FROM manifest WHERE repo_id = 'shop'").fetchone()[0] == 0
    assert main(["remove-repo", "shop", "--purge"]) == 2  # nothing left of it: an unknown id

    # Added again: a partition, and a run of its HEAD.
    assert main(["add-repo", str(git_repo.path), "--id", "shop"]) == 0
    back = sensor_tick(settings, instance, after.cursor)
    assert instance.has_dynamic_partition(PARTITIONS, "shop") and key_heads(back) == [f"shop@{head}"]


def test_purge_and_add_again_at_the_same_head_gets_a_run_and_says_truly_why_it_waits(home, git_repo, capsys):
    settings, ledger, instance = home
    git_repo.write("a.py", "x = 1\n")
    head = git_repo.commit()
    assert main(["add-repo", str(git_repo.path), "--id", "shop"]) == 0
    first = sensor_tick(settings, instance)
    store(first, instance)
    (old_run,) = launch(first, instance, DagsterRunStatus.SUCCESS)
    write_indexed_head(settings.home_path, "shop", head)
    idle = sensor_tick(settings, instance, first.cursor)
    assert idle.run_requests == []

    assert main(["remove-repo", "shop", "--purge"]) == 0
    assert main(["add-repo", str(git_repo.path), "--id", "shop"]) == 0
    capsys.readouterr()
    again = sensor_tick(settings, instance, idle.cursor)
    store(again, instance)
    (request,) = again.run_requests
    assert request.run_key.startswith(f"shop@{head}") and request.run_key != old_run.tags["dagster/run_key"]
    # Dagster drops a request whose key a run of this sensor already carries: this one is new.
    assert instance.get_runs(RunsFilter(tags={"dagster/run_key": request.run_key})) == []

    # Had the request launched nothing, the tick would not claim a run failed.
    silent = sensor_tick(settings, instance, again.cursor)
    reason = silent.skip_reason.skip_message
    assert silent.run_requests == [] and "launched no run" in reason and "failed" not in reason, reason
    (failed,) = launch(again, instance, DagsterRunStatus.FAILURE)
    told = sensor_tick(settings, instance, again.cursor).skip_reason.skip_message
    assert f"({failed.run_id[:8]}) failed; backing off" in told, told


# ------------------------------------------------------------------ ledger ingest ---
def test_ingest_all_runs_the_healthy_repos_and_reports_each_other_in_one_line(home, make_repo, capsys):
    settings, ledger, instance = home
    repos = {rid: make_repo(rid) for rid in ("busy", "free", "gone")}
    for rid, repo in repos.items():
        repo.write(f"{rid}/core.py", f"def {rid}_total(a, b):\n    return a + b\n")
        repo.write("README.md", f"# {rid}\n\nThe {rid} service.\n")
        repo.commit()
        assert main(["add-repo", str(repo.path), "--id", rid]) == 0
    shutil.rmtree(repos["gone"].path)
    busy = add_run(instance, "busy", DagsterRunStatus.STARTED, job="__ASSET_JOB")  # the UI's Materialize
    capsys.readouterr()

    assert main(["ingest", "--all", "--format", "json"]) == 1
    out, err = capsys.readouterr()
    summary = json.loads(out)
    assert summary["not_ingested"] == ["busy", "gone"] and len(summary["runs"]) == 1 and summary["chunks_written"] >= 2
    lines = [line for line in err.splitlines() if line.startswith("ledger ingest:")]  # beside the run's log
    assert len(lines) == 2 and "Traceback" not in err, err
    assert lines[0].startswith("ledger ingest: busy: not ingested:") and busy.run_id[:8] in lines[0]
    assert lines[1].startswith("ledger ingest: gone: not ingested:") and "directory not found" in lines[1]
    (run,) = instance.get_runs(RunsFilter(tags={"dagster/partition": "free"}))
    assert run.status == DagsterRunStatus.SUCCESS and run.tags["ledger/source"] == "cli"

    # Every asset of the run says how many rows it holds for the repo (the README's promise).
    for asset in ("repo_snapshot", "chunks", "intents", "embeddings", "chunk_quality", "git_history", "code_graph",
                  "qdrant_points"):
        (record,) = instance.fetch_materializations(AssetRecordsFilter(asset_key=AssetKey(asset),
                                                                       asset_partitions=["free"]), limit=1).records
        assert "dagster/row_count" in record.asset_materialization.metadata, asset
    intents = instance.fetch_materializations(AssetRecordsFilter(asset_key=AssetKey("intents"),
                                                                 asset_partitions=["free"]), limit=1).records[0]
    chunks = instance.fetch_materializations(AssetRecordsFilter(asset_key=AssetKey("chunks"),
                                                                asset_partitions=["free"]), limit=1).records[0]
    assert intents.asset_materialization.metadata["dagster/row_count"].value == \
        chunks.asset_materialization.metadata["dagster/row_count"].value


def test_a_corrupt_duckdb_file_fails_its_step_once_without_retries(home, git_repo, capsys):
    settings, ledger, instance = home
    git_repo.write("a.py", "x = 1\n")
    git_repo.commit()
    assert main(["add-repo", str(git_repo.path), "--id", "shop"]) == 0
    settings.duckdb_path.parent.mkdir(parents=True, exist_ok=True)
    settings.duckdb_path.write_bytes(b"this is not a DuckDB database file\n" * 200)
    capsys.readouterr()

    t0 = time.monotonic()
    assert main(["ingest", "shop"]) == 1
    elapsed = time.monotonic() - t0
    (run,) = instance.get_runs(RunsFilter(tags={"dagster/partition": "shop"}))
    kinds = [e.dagster_event.event_type for e in instance.all_logs(run.run_id) if e.dagster_event]
    assert DagsterEventType.STEP_UP_FOR_RETRY not in kinds and DagsterEventType.STEP_RESTARTED not in kinds
    assert kinds.count(DagsterEventType.STEP_FAILURE) == 1 and elapsed < 60
    assert "repo_snapshot" in capsys.readouterr().err


def test_a_lock_wait_that_ran_out_is_still_retried(home, git_repo, monkeypatch, capsys):
    """The other side of the rule above: another process held the DuckDB file past lock_timeout_s; the
    step is retried (LOCK_RETRY_DELAY_S later) and the run succeeds once the lock is gone."""
    settings, ledger, instance = home
    monkeypatch.setenv("LEDGER_LOCK_TIMEOUT_S", "1")
    git_repo.write("a.py", "x = 1\n")
    git_repo.commit()
    assert main(["add-repo", str(git_repo.path), "--id", "shop"]) == 0
    with ledger.db.connect():
        pass  # the file exists, with its schema
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); "
                               "print('held', flush=True); time.sleep(4)", str(settings.duckdb_path)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        rc = main(["ingest", "shop"])
    finally:
        holder.kill()
        holder.wait()
    assert rc == 0, capsys.readouterr().err[-2000:]
    (run,) = instance.get_runs(RunsFilter(tags={"dagster/partition": "shop"}))
    kinds = [e.dagster_event.event_type for e in instance.all_logs(run.run_id) if e.dagster_event]
    assert DagsterEventType.STEP_UP_FOR_RETRY in kinds and run.status == DagsterRunStatus.SUCCESS
