"""The analyser, through the real `groq` client, against a local chat-completions server."""

from __future__ import annotations

import json
import logging
import time

import pytest

from chunkers import chunk_file
from ledger_assets.ingest import pipeline
from ledger_assets.intents.analysis import INTENT_SOURCES, analyse_repo, analysis_input, is_generated
from ledger_assets.store.ledger import Ledger
from ledger_assets.intents.groq_analyser import SYSTEM_PROMPT, GroqAnalyser, parse_answer
from ledger_assets.llm.groq_client import Budget, MalformedAnswer, RetryPolicy, prices_for
from ledger_assets.store.settings import LedgerSettings
from tests.conftest import FIXTURES, ingest_core
from tests.groq_server import GOOD_ANALYSIS, GroqTestServer, Reply, malformed, ok, status

LOG = logging.getLogger("ledger-tests.analysis")

BILLING_PY = (FIXTURES / "python" / "billing.py").read_text()
SECRETS_YAML = (FIXTURES / "config" / "secrets.yaml").read_text()
MARKDOWN = "# Billing\n\nHow invoices are priced.\n\n## Rating\n\nUsage is rated per product.\n\n## Issuing\n\nAn issued invoice is frozen.\n"
YAML_SECRETS = ("yaml-Db-Pa55word!", "yaml-url-pass-77", "yaml-queue-token-abc123")


def _settings(tmp_path, server: GroqTestServer | None = None, **kw) -> LedgerSettings:
    base = dict(home=str(tmp_path / "home"), lock_timeout_s=60, groq_api_key="test-key" if server else "",
                groq_base_url=server.url if server else "", groq_backoff_s=0.001, groq_timeout_s=5.0,
                groq_concurrency=2, groq_max_retries=2)
    base.update(kw)
    return LedgerSettings(**base)


def _chunked(ledger: Ledger, repo, repo_id: str = "shop") -> str:
    ledger.registry.add(repo.path, repo_id)
    pipeline.snapshot_stage(ledger, repo_id, "run-0", LOG)
    report = pipeline.chunk_stage(ledger, repo_id, "run-0", LOG)
    assert report.total_chunks > 0
    return repo_id


def _chunks(ledger: Ledger, repo_id: str) -> list[dict]:
    with ledger.db.connect() as con:
        cur = con.execute("SELECT * FROM chunks WHERE repo_id = ? ORDER BY file_path, chunk_index", [repo_id])
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]


def _analyser(server: GroqTestServer, **kw) -> GroqAnalyser:
    retry = RetryPolicy(max_retries=kw.pop("max_retries", 2), base_delay_s=kw.pop("base_delay_s", 0.001))
    return GroqAnalyser("test-key", "llama-3.1-8b-instant", server.url, kw.pop("timeout_s", 5.0),
                        kw.pop("budget", None), retry)


# ------------------------------------------------------- one request, direct ---
def test_success_sends_one_strict_json_request_and_parses_the_answer():
    with GroqTestServer(ok(prompt_tokens=1000, completion_tokens=100)) as server:
        out = _analyser(server).analyse("def total(a, b):\n    return a + b\n")
    assert out.reason == "llm" and out.requests == 1
    assert out.analysis.intent == GOOD_ANALYSIS["intent"]
    assert (out.analysis.layer, out.analysis.pattern) == ("application", "service")
    assert out.analysis.rubric == {"readability": 4, "testability": 3, "error_handling": 2,
                                   "single_responsibility": 4, "naming": 5}
    assert out.cost_usd == pytest.approx((1000 * 0.05 + 100 * 0.08) / 1e6)
    body = server.requests[0]
    assert body["model"] == "llama-3.1-8b-instant"
    assert body["response_format"] == {"type": "json_object"}
    assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert body["messages"][1]["content"] == "def total(a, b):\n    return a + b\n"
    assert server.auth_headers == ["Bearer test-key"]


def test_malformed_answer_is_retried_once_then_accepted():
    with GroqTestServer() as server:
        server.script = [malformed()]
        out = _analyser(server).analyse("int Add(int a, int b) => a + b;")
    assert out.reason == "llm" and out.requests == 2
    retry_messages = server.requests[1]["messages"]
    assert retry_messages[2]["role"] == "assistant" and "half an answer" in retry_messages[2]["content"]
    assert "invalid" in retry_messages[3]["content"]


