"""Running the asset graph from the command line: the instance, its partitions, the runs of a partition
in flight, and a run's failures in one line each."""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

from ledger_assets.store.settings import LedgerSettings


# Dagster's per-event DEBUG lines drown the progress lines the stages log at INFO.
QUIET_RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "INFO"}}}}


def dagster_instance(settings: LedgerSettings):
    """The Dagster instance under LEDGER_HOME/dagster (or DAGSTER_HOME when set)."""
    from dagster import DagsterInstance

    home = Path(os.environ.get("DAGSTER_HOME") or settings.dagster_home)
    own = home.resolve() == settings.dagster_home  # LEDGER_HOME/dagster, however it was named
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    template = Path(__file__).resolve().parents[2] / "dagster.yaml"
    if template.exists() and (not config.exists() or (own and config.read_bytes() != template.read_bytes())):
        # The ledger's own instance follows the project's dagster.yaml (edits reach it, as `make dev` copies
        # it each time); a DAGSTER_HOME the user set is theirs: only seeded when it has no config.
        shutil.copyfile(template, config)
    elif not config.exists():
        config.write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    os.environ["DAGSTER_HOME"] = str(home)
    return DagsterInstance.get()


def ensure_partitions(instance, repo_ids: list[str]) -> None:
    """Add the repos' missing partitions. The sensor adds a registered repo's partition too (a tick between `add-repo`'s
    registration and this call), and Dagster reads before it writes: a partition added between the two fails the
    write's unique constraint. Then the partitions are read again and only what is still missing is added (three
    tries; a soak test's `add-repo` after `remove-repo --purge` failed so, the daemon running)."""
    from sqlalchemy.exc import IntegrityError

    from ledger_assets.defs.partitions import repos_partitions

    for attempt in range(3):
        known = set(instance.get_dynamic_partitions(repos_partitions.name))
        missing = [r for r in repo_ids if r not in known]
        if not missing:
            return
        try:
            instance.add_dynamic_partitions(repos_partitions.name, missing)
            return
        except IntegrityError:
            if attempt == 2:
                raise


PARTITION_TAG = "dagster/partition"
# Where a `ledger ingest` run executes (execute_in_process: no run worker a daemon could monitor).
SOURCE_TAG, PID_TAG, HOST_TAG = "ledger/source", "ledger/pid", "ledger/host"


def cli_run_tags() -> dict[str, str]:
    return {SOURCE_TAG: "cli", PID_TAG: str(os.getpid()), HOST_TAG: socket.gethostname()}


def _worker_pid(instance, run) -> str:
    """The pid a run's process reported at its start ("Started process for run (pid: N)"), for runs the
    instance launched on this machine (Dagster's DefaultRunLauncher); "" for any other launcher, whose
    workers live elsewhere."""
    from dagster import DagsterEventType
    from dagster._core.launcher import DefaultRunLauncher

    if not isinstance(instance.run_launcher, DefaultRunLauncher):
        return ""
    for record in instance.all_logs(run.run_id, of_type=DagsterEventType.ENGINE_EVENT):
        pid = (record.dagster_event.engine_event_data.metadata or {}).get("pid") if record.dagster_event else None
        if pid is not None:
            return str(pid.value)
    return ""


def _process_gone(instance, run) -> bool:
    """A started run whose process on this host no longer exists (killed -9, out of memory: nothing marked
    it ended): a `ledger ingest` (its pid tag), or a run the daemon launched here (its worker's pid)."""
    if PID_TAG in run.tags:
        pid, host = run.tags.get(PID_TAG, ""), run.tags.get(HOST_TAG)
    else:
        pid, host = _worker_pid(instance, run), socket.gethostname()
    if not pid.isdigit() or host != socket.gethostname():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def runs_in_flight(instance, partition: str) -> list:
    """The runs of this partition that are queued or running, whatever their job (`ingest`, the UI's
    Materialize `__ASSET_JOB`, a backfill's) and whoever launched them. A started run whose process on
    this machine died is marked failed here instead: it would otherwise hold the partition for ever."""
    from dagster import DagsterRunStatus, RunsFilter

    in_flight = [DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING,
                 DagsterRunStatus.STARTED, DagsterRunStatus.CANCELING]
    runs = instance.get_runs(filters=RunsFilter(statuses=in_flight, tags={PARTITION_TAG: partition}))
    alive = []
    for run in runs:
        if run.status == DagsterRunStatus.STARTED and _process_gone(instance, run):
            instance.report_run_failed(run, "the process that ran it is gone (killed, or out of memory)")
        else:
            alive.append(run)
    return alive


def describe_run(run) -> str:
    return f"run {run.run_id[:8]} ({run.job_name}, {run.status.value.lower()})"


def failure_message(event) -> str:
    """The user-facing reason of a STEP_FAILURE: a Failure's description, else the innermost error."""
    data = event.event_specific_data
    if getattr(data, "user_failure_data", None) and data.user_failure_data.description:
        return data.user_failure_data.description
    err = getattr(data, "error", None)
    while err is not None and err.cause is not None:
        err = err.cause
    return err.message.strip() if err else "failed"


def run_failures(result) -> list[str]:
    messages = []
    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            messages.append(f"{event.step_key}: {failure_message(event)}")
        elif event.event_type_value == "ASSET_CHECK_EVALUATION":
            ev = event.event_specific_data
            if not ev.passed:
                messages.append(f"check {ev.asset_check_key.name} failed on "
                                f"{ev.asset_check_key.asset_key.to_user_string()}: {ev.description or ''}")
    return messages
