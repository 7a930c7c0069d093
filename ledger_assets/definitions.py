"""The Dagster code location: `dagster dev -w workspace.yaml` loads `defs`."""

from dagster import Definitions

from .assets import ALL_ASSETS
from .jobs import ingest_job
from .resources import EmbedderResource, LedgerResource
from .sensors import git_head_sensor
from .settings import LedgerSettings


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