def test_malformed_twice_is_recorded_failed_after_exactly_two_requests():
    bad = {**GOOD_ANALYSIS, "readability": 9}
    with GroqTestServer(ok(bad)) as server:
        out = _analyser(server).analyse("int Add(int a, int b) => a + b;")
    assert out.analysis is None and out.reason == "error"
    assert "readability must be between 1 and 5" in out.error
    assert len(server.requests) == 2


def test_429_waits_for_retry_after_then_succeeds():
    with GroqTestServer() as server:
        server.script = [status(429, retry_after="0.4")]
        out = _analyser(server, base_delay_s=0.001).analyse("x = 1")
    assert out.reason == "llm" and out.requests == 2
    assert server.times[1] - server.times[0] >= 0.4


def test_500_then_success_backs_off_exponentially():
    waits = []
    with GroqTestServer() as server:
        server.script = [status(500), status(503)]
        analyser = _analyser(server, max_retries=3)
        analyser.retry.base_delay_s = 0.01
        analyser.retry.sleep = lambda s: (waits.append(s), time.sleep(s))
        out = analyser.analyse("x = 1")
    assert out.reason == "llm" and out.requests == 3
    # equal jitter: the n-th wait lies in [base*2^n/2, base*2^n]
    assert 0.005 <= waits[0] <= 0.01 and 0.01 <= waits[1] <= 0.02


def test_timeout_is_retried_and_gives_up_as_error():
    with GroqTestServer(Reply(content=json.dumps(GOOD_ANALYSIS), delay_s=1.5)) as server:
        t0 = time.monotonic()
        out = _analyser(server, timeout_s=0.3, max_retries=1).analyse("x = 1")
        elapsed = time.monotonic() - t0
    assert out.analysis is None and out.reason == "error"
    assert "timed out" in out.error and "after 2 attempts" in out.error
    assert len(server.requests) == 2 and elapsed < 1.5


def test_timeout_then_success():
    with GroqTestServer() as server:
        server.script = [Reply(content=json.dumps(GOOD_ANALYSIS), delay_s=1.0)]
        out = _analyser(server, timeout_s=0.3).analyse("x = 1")
    assert out.reason == "llm" and out.requests == 2


def test_bad_key_is_fatal_and_stops_further_requests():
    with GroqTestServer(status(401)) as server:
        analyser = _analyser(server)
        first, second = analyser.analyse("a = 1"), analyser.analyse("b = 2")
    assert first.reason == second.reason == "error"
    assert "401" in second.error and len(server.requests) == 1


def test_400_is_not_retried():
    with GroqTestServer(status(400)) as server:
        out = _analyser(server).analyse("a = 1")
    assert out.reason == "error" and len(server.requests) == 1


@pytest.mark.parametrize("body", ["<html>502 Bad Gateway</html>", "[1, 2]", '{"unexpected": 1}'])
def test_a_200_that_is_not_a_chat_completion_is_a_recorded_error_not_a_crash(body):
    # A proxy's page or JSON of another shape: the client raised or returned it as it was.
    with GroqTestServer(Reply(body=body)) as server:
        out = _analyser(server).analyse("a = 1")
    assert out.reason == "error" and out.error.startswith("bad response: ") and len(server.requests) == 1


@pytest.mark.parametrize("answer, problem", [
    ("", "empty answer"),
    ("[1, 2]", "expected a JSON object"),
    (json.dumps({k: v for k, v in GOOD_ANALYSIS.items() if k != "naming"}), "missing keys: naming"),
    (json.dumps({**GOOD_ANALYSIS, "layer": "spaceship"}), "layer 'spaceship'"),
    (json.dumps({**GOOD_ANALYSIS, "testability": "4"}), "testability must be an integer"),
    (json.dumps({**GOOD_ANALYSIS, "naming": True}), "naming must be an integer"),
    (json.dumps({**GOOD_ANALYSIS, "intent": "  "}), "intent must be a non-empty string"),
])
def test_parse_answer_is_strict(answer, problem):
    with pytest.raises(MalformedAnswer, match=problem):
        parse_answer(answer)


def test_parse_answer_accepts_fences_synonyms_and_integral_floats():
    a = parse_answer("```json\n" + json.dumps({**GOOD_ANALYSIS, "layer": "Repository", "naming": 5.0,
                                                 "pattern": "none"}) + "\n```")
    assert (a.layer, a.pattern, a.rubric["naming"]) == ("data", "", 5)


