"""index_fresh: per repo, the sha queries answer from may lag HEAD, but not for long.

The check runs in every ingest run (the job selects it) and when asked (the UI's
"Execute"). Between runs git_head_sensor records the same verdict as an observation of
promoted_index (metadata `fresh`, `lag_s`) whenever it changes: a runless check evaluation
of a partition can be stored only once (sensors.py says why). The limit is
LEDGER_FRESHNESS_MAX_LAG_S.
"""

from dagster import AssetCheckExecutionContext, AssetCheckResult, AssetCheckSeverity, Failure, asset_check

from ledger_assets.defs.partitions import repos_partitions
from ledger_assets.defs.resources import LedgerResource
from ledger_assets.ingest.promotion import check_fresh, read_state
from ledger_assets.ingest.snapshot import SnapshotError, read_head
from ledger_assets.store.registry import RegistryError

FRESHNESS_DESCRIPTION = ("The promoted sha (what queries answer from) lags HEAD for no longer than "
                         "LEDGER_FRESHNESS_MAX_LAG_S; evaluated per repo in each ingest run, and observed by "
                         "git_head_sensor between runs (promoted_index observations: fresh, lag_s).")


@asset_check(asset="promoted_index", name="index_fresh", partitions_def=repos_partitions,
             description=FRESHNESS_DESCRIPTION)
def index_fresh(context: AssetCheckExecutionContext, ledger: LedgerResource) -> AssetCheckResult:
    core = ledger.ledger()
    try:
        repo = core.registry.get(context.partition_key)
        head = read_head(repo.path, repo.kind)
    except (RegistryError, SnapshotError) as exc:
        raise Failure(description=str(exc), allow_retries=False) from None
    outcome = check_fresh(read_state(core, repo.repo_id), repo, head, core.settings.freshness_max_lag_s)
    return AssetCheckResult(passed=outcome.passed, description=outcome.description, metadata=outcome.metadata,
                            severity=AssetCheckSeverity.WARN)
