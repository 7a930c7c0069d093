"""The in-process lane index answers exactly as Qdrant's local mode does, and follows every write.

Two small real repos ingested end to end (DuckDB + Qdrant local mode + MiniLM);
each lane's index answer is compared with Qdrant's own `query_points` under the
same filter.
"""

from __future__ import annotations

import logging
from types import SimpleNamespace

import numpy as np
import pytest
from qdrant_client import models

from ledger_assets.encode import lexical
from ledger_assets.store import local_index
from ledger_assets.store.ledger import Ledger
from ledger_assets.retrieval.search import Searcher, SearchOptions
from ledger_assets.store.qdrant import (CODE_VECTOR, DESIGN_VECTOR, SPARSE_VECTOR, SYMBOL_VECTOR, QdrantBusy,
                                        latest_filter)
from ledger_assets.store.settings import LedgerSettings
from tests.conftest import RETRIEVAL_FIXTURES as FIXTURES, GitRepo, ingest

LOG = logging.getLogger("test-local-index")
QUERIES = ("cancel a booking and refund the guest", "value added tax on an invoice", "reconcile stock count",
           "BookingService.CancelAsync", "parse invoice number", "how do I deploy this")


@pytest.fixture(scope="module")
def two_repos(tmp_path_factory, embedder):
    base = tmp_path_factory.mktemp("local-index")
    travel = GitRepo(base / "travel")
    travel.write("src/Bookings/BookingService.cs", (FIXTURES / "BookingService.cs").read_text())
    travel.write("src/Warehouse/StockLedger.cs", (FIXTURES.parent / "csharp" / "StockLedger.cs").read_text())
    travel.write("docs/README.md", (FIXTURES / "README.md").read_text())
    travel.commit("travel desk")
    billing = GitRepo(base / "billing")
    billing.write("billing/invoices.py", (FIXTURES / "invoices.py").read_text())
    billing.write("ops/manifest.txt", (FIXTURES / "manifest.txt").read_text())
    billing.commit("billing")
    # The full embedding profile: every lane stored, so each lane's local ranking is compared with Qdrant's.
    ledger = Ledger(LedgerSettings(home=str(base / "home"), lock_timeout_s=1, embed_profile="full"))
    ledger.registry.add(travel.path, "travel")
    ledger.registry.add(billing.path, "billing")
    ingest(ledger, "travel", embedder)
    ingest(ledger, "billing", embedder)
    local_index.forget()
    dense = dict(zip(QUERIES, (v.tolist() for v in embedder.encode(list(QUERIES)))))
    return SimpleNamespace(ledger=ledger, searcher=Searcher(ledger, embedder), embedder=embedder, dense=dense)


FILTERS = {
    "latest only": lambda: latest_filter(None),
    "repo": lambda: latest_filter("travel"),
    "chunk type": lambda: latest_filter(None, chunk_types=["cs_member", "py_function"]),
    "language": lambda: latest_filter("billing", languages=["python"]),
    "file set": lambda: latest_filter(None, file_paths=["src/Bookings/BookingService.cs", "billing/invoices.py"]),
    "nothing matches": lambda: latest_filter("no-such-repo"),
}


def ranked_groups(points, limit, tie=1e-6):
    """ids grouped by equal score, in rank order; equal scores (within float noise) may come
    in any order, and the last group may be cut anywhere by the limit, so its ids are not
    compared (the scores are, by the caller)."""
    groups: list = []
    first = None
    for p in points:
        if first is None or abs(p.score - first) > tie:
            groups.append(set())
            first = p.score
        groups[-1].add(str(p.id))
    if len(points) == limit and groups:
        groups[-1] = None
    return groups


def qdrant_lane(ledger, client, lane, text, dense, flt, limit):
    if lane == "sparse":
        query, using = lexical.query_vector(text), SPARSE_VECTOR
    elif lane == "symbol":
        query, using = [dense], SYMBOL_VECTOR
    else:
        query, using = dense, CODE_VECTOR if lane == "code" else DESIGN_VECTOR
    return client.query_points(ledger.qdrant.collection, query=query, using=using, query_filter=flt,
                               limit=limit, with_payload=True).points


