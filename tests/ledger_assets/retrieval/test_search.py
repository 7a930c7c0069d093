"""Hybrid query over a small real repo ingested end to end (DuckDB + Qdrant local mode + MiniLM)."""

from __future__ import annotations

import json
import logging
import shutil
from types import SimpleNamespace

import pytest

from ledger_assets.cli import main
from ledger_assets.store.ledger import Ledger
from ledger_assets.retrieval.fusion import QueryError, fuse, parse_weights
from ledger_assets.retrieval.names import name_lane, named_symbols, owned_names
from ledger_assets.retrieval.rules import collapse_shapes, yield_private_twins
from ledger_assets.retrieval.hits import TOON_LEGEND, Hit
from ledger_assets.retrieval.search import Searcher, SearchOptions
from ledger_assets.store.settings import SNIPPET_CHARS, SYMBOL_BONUS, LedgerSettings
from tests.conftest import RETRIEVAL_FIXTURES as FIXTURES, GitRepo, ingest

LOG = logging.getLogger("test-search")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, embedder):
    base = tmp_path_factory.mktemp("search")
    repo = GitRepo(base / "travel")
    repo.write("src/Bookings/BookingService.cs", (FIXTURES / "BookingService.cs").read_text())
    repo.write("src/Warehouse/StockLedger.cs", (FIXTURES.parent / "csharp" / "StockLedger.cs").read_text())
    repo.write("src/Warehouse/StockLoggerExtensions.cs",
               (FIXTURES.parent / "csharp" / "StockLoggerExtensions.cs").read_text())
    repo.write("billing/invoices.py", (FIXTURES / "invoices.py").read_text())
    repo.write("docs/README.md", (FIXTURES / "README.md").read_text())
    repo.write("ops/manifest.txt", (FIXTURES / "manifest.txt").read_text())
    repo.commit("travel desk")
    # The full embedding profile: these tests exercise every lane, the symbol lane's sentences among them.
    ledger = Ledger(LedgerSettings(home=str(base / "home"), lock_timeout_s=60, embed_profile="full"))
    ledger.registry.add(repo.path, "travel")
    ingest(ledger, "travel", embedder)
    return SimpleNamespace(ledger=ledger, repo=repo, searcher=Searcher(ledger, embedder), home=base / "home")


def coords(hits):
    return [(h.payload["file_path"], h.payload["start_line"], h.payload["end_line"], h.payload["chunk_type"]) for h in hits]


# ------------------------------------------------------------------ fusion ---
def P(pid, **payload):
    return SimpleNamespace(id=pid, payload={"repo_id": "r", "file_path": "f.cs", "chunk_index": pid,
                                            "intent": "does a thing", **payload})


def test_rrf_sums_weighted_reciprocal_ranks_and_skips_design_without_intent():
    a, b, c = P(1), P(2), P(3, intent="")
    hits = fuse({"code": [a, b], "sparse": [b, a], "design": [c, a]},
                {"code": 1.0, "sparse": 2.0, "design": 1.0}, rrf_k=10, plain_prior=1.0)
    scores = {h.payload["chunk_index"]: h for h in hits}
    # c has no intent: its design rank carries no signal, and a becomes design rank 1.
    assert 3 not in scores
    assert scores[1].lane_ranks == {"code": 1, "sparse": 2, "design": 1}
    assert scores[1].score == pytest.approx(1 / 11 + 2 / 12 + 1 / 11)
    assert scores[2].score == pytest.approx(1 / 12 + 2 / 11)
    assert [h.payload["chunk_index"] for h in hits] == [1, 2]


def test_heuristic_intents_do_not_vote_in_the_design_lane_beside_the_symbol_lane():
    llm, heur = P(1, intent_source="llm"), P(2, intent_source="heuristic")
    weights = {"design": 1.0, "symbol": 1.0}
    hits = {h.payload["chunk_index"]: h for h in fuse({"design": [heur, llm], "symbol": [llm]}, weights, 10, 1.0)}
    assert hits[1].lane_ranks == {"design": 1, "symbol": 1}  # the heuristic point's place is not taken
    assert 2 not in hits
    # alone, or without symbol-lane results, the design lane ranks heuristic intents as before
    alone = fuse({"design": [heur, llm]}, weights, 10, 1.0)
    assert [h.payload["chunk_index"] for h in alone] == [2, 1]
    assert [h.payload["chunk_index"] for h in fuse({"design": [heur, llm], "symbol": []}, weights, 10, 1.0)] == [2, 1]


