"""The embedding profiles (settings.embed_profile, issue 30): "lean" embeds at most 1.5 texts a chunk,
"pooled" (the default) every lane but a keyless intent's design vector, a chunk's code vector the mean of its
symbol vectors where their sentences quote most of it, "standard" the same with every code text embedded, "full"
every lane; a run with nothing new to embed never loads the model. Real git repos, DuckDB,
Qdrant local mode and the real model."""

from __future__ import annotations

import logging

import pytest

from ledger_assets.encode.embedder import Embedder
from ledger_assets.enrich.order import run_stages
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.qdrant import CODE_VECTOR, DESIGN_VECTOR, SPARSE_VECTOR, SYMBOL_VECTOR
from ledger_assets.retrieval.symbols import ToolInputError
from ledger_assets.retrieval.tools import similar
from ledger_assets.store.settings import LedgerSettings

LOG = logging.getLogger("test")

ORDERS_PY = '''"""Orders."""


class OrderBook:
    """Keeps the open orders of one market."""

    def add_order(self, order_id: str, price: float) -> None:
        """Add an order at a price."""
        self.orders[order_id] = price

    def cancel_order(self, order_id: str) -> bool:
        """Cancel an order by id."""
        return self.orders.pop(order_id, None) is not None

    def best_price(self) -> float:
        """The lowest asking price."""
        return min(self.orders.values())


def spread(bid: float, ask: float) -> float:
    """The gap between the best bid and ask."""
    return ask - bid
'''

LEDGER_PY = '''"""Ledger entries."""


def post_entry(account: str, amount: int) -> dict:
    """Post an entry to an account."""
    return {"account": account, "amount": amount}


def balance(entries: list[dict], account: str) -> int:
    """Sum the entries of one account."""
    return sum(e["amount"] for e in entries if e["account"] == account)
'''


def _repo(git_repo):
    git_repo.write("orders.py", ORDERS_PY)
    git_repo.write("ledger.py", LEDGER_PY)
    git_repo.commit("init")
    return git_repo


def _points(ledger: Ledger) -> list:
    """Every point of the collection, with its vectors."""
    out, offset = [], None
    with ledger.qdrant.open() as client:
        while True:
            points, offset = client.scroll(ledger.qdrant.collection, limit=256, offset=offset, with_payload=True,
                                           with_vectors=True)
            out += points
            if offset is None:
                return out


def _ingest(ledger: Ledger, embedder: Embedder, run_id: str):
    report = run_stages(ledger, "shop", run_id, LOG, embedder, enrichment=False)
    assert not report.failed_checks()
    return report.reports


def test_lean_profile_embeds_at_most_1_5_texts_per_chunk(git_repo, tmp_path, embedder):
    ledger = Ledger(LedgerSettings(home=str(tmp_path / "lean-home"), lock_timeout_s=60, embed_profile="lean"))
    ledger.registry.add(_repo(git_repo).path, "shop")
    ran = _ingest(ledger, embedder, "r1")
    chunks, emb = ran["chunks"].total_chunks, ran["embeddings"]
    assert chunks >= 3
    assert emb.embeddings_computed / chunks <= 1.5
    points = _points(ledger)
    assert len(points) == chunks
    for p in points:
        assert CODE_VECTOR in p.vector and SYMBOL_VECTOR not in p.vector
        assert p.payload["intent_source"] != "heuristic" or DESIGN_VECTOR not in p.vector
    # `similar --mode design` on a lean index: a clear error (no design vector), not a KeyError.
    with pytest.raises(ToolInputError, match="no design vector"):
        similar(ledger, "orders.py:7", "design", k=2)


