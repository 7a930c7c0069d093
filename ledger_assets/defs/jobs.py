"""The ingest job: the whole asset graph for one repo partition."""

from dagster import AssetSelection, define_asset_job


ingest_job = define_asset_job(
    "ingest",
    selection=AssetSelection.groups("ledger"),
    description="Snapshot, chunk, analyse, embed and index one repo (one partition).",
)