def test_budget_refuses_when_the_next_estimate_would_pass_the_cap():
    budget = Budget(0.010)
    assert budget.reserve(0.004)
    budget.settle(0.004, 0.006)
    assert budget.reserve(0.003)
    assert not budget.reserve(0.002)          # 0.006 spent + 0.003 reserved + 0.002 > 0.010
    assert budget.exhausted
    assert prices_for("some-new-model") == max(prices_for(m) for m in ("llama-3.1-8b-instant",
                                                                       "moonshotai/kimi-k2-instruct"))
    assert prices_for("x", "0.1,0.2") == (0.1, 0.2)


# ---------------------------------------------------------- the whole stage ---
def _billing_repo(make_repo, extra: dict[str, str] | None = None):
    repo = make_repo("shop")
    repo.write("billing/billing.py", BILLING_PY)
    for rel, content in (extra or {}).items():
        repo.write(rel, content)
    repo.commit("billing")
    return repo


def test_stage_writes_llm_intents_and_rubrics_in_bulk(tmp_path, make_repo):
    # 20k prompt tokens = $0.001 an answer: large enough to show in the rounded run summary.
    with GroqTestServer(ok(prompt_tokens=20_000, completion_tokens=0)) as server:
        ledger = Ledger(_settings(tmp_path, server))
        repo_id = _chunked(ledger, _billing_repo(make_repo))
        report = pipeline.intent_stage(ledger, repo_id, "run-1", LOG)
        rows = _chunks(ledger, repo_id)
        distinct_inputs = {analysis_input(r["analysis_text"], r["text"], r["analysis_extends"]) for r in rows}
        assert report.llm_requests == len(server.requests) == len(distinct_inputs)
    assert report.by_source == {"llm": len(rows)} and report.intent_skipped == 0
    assert {r["intent_source"] for r in rows} == {"llm"}
    assert {(r["intent"], r["layer"], r["pattern"]) for r in rows} == {
        (GOOD_ANALYSIS["intent"], "application", "service")}
    with ledger.db.connect() as con:
        rubrics = con.execute("SELECT DISTINCT rubric FROM analyses").fetchall()
    assert [json.loads(r[0])["naming"] for r in rubrics] == [5]
    summary = ledger.db.summary(["run-1"])
    assert summary["llm_requests"] == report.llm_requests and summary["intent_skipped"] == 0
    assert report.cost_usd == pytest.approx(0.001 * report.llm_requests)
    assert summary["llm_cost_usd"] == pytest.approx(report.cost_usd, abs=1e-3)


def test_rerun_with_nothing_changed_sends_no_request_and_other_repos_share_the_cache(tmp_path, make_repo):
    with GroqTestServer() as server:
        ledger = Ledger(_settings(tmp_path, server))
        repo_id = _chunked(ledger, _billing_repo(make_repo))
        first = analyse_repo(ledger, repo_id, "run-1", LOG)
        sent = len(server.requests)
        assert sent > 0 and first.llm_requests == sent
        again = analyse_repo(ledger, repo_id, "run-2", LOG)
        assert len(server.requests) == sent and again.llm_requests == 0 and again.analysed == 0

        # A fresh chunk state (as after a re-chunk) is served from the cache, not the server.
        with ledger.db.transaction() as con:
            con.execute("UPDATE chunks SET analysis_key = NULL, intent = NULL WHERE repo_id = ?", [repo_id])
        refilled = analyse_repo(ledger, repo_id, "run-3", LOG)
        assert refilled.cache_hits == refilled.analysed > 0 and len(server.requests) == sent

        twin = make_repo("twin")
        twin.write("billing/billing.py", BILLING_PY)
        twin.commit("same file")
        twin_id = _chunked(ledger, twin, "twin")
        other = analyse_repo(ledger, twin_id, "run-4", LOG)
        assert other.llm_requests == 0 and other.cache_hits == other.analysed > 0
        assert len(server.requests) == sent