def test_equal_scores_in_a_lane_share_a_rank():
    a, b, c = (SimpleNamespace(score=s, **vars(P(i))) for i, s in ((1, 0.9), (2, 0.9), (3, 0.5)))
    hits = {h.payload["chunk_index"]: h for h in fuse({"code": [a, b, c]}, {"code": 1.0}, 10, 1.0)}
    assert (hits[1].lane_ranks, hits[2].lane_ranks, hits[3].lane_ranks) == ({"code": 1}, {"code": 1}, {"code": 3})
    assert hits[1].score == hits[2].score


def test_plain_windows_are_down_weighted_by_the_prior():
    window, member = P(1, chunk_type="plain"), P(2, chunk_type="cs_member")
    hits = fuse({"code": [window, member]}, {"code": 1.0}, rrf_k=60, plain_prior=0.5)
    assert [h.payload["chunk_type"] for h in hits] == ["cs_member", "plain"]
    assert hits[1].score == pytest.approx(0.5 / 61)


def test_collapse_keeps_the_most_specific_shape_with_the_better_score():
    full = Hit(0, 0.05, {"repo_id": "r", "file_path": "a.cs", "chunk_index": 9, "chunk_type": "cs_class_full",
                         "start_line": 1, "end_line": 150}, {"code": 1})
    header = Hit(0, 0.03, {"repo_id": "r", "file_path": "a.cs", "chunk_index": 0, "chunk_type": "cs_class",
                           "start_line": 1, "end_line": 24}, {"sparse": 3})
    member = Hit(0, 0.04, {"repo_id": "r", "file_path": "a.cs", "chunk_index": 5, "chunk_type": "cs_member",
                           "start_line": 87, "end_line": 144}, {"sparse": 1})
    other = Hit(0, 0.02, {"repo_id": "r", "file_path": "b.cs", "chunk_index": 0, "chunk_type": "cs_class_full",
                          "start_line": 1, "end_line": 150}, {"code": 2})
    out = collapse_shapes([full, member, header, other])
    assert out == [member, header, other]
    assert member.score == pytest.approx(0.05) and member.lane_ranks == {"sparse": 1, "code": 1}
    assert member.collapsed == ["cs_class_full L1-L150"]


def test_a_private_member_yields_to_a_public_member_of_the_same_name_in_its_type():
    def member(idx, score, visibility, name="StockWrittenOff", parent="Log", path="Log.cs", ranks=None):
        return Hit(0, score, {"repo_id": "r", "file_path": path, "chunk_index": idx, "chunk_type": "cs_member",
                              "start_line": idx * 10, "end_line": idx * 10 + 5, "visibility": visibility,
                              "chunk_symbols": json.dumps([[name, "method", parent, idx * 10, idx * 10 + 5]])},
                   ranks or {"code": idx})

    def order(hits):
        yield_private_twins(hits)
        return [h.payload["chunk_index"] for h in sorted(hits, key=lambda h: -h.score)]

    # The helper ranked first: its public twin takes its place, the helper goes just below.
    helper, entry, other = member(1, 0.6, "private"), member(2, 0.5, "public"), member(3, 0.55, "public", name="Other")
    assert order([helper, entry, other]) == [2, 1, 3]
    assert entry.score == 0.6 and 0.55 < helper.score < 0.6 and helper.lane_ranks == {"code": 1}
    # A twin far down is lifted, never the helper dropped out of the list: nothing else moves.
    hits = [member(1, 0.9, "private", name="Format")] + [member(i, 0.8 - i / 100, "public", name=f"M{i}")
                                                         for i in range(2, 12)]
    hits.append(member(12, 0.1, "public", name="Format"))
    assert order(hits) == [12, 1, *range(2, 12)]
    # Two private twins keep their order below the public one; a split public member lifts one part.
    assert order([member(1, 0.9, "private"), member(2, 0.8, "private"), member(3, 0.1, "public"),
                  member(4, 0.05, "public")]) == [3, 1, 2, 4]
    # A backing field and its property are one name; another type's member of that name is not a twin.
    assert order([member(1, 0.7, "private", name="_comparer"), member(2, 0.2, "public", name="Comparer")]) == [2, 1]
    assert order([member(1, 0.7, "private", name="Validate"), member(2, 0.2, "public", name="Validate",
                                                                      parent="Other")]) == [1, 2]
    # A JavaScript `#render` and its public `render` are one name too.
    assert order([member(1, 0.7, "private", name="#render"), member(2, 0.2, "public", name="render")]) == [2, 1]
    # Another file's member of that name is not a twin; `protected` and the like are not private.
    assert order([member(1, 0.7, "private"), member(2, 0.2, "public", path="Other.cs")]) == [1, 2]
    assert order([member(1, 0.7, "private protected"), member(2, 0.2, "public")]) == [1, 2]
    # The member a query names keeps its place, unless its twin is named too (overloads of one name).
    assert order([member(1, 1.7, "private", name="_comparer", ranks={"named": 1}),
                  member(2, 0.2, "public", name="Comparer")]) == [1, 2]
    assert order([member(1, 1.7, "private", ranks={"named": 1}), member(2, 1.2, "public", ranks={"named": 1})]) == [2, 1]
    # A private nested enum owns its members' names; only the member's own name makes a twin.
    ids = member(1, 0.65, "private", name="Id")
    ids.payload["chunk_symbols"] = json.dumps([["Id", "enum", "Log", 10, 60], ["Render", "enum_member", "Log.Id", 20, 20]])
    assert order([ids, member(2, 0.1, "public", name="Render")]) == [1, 2]
    assert order([member(1, 0.5, "private"), Hit(0, 0.1, {"repo_id": "r", "file_path": "Log.cs", "chunk_index": 2,
                                                         "visibility": "public"})]) == [1, 2]  # no symbols