def test_full_profile_stores_every_lane(git_repo, tmp_path, embedder):
    ledger = Ledger(LedgerSettings(home=str(tmp_path / "full-home"), lock_timeout_s=60, embed_profile="full"))
    ledger.registry.add(_repo(git_repo).path, "shop")
    ran = _ingest(ledger, embedder, "r1")
    chunks, emb = ran["chunks"].total_chunks, ran["embeddings"]
    assert emb.embeddings_computed / chunks > 2  # code + design + a sentence per owned symbol
    points = _points(ledger)
    assert len(points) == chunks
    for p in points:
        assert {CODE_VECTOR, DESIGN_VECTOR, SPARSE_VECTOR} <= set(p.vector)
    assert sum(SYMBOL_VECTOR in p.vector for p in points) >= 2  # the class and its methods own symbols
    owned = sum(len(p.vector.get(SYMBOL_VECTOR) or []) for p in points)
    assert owned >= 6  # OrderBook, its three methods, spread, post_entry, balance
    assert [h.rank for h in similar(ledger, "orders.py:7", "design", k=2)] == [1, 2]


def test_standard_profile_drops_only_the_keyless_design_vector(git_repo, tmp_path, embedder):
    ledger = Ledger(LedgerSettings(home=str(tmp_path / "std-home"), lock_timeout_s=60, embed_profile="standard"))
    ledger.registry.add(_repo(git_repo).path, "shop")
    ran = _ingest(ledger, embedder, "r1")
    chunks, emb = ran["chunks"].total_chunks, ran["embeddings"]
    points = _points(ledger)
    assert len(points) == chunks
    owned = sum(len(p.vector.get(SYMBOL_VECTOR) or []) for p in points)
    assert owned >= 6  # the symbol lane as under full
    assert emb.embeddings_computed == chunks + owned  # a code text and a sentence per owned symbol, no design text
    for p in points:
        assert {CODE_VECTOR, SPARSE_VECTOR} <= set(p.vector)
        assert p.payload["intent_source"] == "heuristic" and DESIGN_VECTOR not in p.vector
    with pytest.raises(ToolInputError, match="no design vector"):
        similar(ledger, "orders.py:7", "design", k=2)


README_MD = """# Shop

## Settlement

Trades settle two business days after the trade date; the clearing house nets each member's
positions first.
"""


REPORT_PY = "def monthly_report(entries: list[dict]) -> dict:\n" + "".join(
    f"    total_{i} = sum(e['amount'] for e in entries if e['month'] == {i})\n" for i in range(1, 13)) + (
    "    return {i: locals()[f'total_{i}'] for i in range(1, 13)}\n")


def test_pooled_profile_is_the_default_and_pools_code_vectors_from_symbol_vectors(git_repo, ledger, embedder):
    """`pooled`: a chunk of code whose symbols' sentences quote most of it embeds only those sentences, and its
    code vector is their normalised mean; a long body, a chunk owning none and a markdown section embed their own
    text; a re-run pools nothing."""
    import json

    import numpy as np

    from ledger_assets.encode.embedder import fetch_vectors

    assert ledger.settings.embed_profile == "pooled" and not ledger.settings.embed_test_symbols  # the defaults
    git_repo.write("README.md", README_MD)
    git_repo.write("report.py", REPORT_PY)  # 14 code lines, of which its sentence quotes 6
    ledger.registry.add(_repo(git_repo).path, "shop")
    ran = _ingest(ledger, embedder, "r1")
    chunks, emb = ran["chunks"].total_chunks, ran["embeddings"]
    with ledger.db.connect() as con:
        rows = con.execute("select file_path, chunk_index, chunk_type, code_hash, symbol_hashes from chunks "
                           "order by file_path, chunk_index").fetchall()
    pooled = [r for r in rows if r[3].startswith("pool:")]
    own_text = [r for r in rows if not r[3].startswith("pool:")]
    assert pooled and emb.pooled == len(pooled)
    assert {r[0] for r in own_text} >= {"README.md", "report.py"}  # prose and a long body keep their own text
    assert {r[0] for r in pooled} >= {"orders.py", "ledger.py"}  # short functions and methods are pooled
    # A markdown section owns one symbol (its heading) and embeds its own text: that code vector stands in for the
    # heading's sentence; report.py's long function keeps its sentence beside its own text.
    assert all(json.loads(r[4]) == [r[3]] for r in own_text if r[0] == "README.md")
    assert all(r[4] and json.loads(r[4]) != [r[3]] for r in own_text if r[0] == "report.py")
    sentences = {h for r in rows for h in json.loads(r[4] or "[]")} - {r[3] for r in own_text}
    assert emb.embeddings_computed == len(sentences) + len(own_text)  # no code text for a pooled chunk
    owned = sum(len(json.loads(r[4] or "[]")) for r in rows)
    assert emb.embeddings_computed < chunks + owned  # what `standard` embeds
    points = {(p.payload["file_path"], p.payload["chunk_index"]): p for p in _points(ledger)}
    assert len(points) == chunks
    model = embedder.model_name
    for path, idx, _, code_hash, sym_json in pooled:
        vec = np.asarray(points[(path, idx)].vector[CODE_VECTOR])
        parts = fetch_vectors(ledger.db, model, json.loads(sym_json))
        mean = np.mean(list(parts.values()), axis=0)
        assert float(vec @ (mean / np.linalg.norm(mean))) > 0.999
        assert DESIGN_VECTOR not in points[(path, idx)].vector  # keyless intents: no design vector
    for path, idx, _, code_hash, sym_json in own_text:
        if json.loads(sym_json or "[]") == [code_hash]:  # the symbol lane scores it by its code vector
            vec = points[(path, idx)].vector
            assert np.allclose(np.asarray(vec[SYMBOL_VECTOR]), np.asarray([vec[CODE_VECTOR]]), atol=1e-6)
    assert [h.rank for h in similar(ledger, "orders.py:7", "code", k=2)] == [1, 2]
    again = _ingest(ledger, embedder, "r2")["embeddings"]
    assert again.embeddings_computed == 0 and again.pooled == len(pooled)
    with ledger.db.connect() as con:
        assert con.execute("select count(*) from embeddings where text_hash like 'pool:%'").fetchone()[0] == len(
            {r[3] for r in pooled})  # each pooled vector stored once