def test_a_whitespace_only_change_is_served_from_the_cache(tmp_path, make_repo):
    with GroqTestServer() as server:
        ledger = Ledger(_settings(tmp_path, server))
        repo = _billing_repo(make_repo)
        repo_id = _chunked(ledger, repo)
        first = analyse_repo(ledger, repo_id, "run-1", LOG)
        sent = len(server.requests)
        assert sent > 0 and first.llm_requests == sent
        # Trailing blanks on every line and CRLF endings: the same content, re-chunked.
        repo.write("billing/billing.py", "\r\n".join(line + "   " for line in BILLING_PY.split("\n")))
        repo.commit("reformat")
        pipeline.snapshot_stage(ledger, repo_id, "run-2", LOG)
        assert pipeline.chunk_stage(ledger, repo_id, "run-2", LOG).files_changed == 1
        again = analyse_repo(ledger, repo_id, "run-2", LOG)
        assert again.llm_requests == 0 and len(server.requests) == sent
        assert {r["intent_source"] for r in _chunks(ledger, repo_id)} == {"llm"}


def test_budget_cap_reached_midway_falls_back_and_warns_once(tmp_path, make_repo, caplog):
    # Each answer reports 100k prompt tokens = $0.005 at the 8b price; the cap allows three.
    with GroqTestServer(ok(prompt_tokens=100_000, completion_tokens=0)) as server:
        ledger = Ledger(_settings(tmp_path, server, groq_budget_usd=0.012, groq_concurrency=1))
        repo_id = _chunked(ledger, _billing_repo(make_repo, {"docs/billing.md": MARKDOWN}))
        with caplog.at_level(logging.WARNING, logger=LOG.name):
            report = pipeline.intent_stage(ledger, repo_id, "run-1", LOG)
        rows = _chunks(ledger, repo_id)
    assert len(rows) >= 5
    assert len(server.requests) == report.llm_requests == 3
    assert report.cost_usd == pytest.approx(0.015)
    assert report.by_source == {"llm": 3, "budget": len(rows) - 3}
    assert report.intent_skipped == len(rows) - 3
    budget_rows = [r for r in rows if r["intent_source"] == "budget"]
    assert all(r["intent"] for r in budget_rows)        # the keyless fallback still wrote an intent
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "budget=" in warnings[0].getMessage()
    assert ledger.db.summary(["run-1"])["intent_skipped"] == len(rows) - 3


def test_keyless_run_indexes_everything_with_heuristic_intents(tmp_path, make_repo, embedder, caplog):
    with GroqTestServer() as server:
        settings = _settings(tmp_path).with_(groq_base_url=server.url)   # a URL but no key
        ledger = Ledger(settings)
        repo = _billing_repo(make_repo)
        ledger.registry.add(repo.path, "shop")
        with caplog.at_level(logging.WARNING, logger=LOG.name):
            summary = ingest_core(ledger, "shop", embedder, run_id="keyless")
        assert server.requests == []
    rows = _chunks(ledger, "shop")
    assert {r["intent_source"] for r in rows} == {"heuristic"}
    assert summary["intent_skipped"] == len(rows) and summary["llm_requests"] == 0
    rate = next(r for r in rows if "def rate_usage" in r["text"])
    assert rate["intent"].startswith("Function rate usage: Price raw usage records")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "LLM intent" in r.getMessage()]
    assert len(warnings) == 1 and "GROQ_API_KEY is not set" in warnings[0]
    # The placeholder instead of the heuristic: same visibility, empty intents.
    ledger2 = Ledger(_settings(tmp_path / "b", keyless_analyser="none"))
    repo_id = _chunked(ledger2, repo)
    report = analyse_repo(ledger2, repo_id, "keyless-none", LOG)
    assert report.by_source == {"no_key": len(rows)} and report.intent_skipped == len(rows)
    assert {r["intent"] for r in _chunks(ledger2, repo_id)} == {""}


def test_switching_from_keyless_to_a_key_reanalyses_with_the_llm(tmp_path, make_repo):
    repo = _billing_repo(make_repo)
    keyless = Ledger(_settings(tmp_path))
    repo_id = _chunked(keyless, repo)
    assert set(analyse_repo(keyless, repo_id, "r1", LOG).by_source) == {"heuristic"}
    with GroqTestServer() as server:
        keyed = Ledger(_settings(tmp_path, server))
        report = analyse_repo(keyed, repo_id, "r2", LOG)
    assert set(report.by_source) == {"llm"} and report.llm_requests > 0


def test_errors_after_retries_fall_back_and_are_retried_next_run(tmp_path, make_repo, caplog):
    with GroqTestServer(status(500)) as server:
        ledger = Ledger(_settings(tmp_path, server, groq_max_retries=1))
        repo_id = _chunked(ledger, _billing_repo(make_repo))
        with caplog.at_level(logging.WARNING, logger=LOG.name):
            report = analyse_repo(ledger, repo_id, "run-1", LOG)
        n = len(_chunks(ledger, repo_id))
        assert report.by_source == {"error": n} and report.intent_skipped == n
        assert "HTTP 500" in report.errors[0]
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 1 and "first error: HTTP 500" in warnings[0]
        server.default = ok()
        healed = analyse_repo(ledger, repo_id, "run-2", LOG)
    assert healed.by_source == {"llm": n}


