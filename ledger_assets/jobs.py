"""The ingest job: the whole asset graph for one repo partition."""

from dagster import AssetSelection, define_asset_job

from .partitions import repos_partitions

ingest_job = define_asset_job(
    "ingest",
    selection=AssetSelection.groups("ledger"),
    partitions_def=repos_partitions,
    description="Snapshot, chunk, analyse, embed and index one repo (one partition).",
)
