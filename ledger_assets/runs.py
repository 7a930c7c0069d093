"""Running the asset graph from the command line: the instance, its partitions and a run's failures in one line each."""

from __future__ import annotations

import os
import shutil
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
    template = Path(__file__).resolve().parent.parent / "dagster.yaml"
    if template.exists() and (not config.exists() or (own and config.read_bytes() != template.read_bytes())):
        # The ledger's own instance follows the project's dagster.yaml (edits reach it, as `make dev` copies
        # it each time); a DAGSTER_HOME the user set is theirs: only seeded when it has no config.
        shutil.copyfile(template, config)
    elif not config.exists():
        config.write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    os.environ["DAGSTER_HOME"] = str(home)
    return DagsterInstance.get()


def ensure_partitions(instance, repo_ids: list[str]) -> None:
    from ledger_assets.defs.partitions import repos_partitions

    known = set(instance.get_dynamic_partitions(repos_partitions.name))
    missing = [r for r in repo_ids if r not in known]
    if missing:
        instance.add_dynamic_partitions(repos_partitions.name, missing)


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