def test_no_secret_reaches_the_server(tmp_path, make_repo):
    python_secret = "sk-live-51HqLyjWDarjtT1zdp7dc"
    repo = _billing_repo(make_repo, {
        "deploy/secrets.yaml": SECRETS_YAML,
        "billing/gateway.py": f'PAYMENT_API_KEY = "{python_secret}"\n\n\ndef charge(amount):\n    return amount\n',
    })
    with GroqTestServer() as server:
        ledger = Ledger(_settings(tmp_path, server))
        repo_id = _chunked(ledger, repo)
        # A chunker that missed a secret: the analyser's own redaction pass is the last line.
        leaked = 'db_password = "hunter2-Leaked-9"\nconn = "Server=db;User ID=app;Password=Leaked-Conn-7;"\n'
        with ledger.db.transaction() as con:
            con.execute("UPDATE chunks SET analysis_text = ? || text WHERE repo_id = ? AND file_path = 'billing/billing.py' "
                        "AND chunk_index = 0", [leaked, repo_id])
        analyse_repo(ledger, repo_id, "run-1", LOG)
        bodies = "\n".join(server.raw_bodies)
        texts = server.user_texts()
    assert any("database:password = [REDACTED]" in t for t in texts)    # the config chunk was sent, redacted
    assert any("db_password = \"[REDACTED]\"" in t for t in texts)       # the injected one too
    for secret in (*YAML_SECRETS, python_secret, "hunter2-Leaked-9", "Leaked-Conn-7"):
        assert secret not in bodies


def test_identical_bodies_in_different_types_get_different_keys(tmp_path, make_repo):
    filler = "\n".join(f"        public int Step{i}(int x) {{ return x * {i} + {i}; }}" for i in range(120))

    def type_src(name: str) -> str:
        return (f"namespace Shop\n{{\n    public class {name}\n    {{\n{filler}\n\n"
                "        public int Total(int a, int b)\n        {\n            return a + b;\n        }\n    }\n}\n")
    repo = make_repo("twins")
    repo.write("src/OrderTotals.cs", type_src("OrderTotals"))
    repo.write("src/InvoiceTotals.cs", type_src("InvoiceTotals"))
    repo.commit("two types")
    with GroqTestServer() as server:
        ledger = Ledger(_settings(tmp_path, server, analysis_file_cap=1000))
        repo_id = _chunked(ledger, repo)
        analyse_repo(ledger, repo_id, "run-1", LOG)
        sent = server.user_texts()
    totals = [r for r in _chunks(ledger, repo_id)
              if r["chunk_type"] == "cs_member" and "public int Total(int a, int b)" in r["text"]]
    assert len(totals) == 2
    assert totals[0]["analysis_key"] != totals[1]["analysis_key"]
    assert {r["intent_source"] for r in totals} == {"llm"}
    inputs = [analysis_input(r["analysis_text"], r["text"], r["analysis_extends"]) for r in totals]
    assert inputs[0] != inputs[1] and all(t in sent for t in inputs)
    # A member's text is stored once: its analysis_text row holds only the type context after it,
    # and what the analyser read is the chunker's analysis_text, whole.
    pieces = {p.start_line: p for p in chunk_file("src/OrderTotals.cs", type_src("OrderTotals").encode())}
    for row in totals:
        assert row["analysis_extends"] is True and not row["analysis_text"].startswith(row["text"])
        assert row["analysis_text"].lstrip().startswith("// enclosing type Shop.")
    order = next(r for r in totals if r["file_path"] == "src/OrderTotals.cs")
    assert analysis_input(order["analysis_text"], order["text"], True) == \
        analysis_input(pieces[order["start_line"]].analysis_text, "")
    assert {"InvoiceTotals" in inputs[0], "OrderTotals" in inputs[1]} == {True}


