"""The Qdrant side: one collection of chunk points, local mode or server, same code.

Local mode (`QdrantClient(path=…)`) allows one client per folder across all
processes, so a client is held only for the duration of one read or write and
a busy folder is waited for, not failed on. `QDRANT_URL` swaps in a server
client; nothing else changes.
"""

from __future__ import annotations

import functools
import hashlib
import random
import re
import sqlite3
import time
import uuid
from contextlib import contextmanager
from typing import Iterable, Iterator

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
# Points per scroll page (QdrantStore.scroll). A server filters by its indexes; local mode filters every
# point in Python on each page, so its pages are large (a page's records: a few MB with a few fields).
SERVER_SCROLL_PAGE = 1024
LOCAL_SCROLL_PAGE = 16384


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


# The client calls that write points. In local mode, qdrant-client commits (and fsyncs) its
# SQLite file once per point: 20 ms a point on a busy disk, most of a first ingest's time at
# 10,000 files (benchmarks/many_files.md). `one_commit_per_write` makes each call one commit.
WRITE_CALLS = ("upsert", "upload_points", "upload_collection", "batch_update_points", "delete", "set_payload",
               "overwrite_payload", "delete_payload", "clear_payload", "update_vectors", "delete_vectors")


class _DeferredCommit:
    """A local collection's SQLite connection whose `with` block does not commit: the write
    call around it commits once, at its end (see one_commit_per_write)."""

    def __init__(self, con: sqlite3.Connection):
        self._con = con

    def __enter__(self) -> sqlite3.Connection:
        return self._con

    def __exit__(self, *exc) -> bool:
        return False

    def __getattr__(self, name: str):
        return getattr(self._con, name)


def one_commit_per_write(client: QdrantClient) -> bool:
    """Make every write call of a local-mode client one SQLite transaction, committed when the call
    returns (or fails: what it had written stays, as with a commit per point), instead of one per
    point. What is durable when a call returns does not change. False where the client is not the
    local one this knows (server mode, another qdrant-client): then nothing changes. The local client
    under the facade is the one wrapped, so the commit is done when the facade's call returns."""
    local = getattr(client, "_client", None)
    collections = getattr(local, "collections", None)
    if not isinstance(collections, dict):
        return False

    def committing(method):
        @functools.wraps(method)
        def call(*args, **kwargs):
            held = []
            for coll in list(collections.values()):
                storage = getattr(coll, "storage", None)
                con = getattr(storage, "storage", None)
                if isinstance(con, sqlite3.Connection):
                    storage.storage = _DeferredCommit(con)
                    held.append((storage, con))
            try:
                return method(*args, **kwargs)
            finally:
                for storage, con in held:
                    storage.storage = con
                    con.commit()
        return call

    for name in WRITE_CALLS:
        method = getattr(local, name, None)
        if method is not None:
            setattr(local, name, committing(method))
    return True


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
        if not s.qdrant_url:
            one_commit_per_write(client)
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
        # Local mode evaluates the filter over every point of the collection on each page: 1,024-point
        # pages made a scroll of 10,000 points 10 passes over all of them (40 s of a one-file change).
        limit = SERVER_SCROLL_PAGE if self.mode == "server" else LOCAL_SCROLL_PAGE
        while True:
            points, offset = client.scroll(self.collection, scroll_filter=flt, limit=limit, offset=offset,
                                           with_payload=fields, with_vectors=with_vectors)
            yield from points
            if offset is None:
                return


# ---- filters: what a read asks of the points' payloads --------------------------
class FilterError(ValueError):
    """A payload condition (`--where`) that cannot be read."""


_WHERE = re.compile(r"^\s*([A-Za-z_]\w*)\s*(<=|>=|<|>|=)\s*(\S.*?)\s*$")
_RANGE_OPS = {"<=": "lte", ">=": "gte", "<": "lt", ">": "gt"}


def repo_filter(repo_id: str, latest_only: bool = False) -> models.Filter:
    must: list = [models.FieldCondition(key="repo_id", match=models.MatchValue(value=repo_id))]
    if latest_only:
        must.append(models.FieldCondition(key="is_latest", match=models.MatchValue(value=True)))
    return models.Filter(must=must)


