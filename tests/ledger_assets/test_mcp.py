"""`ledger mcp` driven by a real MCP client session over stdio (a spawned server process)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.ledger_assets.retrieval.test_search import FIXTURES, ingest

ROOT = Path(__file__).resolve().parents[2]


async def _session_calls(home: Path, base_sha: str) -> dict:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ledger_assets.cli", "mcp"], cwd=str(ROOT),
        env={**os.environ, "LEDGER_HOME": str(home), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)})
    out: dict = {}
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = (await session.list_tools()).tools
                out["tools"] = sorted(t.name for t in listed)
                out["schemas"] = {t.name: t.output_schema for t in listed}
                calls = {
                    # The sparse lane needs no model: the server answers without loading MiniLM.
                    "query": ("query_ledger", {"query": "vat_amount net rate", "lane": "sparse", "k": 2}),
                    "query_json": ("query_ledger", {"query": "instalment", "lane": "sparse", "k": 1, "format": "json"}),
                    "span": ("read_span", {"file": "billing/invoices.py", "start": 6, "end": 7}),
                    "span_escape": ("read_span", {"file": "../../etc/passwd", "start": 1, "end": 2}),
                    "symbol": ("symbol_lookup", {"name": "paymentschedule.INSTALMENT"}),
                    "drift": ("drift_since", {"repo": "travel", "since": base_sha}),
                    "drift_bad": ("drift_since", {"repo": "travel", "since": "not-a-sha"}),
                    "similar": ("find_similar", {"location": "billing/invoices.py:7", "mode": "quality", "k": 2}),
                    "concept": ("find_similar", {"location": "billing/invoices.py:7", "mode": "concept"}),
                    "deprecate": ("deprecate", {"repo": "travel", "target": "vat_amount", "reason": "use tax.vat"}),
                    "hidden": ("query_ledger", {"query": "vat_amount net rate", "lane": "sparse", "k": 2}),
                    "shown": ("query_ledger", {"query": "vat_amount net rate", "lane": "sparse", "k": 2,
                                               "include_deprecated": True}),
                    "files": ("query_ledger", {"query": "instalment", "lane": "sparse", "k": 1, "group": "file"}),
                }
                for key, (tool, args) in calls.items():
                    res = await session.call_tool(tool, args)
                    out[key] = (res.is_error, "\n".join(c.text for c in res.content if hasattr(c, "text")))
                    out[key + "/structured"] = res.structured_content
    return out


def test_mcp_tools_over_stdio(ledger, git_repo, embedder):
    git_repo.write("billing/invoices.py", (FIXTURES / "invoices.py").read_text())
    base = git_repo.commit("first")
    ledger.registry.add(git_repo.path, "travel")
    ingest(ledger, "travel", embedder)
    git_repo.write("billing/refunds.py", "def refund(amount):\n    return -amount\n")
    git_repo.commit("refunds")

    out = anyio.run(_session_calls, ledger.settings.home_path, base)

    assert out["tools"] == ["deprecate", "drift_since", "find_similar", "query_ledger", "read_span", "symbol_lookup"]
    assert all(schema and schema["type"] == "object" for schema in out["schemas"].values()), out["schemas"]
    assert "hits" in out["schemas"]["query_ledger"]["properties"]
    err, text = out["query"]
    rows = text.split("\n")
    assert not err and rows[0] == "repo|layer|pattern|path|Lstart-Lend⟫snippet"
    assert rows[1].startswith("travel|") and "|billing/invoices.py|L1-L8⟫" in rows[1]
    first = out["query/structured"]["hits"][0]
    assert (first["repo_id"], first["file_path"], first["start_line"], first["end_line"], first["rank"]) == \
        ("travel", "billing/invoices.py", 1, 8, 1)
    assert first["symbols"] == ["vat_amount"] and first["concept_id"] and first["ledger_id"]
    assert out["span/structured"]["text"].startswith("def vat_amount") and out["span/structured"]["end_line"] == 7
    assert out["span_escape/structured"] is None  # a tool error carries no structured content
    match = out["symbol/structured"]["matches"][0]
    assert (match["qualified_name"], match["start_line"], match["chunk_type"]) == ("PaymentSchedule.instalment", 26, "py_class")
    assert [a["name"] for a in out["drift/structured"]["added"]] == ["refund"]
    assert out["similar/structured"]["mode"] == "quality" and len(out["similar/structured"]["hits"]) == 2
    concept = out["concept/structured"]
    assert concept["mode"] == "concept" and [h["file_path"] for h in concept["hits"]] == ["billing/invoices.py"]
    assert concept["hits"][0]["concept_id"] == first["concept_id"]
    marked = out["deprecate/structured"]
    assert (marked["target_kind"], marked["points_updated"], marked["deprecated"]["reason"]) == ("symbol", 1, "use tax.vat")
    assert [(c["file_path"], c["chunk_index"]) for c in marked["chunks"]] == [("billing/invoices.py", 0)]
    assert "vat_amount" not in [s for h in out["hidden/structured"]["hits"] for s in h["symbols"]]
    shown = out["shown/structured"]["hits"][0]
    assert shown["symbols"] == ["vat_amount"] and shown["deprecated"]["reason"] == "use tax.vat"
    assert "!deprecated(use tax.vat)" in out["shown"][1]
    files = out["files/structured"]
    assert files["group"] == "file" and files["files"][0]["file_path"] == "billing/invoices.py"
    assert files["files"][0]["chunks"][0]["symbols"][0] == "PaymentSchedule"
    err, text = out["query_json"]
    assert not err and json.loads(text)[0]["symbols"][0] == "PaymentSchedule"
    err, text = out["span"]
    assert not err and "6  def vat_amount(net: Decimal, rate: Decimal) -> Decimal:" in text
    err, text = out["span_escape"]
    assert err and "'..' is refused" in text
    err, text = out["symbol"]
    assert not err and [(m["name"], m["start_line"], m["end_line"]) for m in json.loads(text)] == [("instalment", 26, 31)]
    err, text = out["drift"]
    assert not err and "+ function refund  billing/refunds.py:1-2" in text
    err, text = out["drift_bad"]
    assert err and "not a commit" in text
    err, text = out["similar"]
    assert not err and len(text.split("\n")) == 3