@pytest.mark.parametrize("filter_name", list(FILTERS))
@pytest.mark.parametrize("lane", ["code", "design", "sparse", "symbol"])
def test_each_lane_returns_qdrants_own_ranking_under_each_filter(two_repos, lane, filter_name):
    ledger, searcher = two_repos.ledger, two_repos.searcher
    flt = FILTERS[filter_name]()
    compared = 0
    with ledger.qdrant.open() as client:
        index = searcher.local_index(client)
        assert index is not None and len(index) == client.count(ledger.qdrant.collection).count
        for text in QUERIES:
            dense = two_repos.dense[text]
            for limit in (5, 200):
                want = qdrant_lane(ledger, client, lane, text, dense, flt, limit)
                got = searcher.lane_results(None, text, [lane], flt, limit, dense, index=index)[lane]
                assert ranked_groups(got, limit) == ranked_groups(want, limit), (text, limit)
                assert [p.score for p in got] == pytest.approx([p.score for p in want], abs=1e-5)
                want_payloads = {str(p.id): p.payload for p in want}
                assert all(p.payload == want_payloads[p.id] for p in got if p.id in want_payloads)
                compared += len(want)
    if filter_name == "nothing matches":
        assert compared == 0
    else:
        assert compared > 0


def test_reading_the_clients_memory_gives_the_same_index_as_the_public_scroll(two_repos):
    ledger = two_repos.ledger
    with ledger.qdrant.open() as client:
        fast = local_index.build(ledger.qdrant, client)
        slow = local_index.build(ledger.qdrant, client, from_memory=False)
    assert fast.marker == slow.marker and sorted(fast.ids) == sorted(slow.ids) and len(fast) > 20
    order = [slow.position[pid] for pid in fast.ids]
    assert fast.payloads == [slow.payloads[i] for i in order]
    for lane in (CODE_VECTOR, DESIGN_VECTOR):
        assert fast.dense[lane][0] == pytest.approx(slow.dense[lane][0][order], abs=1e-7)
        assert fast.dense[lane][1].tolist() == slow.dense[lane][1][order].tolist()
    # The symbol lane: the same vectors, owned by the same points (rows in point order).
    for index in (fast, slow):
        assert len(index.multi[SYMBOL_VECTOR][1]) > len(index), "most chunks own several symbols"
    f_vec, f_own, _ = fast.multi[SYMBOL_VECTOR]
    s_vec, s_own, _ = slow.multi[SYMBOL_VECTOR]
    by_point = {}
    for vec, own in zip(s_vec, s_own):
        by_point.setdefault(slow.ids[own], []).append(vec)
    for vec, own in zip(f_vec, f_own):
        assert any(np.allclose(vec, other, atol=1e-6) for other in by_point[fast.ids[own]])
    assert sorted(fast.ids[o] for o in f_own) == sorted(slow.ids[o] for o in s_own)
    assert list(fast.vocab_tokens) == list(slow.vocab_tokens)
    assert (fast.sparse - slow.sparse[order]).count_nonzero() == 0


def test_sparse_idf_counts_only_live_points_with_a_sparse_vector(two_repos):
    index = two_repos.searcher.local_index()
    q = lexical.query_vector("invoice")
    col = index.token_col[q.indices[0]]
    holders = sum(1 for i in range(len(index)) if index.sparse[i, col] != 0)
    assert index.df[col] == holders > 0
    assert index.sparse_docs == int(index.has_sparse.sum()) <= len(index)


def test_a_served_copy_outlives_staging_writes(two_repos):
    ledger, searcher = two_repos.ledger, two_repos.searcher
    served = searcher.local_index()  # the ingest's promotion published it
    assert served.folder
    with ledger.qdrant.open() as client:  # a run stages a point: hidden, so the served copy still answers
        donor = client.scroll(ledger.qdrant.collection, limit=1, with_vectors=True)[0][0]
        staged = dict(donor.payload, is_latest=False, staged=True, file_path="billing/staged.py")
        client.upsert(ledger.qdrant.collection, [models.PointStruct(
            id="00000000-0000-4000-8000-00000000cafe", vector=donor.vector, payload=staged)])
    local_index.forget(ledger.qdrant)  # a new process: it loads the saved copy, opening no client
    again = local_index.current(ledger.qdrant)
    assert again is not None and again.folder == served.folder and len(again) == len(served)