def test_unchanged_rerun_does_not_load_the_model(git_repo, ledger, embedder):
    ledger.registry.add(_repo(git_repo).path, "shop")
    _ingest(ledger, embedder, "r1")
    fresh = Embedder(embedder.device, embedder.batch_size, embedder.backend)
    ran = _ingest(ledger, fresh, "r2")
    assert ran["embeddings"].embeddings_computed == 0
    assert fresh.model_used is False  # the model was never asked for, so never loaded by this run
    git_repo.write("ledger.py", LEDGER_PY + '\n\ndef close_account(account: str) -> None:\n    """Close it."""\n')
    git_repo.commit("add close_account")
    ran = _ingest(ledger, fresh, "r3")
    assert ran["embeddings"].embeddings_computed >= 1 and fresh.model_used is True  # the observation can fail


def test_lean_code_text_leads_with_the_intent_and_the_owned_symbols(git_repo, tmp_path, embedder):
    """Under lean, the one embedded text of a keyless chunk starts with its intent sentence and the heads of
    the symbols it owns (no code), capped; full's code text is the code alone."""
    from ledger_assets.ingest.pipeline import LEAN_LEAD_CHARS, lean_lead
    from ledger_assets.ingest.symbol_texts import symbol_text

    method = {"name": "OrderBook.add_order", "kind": "method", "parent": "OrderBook", "start_line": 1, "end_line": 3}
    lines = ["def add_order(self, order_id, price):", '    """Add an order at a price."""', "    self.orders[order_id] = price"]
    head = symbol_text(method, lines, head_only=True)
    # (a documented symbol's full sentence reads its declaration and one line more: here the docstring's)
    assert "add order" in head.lower() and "def add_order(" not in head
    assert "def add_order(" in symbol_text(method, lines)
    assert lean_lead("Adds an order.", [head]).startswith("Adds an order. ")
    assert len(lean_lead("x" * 1000, [head])) == LEAN_LEAD_CHARS

    hashes = {}
    for profile in ("lean", "full"):
        ledger = Ledger(LedgerSettings(home=str(tmp_path / profile), lock_timeout_s=60, embed_profile=profile))
        if not hashes:
            _repo(git_repo)
        ledger.registry.add(git_repo.path, "shop")
        _ingest(ledger, embedder, "r1")
        with ledger.db.connect() as con:
            hashes[profile] = dict(con.execute(
                "select chunk_index, code_hash from chunks where file_path = 'orders.py'").fetchall())
    owners = [i for i in hashes["lean"] if hashes["lean"][i] != hashes["full"][i]]
    assert owners, "no lean code text carried a lead"


