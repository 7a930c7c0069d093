"""intents' core: what each chunk is for.

Until the LLM analyser lands this writes the neutral placeholder
(`intent_source="none"`) for every chunk whose analysis input changed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

PROMPT_VERSION = "placeholder-1"


@dataclass
class AnalysisReport:
    analysed: int = 0
    llm_requests: int = 0
    intent_skipped: int = 0
    cost_usd: float = 0.0
    by_source: dict[str, int] = field(default_factory=dict)


def analysis_key(model: str, prompt_version: str, analysis_input: str) -> str:
    return hashlib.sha256(f"{model}\0{prompt_version}\0{analysis_input}".encode("utf-8")).hexdigest()


def analyse_repo(ledger, repo_id: str, run_id: str, log) -> AnalysisReport:
    report = AnalysisReport()
    with ledger.db.connect() as con:
        rows = con.execute(
            "SELECT file_path, chunk_index, coalesce(nullif(analysis_text, ''), text), analysis_key "
            "FROM chunks WHERE repo_id = ?", [repo_id]).fetchall()
    updates = []
    for file_path, idx, analysis_input, old_key in rows:
        key = analysis_key("none", PROMPT_VERSION, analysis_input)
        if key != old_key:
            updates.append((key, file_path, idx))
    if updates:
        with ledger.db.transaction() as con:
            con.executemany(
                "UPDATE chunks SET analysis_key = ?, intent = '', layer = '', pattern = '', intent_source = 'none' "
                "WHERE repo_id = ? AND file_path = ? AND chunk_index = ?",
                [[k, repo_id, f, i] for k, f, i in updates])
    report.analysed = len(updates)
    report.intent_skipped = len(updates)
    report.by_source = {"none": len(updates)} if updates else {}
    if updates:
        log.warning(f"{len(updates)} chunks indexed without an intent (intent_source='none'): no analyser configured")
    return report