def test_a_bad_where_condition_is_a_query_error():
    from ledger_assets.store.qdrant import FilterError, where_condition

    with pytest.raises(QueryError, match="needs a number"):
        SearchOptions(where=("q_testability<=low",)).validate()
    with pytest.raises(QueryError, match="write FIELD<=N"):
        SearchOptions(where=("layer domain",)).validate()
    with pytest.raises(FilterError):  # the store's own error, outside a query
        where_condition("=x")
    assert where_condition("q_cyclomatic>10").range.gt == 10 and where_condition("layer=domain").match.value == "domain"


def test_weights_and_named_symbols_parse():
    assert parse_weights("code=2,design=0") == {"code": 2.0, "design": 0.0, "sparse": 1.0, "symbol": 2.0, "name": 0.5}
    assert parse_weights("name=0")["name"] == 0.0
    with pytest.raises(QueryError, match="unknown lane"):
        parse_weights("vibes=1")
    assert named_symbols("BookingService.Cancel") == ["BookingService.Cancel"]
    assert named_symbols("Cancel()") == ["Cancel"]
    assert named_symbols("cancel a booking") == []
    # A short keyword query names its identifiers; a sentence only mentions them, qualified,
    # called or bare: there they are the object, not the answer.
    assert named_symbols("find StockLedger") == ["StockLedger"]
    assert named_symbols("BookingService.Cancel Reconcile()") == ["BookingService.Cancel", "Reconcile"]
    assert named_symbols("who calls BookingService.Cancel on checkout") == []
    assert named_symbols("who calls Reconcile() on close") == []
    assert named_symbols("Creates instances of the StockLedger class") == []


def _point(pid, chunk_type, start, end, symbols, path="src/A.cs"):
    payload = {"repo_id": "r", "file_path": path, "chunk_index": pid, "chunk_type": chunk_type,
               "start_line": start, "end_line": end, "chunk_symbols": json.dumps(symbols)}
    return SimpleNamespace(id=pid, payload=payload, score=0.5)


def test_owned_names_are_the_symbols_whose_first_line_the_chunk_holds():
    header = _point(0, "cs_class", 1, 29, [["CommandBuilder", "class", "", 20, 300], ["Build", "method", "CommandBuilder", 40, 60]])
    full = _point(1, "cs_class_full", 1, 300, [["CommandBuilder", "class", "", 20, 300], ["Build", "method", "CommandBuilder", 40, 60]])
    member = _point(2, "cs_member", 38, 60, [["Build", "method", "CommandBuilder", 40, 60]])
    assert owned_names(header.payload) == ["CommandBuilder"]
    assert owned_names(full.payload) == []  # a whole-type copy: its member chunks own the members
    assert owned_names(member.payload) == ["Build"]
    assert owned_names({"chunk_symbols": "not json"}) == []


