"""git_head_sensor: a run for each repo whose HEAD is not the promoted sha.

A tick reads the registry, each repo's HEAD (`read_head`) and the promoted sha (the heads file);
never DuckDB or Qdrant. Each repo is handled on its own: an error on one is one warning line
"git_head_sensor: repo ID: ..." and the others are still requested.

A HEAD whose run failed is requested again after a doubling backoff, at most MAX_TRIES times; the
skip reason says a run failed only when the instance holds that run, failed. Run keys carry the
registration (`ID@HEAD/ADDED_UTC`): a repo purged and added again at the same HEAD gets a run, where
Dagster would drop a request whose key already ran. Nothing is requested while any run of the
partition, whatever its job, is queued or in flight.

Partitions follow the registry: one no repo backs is deleted; one the tick saw that is now gone
(deleted in the UI) unregisters its repo, data kept.

Freshness is an AssetObservation of promoted_index per partition (metadata `fresh`, `lag_s`), on
each change of verdict, not a runless AssetCheckEvaluation: Dagster stores those under a UNIQUE
(check, run_id "", partition) key, so a partition's second one fails, the tick raises and its
cursor never moves again. index_fresh itself runs in every ingest run.
"""

import json
import re
import time

from dagster import (AssetKey, AssetObservation, DagsterRunStatus, DefaultSensorStatus, MetadataValue, RunRequest,
                     RunsFilter, SensorEvaluationContext, SensorResult, sensor)

from ledger_assets.defs.checks import FRESHNESS_DESCRIPTION
from ledger_assets.defs.jobs import ingest_job
from ledger_assets.defs.partitions import repos_partitions
from ledger_assets.defs.resources import LedgerResource
from ledger_assets.ingest.promotion import check_fresh, served_state
from ledger_assets.ingest.snapshot import SnapshotError, read_head
from ledger_assets.defs.runs import describe_run, runs_in_flight
from ledger_assets.store.registry import UnknownRepo
from ledger_assets.store.settings import SENSOR_INTERVAL_S, SENSOR_MAX_TRIES as MAX_TRIES, SENSOR_RETRY_BASE_S as RETRY_BASE_S

RUN_KEY_TAG = "dagster/run_key"
FAILED = (DagsterRunStatus.FAILURE, DagsterRunStatus.CANCELED)


def _entry(raw) -> dict:
    """A cursor entry: {"head", "tries", "at", "fresh", "key", "reg", "seen"}; a bare sha is an older cursor's."""
    return {"head": raw, "tries": 1, "at": 0.0} if isinstance(raw, str) else dict(raw or {})


def _one_line(exc: Exception) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:500]


def registration(repo) -> str:
    """The registry entry's added_utc as digits: a repo removed and added again is a new registration."""
    return re.sub(r"\D", "", str(repo.added_utc or ""))[:14] or "0"


def _run_of_key(instance, key: str | None):
    if instance is None or not key:
        return None
    runs = instance.get_runs(filters=RunsFilter(tags={RUN_KEY_TAG: key}), limit=1)
    return runs[0] if runs else None


def _fresh_key(instance, base: str, n: int) -> str:
    """`base` + `#n` (n > 1), skipping keys some run already carries: Dagster would drop such a request."""
    while True:
        key = base + (f"#{n}" if n > 1 else "")
        if n > 99 or _run_of_key(instance, key) is None:
            return key
        n += 1


def _freshness_event(rid: str, outcome) -> AssetObservation:
    return AssetObservation(asset_key=AssetKey("promoted_index"), partition=rid, description=outcome.description,
                            metadata={"fresh": outcome.passed, "check": "index_fresh",
                                      "verdict": MetadataValue.text("fresh" if outcome.passed else "stale"),
                                      **outcome.metadata})


class _Tick:
    """One evaluation: what it requests, why it waits, what it reports."""

    def __init__(self, context: SensorEvaluationContext, settings, cursor: dict, known: set[str], now: float):
        self.context, self.settings, self.cursor, self.known, self.now = context, settings, cursor, known, now
        self.requests, self.waiting, self.skipped, self.errored, self.events = [], [], [], [], []
        self.checked = 0

    def repo(self, rid: str, repo) -> None:
        context, instance = self.context, self.context.instance
        try:
            head = read_head(repo.path, repo.kind)
        except SnapshotError as exc:
            self.skipped.append(rid)
            context.log.warning(f"skipping {rid}: {exc}")
            return
        reg = registration(repo)
        entry = self.cursor.get(rid, {})
        if entry.get("reg") not in (None, reg):  # removed and added again: a new repo as far as runs go
            entry = {}
        entry.update(reg=reg, seen=rid in self.known)
        served = served_state(self.settings.home_path, rid)
        if rid in self.known:
            outcome = check_fresh(served, repo, head, self.settings.freshness_max_lag_s, self.now)
            if entry.get("fresh") is not outcome.passed:
                self.events.append(_freshness_event(rid, outcome))
                if not outcome.passed:
                    context.log.warning(f"git_head_sensor: repo {rid}: index stale: {outcome.description}")
            entry["fresh"] = outcome.passed
        self.cursor[rid] = entry
        if served.promoted_sha == head:  # success: nothing to request, and the next HEAD starts afresh
            entry.update(head=head, tries=0, at=self.now)
            return
        tries = entry.get("tries", 0) if entry.get("head") == head else 0
        active = runs_in_flight(instance, rid) if instance is not None else []
        if active:
            self.waiting.append(f"{rid} ({describe_run(active[0])} of it is queued or in flight)")
            return
        if tries:
            last = _run_of_key(instance, entry.get("key"))
            if tries >= MAX_TRIES:
                what = f"; last {describe_run(last)}" if last else ""
                self.waiting.append(f"{rid} (gave up after {tries} requests for {head[:12]}{what}; "
                                    f"`ledger ingest {rid}` or a new commit tries again)")
                return
            due = entry.get("at", 0.0) + RETRY_BASE_S * 2 ** (tries - 1)
            if last is None:  # nothing failed: the request launched no run (the launch failed, or was dropped)
                why = f"request {tries} for {head[:12]} launched no run"
            elif last.status in FAILED:
                verb = "failed" if last.status == DagsterRunStatus.FAILURE else "was canceled"
                why = f"run {tries} for {head[:12]} ({last.run_id[:8]}) {verb}"
            else:
                why = f"run {tries} for {head[:12]} ({last.run_id[:8]}) ended without promoting it"
            if self.now < due:
                self.waiting.append(f"{rid} ({why}; backing off)")
                return
            context.log.warning(f"{rid}: {why}; requesting it again")
        key = _fresh_key(instance, f"{rid}@{head}/{reg}", tries + 1)
        entry.update(head=head, tries=tries + 1, at=self.now, key=key)
        self.requests.append(RunRequest(run_key=key, partition_key=rid, tags={"ledger/head": head}))

    def skip_reason(self) -> str:
        parts = ["no HEAD moved"] if self.checked or not (self.skipped or self.errored) else []
        if self.waiting:
            parts.append(f"waiting: {', '.join(self.waiting)}")
        if self.skipped:
            parts.append(f"skipped {', '.join(self.skipped)} (moved, deleted or without commits: see the tick's log)")
        if self.errored:
            parts.append(f"failed on {', '.join(self.errored)} (see the tick's log)")
        return "; ".join(parts)


