"""The Dagster code location: `dagster dev -w workspace.yaml` loads `defs`."""

from dagster import Definitions

from ledger_assets.defs.assets import ALL_ASSETS
from ledger_assets.defs.jobs import ingest_job
from ledger_assets.defs.resources import EmbedderResource, LedgerResource
from ledger_assets.defs.sensors import git_head_sensor
from ledger_assets.store.settings import LedgerSettings


def build_defs(settings: LedgerSettings) -> Definitions:
    return Definitions(
        assets=ALL_ASSETS,
        jobs=[ingest_job],
        sensors=[git_head_sensor],
        resources={
            "ledger": LedgerResource.from_settings(settings),
            "embedder": EmbedderResource(device=settings.embed_device, batch_size=settings.embed_batch),
        },
    )


defs = build_defs(LedgerSettings.from_env())
