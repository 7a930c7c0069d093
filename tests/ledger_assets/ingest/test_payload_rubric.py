"""The LLM's rubric reaches the point payload (q_readability … q_naming, q_risk_note), only where an LLM wrote it."""

from __future__ import annotations

import pytest

from ledger_assets.retrieval.fusion import QueryError
from ledger_assets.retrieval.search import Searcher, SearchOptions
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.qdrant import repo_filter
from ledger_assets.store.settings import LedgerSettings
from tests.conftest import FIXTURES, ingest_core
from tests.groq_server import GOOD_ANALYSIS, GroqTestServer, ok

RISKY = {**GOOD_ANALYSIS, "risk_note": "A failed charge is swallowed."}
RUBRIC = ("readability", "testability", "error_handling", "single_responsibility", "naming")


def _payloads(ledger: Ledger, repo_id: str) -> list[dict]:
    with ledger.qdrant.open() as client:
        return [p.payload for p in ledger.qdrant.scroll(client, repo_filter(repo_id), True)]


def test_llm_scores_are_payload_fields_and_keyless_chunks_carry_none(tmp_path, make_repo, embedder):
    repo = make_repo("shop")
    repo.write("billing/billing.py", (FIXTURES / "python" / "billing.py").read_text())
    repo.commit("billing")
    with GroqTestServer(ok(RISKY)) as server:
        ledger = Ledger(LedgerSettings(home=str(tmp_path / "llm"), lock_timeout_s=60, groq_api_key="test-key",
                                       groq_base_url=server.url, groq_backoff_s=0.001, groq_max_retries=1))
        ledger.registry.add(repo.path, "shop")
        ingest_core(ledger, "shop", embedder, with_enrichment=False)
    payloads = _payloads(ledger, "shop")
    assert payloads and {p["intent_source"] for p in payloads} == {"llm"}
    for p in payloads:
        assert {name: p[f"q_{name}"] for name in RUBRIC} == {name: GOOD_ANALYSIS[name] for name in RUBRIC}
        assert p["q_risk_note"] == RISKY["risk_note"]

    searcher = Searcher(ledger, embedder)
    query = "apply a discount to an invoice"
    found = lambda *where: [h.key for h in searcher.search(query, SearchOptions(k=5, check_stale=False, where=where))]
    assert found("q_testability<=3") == found() != []  # every chunk scored 3
    assert found("q_testability<=2") == [] and found("q_naming>5") == []
    assert found("q_testability>=3", "layer=application") == found()
    with pytest.raises(QueryError, match="needs a number"):
        found("q_testability<=low")

    keyless = Ledger(LedgerSettings(home=str(tmp_path / "keyless"), lock_timeout_s=60))
    keyless.registry.add(repo.path, "shop")
    ingest_core(keyless, "shop", embedder, with_enrichment=False)
    plain = _payloads(keyless, "shop")
    assert plain and not any(k.startswith(("q_readability", "q_naming", "q_risk_note")) for p in plain for k in p)
    # No LLM score on a point: a condition on it passes nothing.
    assert Searcher(keyless, embedder).search(query, SearchOptions(k=5, check_stale=False,
                                                                   where=("q_testability<=5",))) == []
    # A field no point carries, and that is not one some points lack by design, is a typo: bad input.
    with pytest.raises(QueryError, match="no point carries the field"):
        Searcher(keyless, embedder).search(query, SearchOptions(k=5, check_stale=False, where=("q_testabilty<=5",)))
