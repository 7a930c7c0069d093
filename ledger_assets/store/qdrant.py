"""The Qdrant side: one collection of chunk points, local mode or server, same code.

Local mode (`QdrantClient(path=…)`) allows one client per folder across all
processes, so a client is held only for the duration of one read or write and
a busy folder is waited for, not failed on. `QDRANT_URL` swaps in a server
client; nothing else changes.
"""

from __future__ import annotations

import hashlib
import random
import time
import uuid
from contextlib import contextmanager
from typing import Iterator

from qdrant_client import QdrantClient, models

from ledger_assets.store.settings import EMBED_DIM, QUALITY_DIM, LedgerSettings

CODE_VECTOR = "code_vector"
DESIGN_VECTOR = "design_vector"
QUALITY_VECTOR = "quality_vector"
SPARSE_VECTOR = "lexical"
# One vector per symbol a chunk owns (ingest/symbol_texts.py), scored by its best match.
SYMBOL_VECTOR = "symbol_vector"
DENSE_SIZES = {CODE_VECTOR: EMBED_DIM, DESIGN_VECTOR: EMBED_DIM, QUALITY_VECTOR: QUALITY_DIM}
KEYWORD_INDEXES = ("repo_id", "file_path", "chunk_type", "language", "ledger_id", "concept_id")


def named_vectors(client: QdrantClient, collection: str,
                  params: models.CollectionParams | None = None) -> dict[str, models.VectorParams]:
    """The collection's named dense (and multi-) vectors and their parameters (`params`: its
    config, when the caller has read it already)."""
    vectors = (params or client.get_collection(collection).config.params).vectors
    return vectors if isinstance(vectors, dict) else {}


class CollectionMismatch(RuntimeError):
    """The existing collection's vectors do not match what the ledger writes."""


class QdrantBusy(RuntimeError):
    """The local Qdrant folder stayed held by another process past the timeout."""


def point_id(repo_id: str, file_path: str, chunk_index: int, ticks: int | None = None) -> str:
    key = f"{repo_id}|{file_path}|{chunk_index}" + (f"|{ticks}" if ticks is not None else "")
    return str(uuid.UUID(hashlib.md5(key.encode("utf-8")).hexdigest()))


def slot_ids(repo_id: str, file_path: str, chunk_index: int) -> tuple[str, str]:
    """A chunk slot's two deterministic point ids (versioning off). A run stages a new version at
    the one the live point does not hold, so staging never changes what queries see (ingest/promotion.py)."""
    return point_id(repo_id, file_path, chunk_index), point_id(repo_id, file_path, chunk_index, ticks=-1)


class QdrantStore:
    def __init__(self, settings: LedgerSettings):
        self.settings = settings
        self.collection = settings.collection

    @property
    def mode(self) -> str:
        return "server" if self.settings.qdrant_url else "local"

    @contextmanager
    def open(self) -> Iterator[QdrantClient]:
        s = self.settings
        if s.qdrant_url:
            client = QdrantClient(url=s.qdrant_url, api_key=s.qdrant_api_key or None, timeout=60)
        else:
            s.qdrant_path.mkdir(parents=True, exist_ok=True)
            deadline = time.monotonic() + s.lock_timeout_s
            delay = 0.05
            while True:
                try:
                    client = QdrantClient(path=str(s.qdrant_path))
                    break
                except RuntimeError as exc:
                    if "already accessed" not in str(exc):
                        raise
                    if time.monotonic() >= deadline:
                        raise QdrantBusy(f"{s.qdrant_path} stayed in use by another process for "
                                         f"{s.lock_timeout_s:.0f}s") from exc
                    time.sleep(delay * (1 + random.random()))
                    delay = min(delay * 2, 1.0)
        try:
            yield client
        finally:
            client.close()

    # ---- collection ---------------------------------------------------------
    def ensure_collection(self, client: QdrantClient) -> bool:
        """Create the collection when missing, validate it when present. True if created."""
        if client.collection_exists(self.collection):
            self.validate(client)
            return False
        vectors = {name: models.VectorParams(size=size, distance=models.Distance.COSINE)
                   for name, size in DENSE_SIZES.items()}
        vectors[SYMBOL_VECTOR] = models.VectorParams(
            size=EMBED_DIM, distance=models.Distance.COSINE,
            multivector_config=models.MultiVectorConfig(comparator=models.MultiVectorComparator.MAX_SIM))
        client.create_collection(
            self.collection,
            vectors_config=vectors,
            sparse_vectors_config={SPARSE_VECTOR: models.SparseVectorParams(modifier=models.Modifier.IDF)},
        )
        if self.mode == "server":
            for field in KEYWORD_INDEXES:
                client.create_payload_index(self.collection, field, models.PayloadSchemaType.KEYWORD)
            client.create_payload_index(self.collection, "is_latest", models.PayloadSchemaType.BOOL)
        return True

    def validate(self, client: QdrantClient) -> None:
        params = client.get_collection(self.collection).config.params
        vectors = named_vectors(client, self.collection, params)
        problems = []
        for name, size in DENSE_SIZES.items():
            got = vectors.get(name)
            if got is None:
                problems.append(f"missing dense vector {name!r}")
            elif got.size != size or got.distance != models.Distance.COSINE:
                problems.append(f"{name!r} is {got.size}-d {got.distance}, expected {size}-d Cosine")
        if SPARSE_VECTOR not in (params.sparse_vectors or {}):
            problems.append(f"missing sparse vector {SPARSE_VECTOR!r}")
        sym = vectors.get(SYMBOL_VECTOR)
        if sym is not None and (sym.size != EMBED_DIM or sym.multivector_config is None):
            problems.append(f"{SYMBOL_VECTOR!r} is not a {EMBED_DIM}-d multivector")
        if problems:
            raise CollectionMismatch(
                f"Qdrant collection {self.collection!r} does not match the ledger's schema: "
                + "; ".join(problems)
                + ". Nothing was written. Point LEDGER_COLLECTION at a new name or delete that collection."
            )

    def has_symbol_lane(self, client: QdrantClient) -> bool:
        """Collections made before the symbol lane lack its vector (Qdrant cannot add a named
        vector to an existing collection): their points are written without it and the lane
        answers nothing; a new collection name (LEDGER_COLLECTION) enables it."""
        return SYMBOL_VECTOR in named_vectors(client, self.collection)

    # ---- reads --------------------------------------------------------------
    def scroll(self, client: QdrantClient, flt: models.Filter, fields: list[str] | bool = True,
               with_vectors: bool | list[str] = False) -> Iterator[models.Record]:
        offset = None
        while True:
            points, offset = client.scroll(self.collection, scroll_filter=flt, limit=1024, offset=offset,
                                           with_payload=fields, with_vectors=with_vectors)
            yield from points
            if offset is None:
                return


def repo_filter(repo_id: str, latest_only: bool = False) -> models.Filter:
    must: list = [models.FieldCondition(key="repo_id", match=models.MatchValue(value=repo_id))]
    if latest_only:
        must.append(models.FieldCondition(key="is_latest", match=models.MatchValue(value=True)))
    return models.Filter(must=must)
