"""git_head_sensor: a run for each repo whose HEAD is not the promoted sha.

A tick reads the registry (a JSON file, never locked), each repo's HEAD (`git
rev-parse`, milliseconds) and the promoted sha (the heads file promotion writes);
it never touches DuckDB or Qdrant. A repo promoted at its HEAD requests nothing,
so a `ledger ingest` from the command line is not repeated by the sensor. A plain
folder's head is the stat signature of its files (`read_head`), the same id its
snapshot stores.

Retries converge: the cursor records success (the promoted sha), not the request.
A HEAD whose run failed (a failed check, a crash) is requested again once no run
for it is in flight, after a backoff that doubles (RETRY_BASE_S, 2x, 4x), at most
MAX_TRIES times; then the tick says so and index_fresh goes red. A partition no
registered repo backs (a removed repo, a name typed into the UI) is deleted by the
tick. The tick also reports each repo's index_fresh check whenever its verdict
changes.
"""

import json
import time

from dagster import (AssetCheckEvaluation, AssetCheckSeverity, AssetKey, DagsterRunStatus, DefaultSensorStatus,
                     RunRequest, RunsFilter, SensorEvaluationContext, SensorResult, SkipReason, sensor)

from ledger_assets.defs.checks import FRESHNESS_DESCRIPTION
from ledger_assets.defs.jobs import ingest_job
from ledger_assets.defs.partitions import repos_partitions
from ledger_assets.defs.resources import LedgerResource
from ledger_assets.ingest.promotion import check_fresh, served_state
from ledger_assets.ingest.snapshot import SnapshotError, read_head
from ledger_assets.store.registry import RegistryError
from ledger_assets.store.settings import SENSOR_MAX_TRIES as MAX_TRIES, SENSOR_RETRY_BASE_S as RETRY_BASE_S

IN_FLIGHT = [DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING,
             DagsterRunStatus.STARTED, DagsterRunStatus.CANCELING]


def _entry(raw) -> dict:
    """A cursor entry: {"head", "tries", "at", "fresh"}; a bare sha is the cursor of an older version."""
    return {"head": raw, "tries": 1, "at": 0.0} if isinstance(raw, str) else dict(raw or {})


def _in_flight(context: SensorEvaluationContext, rid: str) -> bool:
    """Is a run of this partition queued or running, whoever launched it (this sensor, a backfill, the
    UI's Materialize, `ledger ingest`)? A second run beside it would only wait for the lock, then redo it."""
    if context.instance is None:
        return False
    runs = context.instance.get_runs(filters=RunsFilter(
        job_name=ingest_job.name, statuses=IN_FLIGHT, tags={"dagster/partition": rid}), limit=1)
    return bool(runs)


def _freshness_event(rid: str, passed: bool, outcome) -> AssetCheckEvaluation:
    return AssetCheckEvaluation(asset_key=AssetKey("promoted_index"), check_name="index_fresh", passed=passed,
                                description=outcome.description, metadata=outcome.metadata,
                                severity=AssetCheckSeverity.WARN, partition=rid)


@sensor(job=ingest_job, minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING,
        description="Requests an ingest run for each registered repo whose git HEAD is not the promoted sha "
                    "(again, with backoff, when a run failed), and reports index_fresh. " + FRESHNESS_DESCRIPTION)
def git_head_sensor(context: SensorEvaluationContext, ledger: LedgerResource):
    settings = ledger.settings()
    try:
        repos = ledger.ledger().registry.load()
    except RegistryError as exc:
        return SkipReason(f"repo registry unreadable: {exc}")
    cursor = {rid: _entry(raw) for rid, raw in (json.loads(context.cursor) if context.cursor else {}).items()}
    known = set(context.instance.get_dynamic_partitions(repos_partitions.name)) if context.instance else set()
    new_partitions = sorted(rid for rid in repos if rid not in known)
    # A partition with no registry entry (removed with `ledger remove-repo`, or typed into the UI's
    # "Add partition") would stay red in the catalog forever: the tick deletes it.
    ghosts = sorted(rid for rid in known if rid not in repos)
    for rid in ghosts:
        context.log.warning(f"removing partition {rid!r}: no repo is registered under that id")
    requests, skipped, waiting, events = [], [], [], []
    now = time.time()
    for rid, repo in sorted(repos.items()):
        try:
            head = read_head(repo.path, repo.kind)
        except SnapshotError as exc:
            skipped.append(rid)
            context.log.warning(f"skipping {rid}: {exc}")
            continue
        served = served_state(settings.home_path, rid)
        entry = cursor.get(rid, {})
        if rid not in new_partitions:
            outcome = check_fresh(served, repo, head, settings.freshness_max_lag_s, now)
            if entry.get("fresh") is not outcome.passed:
                events.append(_freshness_event(rid, outcome.passed, outcome))
            entry["fresh"] = outcome.passed
        if served.promoted_sha == head:  # success: nothing to request, and the next HEAD starts afresh
            cursor[rid] = {"head": head, "tries": 0, "at": now, "fresh": entry.get("fresh")}
            continue
        tries = entry.get("tries", 0) if entry.get("head") == head else 0
        if _in_flight(context, rid):
            waiting.append(f"{rid} (a run of it is queued or in flight)")
            cursor[rid] = entry
            continue
        if tries:
            if tries >= MAX_TRIES:
                waiting.append(f"{rid} (gave up after {tries} runs for {head[:12]}; `ledger ingest {rid}` "
                               "or a new commit tries again)")
                cursor[rid] = entry
                continue
            due = entry.get("at", 0.0) + RETRY_BASE_S * 2 ** (tries - 1)
            if now < due:
                waiting.append(f"{rid} (run {tries} for {head[:12]} failed; backing off)")
                cursor[rid] = entry
                continue
            context.log.warning(f"{rid}: HEAD {head[:12]} is still not promoted after {tries} run(s); retrying")
        cursor[rid] = {"head": head, "tries": tries + 1, "at": now, "fresh": entry.get("fresh")}
        requests.append(RunRequest(run_key=f"{rid}@{head}" + (f"#{tries + 1}" if tries else ""),
                                   partition_key=rid, tags={"ledger/head": head}))
    for rid in list(cursor):
        if rid not in repos:
            del cursor[rid]
    reason = "no HEAD moved" + (f"; waiting: {', '.join(waiting)}" if waiting else "") + (
        f"; skipped {', '.join(skipped)} (moved, deleted or without commits: see the tick's log)" if skipped else "")
    return SensorResult(
        run_requests=requests,
        dynamic_partitions_requests=(
            ([repos_partitions.build_add_request(new_partitions)] if new_partitions else [])
            + ([repos_partitions.build_delete_request(ghosts)] if ghosts else [])),
        asset_events=events,
        cursor=json.dumps(cursor, sort_keys=True),
        skip_reason=None if requests else SkipReason(reason),
    )
