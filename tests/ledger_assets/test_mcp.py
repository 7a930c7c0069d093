"""`ledger mcp` driven by a real MCP client session over stdio (a spawned server process)."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.conftest import RETRIEVAL_FIXTURES as FIXTURES, ingest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ["context_pack", "deprecate", "drift_since", "find_similar", "list_repos", "query_ledger", "read_span",
         "symbol_lookup"]
UNKNOWN_REPO = {  # every tool that takes a repo id, called with one that is not registered
    "query_ledger": {"query": "vat", "repo": "travle", "lane": "sparse"},
    "context_pack": {"task": "vat", "repo": "travle"},
    "read_span": {"file": "billing/invoices.py", "start": 1, "end": 2, "repo": "travle"},
    "symbol_lookup": {"name": "vat_amount", "repo": "travle"},
    "drift_since": {"repo": "travle", "since": "HEAD"},
    "find_similar": {"location": "billing/invoices.py:7", "repo": "travle"},
    "deprecate": {"repo": "travle", "target": "vat_amount", "reason": "x"},
}


def _size(structured) -> int:
    return len(json.dumps(structured, ensure_ascii=False, separators=(",", ":")))


async def _session_calls(home: Path, base_sha: str) -> dict:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ledger_assets.cli", "mcp"], cwd=str(ROOT),
        env={**os.environ, "LEDGER_HOME": str(home), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)})
    out: dict = {}
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                t0 = time.monotonic()  # the first query after initialize: the model may still be loading
                res = await session.call_tool("query_ledger", {"query": "net amount with VAT", "k": 2})
                out["first_s"] = time.monotonic() - t0
                out["first"] = (res.is_error, res.content[0].text, res.structured_content)
                listed = (await session.list_tools()).tools
                out["tools"] = sorted(t.name for t in listed)
                out["schemas"] = {t.name: t.output_schema for t in listed}
                out["inputs"] = {t.name: t.input_schema for t in listed}
                out["annotations"] = {t.name: (t.title, t.annotations) for t in listed}
                calls = {
                    "repos": ("list_repos", {}),
                    "pack": ("context_pack", {"task": "compute VAT on an invoice", "repo": "travel", "budget": 300}),
                    "pack_json": ("context_pack", {"task": "instalment schedule", "budget": 200, "format": "json"}),
                    "query_full": ("query_ledger", {"query": "instalment", "lane": "sparse", "k": 2, "detail": "full"}),
                    "k_too_big": ("query_ledger", {"query": "instalment", "k": 1000}),
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
                for tool, args in UNKNOWN_REPO.items():
                    calls["unknown/" + tool] = (tool, args)
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

    assert out["tools"] == TOOLS
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


def test_mcp_tools_explain_themselves(ledger, git_repo, embedder):
    """The schema test, through the official client: every parameter described, ranges and enums in the
    schema, annotations on every tool, text no longer than the structured content, an unknown repo an
    error naming the known ids; list_repos and context_pack answer."""
    git_repo.write("billing/invoices.py", (FIXTURES / "invoices.py").read_text())
    base = git_repo.commit("first")
    ledger.registry.add(git_repo.path, "travel")
    ingest(ledger, "travel", embedder)

    out = anyio.run(_session_calls, ledger.settings.home_path, base)

    for tool in TOOLS:
        props = out["inputs"][tool].get("properties", {})
        assert all(p.get("description") for p in props.values()), (tool, props)
        title, ann = out["annotations"][tool]
        assert title and ann is not None and ann.title and ann.read_only_hint is not None, tool
        assert ann.read_only_hint == (tool != "deprecate"), tool
        assert out["schemas"][tool]["type"] == "object", tool
    deprecate_ann = out["annotations"]["deprecate"][1]
    assert deprecate_ann.destructive_hint is False and deprecate_ann.idempotent_hint is True
    q = out["inputs"]["query_ledger"]["properties"]
    assert (q["k"]["minimum"], q["k"]["maximum"]) == (1, 200)
    assert set(q["lane"]["enum"]) == {"hybrid", "code", "design", "sparse", "symbol"}
    assert q["detail"]["enum"] == ["snippet", "skeleton", "full"]
    assert "py_function" in q["chunk_types"]["anyOf"][0]["items"]["enum"]
    assert "python" in q["languages"]["anyOf"][0]["items"]["enum"]
    assert out["inputs"]["context_pack"]["required"] == ["task"]

    for key, value in out.items():  # every answer: text no longer than the structured content
        if key.endswith("/structured") and value is not None:
            err, text = out[key.removesuffix("/structured")]
            assert not err and len(text) <= _size(value), (key, len(text), _size(value))
    for tool in UNKNOWN_REPO:
        err, text = out["unknown/" + tool]
        assert err and "unknown repo id 'travle'" in text and "known repo ids: travel" in text, (tool, text)
    err, text = out["k_too_big"]
    assert err and "k" in text and "200" in text

    repos = out["repos/structured"]["repos"]
    assert [(r["repo_id"], r["served_chunks"] > 0, r["promoted_sha"] == base, r["up_to_date"]) for r in repos] == \
        [("travel", True, True, True)]
    assert out["repos"][1].startswith("travel ") and "up to date" in out["repos"][1]

    pack = out["pack/structured"]
    assert pack["budget"] == 300 and 0 < pack["tokens"] <= 300 and pack["spans"]
    assert all(s["file_path"] == "billing/invoices.py" and s["end_line"] >= s["start_line"] >= 1 for s in pack["spans"])
    assert "### travel:billing/invoices.py:L" in out["pack"][1]
    assert json.loads(out["pack_json"][1])["tokens"] <= 200

    full = out["query_full/structured"]["hits"]
    snippet = out["query/structured"]["hits"]  # detail controls snippet size
    assert max(len(h["snippet"]) for h in full) >= max(len(h["snippet"]) for h in snippet)

    err, text, structured = out["first"]
    assert not err and structured["hits"], text
    note = structured.get("note", "")
    assert note == "" or note.startswith("warming up"), note
    assert out["first_s"] < 30


class _SlowEmbedder:
    """Stands in for the model while it loads: encode waits until released."""

    model_name = "slow"

    def __init__(self, real):
        self.real, self.released = real, threading.Event()

    def encode(self, texts):
        self.released.wait(60)
        return self.real.encode(texts)


def test_a_query_while_the_model_loads_answers_from_the_lexical_lane(ledger, git_repo, embedder):
    from ledger_assets.mcp_server import ToolError, build_server

    git_repo.write("billing/invoices.py", (FIXTURES / "invoices.py").read_text())
    git_repo.commit("first")
    ledger.registry.add(git_repo.path, "travel")
    ingest(ledger, "travel", embedder)
    slow = _SlowEmbedder(embedder)
    server = build_server(ledger, slow, warm=True, warm_wait_s=0.2)

    async def call(tool, args):
        return await server.call_tool(tool, args)

    try:
        t0 = time.monotonic()
        res = anyio.run(call, "query_ledger", {"query": "vat amount", "k": 2})
        assert time.monotonic() - t0 < 5
        assert res.structured_content["note"].startswith("warming up") and res.structured_content["hits"]
        assert res.content[0].text.startswith("warming up")
        assert all(set(h["lane_ranks"]) <= {"sparse"} for h in res.structured_content["hits"])
        pack = anyio.run(call, "context_pack", {"task": "vat amount", "budget": 300})
        assert pack.structured_content["note"].startswith("warming up") and pack.structured_content["spans"]
        with pytest.raises(ToolError, match="warming up: .* lane=code needs it.* lane=sparse"):
            anyio.run(call, "query_ledger", {"query": "vat amount", "lane": "code"})
    finally:
        slow.released.set()
    assert server.warmth.model.wait(60)
    res = anyio.run(call, "query_ledger", {"query": "vat amount", "k": 2})
    assert res.structured_content["note"] == "" and "code" in res.structured_content["hits"][0]["lane_ranks"]


def test_a_repo_with_nothing_served_is_an_error_not_zero_hits(ledger, git_repo, embedder):
    from ledger_assets.mcp_server import ToolError, build_server

    git_repo.write("billing/invoices.py", (FIXTURES / "invoices.py").read_text())
    git_repo.commit("first")
    ledger.registry.add(git_repo.path, "travel")  # registered, never ingested
    server = build_server(ledger, embedder)

    async def call(tool, args):
        return await server.call_tool(tool, args)

    with pytest.raises(ToolError, match="'travel' has no promoted index.*ledger ingest travel"):
        anyio.run(call, "query_ledger", {"query": "vat", "repo": "travel", "lane": "sparse"})
    with pytest.raises(ToolError, match="unknown repo id 'nope'; known repo ids: travel"):
        anyio.run(call, "context_pack", {"task": "vat", "repo": "nope"})
    repos = anyio.run(call, "list_repos", {}).structured_content["repos"]
    assert [(r["repo_id"], r["promoted_sha"], r["up_to_date"]) for r in repos] == [("travel", "", False)]


def test_output_schemas_follow_the_core_types():
    """Each MCP output model has every field of the core type it shows, in its order (mcp_server.core_model),
    and a hit's JSON has no key its declared row (HitRow) lacks: a field added to the core reaches MCP."""
    from dataclasses import dataclass, fields

    from ledger_assets.mcp_server import HitOut, MarkedChunkOut, RerankOut, SymbolOut, core_model
    from ledger_assets.retrieval.deprecation import MarkedChunk
    from ledger_assets.retrieval.hits import Hit, HitRow
    from ledger_assets.retrieval.rerank import RerankReport
    from ledger_assets.retrieval.symbols import SymbolMatch

    for model, core in ((HitOut, HitRow), (RerankOut, RerankReport), (SymbolOut, SymbolMatch),
                        (MarkedChunkOut, MarkedChunk)):
        names = [f.name for f in fields(core)]
        assert [n for n in model.model_fields if n in names] == names, model.__name__
    payload = {"repo_id": "r", "file_path": "a.py", "start_line": 1, "end_line": 9, "chunk_type": "py_function",
               "content": "def f():\n    pass", "deprecated": {"reason": "use g", "utc": "2026-01-01T00:00:00Z"}}
    hit = Hit(1, 0.5, payload, lane_ranks={"code": 1}, collapsed=["a.py#2"],
              freshness={"stale": True, "stale_reason": "edited", "live_start_line": 2, "live_end_line": 10})
    row = hit.to_dict("full")
    row.pop("payload")
    assert set(row) == {f.name for f in fields(HitRow)}
    assert HitOut(**row).model_dump()["deprecated"] == {"reason": "use g", "utc": "2026-01-01T00:00:00Z"}

    @dataclass
    class Core:
        a: int
        b: str = "x"

    schema = core_model("CoreOut", Core, add={"c": ("a", bool, False)}).model_json_schema()
    assert list(schema["properties"]) == ["a", "c", "b"] and schema["required"] == ["a"]
