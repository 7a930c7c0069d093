"""git_head_sensor: a run for each repo whose HEAD moved.

A tick reads the registry (a JSON file, never locked) and each repo's HEAD
(`git rev-parse`, milliseconds); it never touches DuckDB or Qdrant. A repo
already indexed at its HEAD (recorded by qdrant_points) requests nothing, so a
`ledger ingest` from the command line is not repeated by the sensor. A plain
folder's head is the stat signature of its files (`read_head`), the same id
its snapshot stores, so an indexed folder is not requested again either. A
partition no registered repo backs (a removed repo, a name typed into the UI)
is deleted by the tick.
"""


import json

from dagster import DefaultSensorStatus, RunRequest, SensorEvaluationContext, SensorResult, SkipReason, sensor

from ledger_assets.defs.jobs import ingest_job
from ledger_assets.defs.partitions import repos_partitions
from ledger_assets.store.registry import RegistryError, read_indexed_head
from ledger_assets.defs.resources import LedgerResource
from ledger_assets.ingest.snapshot import SnapshotError, read_head


@sensor(job=ingest_job, minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING,
        description="Requests an ingest run for each registered repo whose git HEAD moved.")
def git_head_sensor(context: SensorEvaluationContext, ledger: LedgerResource):
    settings = ledger.settings()
    try:
        repos = ledger.ledger().registry.load()
    except RegistryError as exc:
        return SkipReason(f"repo registry unreadable: {exc}")
    cursor = json.loads(context.cursor) if context.cursor else {}
    known = set(context.instance.get_dynamic_partitions(repos_partitions.name)) if context.instance else set()
    new_partitions = sorted(rid for rid in repos if rid not in known)
    # A partition with no registry entry (removed with `ledger remove-repo`, or typed into the UI's
    # "Add partition") would stay red in the catalog forever: the tick deletes it.
    ghosts = sorted(rid for rid in known if rid not in repos)
    for rid in ghosts:
        context.log.warning(f"removing partition {rid!r}: no repo is registered under that id")
    requests, skipped = [], []
    for rid, repo in sorted(repos.items()):
        try:
            head = read_head(repo.path, repo.kind)
        except SnapshotError as exc:
            skipped.append(rid)
            context.log.warning(f"skipping {rid}: {exc}")
            continue
        if cursor.get(rid) == head:
            continue
        cursor[rid] = head
        if read_indexed_head(settings.home_path, rid) == head:
            continue
        requests.append(RunRequest(run_key=f"{rid}@{head}", partition_key=rid, tags={"ledger/head": head}))
    for rid in list(cursor):
        if rid not in repos:
            del cursor[rid]
    return SensorResult(
        run_requests=requests,
        dynamic_partitions_requests=(
            ([repos_partitions.build_add_request(new_partitions)] if new_partitions else [])
            + ([repos_partitions.build_delete_request(ghosts)] if ghosts else [])),
        cursor=json.dumps(cursor, sort_keys=True),
        skip_reason=None if requests else SkipReason(
            "no HEAD moved" + (f"; skipped {', '.join(skipped)} (moved, deleted or without commits: "
                               "see the tick's log)" if skipped else "")),
    )
