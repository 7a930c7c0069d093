"""The Dagster code location: `dg dev` (or `dagster dev -w workspace.yaml`) loads `defs`."""

from pathlib import Path

from dagster import (AnchorBasedFilePathMapping, Definitions, in_process_executor, link_code_references_to_git,
                     with_source_code_references)

from ledger_assets.defs.assets import ALL_ASSETS
from ledger_assets.defs.checks import index_fresh
from ledger_assets.defs.jobs import ingest_job
from ledger_assets.defs.resources import EmbedderResource, LedgerResource
from ledger_assets.defs.sensors import git_head_sensor
from ledger_assets.store.settings import LedgerSettings


def _with_code_references(assets: list, source_url: str) -> list:
    """Each asset links to its definition: the local file, or with LEDGER_SOURCE_URL set (a git web URL of
    this project, e.g. https://github.com/org/code-ledger/tree/main) the line in the git host."""
    assets = with_source_code_references(assets)
    if not source_url:
        return assets
    base, _, branch = source_url.rstrip("/").partition("/tree/")
    return link_code_references_to_git(
        assets, git_url=base or source_url, git_branch=branch or "main",
        file_path_mapping=AnchorBasedFilePathMapping(local_file_anchor=Path(__file__).parent.parent,
                                                     file_anchor_path_in_repository=""))


def build_defs(settings: LedgerSettings, pinned: bool = True) -> Definitions:
    """`pinned`: the resources carry `settings` (the CLI, tests); else they read the environment through
    EnvVar at run time (the code location the UI loads)."""
    return Definitions(
        assets=_with_code_references(ALL_ASSETS, settings.source_url),
        asset_checks=[index_fresh],
        jobs=[ingest_job],
        sensors=[git_head_sensor],
        # Runs launched from the UI's Materialize button (__ASSET_JOB) run in-process too.
        executor=in_process_executor,
        resources={
            "ledger": LedgerResource.from_settings(settings) if pinned else LedgerResource.from_env(),
            "embedder": (EmbedderResource(device=settings.embed_device, batch_size=settings.embed_batch) if pinned
                         else EmbedderResource.from_env()),
        },
    )


defs = build_defs(LedgerSettings.from_env(), pinned=False)
