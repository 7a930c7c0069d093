"""kill -9 in the middle of a stage, then a rerun: the ledger ends as a clean run leaves it.

A child process runs the core stages (as tests/conftest.py's ingest_core does) with one
function wrapped to SIGKILL the process at an exact point: inside the chunk stage's DuckDB
transaction, between two committed embedding slices, between two Qdrant upsert batches.
Nothing in production code knows about it. The rerun (in this process) must give the same
chunk ids, content hashes, embeddings and points as a clean run in another home, with no
orphan or duplicate point. Vectors come from a hash embedder: the crash is under test, not
the model, and it keeps the test to seconds.
"""

from __future__ import annotations

import hashlib
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ledger_assets.encode.embedder import Embedder
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.settings import EMBED_DIM, LedgerSettings

ROOT = Path(__file__).resolve().parents[3]
LOG = logging.getLogger("crash-recovery")
UPSERT_BATCH = 8
EMBED_SLICE = 16


class HashEmbedder(Embedder):
    """Deterministic unit vectors from a text's hash; no model."""

    def __init__(self):
        super().__init__("cpu", batch_size=4)

    def encode(self, texts):
        out = np.zeros((len(texts), EMBED_DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(t.encode("utf-8", "surrogatepass")).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(EMBED_DIM).astype(np.float32)
            out[i] = v / np.linalg.norm(v)
        return out


def settings_for(home: Path) -> LedgerSettings:
    # The full embedding profile: enough texts for a kill between embedding slices (lean embeds one a chunk).
    return LedgerSettings(home=str(home), lock_timeout_s=60, upsert_batch=UPSERT_BATCH, embed_profile="full")


def run_stages(ledger: Ledger, repo_id: str, run_id: str) -> None:
    import functools

    from ledger_assets.encode import embedder as emb
    from ledger_assets.enrich.order import run_stages as run_all
    from ledger_assets.ingest import pipeline

    # Small embedding slices: several committed transactions, so a kill can fall between two.
    pipeline.embed_with_cache = functools.partial(emb.embed_with_cache, chunk_size=EMBED_SLICE)
    try:
        failed = run_all(ledger, repo_id, run_id, LOG, HashEmbedder(), enrichment=False).failed_checks()
        assert not failed, failed
    finally:
        pipeline.embed_with_cache = emb.embed_with_cache


# The child: run the stages, dying by SIGKILL at the named point.
CHILD = r'''
import os, signal, sys
from pathlib import Path
from tests.ledger_assets.ingest import test_crash_recovery as t

home, point = Path(sys.argv[1]), sys.argv[2]
calls = {"n": 0}

def die():
    sys.stdout.write(f"KILLPOINT {point}\n")
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)

if point == "chunks":  # inside the chunk stage's transaction: chunk rows inserted, not committed
    from ledger_assets.ingest import pipeline
    real = pipeline.insert_arrow
    def insert_arrow(con, table, *a, **k):
        real(con, table, *a, **k)
        if table == "symbols":
            die()
    pipeline.insert_arrow = insert_arrow
elif point == "embeddings":  # after two embedding slices were committed
    real_encode = t.HashEmbedder.encode
    def encode(self, texts):
        calls["n"] += 1
        if calls["n"] == 3:
            die()
        return real_encode(self, texts)
    t.HashEmbedder.encode = encode
elif point == "upsert":  # after two Qdrant upsert batches were written
    from qdrant_client import QdrantClient
    real_upsert = QdrantClient.upsert
    def upsert(self, *a, **k):
        result = real_upsert(self, *a, **k)
        calls["n"] += 1
        if calls["n"] == 2:
            die()
        return result
    QdrantClient.upsert = upsert

t.run_stages(t.Ledger(t.settings_for(home)), "crashy", "crash-run")
print("FINISHED", flush=True)
'''


def crash_at(home: Path, point: str) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    env.pop("GROQ_API_KEY", None)
    proc = subprocess.run([sys.executable, "-c", CHILD, str(home), point], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, proc.stdout[-2000:], proc.stderr[-3000:])
    assert f"KILLPOINT {point}" in proc.stdout and "FINISHED" not in proc.stdout


def state(ledger: Ledger, repo_id: str) -> dict:
    """What a run leaves: chunk rows, files, embeddings, points (ledger_id and times aside: random/clock)."""
    with ledger.db.connect() as con:
        chunks = con.execute(
            "SELECT file_path, chunk_index, content_hash, chunk_type, start_line, end_line, code_hash, design_hash, "
            "symbol_hashes, intent, intent_source FROM chunks WHERE repo_id = ? ORDER BY 1, 2", [repo_id]).fetchall()
        ledger_ids = [r[0] for r in con.execute("SELECT ledger_id FROM chunks WHERE repo_id = ?", [repo_id]).fetchall()]
        files = con.execute("SELECT file_path, blob_hash, n_lines, n_chunks, skip_reason FROM files "
                            "WHERE repo_id = ? ORDER BY 1", [repo_id]).fetchall()
        embeddings = sorted(r[0] for r in con.execute("SELECT text_hash FROM embeddings").fetchall())
    assert len(set(ledger_ids)) == len(ledger_ids) and all(ledger_ids)
    with ledger.qdrant.open() as client:
        pts, offset = [], None
        while True:
            batch, offset = client.scroll(ledger.qdrant.collection, limit=256, offset=offset,
                                          with_payload=True, with_vectors=["code_vector", "design_vector"])
            pts += batch
            if offset is None:
                break
    volatile = {"ledger_id", "indexed_utc", "ingested_utc", "system_from_utc", "valid_from_utc"}
    points = {}
    for p in pts:
        assert str(p.id) not in points, f"duplicate point {p.id}"
        payload = {k: v for k, v in p.payload.items() if k not in volatile}
        # `vectors:payload`: the payload half hashes the (random) ledger_id too
        payload["fingerprint"] = payload["fingerprint"].split(":")[0]
        points[str(p.id)] = (payload, np.round(np.asarray(p.vector["code_vector"]), 5).tolist(),
                             # the lean profile (the default) stores no design vector for a keyless intent
                             np.round(np.asarray(p.vector.get("design_vector", [])), 5).tolist())
    keys = [(pl["file_path"], pl["chunk_index"]) for pl, _, _ in points.values()]
    assert len(set(keys)) == len(keys), "two points for one chunk"
    return {"chunks": chunks, "files": files, "embeddings": embeddings, "points": points}


@pytest.fixture(scope="module")
def source_repo(tmp_path_factory):
    from tests.conftest import GitRepo

    repo = GitRepo(tmp_path_factory.mktemp("crash") / "repo")
    for i in range(6):
        funcs = "\n\n".join(f"def op_{i}_{j}(x):\n    \"\"\"Step {j} of module {i}.\"\"\"\n    return x * {j} + {i}\n"
                            for j in range(4))
        repo.write(f"pkg/mod_{i}.py", f'"""Module {i}."""\n\n\n{funcs}')
    repo.write("README.md", "# Crashy\n\n" + "\n\n".join(f"## Part {k}\n\nText of part {k}." for k in range(6)) + "\n")
    repo.commit("seed")
    return repo


@pytest.fixture(scope="module")
def clean(source_repo, tmp_path_factory):
    ledger = Ledger(settings_for(tmp_path_factory.mktemp("clean-home")))
    ledger.registry.add(source_repo.path, "crashy")
    run_stages(ledger, "crashy", "clean-run")
    return state(ledger, "crashy")


@pytest.mark.parametrize("point", ["chunks", "embeddings", "upsert"])
def test_kill_9_then_rerun_equals_a_clean_run(point, source_repo, clean, tmp_path):
    assert len(clean["points"]) > 2 * UPSERT_BATCH and len(clean["embeddings"]) > 3 * EMBED_SLICE
    home = tmp_path / "home"
    ledger = Ledger(settings_for(home))
    ledger.registry.add(source_repo.path, "crashy")

    crash_at(home, point)
    with ledger.db.connect() as con:
        chunk_rows = con.execute("SELECT count(*) FROM chunks").fetchone()[0]
        cached = con.execute("SELECT count(*) FROM embeddings").fetchone()[0]
    if point == "chunks":  # the transaction died with the process: nothing of it is stored
        assert chunk_rows == 0
    elif point == "embeddings":  # two slices committed, the rest never computed
        assert cached == 2 * EMBED_SLICE
    else:  # two batches in Qdrant, the indexed head not recorded
        with ledger.qdrant.open() as client:
            assert client.count(ledger.qdrant.collection).count == 2 * UPSERT_BATCH
        assert not (home / "heads" / "crashy.txt").exists()

    run_stages(ledger, "crashy", "rerun")
    after = state(ledger, "crashy")
    assert after["chunks"] == clean["chunks"]
    assert after["files"] == clean["files"]
    assert after["embeddings"] == clean["embeddings"]
    assert set(after["points"]) == set(clean["points"])
    for pid, (payload, code, design) in clean["points"].items():
        got = after["points"][pid]
        diff = {k: (got[0].get(k), v) for k, v in payload.items() if got[0].get(k) != v}
        diff.update({k: (v, None) for k, v in got[0].items() if k not in payload})
        assert not diff, (pid, diff)
        assert (got[1], got[2]) == (code, design), pid
    assert (home / "heads" / "crashy.txt").read_text() == source_repo.head()