def test_name_lane_ranks_candidates_by_how_much_of_a_name_the_query_spells_out():
    text = _point(1, "cs_member", 10, 12, [["CommandText", "property", "Command", 10, 12]])
    timeout = _point(2, "cs_member", 14, 16, [["CommandTimeout", "property", "Command", 14, 16]])
    other = _point(3, "cs_member", 18, 30, [["Execute", "method", "Command", 18, 30]])
    lanes = {"code": [other, timeout], "sparse": [timeout, text]}
    ranked = name_lane("Gets the command texts", lanes, depth=10)
    assert [(p.id, p.score) for p in ranked] == [(1, 1.0), (2, 0.5)]  # plural "texts" meets `Text`
    assert name_lane("the of a", lanes, depth=10) == []
    assert [p.id for p in name_lane("command", lanes, depth=1)] == [1]
    # A doc's third-person verb and an -ies plural meet the name's own word ("consum" and
    # "propert" did not); -es goes only after a sibilant ("indexes" meets `Index`).
    consume = _point(4, "cs_member", 32, 40, [["ConsumeResultSet", "method", "Batch", 32, 40]])
    prop = _point(5, "cs_member", 42, 44, [["FindProperty", "method", "Entity", 42, 44]])
    index = _point(6, "cs_member", 46, 48, [["GetIndex", "method", "Entity", 46, 48]])
    lanes = {"code": [consume, prop, index]}
    assert [(p.id, p.score) for p in name_lane("Consumes result sets", lanes, depth=10)] == [(4, 1.0)]
    assert [(p.id, p.score) for p in name_lane("finds the properties", lanes, depth=10)] == [(5, 1.0)]
    assert [(p.id, p.score) for p in name_lane("gets the indexes", lanes, depth=10)] == [(6, 1.0)]
    # ... and an -ses verb or plural, whose stem keeps or drops the e on both sides alike.
    dispose = _point(7, "cs_member", 50, 52, [["DisposeAsync", "method", "Batch", 50, 52]])
    status = _point(8, "cs_member", 54, 56, [["GetStatus", "method", "Entity", 54, 56]])
    lanes = {"code": [dispose, status]}
    assert [(p.id, p.score) for p in name_lane("Disposes it, async", lanes, depth=10)] == [(7, 1.0)]
    assert [(p.id, p.score) for p in name_lane("gets the statuses", lanes, depth=10)] == [(8, 1.0)]


# ------------------------------------------------------------ real queries ---
def test_hybrid_query_finds_the_member_and_reports_lane_ranks(indexed):
    hits = indexed.searcher.search("reconcile the stock ledger with a physical count", k=5)
    top = hits[0]
    assert coords([top])[0] == ("src/Warehouse/StockLedger.cs", 87, 144, "cs_member")
    assert set(top.lane_ranks) >= {"code", "sparse"}
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))
    # No returned container holds another returned hit of the same file: shapes were collapsed.
    for outer in hits:
        if outer.payload["chunk_type"].endswith(("_class", "_full", "_file")):
            for inner in hits:
                if inner is not outer and inner.payload["file_path"] == outer.payload["file_path"]:
                    assert not (outer.payload["start_line"] <= inner.payload["start_line"]
                                and inner.payload["end_line"] <= outer.payload["end_line"]), coords([outer, inner])


def test_a_query_naming_a_symbol_resolves_to_that_member_first(indexed):
    hits = indexed.searcher.search("StockLedger.Reconcile", k=3)
    assert coords(hits[:1]) == [("src/Warehouse/StockLedger.cs", 87, 144, "cs_member")]
    assert hits[0].lane_ranks["named"] == 1
    hits = indexed.searcher.search("where is bookingservice.cancel", k=3)
    assert hits[0].payload["file_path"] == "src/Bookings/BookingService.cs"
    assert "named" in hits[0].lane_ranks
    # Inside a longer sentence the name is not resolved: it is usually the object ("Logs for the
    # CoreEventId.X event" documents the logger, not the id); the lanes still match its words.
    hits = indexed.searcher.search("what happens after StockLedger.Reconcile finds a shortfall", k=5)
    assert not [h for h in hits if "named" in h.lane_ranks]
    assert all(h.score < SYMBOL_BONUS for h in hits)
    assert ("src/Warehouse/StockLedger.cs", 87, 144, "cs_member") in coords(hits)