def slot_filter(repo_id: str, file_path: str, chunk_index: int) -> models.Filter:
    """The latest point of one chunk slot, whatever its id."""
    return models.Filter(must=[
        models.FieldCondition(key="repo_id", match=models.MatchValue(value=repo_id)),
        models.FieldCondition(key="file_path", match=models.MatchValue(value=file_path)),
        models.FieldCondition(key="chunk_index", match=models.MatchValue(value=chunk_index)),
        models.FieldCondition(key="is_latest", match=models.MatchValue(value=True)),
    ])


def where_field(expr: str) -> str:
    """The payload field a `--where` condition reads (the condition already parsed by `where_condition`)."""
    return _WHERE.match(expr).group(1)


def where_condition(expr: str) -> models.FieldCondition:
    """`q_testability<=2`, `q_cyclomatic>10`, `layer=domain` as a condition on the point payload."""
    m = _WHERE.match(expr or "")
    if not m:
        raise FilterError(f"--where {expr!r}: write FIELD<=N, FIELD>=N, FIELD<N, FIELD>N or FIELD=VALUE")
    key, op, raw = m.groups()
    try:
        number = float(raw)
    except ValueError:
        number = None
    if op in _RANGE_OPS:
        if number is None:
            raise FilterError(f"--where {expr!r}: {op} needs a number")
        return models.FieldCondition(key=key, range=models.Range(**{_RANGE_OPS[op]: number}))
    value: object = raw
    if number is not None:
        value = int(number) if number.is_integer() else raw
    return models.FieldCondition(key=key, match=models.MatchValue(value=value))


def latest_filter(repo: str | None, chunk_types: Iterable[str] = (), languages: Iterable[str] = (),
                  file_paths: Iterable[str] | None = None, where: Iterable[str] = (),
                  include_deprecated: bool = True) -> models.Filter:
    """What a query reads: the latest points, of one repo or all, narrowed by its filters."""
    must: list = [models.FieldCondition(key="is_latest", match=models.MatchValue(value=True))]
    if not include_deprecated:  # `ledger deprecate`: a marked point carries the payload field `deprecated`
        must.append(models.IsEmptyCondition(is_empty=models.PayloadField(key="deprecated")))
    if repo:
        must.append(models.FieldCondition(key="repo_id", match=models.MatchValue(value=repo)))
    chunk_types, languages = list(chunk_types or ()), list(languages or ())
    if chunk_types:
        must.append(models.FieldCondition(key="chunk_type", match=models.MatchAny(any=chunk_types)))
    if languages:
        must.append(models.FieldCondition(key="language", match=models.MatchAny(any=languages)))
    if file_paths is not None:
        must.append(models.FieldCondition(key="file_path", match=models.MatchAny(any=list(file_paths))))
    must += [where_condition(expr) for expr in where or ()]
    return models.Filter(must=must)


def matches_filter(payload: dict, flt: models.Filter) -> bool:
    """`latest_filter`'s conditions (MatchValue / MatchAny on keyword fields, ranges, IsEmpty) checked on one payload."""
    for cond in flt.must or ():
        if isinstance(cond, models.IsEmptyCondition):
            if payload.get(cond.is_empty.key) not in (None, []):
                return False
            continue
        value = payload.get(cond.key)
        match = cond.match
        if isinstance(match, models.MatchValue):
            if value != match.value:
                return False
        elif isinstance(match, models.MatchAny):
            if value not in match.any:
                return False
        elif match is None and cond.range is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return False  # no such number on this point: it does not pass
            r = cond.range
            if (r.lt is not None and not value < r.lt) or (r.lte is not None and not value <= r.lte) or \
                    (r.gt is not None and not value > r.gt) or (r.gte is not None and not value >= r.gte):
                return False
        else:  # a condition this check does not know: let Qdrant decide
            raise ValueError(f"unsupported condition {cond!r}")
    return True
