"""The stage order, written once: the Dagster assets follow it, and so does every caller that runs the
stages in-process without Dagster (tests, benchmarks) through `run_stages`.

It lives in `enrich`, the lowest room that reaches every stage: ingest's stages sit below it, and the
points stage reads what enrichment wrote. tests/ledger_assets/ingest/test_pipeline.py checks that each
asset of defs/assets.py is here, after everything it depends on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ledger_assets.encode.embedder import Embedder
from ledger_assets.enrich import stages as enrich
from ledger_assets.ingest import pipeline, points
from ledger_assets.ingest.checks import CheckOutcome
from ledger_assets.store.ledger import Ledger

# Asset names, in an order their dependencies allow; promoted_index runs inside qdrant_points here
# (points_stage with promote), as the Dagster graph runs it as an asset of its own.
STAGES = ("repo_snapshot", "chunks", "intents", "embeddings", "chunk_quality", "git_history", "code_graph",
          "qdrant_points", "promoted_index")
ENRICHMENTS = ("chunk_quality", "git_history", "code_graph")


@dataclass
class StagesReport:
    """Each stage's report by asset name, for the stages that ran."""
    reports: dict[str, Any] = field(default_factory=dict)

    def failed_checks(self) -> list[CheckOutcome]:
        """The blocking checks that failed (chunks' and qdrant_points'); empty for a clean run."""
        return [c for name in ("chunks", "qdrant_points") if name in self.reports
                for c in self.reports[name].checks if not c.passed]

    def enrichment(self) -> tuple:
        """(QualityReport, GitReport, GraphReport): the three enrichments' reports, in STAGES order."""
        return tuple(self.reports[name] for name in ENRICHMENTS)


def run_stages(ledger: Ledger, repo_id: str, run_id: str, log, embedder: Embedder, *, enrichment: bool = True,
               promote: bool = True, call: Callable[[str, Callable[[], Any]], Any] | None = None) -> StagesReport:
    """Every stage of a run for one registered repo, in STAGES order. `enrichment` false: the three
    enrichments are left out (their payload fields with them); `promote` false: the points are staged
    and checked, not promoted. `call(name, step)` runs each step (a benchmark times them); default: step().
    The stage functions are looked up when called, so a test may wrap one."""
    steps: dict[str, Callable[[], Any]] = {
        "repo_snapshot": lambda: pipeline.snapshot_stage(ledger, repo_id, run_id, log),
        "chunks": lambda: pipeline.chunk_stage(ledger, repo_id, run_id, log),
        "intents": lambda: pipeline.intent_stage(ledger, repo_id, run_id, log),
        "embeddings": lambda: pipeline.embedding_stage(ledger, repo_id, run_id, log, embedder),
        "chunk_quality": lambda: enrich.quality_stage(ledger, repo_id, run_id, log),
        "git_history": lambda: enrich.git_stage(ledger, repo_id, run_id, log),
        "code_graph": lambda: enrich.graph_stage(ledger, repo_id, run_id, log),
        "qdrant_points": lambda: points.points_stage(ledger, repo_id, run_id, log, promote=promote),
    }
    call = call or (lambda name, step: step())
    report = StagesReport()
    for name in STAGES:
        if name in steps and (enrichment or name not in ENRICHMENTS):
            report.reports[name] = call(name, steps[name])
    return report