def test_cost_guard_caps_big_files_and_skips_generated_ones(tmp_path, make_repo):
    designer = "namespace Shop\n{\n    partial class MainForm\n    {\n        private void InitializeComponent() { }\n    }\n}\n"
    auto = "// <auto-generated>\n//     This code was generated by a tool.\n// </auto-generated>\n" \
           "namespace Shop { public class Generated { public int A() => 1; } }\n"
    repo = _billing_repo(make_repo, {"ui/MainForm.Designer.cs": designer, "gen/Api.cs": auto,
                                     "packages.lock.json": '{"version": 1, "lockfileVersion": 3}\n'})
    with GroqTestServer() as server:
        ledger = Ledger(_settings(tmp_path, server, analysis_file_cap=2))
        repo_id = _chunked(ledger, repo)
        report = analyse_repo(ledger, repo_id, "run-1", LOG)
        sent = server.user_texts()
    rows = _chunks(ledger, repo_id)
    by_file = {}
    for r in rows:
        by_file.setdefault(r["file_path"], []).append(r["intent_source"])
    assert by_file["billing/billing.py"][:2] == ["llm", "llm"]
    assert set(by_file["billing/billing.py"][2:]) == {"capped"} and len(by_file["billing/billing.py"]) > 2
    for path in ("ui/MainForm.Designer.cs", "gen/Api.cs", "packages.lock.json"):
        assert set(by_file[path]) == {"generated"}, path
    assert not any("InitializeComponent" in t or "auto-generated" in t or "lockfileVersion" in t for t in sent)
    assert report.intent_skipped == report.by_source["capped"] + report.by_source["generated"]
    assert len(sent) == 2


def test_generated_detection_and_documented_sources():
    assert is_generated("Forms/Main.Designer.cs") and is_generated("obj/Api.g.cs")
    assert is_generated("client/api.generated.ts") and is_generated("yarn.lock") and is_generated("poetry.lock")
    assert is_generated("src/x.cs", "// <auto-generated/>\nclass X {}")
    assert not is_generated("src/Designer.cs") and not is_generated("src/lockscreen.py")
    assert set(INTENT_SOURCES) == {"llm", "heuristic", "no_key", "budget", "error", "capped", "generated", "none"}
    assert "hunter2" not in analysis_input("", 'password = "hunter2"')


def test_bad_keyless_analyser_is_a_clear_error(tmp_path, make_repo):
    ledger = Ledger(_settings(tmp_path, keyless_analyser="magic"))
    repo_id = _chunked(ledger, _billing_repo(make_repo))
    with pytest.raises(ValueError, match="LEDGER_KEYLESS_ANALYSER must be one of heuristic, none"):
        analyse_repo(ledger, repo_id, "run-1", LOG)


def test_keyless_asset_materializes_with_intent_skipped_in_its_metadata(tmp_path, make_repo, monkeypatch):
    from dagster import DagsterInstance, materialize

    from ledger_assets.defs.assets import chunks, intents, repo_snapshot
    from ledger_assets.defs.resources import LedgerResource

    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    settings = _settings(tmp_path)
    ledger = Ledger(settings)
    repo = _billing_repo(make_repo)
    ledger.registry.add(repo.path, "shop")
    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("repos", ["shop"])
    result = materialize([repo_snapshot, chunks, intents], partition_key="shop", instance=instance,
                         resources={"ledger": LedgerResource.from_settings(settings)}, raise_on_error=False)
    assert result.success
    meta = next(m for m in result.get_asset_materialization_events()
                if m.asset_key.to_user_string() == "intents").materialization.metadata
    n = len(_chunks(ledger, "shop"))
    assert meta["intent_skipped"].value == n and meta["llm_requests"].value == 0
    assert f"| heuristic | {n} |" in meta["intent_sources"].value


def test_heuristic_intent_skips_tool_directives_for_the_doc_sentence():
    from chunkers import chunk_file
    from ledger_assets.intents.heuristic import analyse_chunk

    source = ("// ReSharper disable once CheckNamespace\nnamespace Shop;\n\n"
              "/// <summary>Moves stock between two warehouses.</summary>\n"
              "public static class TransferExtensions\n{\n    public static void Move(this Stock s, int n) { }\n}\n"
              "// ReSharper disable once InconsistentNaming\npublic static class Other\n{\n}\n")
    pieces = chunk_file("TransferExtensions.cs", source.encode())
    intents = [analyse_chunk({"file_path": "TransferExtensions.cs", **p.to_dict()}).intent for p in pieces]
    assert intents[0].endswith(": Moves stock between two warehouses. Members: move."), intents
    assert not any("ReSharper" in i for i in intents), intents