def test_index_rebuilds_after_upsert_payload_change_and_delete(two_repos):
    """Without a served copy (a home from before them, or a raw write after one), a write to the
    collection is seen at the next query."""
    ledger, searcher = two_repos.ledger, two_repos.searcher
    local_index.forget(ledger.qdrant, saved=True)
    before = searcher.local_index()
    assert before.folder is None
    assert local_index.current(ledger.qdrant) is before  # no write since: served from the cache
    donor_text = "parse invoice number"
    with ledger.qdrant.open() as client:
        donor = client.query_points(ledger.qdrant.collection, query=lexical.query_vector(donor_text),
                                    using=SPARSE_VECTOR, limit=1, with_vectors=True).points[0]
        new_id = "00000000-0000-4000-8000-00000000beef"
        payload = dict(donor.payload, file_path="billing/copy.py", chunk_index=0)
        client.upsert(ledger.qdrant.collection, [models.PointStruct(id=new_id, vector=donor.vector, payload=payload)])
    after_upsert = searcher.local_index()
    assert after_upsert is not before and len(after_upsert) == len(before) + 1
    hits = searcher.lane_results(None, donor_text, ["sparse"], latest_filter("billing"), 5, index=after_upsert)["sparse"]
    assert new_id in {p.id for p in hits}

    with ledger.qdrant.open() as client:  # a payload-only write: the point count stays the same
        client.set_payload(ledger.qdrant.collection, {"is_latest": False}, points=[new_id])
    after_retire = searcher.local_index()
    assert after_retire is not after_upsert and len(after_retire) == len(after_upsert)
    hits = searcher.lane_results(None, donor_text, ["sparse"], latest_filter("billing"), 5, index=after_retire)["sparse"]
    assert new_id not in {p.id for p in hits}

    with ledger.qdrant.open() as client:
        client.delete(ledger.qdrant.collection, points_selector=models.PointIdsList(points=[new_id]))
    after_delete = searcher.local_index()
    assert len(after_delete) == len(before) and new_id not in after_delete.position


def test_a_fresh_index_answers_while_another_client_holds_the_folder(two_repos):
    ledger, searcher = two_repos.ledger, two_repos.searcher
    searcher.local_index()
    q = QUERIES[0]
    opts, dense = SearchOptions(k=3, check_stale=False), two_repos.dense[q]
    expected = [h.key for h in searcher.search(q, opts, dense)]
    assert expected
    with ledger.qdrant.open():  # e.g. an ingest that has not written yet
        assert [h.key for h in searcher.search(q, opts, dense)] == expected
        local_index.forget(ledger.qdrant)  # a new process: it loads the saved copy, no client needed
        assert [h.key for h in searcher.search(q, opts, dense)] == expected
        local_index.forget(ledger.qdrant, saved=True)  # one that has no copy needs the folder: waits, says so
        with pytest.raises(QdrantBusy):
            searcher.search(q, opts, dense)
    assert [h.key for h in searcher.search(q, opts, dense)] == expected


def test_the_saved_copy_answers_like_the_built_index_and_goes_stale_with_the_collection(two_repos):
    ledger, searcher = two_repos.ledger, two_repos.searcher
    built = searcher.local_index()
    marker = local_index.storage_marker(ledger.qdrant)
    loaded = local_index.load(ledger.qdrant, marker)
    assert loaded is not None and loaded is not built and loaded.ids == built.ids
    flt = latest_filter(None)
    for q in QUERIES:
        for lane in ("code", "design", "sparse", "symbol"):
            a = searcher.lane_results(None, q, [lane], flt, 8, dense=two_repos.dense[q], index=built)[lane]
            b = searcher.lane_results(None, q, [lane], flt, 8, dense=two_repos.dense[q], index=loaded)[lane]
            assert [(p.id, round(p.score, 6), p.payload) for p in a] == [(p.id, round(p.score, 6), p.payload)
                                                                         for p in b], (q, lane)
    with ledger.qdrant.open() as client:  # any write moves the marker: the copy is no longer served
        client.set_payload(ledger.qdrant.collection, {"touched": True}, points=[built.ids[0]])
    assert local_index.load(ledger.qdrant, local_index.storage_marker(ledger.qdrant)) is None
    assert local_index.load(ledger.qdrant, marker) is not None  # (it was saved at the old marker)
    rebuilt = searcher.local_index()
    assert rebuilt.payloads[0].get("touched") is True
    assert local_index.load(ledger.qdrant, local_index.storage_marker(ledger.qdrant)) is not None


def test_hybrid_search_is_the_same_with_and_without_the_index(two_repos):
    with_index = two_repos.searcher
    without = Searcher(two_repos.ledger, two_repos.embedder, use_local_index=False)
    assert without.local_index() is None
    for q in QUERIES:
        opts, dense = SearchOptions(k=8, check_stale=False), two_repos.dense[q]
        assert [(h.key, round(h.score, 6), h.lane_ranks) for h in with_index.search(q, opts, dense)] == \
            [(h.key, round(h.score, 6), h.lane_ranks) for h in without.search(q, opts, dense)], q


def test_server_mode_has_no_local_index(tmp_path):
    ledger = Ledger(LedgerSettings(home=str(tmp_path / "home"), qdrant_url="http://127.0.0.1:9"))
    assert local_index.storage_marker(ledger.qdrant) is None