def test_joint_profile_reads_each_chunk_once_and_keeps_the_symbol_lane(git_repo, tmp_path, embedder):
    """`joint`: one model input a chunk (its symbols' heads, then its code), a code vector and one symbol vector
    per owned symbol pooled from it; a keyless intent gets no design vector; a re-run computes nothing."""
    ledger = Ledger(LedgerSettings(home=str(tmp_path / "joint-home"), lock_timeout_s=60, embed_profile="joint"))
    ledger.registry.add(_repo(git_repo).path, "shop")
    ran = _ingest(ledger, embedder, "r1")
    chunks, emb = ran["chunks"].total_chunks, ran["embeddings"]
    assert chunks >= 3 and emb.embeddings_computed == chunks  # one input a chunk
    points = _points(ledger)
    assert len(points) == chunks
    for p in points:
        assert CODE_VECTOR in p.vector and DESIGN_VECTOR not in p.vector  # every intent here is keyless
    owned = sum(len(p.vector.get(SYMBOL_VECTOR) or []) for p in points)
    assert owned >= 6  # the same symbols as under full: OrderBook, its three methods, spread, post_entry, balance
    with ledger.db.connect() as con:
        rows = con.execute("select code_hash, symbol_hashes from chunks where symbol_hashes <> ''").fetchall()
    assert rows and all(c.rsplit(":", 1)[0] == s[2:].split(":", 1)[0] for c, s in rows)  # one input's vectors
    assert _ingest(ledger, embedder, "r2")["embeddings"].embeddings_computed == 0


TEST_ORDERS_PY = '''from orders import OrderBook


def test_add_order_keeps_the_price():
    book = OrderBook()
    book.add_order("a", 1.5)
    assert book.orders["a"] == 1.5


def test_cancel_order_of_an_unknown_id_is_false():
    assert OrderBook().cancel_order("nope") is False
'''


@pytest.mark.parametrize("embed_test_symbols", [False, True])
def test_a_test_files_symbols_get_no_sentence_unless_asked(git_repo, tmp_path, embedder, embed_test_symbols):
    """With `embed_test_symbols` off (the default), a test file's chunks embed their code text alone: no symbol
    sentence, no symbol vector (a question about tests takes them into that lane from the code lane at query time,
    retrieval/search.py's symbol_lane_for_tests); on (an opt-in), its symbols get sentences as any file's do."""
    import json

    git_repo.write("tests/test_orders.py", TEST_ORDERS_PY)
    ledger = Ledger(LedgerSettings(home=str(tmp_path / "home"), lock_timeout_s=60,
                                   embed_test_symbols=embed_test_symbols))
    ledger.registry.add(_repo(git_repo).path, "shop")
    ran = _ingest(ledger, embedder, "r1")
    with ledger.db.connect() as con:
        rows = con.execute("select file_path, symbols, code_hash, symbol_hashes from chunks").fetchall()
    tests = [r for r in rows if r[0] == "tests/test_orders.py"]
    assert tests and any(json.loads(r[1] or "[]") for r in tests)  # the chunker saw the test functions
    points = [p for p in _points(ledger) if p.payload["file_path"] == "tests/test_orders.py"]
    assert len(points) == len(tests)
    if embed_test_symbols:  # their sentences, as for any file
        assert any(r[3] for r in tests) and any(SYMBOL_VECTOR in p.vector for p in points)
    else:  # the code text alone: no sentence, so nothing to pool either, and no symbol vector
        assert all(not r[3] and not r[2].startswith("pool:") for r in tests)
        assert not any(SYMBOL_VECTOR in p.vector for p in points)
    assert any(r[3] for r in rows if r[0] == "orders.py")  # a source file keeps its sentences
    own_text = {r[2] for r in rows if not r[2].startswith("pool:")}
    sentences = {h for r in rows for h in json.loads(r[3] or "[]")} - own_text  # a code vector may stand in for one
    assert ran["embeddings"].embeddings_computed == len(sentences) + len(own_text)