def test_filters_repo_type_language_and_path_prefix(indexed):
    s = indexed.searcher
    assert {h.payload["language"] for h in s.search("invoice tax", k=10, languages=("python",))} == {"python"}
    assert {h.payload["chunk_type"] for h in s.search("cancellation policy", k=10, chunk_types=("md_section",))} == {"md_section"}
    under = s.search("reservation", k=10, path_prefix="src/Bookings/")
    assert under and {h.payload["file_path"] for h in under} == {"src/Bookings/BookingService.cs"}
    assert s.search("reservation", k=5, path_prefix="nowhere/") == []
    assert s.search("reservation", k=5, repo="other-repo") == []
    with pytest.raises(QueryError):
        s.search("reservation", path_prefix="../etc")
    with pytest.raises(QueryError):
        s.search("   ")


def test_each_lane_alone(indexed):
    for lane in ("code", "design", "sparse", "symbol"):
        hits = indexed.searcher.search("value added tax on a net amount", k=3, lane=lane)
        assert hits and all(set(h.lane_ranks) == {lane} for h in hits)
    top = indexed.searcher.search("vat_amount", k=1, lane="sparse")[0]
    assert top.payload["file_path"] == "billing/invoices.py" and top.payload["start_line"] == 1


def test_points_carry_one_symbol_vector_per_owned_symbol(indexed):
    ledger = indexed.ledger
    with ledger.db.connect() as con:
        rows = {(f, i): json.loads(h or "[]") for f, i, h in con.execute(
            "SELECT file_path, chunk_index, symbol_hashes FROM chunks WHERE repo_id = 'travel'").fetchall()}
    assert sum(map(len, rows.values())) > len(rows)  # most chunks own several symbols
    with ledger.qdrant.open() as client:
        points = client.scroll(ledger.qdrant.collection, limit=500, with_payload=True, with_vectors=True)[0]
    assert len(points) == len(rows)
    for p in points:
        want = rows[(p.payload["file_path"], p.payload["chunk_index"])]
        assert len(p.vector.get("symbol_vector") or []) == len(want), p.payload["file_path"]
    # the service class is one chunk; its members are still separate vectors in it
    service = next(h for (f, _), h in rows.items() if f == "src/Bookings/BookingService.cs" and len(h) >= 4)
    assert len(set(service)) == len(service)


def test_the_symbol_lane_finds_a_member_of_a_small_class_by_what_it_does(indexed):
    # BookingService is one chunk; the question is about one of its members.
    hits = indexed.searcher.search("active reservations held by one guest", k=3, lane="symbol")
    assert hits[0].payload["file_path"] == "src/Bookings/BookingService.cs"
    assert hits[0].lane_ranks == {"symbol": 1}


def test_a_collection_made_before_the_symbol_lane_still_ingests_and_answers(tmp_path, embedder, caplog):
    from qdrant_client import models

    from ledger_assets.store.qdrant import DENSE_SIZES, SPARSE_VECTOR

    repo = GitRepo(tmp_path / "old")
    repo.write("billing/invoices.py", (FIXTURES / "invoices.py").read_text())
    repo.commit("billing")
    ledger = Ledger(LedgerSettings(home=str(tmp_path / "home"), lock_timeout_s=60))
    ledger.registry.add(repo.path, "old")
    with ledger.qdrant.open() as client:  # the schema of the first release: no symbol_vector
        client.create_collection(
            ledger.qdrant.collection,
            vectors_config={n: models.VectorParams(size=d, distance=models.Distance.COSINE) for n, d in DENSE_SIZES.items()},
            sparse_vectors_config={SPARSE_VECTOR: models.SparseVectorParams(modifier=models.Modifier.IDF)})
    with caplog.at_level(logging.WARNING):
        ingest(ledger, "old", embedder)
    assert "predates the symbol lane" in caplog.text
    searcher = Searcher(ledger, embedder)
    assert searcher.search("value added tax", k=3, lane="symbol") == []
    hybrid = searcher.search("value added tax", k=3)
    assert hybrid and "symbol" not in hybrid[0].lane_ranks
    with ledger.qdrant.open() as client:  # the Qdrant path (no local index) answers the same
        assert Searcher(ledger, embedder, use_local_index=False).lane_results(
            client, "value added tax", ["symbol"], None, 5) == {"symbol": []}


