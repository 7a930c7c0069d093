"""Many hands on one LEDGER_HOME, and the git HEAD sensor.

DuckDB allows one writing process per file and Qdrant local mode one client per
folder, so the ledger opens both only for short spells and waits on a busy
lock instead of failing. The first test holds it to that with real processes:
two `ledger ingest` runs of two repos, a sensor tick and a `ledger query`, all
at once on one DuckDB file and one Qdrant folder. The sensor tests drive
git_head_sensor with build_sensor_context over real git repos.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import time
import uuid

import pytest
from dagster import DagsterInstance, DagsterRun, DagsterRunStatus, RunsFilter, SensorResult, build_sensor_context

from ledger_assets import cli
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.qdrant import repo_filter
from ledger_assets.store.registry import write_indexed_head
from ledger_assets.defs.resources import LedgerResource
from ledger_assets.defs.sensors import git_head_sensor
from ledger_assets.store.settings import LedgerSettings
from tests.conftest import FIXTURES, ingest_core
from tests.e2e.processes import LEDGER_ARGV, ROOT, ledger_env, start_ledger

# What a lost lock looks like from each store, were the waiting to fail.
LOCK_ERRORS = ("LedgerLockTimeout", "QdrantBusy", "Conflicting lock", "Could not set lock",
               "already accessed by another instance")

# Each ingest's DuckDB and Qdrant spells overlap the other's at this size; what
# dominates a run's time on 2 cores is loading torch and the model, not the repo.
N_FILES = 10

BOOKING_PY = (FIXTURES / "python" / "booking.py").read_text()


def seed_domain(repo, domain: str, n_files: int) -> str:
    """n_files modules of three small functions each, text unique to this repo and file
    (the embedding cache is shared by all repos, so shared text would embed once)."""
    for i in range(n_files):
        repo.write(f"src/{domain}/module_{i:02d}.py", "\n\n".join(
            f'def {domain}_{verb}_{i}(items: list[int], factor: int = {i + 2}) -> int:\n'
            f'    """{verb.capitalize()} the {domain} items of batch {i} by {i + 2}."""\n'
            f'    total = 0\n'
            f'    for item in items:\n'
            f'        total += item * factor - {i}\n'
            f'    return total\n'
            for verb in ("count", "weigh", "price")))
    repo.write("README.md", f"# {domain}\n\nThe {domain} service, {n_files} modules.\n")
    return repo.commit(f"seed {domain}")


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.levelname} {record.getMessage()}")


def sensor_tick(settings: LedgerSettings, instance: DagsterInstance, cursor: str | None = None,
                log: Collect | None = None) -> SensorResult:
    context = build_sensor_context(instance=instance, cursor=cursor,
                                   resources={"ledger": LedgerResource.from_settings(settings)})
    if log is not None:
        context.log.addHandler(log)  # the tick's logger is not in logging's tree: caplog cannot see it
    result = git_head_sensor(context)
    assert isinstance(result, SensorResult)
    return result


def run_keys(result: SensorResult) -> list[str]:
    return sorted(r.run_key for r in result.run_requests)


def key_heads(result: SensorResult) -> list[str]:
    """The `ID@HEAD` part of each run key (the rest names the registration and the try)."""
    return sorted(k.split("/", 1)[0] for k in run_keys(result))


def cursor_heads(result: SensorResult) -> dict[str, str]:
    return {rid: entry["head"] for rid, entry in json.loads(result.cursor).items()}


# ------------------------------------------------------------ concurrency ---
def test_two_ingests_a_sensor_tick_and_a_query_at_once(tmp_path, make_repo, embedder, monkeypatch):
    home = tmp_path / "home"
    settings = LedgerSettings(home=str(home), lock_timeout_s=120)
    ledger = Ledger(settings)
    monkeypatch.setenv("LEDGER_HOME", str(home))
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster"))
    monkeypatch.delenv("QDRANT_URL", raising=False)

    # An indexed repo for the query to find while the other two are being written.
    base = make_repo("base")
    base.write("src/booking.py", BOOKING_PY)
    base.commit("booking")
    ledger.registry.add(base.path, "base")
    ingest_core(ledger, "base", embedder)

    heads = {}
    for rid, domain in (("alpha", "inventory"), ("beta", "invoice")):
        repo = make_repo(rid)
        heads[rid] = seed_domain(repo, domain, N_FILES)
        assert cli.main(["add-repo", str(repo.path), "--id", rid]) == 0  # the real command, in process

    env = ledger_env(home)
    t_start = time.time()
    ingests = {rid: start_ledger(env, "ingest", rid, "--format", "json", log=tmp_path / f"ingest-{rid}.log")
               for rid in ("alpha", "beta")}
    query = None
    with DagsterInstance.get() as instance:
        try:
            # Wait for a run to be under way, so the tick and the query land inside the ingest.
            deadline = time.monotonic() + 120
            while not instance.get_runs(RunsFilter(statuses=[DagsterRunStatus.STARTED])):
                assert all(p.poll() is None for p in ingests.values()), "an ingest ended before its run started"
                assert time.monotonic() < deadline, "no ingest run started within 120 s"
                time.sleep(0.2)
            q_start = time.time()
            query = subprocess.Popen(
                [*LEDGER_ARGV, "query", "reserve a room for a guest", "--k", "5", "--format", "json"],
                cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            tick = sensor_tick(settings, instance)  # in this process, against the same home and instance
            q_out, q_err = query.communicate(timeout=240)
            outs = {rid: p.communicate(timeout=300)[0] for rid, p in ingests.items()}
        finally:
            for p in [*ingests.values(), query]:
                if p is not None and p.poll() is None:
                    p.kill()
        records = {r.dagster_run.tags.get("dagster/partition"): r for r in instance.get_run_records(
            RunsFilter(tags={"ledger/source": "cli"}))}

    logs = {rid: (tmp_path / f"ingest-{rid}.log").read_text(encoding="utf-8") for rid in ingests}
    for rid, p in ingests.items():
        assert p.returncode == 0, logs[rid][-3000:]
        assert not [e for e in LOCK_ERRORS if e in logs[rid]], logs[rid][-3000:]
    assert query.returncode == 0, q_err[-3000:]
    assert not [e for e in LOCK_ERRORS if e in q_err], q_err[-3000:]

    # The two runs really ran at the same time, and the query ran inside them.
    alpha, beta = records["alpha"], records["beta"]
    assert alpha.dagster_run.status == beta.dagster_run.status == DagsterRunStatus.SUCCESS
    assert alpha.start_time < beta.end_time and beta.start_time < alpha.end_time, (
        f"runs did not overlap: alpha {alpha.start_time - t_start:.1f}-{alpha.end_time - t_start:.1f}s, "
        f"beta {beta.start_time - t_start:.1f}-{beta.end_time - t_start:.1f}s")
    assert min(alpha.start_time, beta.start_time) <= q_start < max(alpha.end_time, beta.end_time)

    hits = json.loads(q_out)
    assert any(h["repo_id"] == "base" and h["file_path"] == "src/booking.py" for h in hits), hits
    # The tick never asks for `base` (indexed at HEAD); alpha and beta only while not yet indexed.
    assert set(key_heads(tick)) <= {f"alpha@{heads['alpha']}", f"beta@{heads['beta']}"}

    # Nothing was lost to the interleaving: every chunk row has exactly its point.
    for rid in ("alpha", "beta"):
        summary = json.loads(outs[rid])
        with ledger.db.connect() as con:
            rows = con.execute("SELECT count(*) FROM chunks WHERE repo_id = ?", [rid]).fetchone()[0]
        with ledger.qdrant.open() as client:
            points = client.count(settings.collection, count_filter=repo_filter(rid), exact=True).count
        assert summary["chunks_written"] == rows == points >= N_FILES * 3


# ----------------------------------------------------------------- sensor ---
@pytest.fixture
def sensor_home(tmp_path):
    settings = LedgerSettings(home=str(tmp_path / "home"))
    return settings, Ledger(settings), DagsterInstance.ephemeral()


def test_first_tick_requests_a_run_per_repo_keyed_by_head(sensor_home, make_repo):
    settings, ledger, instance = sensor_home
    shop, docs = make_repo("shop"), make_repo("docs")
    shop.write("a.py", "x = 1\n")
    docs.write("a.md", "# A\n")
    heads = {"shop": shop.commit(), "docs": docs.commit()}
    ledger.registry.add(shop.path, "shop")
    ledger.registry.add(docs.path, "docs")

    result = sensor_tick(settings, instance)

    assert key_heads(result) == sorted(f"{rid}@{sha}" for rid, sha in heads.items())
    assert {r.partition_key for r in result.run_requests} == {"shop", "docs"}
    assert cursor_heads(result) == heads


def test_no_new_commit_no_request_then_one_commit_one_request(sensor_home, git_repo):
    settings, ledger, instance = sensor_home
    git_repo.write("a.py", "x = 1\n")
    git_repo.commit()
    ledger.registry.add(git_repo.path, "shop")
    first = sensor_tick(settings, instance)
    assert len(first.run_requests) == 1

    again = sensor_tick(settings, instance, first.cursor)
    assert again.run_requests == []
    assert "no HEAD moved" in again.skip_reason.skip_message

    git_repo.write("a.py", "x = 2\n")
    new_head = git_repo.commit("bump")
    moved = sensor_tick(settings, instance, again.cursor)
    assert key_heads(moved) == [f"shop@{new_head}"]
    assert cursor_heads(moved) == {"shop": new_head}


def test_repo_already_indexed_at_head_requests_nothing(sensor_home, make_repo):
    settings, ledger, instance = sensor_home
    done, todo = make_repo("done"), make_repo("todo")
    done.write("a.py", "x = 1\n")
    todo.write("b.py", "y = 1\n")
    done_head, todo_head = done.commit(), todo.commit()
    ledger.registry.add(done.path, "done")
    ledger.registry.add(todo.path, "todo")
    write_indexed_head(settings.home_path, "done", done_head)  # what promoted_index records

    result = sensor_tick(settings, instance)
    assert key_heads(result) == [f"todo@{todo_head}"]
    assert cursor_heads(result)["done"] == done_head


def test_vanished_repo_is_skipped_with_a_logged_reason(sensor_home, make_repo, tmp_path):
    settings, ledger, instance = sensor_home
    gone, live = make_repo("gone"), make_repo("live")
    gone.write("a.py", "x = 1\n")
    live.write("b.py", "y = 1\n")
    gone.commit()
    live_head = live.commit()
    ledger.registry.add(gone.path, "gone")
    ledger.registry.add(live.path, "live")
    shutil.rmtree(gone.path)

    log = Collect()
    result = sensor_tick(settings, instance, log=log)
    assert key_heads(result) == [f"live@{live_head}"]
    assert [m for m in log.messages if m.startswith("WARNING skipping gone:") and "not found" in m], log.messages

    # With nothing else to run, the tick is a skip that names the missing repo.
    lone = LedgerSettings(home=str(tmp_path / "lone-home"))
    Ledger(lone).registry.add(live.path, "gone-too")
    shutil.rmtree(live.path)
    only_gone = sensor_tick(lone, instance)
    assert only_gone.run_requests == []
    assert "gone-too" in only_gone.skip_reason.skip_message


def test_new_repo_not_yet_a_partition_is_added_by_the_tick(sensor_home, make_repo):
    settings, ledger, instance = sensor_home
    old, new = make_repo("old"), make_repo("new")
    old.write("a.py", "x = 1\n")
    new.write("b.py", "y = 1\n")
    old.commit()
    new.commit()
    ledger.registry.add(old.path, "old")
    instance.add_dynamic_partitions("repos", ["old"])
    ledger.registry.add(new.path, "new")

    result = sensor_tick(settings, instance)

    assert [(r.partitions_def_name, list(r.partition_keys)) for r in result.dynamic_partitions_requests] == \
        [("repos", ["new"])]
    assert {r.partition_key for r in result.run_requests} == {"old", "new"}


def test_a_partition_no_registered_repo_backs_is_deleted_by_the_tick(sensor_home, make_repo):
    settings, ledger, instance = sensor_home
    real = make_repo("real")
    real.write("a.py", "x = 1\n")
    head = real.commit()
    ledger.registry.add(real.path, "real")
    instance.add_dynamic_partitions("repos", ["real", "ghost"])  # "ghost": typed into the UI's dialog

    log = Collect()
    result = sensor_tick(settings, instance, log=log)

    assert [(type(r).__name__, list(r.partition_keys)) for r in result.dynamic_partitions_requests] == \
        [("DeleteDynamicPartitionsRequest", ["ghost"])]
    assert key_heads(result) == [f"real@{head}"]
    assert any("removing partition 'ghost'" in m for m in log.messages), log.messages


def test_a_head_that_was_not_promoted_is_requested_again_with_backoff(sensor_home, git_repo):
    """The cursor records success (the promoted sha), not the request: a failed run is retried."""
    from ledger_assets.defs.sensors import MAX_TRIES, RETRY_BASE_S

    settings, ledger, instance = sensor_home
    git_repo.write("a.py", "x = 1\n")
    head = git_repo.commit()
    ledger.registry.add(git_repo.path, "shop")
    instance.add_dynamic_partitions("repos", ["shop"])
    first = sensor_tick(settings, instance)
    assert key_heads(first) == [f"shop@{head}"]
    base = first.run_requests[0].run_key

    def failed(result: SensorResult) -> None:  # the daemon launched the requested run; it failed
        for request in result.run_requests:
            run = instance.add_run(DagsterRun(job_name="ingest", run_id=uuid.uuid4().hex, status=DagsterRunStatus.STARTED,
                                              tags={"dagster/run_key": request.run_key, "dagster/partition": "shop"}))
            instance.report_run_failed(run)

    # The run failed (say a blocking check): nothing was promoted. Right away: backing off.
    failed(first)
    soon = sensor_tick(settings, instance, first.cursor)
    reason = soon.skip_reason.skip_message
    assert soon.run_requests == [] and "backing off" in reason and "failed" in reason, reason

    def aged(result: SensorResult, seconds: float) -> str:
        cursor = json.loads(result.cursor)
        cursor["shop"]["at"] -= seconds
        return json.dumps(cursor)

    second = sensor_tick(settings, instance, aged(soon, RETRY_BASE_S + 1))
    assert run_keys(second) == [f"{base}#2"]
    failed(second)
    # The backoff doubles: one base period is not enough after the second try.
    assert sensor_tick(settings, instance, aged(second, RETRY_BASE_S + 1)).run_requests == []
    cursor = second
    for n in range(3, MAX_TRIES + 1):
        cursor = sensor_tick(settings, instance, aged(cursor, RETRY_BASE_S * 2 ** n))
        assert run_keys(cursor) == [f"{base}#{n}"]
        failed(cursor)
    gave_up = sensor_tick(settings, instance, aged(cursor, RETRY_BASE_S * 2 ** 10))
    assert gave_up.run_requests == [] and "gave up" in gave_up.skip_reason.skip_message

    write_indexed_head(settings.home_path, "shop", head)  # a run (or `ledger ingest`) promoted it
    done = sensor_tick(settings, instance, gave_up.cursor)
    assert done.run_requests == [] and json.loads(done.cursor)["shop"]["tries"] == 0


def test_the_tick_observes_index_freshness_when_its_verdict_changes(sensor_home, git_repo):
    settings, ledger, instance = sensor_home
    settings = settings.with_(freshness_max_lag_s=600)
    git_repo.write("a.py", "x = 1\n")
    old = git_repo.commit()
    ledger.registry.add(git_repo.path, "shop")
    instance.add_dynamic_partitions("repos", ["shop"])
    write_indexed_head(settings.home_path, "shop", old)
    fresh = sensor_tick(settings, instance)
    assert [(e.asset_key.to_user_string(), e.partition, e.metadata["fresh"].value) for e in fresh.asset_events] \
        == [("promoted_index", "shop", True)]

    git_repo.write("a.py", "x = 2\n")  # a commit made two hours ago that no run has promoted
    two_hours_ago = time.strftime("%Y-%m-%dT%H:%M:%S+0000", time.gmtime(time.time() - 7200))
    new = git_repo.commit("bump", env={"GIT_COMMITTER_DATE": two_hours_ago, "GIT_AUTHOR_DATE": two_hours_ago})
    stale = sensor_tick(settings, instance, fresh.cursor)
    (event,) = stale.asset_events
    assert (event.metadata["fresh"].value, event.partition) == (False, "shop")
    assert event.metadata["lag_s"].value >= 7000 and "120 min behind" in event.description
    assert sensor_tick(settings, instance, stale.cursor).asset_events == []  # unchanged verdict: no new event

    write_indexed_head(settings.home_path, "shop", new)
    back = sensor_tick(settings, instance, stale.cursor)
    assert [e.metadata["fresh"].value for e in back.asset_events] == [True]


def test_no_second_run_while_one_of_the_partition_is_queued_or_running(sensor_home, git_repo):
    """A backfill's or the UI's run carries no `ledger/head` tag: the tick still sees it and waits."""
    from ledger_assets.defs.jobs import ingest_job

    settings, ledger, instance = sensor_home
    git_repo.write("a.py", "x = 1\n")
    head = git_repo.commit()
    ledger.registry.add(git_repo.path, "shop")
    instance.add_dynamic_partitions("repos", ["shop"])
    for status in (DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTED):
        run = instance.add_run(DagsterRun(job_name=ingest_job.name, run_id=f"backfill-{status.value.lower()}",
                                          status=status, tags={"dagster/partition": "shop",
                                                               "dagster/backfill": "abc"}))
        waiting = sensor_tick(settings, instance)
        assert waiting.run_requests == [] and "queued or in flight" in waiting.skip_reason.skip_message
        instance.report_run_failed(run) if status == DagsterRunStatus.STARTED else instance.delete_run(run.run_id)
    # Nothing in flight any more (and nothing promoted): the tick requests its own run.
    assert key_heads(sensor_tick(settings, instance)) == [f"shop@{head}"]