@sensor(job=ingest_job, minimum_interval_seconds=SENSOR_INTERVAL_S, default_status=DefaultSensorStatus.RUNNING,
        description="Requests an ingest run for each registered repo whose git HEAD is not the promoted sha "
                    "(again, with backoff, when a run failed), and observes index freshness on promoted_index. "
                    + FRESHNESS_DESCRIPTION)
def git_head_sensor(context: SensorEvaluationContext, ledger: LedgerResource):
    settings = ledger.settings()
    core = ledger.ledger()
    try:
        repos = core.registry.load()
    except Exception as exc:  # noqa: BLE001 - a broken registry is reported, never a raising tick
        context.log.warning(f"git_head_sensor: repo registry unreadable: {_one_line(exc)}")
        return SensorResult(cursor=context.cursor, skip_reason=f"repo registry unreadable: {_one_line(exc)}")
    try:
        cursor = {rid: _entry(raw) for rid, raw in (json.loads(context.cursor) if context.cursor else {}).items()}
    except (ValueError, TypeError, AttributeError) as exc:  # a cursor edited by hand: start afresh
        context.log.warning(f"git_head_sensor: cursor unreadable, starting afresh: {_one_line(exc)}")
        cursor = {}
    known = set(context.instance.get_dynamic_partitions(repos_partitions.name)) if context.instance else set()

    # A partition the tick saw and that is gone was deleted (the UI's "Delete partition"): that removes
    # the repo, as `ledger remove-repo` would, keeping its data. Re-adding it would undo the user.
    retry_removal = set()
    for rid in sorted(set(repos) - known):
        entry = cursor.get(rid, {})
        if not (entry.get("seen") and entry.get("reg") == registration(repos[rid])):
            continue
        repo = repos.pop(rid)  # not re-added, not requested
        try:
            core.registry.remove(rid)
        except UnknownRepo:
            pass
        except Exception as exc:  # noqa: BLE001 - said, and tried again next tick
            retry_removal.add(rid)
            context.log.warning(f"git_head_sensor: repo {rid}: its partition was deleted; unregistering it "
                                f"failed: {_one_line(exc)}")
            continue
        context.log.warning(
            f"git_head_sensor: repo {rid}: its partition was deleted, so the repo is unregistered; its rows and "
            f"points stay (`ledger remove-repo {rid} --purge` deletes them, `ledger add-repo {repo.path} "
            f"--id {rid}` adds it back)")
    new_partitions = sorted(rid for rid in repos if rid not in known)
    # A partition with no registry entry (removed with `ledger remove-repo`, or typed into the UI's
    # "Add partition") would stay red in the catalog forever: the tick deletes it.
    ghosts = sorted(rid for rid in known if rid not in repos)  # (a repo pending removal has no partition)
    for rid in ghosts:
        context.log.warning(f"removing partition {rid!r}: no repo is registered under that id")

    tick = _Tick(context, settings, cursor, known, time.time())
    for rid, repo in sorted(repos.items()):
        try:
            tick.repo(rid, repo)
            tick.checked += rid not in tick.skipped
        except Exception as exc:  # noqa: BLE001 - one repo's failure never stops the others
            tick.errored.append(rid)
            context.log.warning(f"git_head_sensor: repo {rid}: {_one_line(exc)}")
    for rid in list(cursor):
        if rid not in repos and rid not in retry_removal:
            del cursor[rid]
    return SensorResult(
        run_requests=tick.requests,
        dynamic_partitions_requests=(
            ([repos_partitions.build_add_request(new_partitions)] if new_partitions else [])
            + ([repos_partitions.build_delete_request(ghosts)] if ghosts else [])),
        asset_events=tick.events,
        cursor=json.dumps(cursor, sort_keys=True),
        skip_reason=None if tick.requests else tick.skip_reason(),
    )
