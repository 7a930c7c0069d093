"""The ingest job: the whole asset graph for one repo partition.

In-process: a run's steps share one process (one model load, no subprocess per step),
so a no-op run from the UI costs what `ledger ingest` does. Partitions still run in
parallel, one run each (dagster.yaml: max_concurrent_runs, and a dagster/partition tag
limit of one run per partition, whatever the job).
"""

from dagster import AssetSelection, define_asset_job, in_process_executor

INGEST_JOB = "ingest"

ingest_job = define_asset_job(
    INGEST_JOB,
    selection=AssetSelection.groups("ledger"),
    executor_def=in_process_executor,
    description="Snapshot, chunk, analyse, embed, index and promote one repo (one partition).",
)
