"""The Dagster definitions: assets, checks, sensors, partitions, resources, jobs.

Two Dagster features used here are marked preview/beta in 1.13 and warn on every
import of the code location (so on every `ledger ingest`): checks partitioned
like their asset, and code references. Both are deliberate; their warnings are
silenced here, and only theirs.
"""

import warnings

from dagster import BetaWarning, PreviewWarning

warnings.filterwarnings("ignore", category=PreviewWarning, message=r"Specifying a partitions_def on an AssetCheckSpec")
warnings.filterwarnings("ignore", category=BetaWarning,
                        message=r".*(CodeReference|code_references|FilePathMapping)")