# ----------------------------------------------------------------- formats ---
@pytest.fixture
def cli_env(indexed, monkeypatch):
    monkeypatch.setenv("LEDGER_HOME", str(indexed.home))
    monkeypatch.setenv("LEDGER_LOCK_TIMEOUT_S", "60")


def test_json_format_carries_the_design_hit_shape(indexed, cli_env, capsys):
    assert main(["query", "cancel a reservation", "--k", "3", "--format", "json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 3
    for key in ("rank", "score", "repo_id", "file_path", "start_line", "end_line", "chunk_type", "symbols",
                "snippet", "intent", "intent_source", "stale", "lane_ranks", "payload"):
        assert key in hits[0], key
    assert hits[0]["payload"]["content"].startswith(hits[0]["snippet"].rstrip("…")[:100])
    assert hits[0]["stale"] is False


def test_toon_format_rows_are_read_span_coordinates(indexed, cli_env, capsys):
    assert main(["query", "reconcile physical count", "--k", "4", "--format", "toon"]) == 0
    lines = capsys.readouterr().out.rstrip("\n").split("\n")
    assert lines[0] == TOON_LEGEND == "repo|layer|pattern|path|Lstart-Lend⟫snippet"
    assert len(lines) == 5
    for row in lines[1:]:
        head, snippet = row.split("⟫", 1)
        repo, layer, pattern, path, span = head.split("|")
        assert repo == "travel" and (indexed.repo.path / path).is_file()
        start, end = (int(x) for x in span.removeprefix("L").split("-L"))
        assert 1 <= start <= end
        assert "\n" not in snippet and len(snippet) <= SNIPPET_CHARS


def test_detail_skeleton_and_full(indexed, cli_env, capsys):
    assert main(["query", "StockLedger.Reconcile", "--k", "1", "--format", "json", "--detail", "full"]) == 0
    full = json.loads(capsys.readouterr().out)[0]
    assert full["snippet"] == full["payload"]["content"] and len(full["snippet"]) > SNIPPET_CHARS
    assert main(["query", "StockLedger.Reconcile", "--k", "1", "--format", "json"]) == 0
    snippet = json.loads(capsys.readouterr().out)[0]["snippet"]
    assert len(snippet) == SNIPPET_CHARS + 1 and snippet.endswith("…")
    assert main(["query", "StockLedger.Reconcile", "--k", "1", "--format", "json", "--detail", "skeleton"]) == 0
    skel = json.loads(capsys.readouterr().out)[0]
    assert skel["snippet"] == (skel["payload"].get("skeleton") or skel["payload"]["content"])


def test_batch_mode_prints_one_json_array_per_query(indexed, cli_env, capsys, tmp_path):
    batch = tmp_path / "queries.txt"
    batch.write_text("cancel a reservation\n\nvat on a net amount\nStockLedger.Pick\n", encoding="utf-8")
    assert main(["query", "--batch", str(batch), "--format", "jsonl", "--k", "2"]) == 0
    out = capsys.readouterr().out.strip().split("\n")
    assert len(out) == 3
    arrays = [json.loads(line) for line in out]
    assert all(isinstance(a, list) and len(a) == 2 for a in arrays)
    assert arrays[1][0]["file_path"] == "billing/invoices.py"
    assert arrays[2][0]["symbols"][0] == "Pick"


def test_bad_query_input_exits_2_without_traceback(indexed, cli_env, capsys, tmp_path):
    assert main(["query", "x", "--k", "0"]) == 2
    assert "--k must be between 1 and 200" in capsys.readouterr().err
    assert main(["query", "--batch", str(tmp_path / "missing.txt"), "--format", "jsonl"]) == 2
    assert "missing.txt" in capsys.readouterr().err
    assert main(["query", "--batch", str(tmp_path / "missing.txt")]) == 2
    assert main(["query"]) == 2
    err = capsys.readouterr().err
    assert "give the query TEXT" in err and "Traceback" not in err


# --------------------------------------------------------------- staleness ---
def test_staleness_after_an_edit_moves_and_deletion(indexed):
    path = indexed.repo.path / "src/Warehouse/StockLedger.cs"
    original = path.read_text(encoding="utf-8")
    try:
        hit = indexed.searcher.search("StockLedger.Reconcile", k=1)[0]
        assert hit.freshness == {"stale": False}
        # Three lines inserted above the member: its symbol now sits three lines lower.
        lines = original.split("\n")
        path.write_text("\n".join(lines[:30] + ["", "// moved", ""] + lines[30:]), encoding="utf-8")
        hit = indexed.searcher.search("StockLedger.Reconcile", k=1)[0]
        assert hit.to_dict()["stale"] is True
        assert (hit.freshness["live_start_line"], hit.freshness["live_end_line"]) == (90, 147)
        # Edited inside its body, in place: the symbol still sits at its lines, so the coordinates hold.
        path.write_text(original.replace("ThrowIfDisposed();\n        var report", "ThrowIfDisposed();\n        var  report"),
                        encoding="utf-8")
        assert indexed.searcher.search("StockLedger.Reconcile", k=1)[0].freshness == {"stale": False}
        # A member removed: stale, with no live lines to offer.
        start = original.index("    /// <summary>\n    ///     Reconciles")
        end = original.index("    /// <summary>", start + 10)
        path.write_text(original[:start] + original[end:], encoding="utf-8")
        gone = indexed.searcher.search("StockLedger.Reconcile", k=1)[0]
        d = gone.to_dict()
        assert d["stale"] is True and "live_start_line" not in d and "Reconcile" in d["stale_reason"]
        path.unlink()
        hit = indexed.searcher.search("StockLedger.Reconcile", k=1)[0]
        assert hit.freshness["stale"] is True and "no longer exists" in hit.freshness["stale_reason"]
    finally:
        path.write_text(original, encoding="utf-8")
    assert indexed.searcher.search("StockLedger.Reconcile", k=1)[0].freshness == {"stale": False}


def test_batch_session_holds_one_client(indexed):
    with indexed.searcher.session() as s:
        first = s.search("cancel a reservation", SearchOptions(k=2, check_stale=False))
        second = s.search("cancel a reservation", SearchOptions(k=2, check_stale=False))
    assert coords(first) == coords(second)


def test_a_logging_method_ranks_above_its_private_message_builder(indexed, monkeypatch):
    from ledger_assets.retrieval import search

    def top(query):
        return [(h.payload["start_line"], h.payload.get("visibility")) for h in indexed.searcher.search(query, k=2)]

    # CountVarianceFound (public, L93) logs the event; its private twin (L107) formats the message.
    assert top("count variance found") == [(93, "public"), (107, "private")]
    assert top("TransferShipped") == [(113, "public"), (127, "private")]  # a name query: both, entry first
    monkeypatch.setattr(search, "yield_private_twins", lambda hits: None)
    assert top("count variance found") == [(107, "private"), (93, "public")]  # the short helper, without the rule


def test_of_two_names_the_query_spells_out_the_one_that_says_more_ranks_first():
    from ledger_assets.retrieval.rules import prefer_specific_names

    def unit(idx, score, name, path="addDays/index.ts", ranks=None):
        return Hit(0, score, {"repo_id": "r", "file_path": path, "chunk_index": idx, "chunk_type": "ts_function",
                              "start_line": idx * 10, "end_line": idx * 10 + 5,
                              "chunk_symbols": json.dumps([[name, "function", "", idx * 10, idx * 10 + 5]])},
                   ranks or {"code": idx})

    def order(hits, text):
        prefer_specific_names(hits, text)
        return [h.payload["chunk_index"] for h in hits]

    # The function is the object of the sentence, its options interface the answer.
    fn, options, other = unit(1, 0.6, "addDays"), unit(2, 0.5, "AddDaysOptions"), unit(3, 0.55, "subDays", "s.ts")
    assert order([fn, options, other], "The addDays function options") == [2, 1, 3]
    assert options.score == 0.6 and 0.55 < fn.score < 0.6
    # Not in another file, and not when the longer name says what the query does not.
    assert order([unit(1, 0.6, "addDays"), unit(2, 0.5, "AddDaysOptions", "b.ts")],
                 "The addDays function options") == [1, 2]
    assert order([unit(1, 0.6, "addDays"), unit(2, 0.5, "AddDaysOptions")], "Add days to a date") == [1, 2]
    # Same words: the name in the query's order wins, in any file.
    assert order([unit(1, 0.6, "weeksToDays", "w.ts"), unit(2, 0.5, "daysToWeeks", "d.ts")],
                 "Convert days to weeks") == [2, 1]
    # A named hit keeps its place.
    assert order([unit(1, 0.6, "addDays", ranks={"named": 1}), unit(2, 0.5, "AddDaysOptions")],
                 "addDays options") == [1, 2]
