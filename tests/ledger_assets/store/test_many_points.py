"""Many points cost once per call, not once per point, in local mode (issue 33). Writes: one SQLite
commit per write call, not one per point (a 10,000-file ingest spent most of its time in per-point
commits), counted with SQLite's own file change counter, which every commit bumps (the marker
local_index reads). Reads: a scroll filters the whole collection once per page, so pages are large.
The served index copy's points.json is written through the C encoder, byte for byte as json.dump."""

from __future__ import annotations

import io
import json
import random

from qdrant_client import models

from ledger_assets.store import local_index
from ledger_assets.store.qdrant import (CODE_VECTOR, DESIGN_VECTOR, QUALITY_VECTOR, one_commit_per_write,
                                        point_id, repo_filter)
from ledger_assets.store.settings import EMBED_DIM, QUALITY_DIM

N = 40


def _commits(ledger) -> int:
    return local_index.storage_marker(ledger.qdrant)[3]


def _points(n: int) -> list[models.PointStruct]:
    rng = random.Random(7)
    return [models.PointStruct(
        id=point_id("r", f"f{i}.py", 0),
        vector={CODE_VECTOR: [rng.random() for _ in range(EMBED_DIM)],
                DESIGN_VECTOR: [rng.random() for _ in range(EMBED_DIM)],
                QUALITY_VECTOR: [rng.random() for _ in range(QUALITY_DIM)]},
        payload={"repo_id": "r", "file_path": f"f{i}.py", "chunk_index": 0}) for i in range(n)]


def test_each_write_call_is_one_commit_and_durable(ledger):
    points = _points(N)
    ids = [p.id for p in points]
    with ledger.qdrant.open() as client:
        ledger.qdrant.ensure_collection(client)
        before = _commits(ledger)
        client.upsert(ledger.qdrant.collection, points, wait=True)
        after_upsert = _commits(ledger)
        client.batch_update_points(ledger.qdrant.collection, [
            models.SetPayloadOperation(set_payload=models.SetPayload(payload={"is_latest": True}, points=ids)),
            models.DeletePayloadOperation(delete_payload=models.DeletePayload(keys=["chunk_index"], points=ids)),
        ], wait=True)
        after_update = _commits(ledger)
        client.delete(ledger.qdrant.collection, points_selector=models.PointIdsList(points=ids[:10]), wait=True)
        after_delete = _commits(ledger)
    assert after_upsert - before == 1  # was N: one commit per point
    assert after_update - after_upsert == 1  # was 2 * N
    assert after_delete - after_update == 1  # was 10
    with ledger.qdrant.open() as client:  # what each call wrote is on disk
        got = {str(p.id): p.payload for p in client.scroll(ledger.qdrant.collection, limit=100)[0]}
    assert set(got) == set(ids[10:])
    assert all(p == {"repo_id": "r", "file_path": p["file_path"], "is_latest": True} for p in got.values())


def test_a_client_it_does_not_know_is_left_alone():
    class Remote:  # no local collections: a server client, say
        def upsert(self, *args, **kwargs):
            return "as it was"

    client = Remote()
    assert one_commit_per_write(client) is False
    assert client.upsert() == "as it was"


def test_a_scroll_of_many_points_is_one_pass_in_local_mode(ledger):
    n = 2500  # more than a server page (1,024): three passes over every point before
    with ledger.qdrant.open() as client:
        ledger.qdrant.ensure_collection(client)
        client.upsert(ledger.qdrant.collection, _points(n), wait=True)
        calls = []
        scroll = client.scroll
        client.scroll = lambda *a, **kw: calls.append(kw["limit"]) or scroll(*a, **kw)
        got = [p.payload["file_path"] for p in ledger.qdrant.scroll(client, repo_filter("r"), ["file_path"])]
    assert sorted(got) == sorted(f"f{i}.py" for i in range(n))
    assert len(calls) == 1


def test_points_json_is_what_json_dump_writes():
    rng = random.Random(3)
    for n in (0, 1, 1023, 1024, 1025, 2100):
        ids = [f"id-{i}" for i in range(n)]
        payloads = [{"content": 'é\u2028"\\x' * rng.randint(0, 3), "score": rng.random(), "i": i,
                     "list": [1, None, True], "nested": {"a": "ü"}} for i in range(n)]
        want = io.StringIO()
        json.dump({"ids": ids, "payloads": payloads}, want, ensure_ascii=False, separators=(",", ":"))
        got = io.StringIO()
        local_index.dump_points(got, ids, payloads)
        assert got.getvalue() == want.getvalue(), n