LEDGER_CS = "namespace Shop.Books;\n\npublic class GeneralLedger\n{\n" + "".join(
    f"    /// <summary>Posts the entries of journal {i} to their accounts.</summary>\n"
    f"    public decimal PostJournal{i}(IList<decimal> amounts, string account)\n    {{\n"
    f"        var total = 0m;\n        foreach (var amount in amounts) {{ total += amount * {i}; }}\n"
    f"        Audit.Write(account, \"journal {i}\", total);\n        return total;\n    }}\n\n"
    for i in range(1, 31)) + "}\n"

SHOP_CSPROJ = """<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFramework>net8.0</TargetFramework>
    <Nullable>enable</Nullable>
  </PropertyGroup>
  <ItemGroup>
    <PackageReference Include="Dapper" Version="2.1.35" />
  </ItemGroup>
</Project>
"""


def test_pooled_whole_type_copy_and_settings_sections_cost_no_input_of_their_own(git_repo, ledger, embedder):
    """Under `pooled`, a type's whole copy (`cs_class_full`) takes the mean of its member chunks' code vectors (no
    model input: its text's first 256 tokens were its first member's), and a chunk of settings (a `.csproj`) keeps
    its own text's code vector and no symbol vector; the member chunks keep their sentences."""
    import json

    import numpy as np

    from ledger_assets.encode.embedder import fetch_vectors

    git_repo.write("src/GeneralLedger.cs", LEDGER_CS)  # over the 6,000-character type cap: members and a whole copy
    git_repo.write("src/Shop.csproj", SHOP_CSPROJ)
    ledger.registry.add(_repo(git_repo).path, "shop")
    emb = _ingest(ledger, embedder, "r1")["embeddings"]
    with ledger.db.connect() as con:
        rows = con.execute("select file_path, chunk_index, chunk_type, start_line, end_line, code_hash, symbols, "
                           "symbol_hashes from chunks order by file_path, chunk_index").fetchall()
    wholes = [r for r in rows if r[2] == "cs_class_full"]
    members = [r for r in rows if r[0] == "src/GeneralLedger.cs" and r[2] != "cs_class_full"]
    assert wholes and len(members) >= 30
    points = {(p.payload["file_path"], p.payload["chunk_index"]): p for p in _points(ledger)}
    model = embedder.model_name
    for path, idx, _, start, end, code_hash, _, sym_json in wholes:
        assert code_hash.startswith("pool:") and not sym_json  # owns no symbol, embeds no text
        parts = [m[5] for m in members if start <= m[3] <= end]
        vectors = fetch_vectors(ledger.db, model, parts)
        assert len(vectors) == len(set(parts))
        mean = np.mean([vectors[h] for h in parts], axis=0)
        vec = np.asarray(points[(path, idx)].vector[CODE_VECTOR])
        assert float(vec @ (mean / np.linalg.norm(mean))) > 0.999
    settings = [r for r in rows if r[0] == "src/Shop.csproj"]
    assert settings and any(json.loads(r[6] or "[]") for r in settings)  # the chunker saw its sections
    for path, idx, _, _, _, code_hash, _, sym_json in settings:
        assert not code_hash.startswith("pool:") and not sym_json
        assert SYMBOL_VECTOR not in points[(path, idx)].vector and CODE_VECTOR in points[(path, idx)].vector
    assert all(json.loads(m[7] or "[]") for m in members if m[2] == "cs_member")  # each method keeps its sentence
    own_text = {r[5] for r in rows if not r[5].startswith("pool:")}
    sentences = {h for r in rows for h in json.loads(r[7] or "[]")} - own_text
    assert emb.embeddings_computed == len(sentences) + len(own_text)  # no input for the whole copy
    assert _ingest(ledger, embedder, "r2")["embeddings"].embeddings_computed == 0
