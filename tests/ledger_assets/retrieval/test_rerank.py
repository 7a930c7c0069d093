"""The LLM rerank of the top fused hits: a real repo ingested once (DuckDB + Qdrant local mode + MiniLM),
the real `groq` client talking HTTP to the local chat-completions server, the cache and budget in DuckDB."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from ledger_assets import cli
from ledger_assets.llm.groq_client import MalformedAnswer
from ledger_assets.retrieval.fusion import QueryError
from ledger_assets.retrieval.hits import Hit
from ledger_assets.retrieval.rerank import SYSTEM_PROMPT, build_prompt, parse_order
from ledger_assets.retrieval.search import Searcher, SearchOptions
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.settings import RERANK_MIN_SNIPPET_CHARS, LedgerSettings
from tests.conftest import GitRepo, ingest_core
from tests.groq_server import GroqTestServer, Reply, malformed, status

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "retrieval"
CANCEL = "cancel a booking and refund the guest"
VAT = "value added tax on an invoice"


def order(*ids) -> Reply:
    return Reply(content=json.dumps({"order": list(ids)}), prompt_tokens=900, completion_tokens=30)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, embedder):
    base = tmp_path_factory.mktemp("rerank")
    repo = GitRepo(base / "travel")
    repo.write("src/Bookings/BookingService.cs", (FIXTURES / "BookingService.cs").read_text())
    repo.write("billing/invoices.py", (FIXTURES / "invoices.py").read_text())
    repo.write("docs/README.md", (FIXTURES / "README.md").read_text())
    repo.commit("travel desk")
    ledger = Ledger(LedgerSettings(home=str(base / "home"), lock_timeout_s=60))
    ledger.registry.add(repo.path, "travel")
    ingest_core(ledger, "travel", embedder, run_id="run", with_enrichment=False)
    return SimpleNamespace(ledger=ledger, home=base / "home", embedder=embedder)


@pytest.fixture(autouse=True)
def fresh_cache(indexed):
    """Each test starts with no cached order and nothing spent today."""
    with indexed.ledger.db.connect() as con:
        con.execute("DELETE FROM reranks")
        con.execute("DELETE FROM rerank_spend")


def searcher(indexed, server: GroqTestServer | None, **kw) -> Searcher:
    settings = indexed.ledger.settings.with_(
        groq_api_key="test-key" if server else "", groq_base_url=server.url if server else "",
        groq_backoff_s=0.001, groq_timeout_s=5.0, groq_max_retries=2, check_stale=False, **kw)
    return Searcher(Ledger(settings), indexed.embedder)


def keys(hits: list[Hit]) -> list[tuple]:
    return [h.key for h in hits]


def fused(indexed, text: str, k: int) -> list[tuple]:
    return keys(searcher(indexed, None).search(text, SearchOptions(k=k, rerank="none", check_stale=False)))


def spend(indexed) -> tuple:
    with indexed.ledger.db.connect() as con:
        return con.execute("SELECT coalesce(sum(requests), 0), coalesce(sum(prompt_tokens), 0) "
                           "FROM rerank_spend").fetchone()


# ------------------------------------------------------------------- pieces ---
def test_the_answer_is_an_order_of_the_candidates_ids():
    assert parse_order('{"order": ["c3", "c1", "C3", 2]}', 4) == [3, 1, 2]
    assert parse_order('```json\n{"order": ["c2"]}\n```', 2) == [2]
    for bad, why in [('{"order": ["c1", "c9"]}', "'c9' is not one of the candidates c1-c4"),
                     ('{"ranking": ["c1"]}', 'no "order" key'), ('{"order": []}', "names no candidate"),
                     ('{"order": "c1"}', "must be a list"), ("c1, c2", "not JSON"), ("", "empty answer"),
                     ('{"order": [true]}', "True is not one of the candidates")]:
        with pytest.raises(MalformedAnswer, match=why.replace("(", r"\(")):
            parse_order(bad, 4)


def test_the_prompt_stays_within_its_cap_and_sends_only_indexed_text():
    texts = ["def f%d():\n    return %d\n" % (i, i) + "# line\n" * 300 for i in range(10)]
    hits = [Hit(0, 1.0, {"repo_id": "r", "file_path": f"pkg/m{i}.py", "chunk_index": 0, "start_line": 1,
                         "end_line": 302, "chunk_type": "py_function", "content": t,
                         "chunk_symbols": json.dumps([[f"f{i}", "function", "Mod", 1, 302]])})
            for i, t in enumerate(texts)]
    user, n = build_prompt("where is f3 api_key = 'sk_live_abcdefghijklmnop1234'", hits, 2_200)
    assert len(SYSTEM_PROMPT) + len(user) <= 2_200
    assert 2 <= n < 10 and f"[c{n}] pkg/m{n - 1}.py L1-L302 py_function Mod.f{n - 1}" in user
    assert f"[c{n + 1}]" not in user  # the last candidates stay out rather than shrink below the minimum
    assert "sk_live_abcdefghijklmnop1234" not in user  # the question is redacted as well
    for i in range(n):
        block = user.split(f"[c{i + 1}] ")[1].split("\n", 1)[1].split("\n\n[c")[0]
        snippet = block.rstrip("\n").split("\nAnswer with")[0].rstrip("\n")
        assert snippet.endswith("…") and texts[i].startswith(snippet[:-1])
        assert len(snippet) >= RERANK_MIN_SNIPPET_CHARS
    everything, n_all = build_prompt("where is f3", hits, 200_000)
    assert n_all == 10 and "[c10] pkg/m9.py" in everything


# ------------------------------------------------------ against the server ---
def test_the_rerank_reorders_as_the_server_says(indexed):
    before = fused(indexed, CANCEL, 20)
    assert len(before) >= 5
    with GroqTestServer(order("c3", "c1", "c5")) as server:
        hits, report = searcher(indexed, server, rerank_top=20).search_ranked(
            CANCEL, SearchOptions(k=4, rerank="llm"))
    assert keys(hits) == [before[2], before[0], before[4], before[1]]  # the rest keep their fused order
    assert [h.rank for h in hits] == [1, 2, 3, 4]
    assert [h.lane_ranks.get("llm") for h in hits] == [1, 2, 3, None]
    assert (report.status, report.note, report.ranked, report.candidates) == ("reranked", "", 3, len(before))
    assert (report.requests, report.prompt_tokens, report.completion_tokens) == (1, 900, 30)
    assert report.cost_usd == pytest.approx((900 * 0.05 + 30 * 0.08) / 1e6) and report.cache_hit is False
    assert report.seconds > 0 and report.prompt_chars <= indexed.ledger.settings.rerank_max_chars
    body = server.requests[0]
    assert len(server.requests) == 1 and server.auth_headers == ["Bearer test-key"]
    assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert body["response_format"] == {"type": "json_object"} and body["temperature"] == 0
    user = body["messages"][1]["content"]
    assert user.startswith(f"Question: {CANCEL}\n")
    for i, (_, path, _) in enumerate(before, 1):
        assert f"[c{i}] {path} L" in user
    assert spend(indexed) == (1, 900)


def test_the_same_question_over_the_same_candidates_is_answered_from_the_cache(indexed):
    with GroqTestServer(order("c2", "c1")) as server:
        s = searcher(indexed, server)
        first, r1 = s.search_ranked(CANCEL, SearchOptions(k=5, rerank="llm"))
        again, r2 = s.search_ranked(CANCEL, SearchOptions(k=5, rerank="llm"))
        other, r3 = s.search_ranked(VAT, SearchOptions(k=5, rerank="llm"))  # other candidates: asked again
    assert len(server.requests) == 2 and r3.requests == 1
    assert keys(again) == keys(first) and r1.status == "reranked"
    assert (r2.status, r2.cache_hit, r2.requests, r2.prompt_tokens, r2.cost_usd) == ("cached", True, 0, 0, 0.0)
    assert r2.ranked == 2 and again[0].lane_ranks["llm"] == 1
    assert r2.line().startswith("rerank llm: 2 of ") and "from the cache (no request)" in r2.line()


@pytest.mark.parametrize("reply, note", [
    (malformed("the best is c2"), "malformed reply: not JSON"),
    (order("c2", "c99"), "malformed reply: 'c99' is not one of the candidates"),
])
def test_a_malformed_reply_keeps_the_fused_order_with_a_note(indexed, reply, note):
    before = fused(indexed, VAT, 5)
    with GroqTestServer(reply) as server:
        s = searcher(indexed, server)
        hits, report = s.search_ranked(VAT, SearchOptions(k=5, rerank="llm"))
        _, again = s.search_ranked(VAT, SearchOptions(k=5, rerank="llm"))
    assert keys(hits) == before and all("llm" not in h.lane_ranks for h in hits)
    assert report.status == "fused" and report.note.startswith(note) and report.requests == 1
    assert again.cache_hit is False and len(server.requests) == 2  # a bad answer is not cached
    assert report.line().startswith("rerank llm: fused order kept (malformed reply: ") and "\n" not in report.line()


def test_an_http_error_keeps_the_fused_order_after_one_retry(indexed):
    before = fused(indexed, CANCEL, 3)
    with GroqTestServer(status(500)) as server:
        hits, report = searcher(indexed, server).search_ranked(CANCEL, SearchOptions(k=3, rerank="llm"))
    assert keys(hits) == before
    # LEDGER_GROQ_MAX_RETRIES is 2 here; a query waits for one retry at most
    assert len(server.requests) == 2 and report.requests == 2
    assert report.status == "fused" and report.note.startswith("HTTP 500: ") and "(after 2 attempts)" in report.note
    assert (report.prompt_tokens, report.cost_usd) == (0, 0.0)
    assert spend(indexed) == (2, 0)  # the attempts count against the day's requests


def test_a_spent_budget_keeps_the_fused_order_without_a_request(indexed):
    with GroqTestServer(order("c2", "c1")) as server:
        s = searcher(indexed, server, rerank_daily_requests=1)
        _, first = s.search_ranked(CANCEL, SearchOptions(k=3, rerank="llm"))
        hits, second = s.search_ranked(VAT, SearchOptions(k=3, rerank="llm"))
        _, cached = s.search_ranked(CANCEL, SearchOptions(k=3, rerank="llm"))  # the cache needs no budget
        _, priced = searcher(indexed, server, rerank_daily_usd=0.0).search_ranked(
            "issue an invoice", SearchOptions(k=3, rerank="llm"))
    assert len(server.requests) == 1 and first.status == "reranked" and cached.status == "cached"
    assert keys(hits) == fused(indexed, VAT, 3)
    assert second.status == "fused" and second.requests == 0
    assert second.note == "budget: 1 requests today (UTC), LEDGER_RERANK_DAILY_REQUESTS=1"
    assert priced.status == "fused" and priced.requests == 0
    assert priced.note.startswith("budget: $0.000047 spent today (UTC)") and priced.note.endswith("DAILY_USD=0.0")


def test_without_a_key_the_rerank_is_bad_usage(indexed):
    with pytest.raises(QueryError, match="--rerank llm needs GROQ_API_KEY"):
        searcher(indexed, None).search_ranked(CANCEL, SearchOptions(k=3, rerank="llm"))
    with pytest.raises(QueryError, match="LEDGER_RERANK=llm needs GROQ_API_KEY"):
        searcher(indexed, None, rerank="llm").search_ranked(CANCEL, SearchOptions(k=3))
    with pytest.raises(QueryError, match="reorders chunk hits, not files"):
        searcher(indexed, None).search_ranked(CANCEL, SearchOptions(k=3, rerank="llm", group="file"))
    hits, report = searcher(indexed, None, rerank="llm").search_ranked(CANCEL, SearchOptions(k=3, rerank="none"))
    assert report is None and len(hits) == 3


# --------------------------------------------------------------- the CLI ---
@pytest.fixture
def cli_env(indexed, monkeypatch):
    monkeypatch.setenv("LEDGER_HOME", str(indexed.home))
    monkeypatch.setenv("LEDGER_LOCK_TIMEOUT_S", "60")
    monkeypatch.setenv("LEDGER_CHECK_STALE", "false")
    for name in ("GROQ_API_KEY", "GROQ_BASE_URL", "LEDGER_RERANK"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(cli, "_embedder", lambda ledger: indexed.embedder)  # the session's model
    return monkeypatch


def test_cli_reports_the_cost_on_stderr_and_in_json(indexed, cli_env, capsys):
    with GroqTestServer(order("c2", "c1")) as server:
        cli_env.setenv("GROQ_API_KEY", "test-key")
        cli_env.setenv("GROQ_BASE_URL", server.url)
        assert cli.main(["query", CANCEL, "--k", "3", "--rerank", "llm"]) == 0
        out, err = capsys.readouterr()
        assert err.startswith("rerank llm: 2 of ") and err.count("\n") == 1
        assert "1 request, 900 prompt + 30 completion tokens, $0.000047" in err
        assert out.startswith(" 1. travel:")

        cli_env.setenv("LEDGER_RERANK", "llm")  # the default, and the cache answers
        assert cli.main(["query", CANCEL, "--k", "3", "--format", "json"]) == 0
        out, err = capsys.readouterr()
        doc = json.loads(out)
        assert set(doc) == {"query", "hits", "rerank"} and err == ""
        assert doc["rerank"]["cache_hit"] is True and doc["rerank"]["requests"] == 0
        assert [h["rank"] for h in doc["hits"]] == [1, 2, 3] and doc["hits"][0]["lane_ranks"]["llm"] == 1

        assert cli.main(["query", CANCEL, "--k", "3", "--format", "json", "--rerank", "none"]) == 0
        assert isinstance(json.loads(capsys.readouterr().out), list)  # without the rerank: the array
    assert len(server.requests) == 1


def test_cli_without_a_key_exits_2_with_one_line(indexed, cli_env, capsys):
    assert cli.main(["query", CANCEL, "--rerank", "llm"]) == 2
    err = capsys.readouterr().err
    assert err == ("ledger query: --rerank llm needs GROQ_API_KEY (the rerank asks Groq): set it, "
                   "or query without the rerank\n")
    cli_env.setenv("LEDGER_RERANK", "llm")
    assert cli.main(["query", CANCEL]) == 2
    assert capsys.readouterr().err.startswith("ledger query: LEDGER_RERANK=llm needs GROQ_API_KEY")
    cli_env.setenv("LEDGER_RERANK", "maybe")
    assert cli.main(["query", CANCEL]) == 2
    assert capsys.readouterr().err == "ledger query: LEDGER_RERANK must be one of none, llm, got 'maybe'\n"


def test_mcp_query_carries_the_rerank_report(indexed):
    import anyio

    from ledger_assets.mcp_server import build_server

    with GroqTestServer(status(503)) as server:
        s = searcher(indexed, server)
        mcp = build_server(s.ledger, indexed.embedder)

        async def call():
            return await mcp.call_tool("query_ledger", {"query": VAT, "k": 2, "rerank": "llm", "format": "json"})

        result = anyio.run(call)
    structured = result.structured_content
    assert structured["rerank"]["status"] == "fused" and structured["rerank"]["note"].startswith("HTTP 503")
    assert json.loads(result.content[0].text)["rerank"]["requests"] == 2
    assert len(structured["hits"]) == 2
