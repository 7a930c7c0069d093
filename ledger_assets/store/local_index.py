"""An in-process lane index over a Qdrant local-mode collection, for processes that query many times.

collection (scrolled once) -> normalized float32 matrices for the dense lanes,
a CSC matrix + document frequencies for the sparse lane, categorical columns for
the filter fields -> each lane query is one matrix product + argpartition.

Why: qdrant-client's local mode scores a sparse query point by point in Python
(about 1.1 s per query at 50,000 points) and evaluates payload filters point by
point too; a long-running process (MCP server, `ledger query --batch`, the eval)
pays that on every query. The index answers the same queries exactly as
Qdrant's local mode does (same cosine scores; the sparse lane is
Σ q·idf·d with idf = ln(1 + (N - df + 0.5) / (df + 0.5)) over the live points
that carry the sparse vector, as `Modifier.IDF`), so the fused ranking does
not change; a fresh index needs no Qdrant client at all, so such a process no
longer holds, or waits for, the one-client-per-folder lock between writes.

Freshness: every write to a local-mode collection commits to its
`storage.sqlite` (rollback journal), which bumps the SQLite header's file change
counter. The marker (inode, size, mtime, change counter) is read per query (one
stat + a 100-byte read, ~20 µs) and the index is rebuilt when it moved. Where
the storage file is not where qdrant-client 1.x keeps it, there is no marker,
no index, and search falls back to Qdrant's own queries. A write that changes
what queries see (promotion, deprecate, purge) leaves a *served* copy instead
(see `build_served`): readers answer from it until the next such write, opening
no client. Server mode (QDRANT_URL) never uses this.
"""

from __future__ import annotations

import functools
import json
import math
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from qdrant_client import models
from scipy import sparse as sp

from ledger_assets.store.db import LedgerDB
from ledger_assets.store.qdrant import CODE_VECTOR, DESIGN_VECTOR, SPARSE_VECTOR, SYMBOL_VECTOR, QdrantStore, named_vectors, point_id

DENSE_LANES = (CODE_VECTOR, DESIGN_VECTOR)
# Payload fields the search filters use (qdrant.latest_filter: `deprecated` by IsEmpty, `concept_id` for
# `ledger similar --mode concept`); a filter on anything else falls back to Qdrant.
FILTER_FIELDS = ("repo_id", "is_latest", "chunk_type", "language", "file_path", "deprecated", "concept_id")
_SCROLL_PAGE = 2048


@dataclass
class IndexedPoint:
    """What a lane returns: the shape fuse() reads from Qdrant's ScoredPoint."""

    id: str
    score: float
    payload: dict[str, Any]


def storage_marker(store: QdrantStore) -> tuple | None:
    """A value that changes with every committed write to the collection; None when unknown."""
    if store.mode != "local":
        return None
    path = store.settings.qdrant_path / "collection" / store.collection / "storage.sqlite"
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            header = fh.read(100)
    except OSError:
        return None
    if len(header) < 28 or not header.startswith(b"SQLite format 3\x00"):
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, int.from_bytes(header[24:28], "big"))


class UnsupportedFilter(ValueError):
    """A filter the index does not evaluate; the caller asks Qdrant instead."""


class _Column:
    """One filter field as integer codes; a value's type is part of its identity (True is not 1).
    `empty`: where the field is absent, null or [] (Qdrant's IsEmpty)."""

    def __init__(self, values: list):
        self.vocab: dict[tuple, int] = {}
        codes = np.full(len(values), -1, dtype=np.int32)
        self.empty = np.zeros(len(values), dtype=bool)
        self.irregular = False
        for i, v in enumerate(values):
            if v is None or (isinstance(v, list) and not v):
                self.empty[i] = True
                continue
            if isinstance(v, (list, dict)):
                self.irregular = True  # Qdrant matches any element of an array: not modelled here
                continue
            codes[i] = self.vocab.setdefault((type(v), v), len(self.vocab))
        self.codes = codes

    def match(self, wanted: list) -> np.ndarray:
        if self.irregular:
            raise UnsupportedFilter("array-valued payload field")
        want = [self.vocab[(type(v), v)] for v in wanted if (type(v), v) in self.vocab]
        if not want:
            return np.zeros(len(self.codes), dtype=bool)
        if len(want) == 1:
            return self.codes == want[0]
        return np.isin(self.codes, np.asarray(want, dtype=np.int32))


class LocalIndex:
    def __init__(self, marker: tuple, ids: list[str], payloads: list[dict], dense: dict[str, tuple[np.ndarray, np.ndarray]],
                 sparse_rows: list[tuple[list[int], list[float]] | None],
                 multi: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None):
        self.marker = marker
        self.folder: str | None = None  # the served copy it was loaded from (see `current`)
        self.ids = ids
        self.payloads = payloads
        self.position = {pid: i for i, pid in enumerate(ids)}
        self.columns = {f: _Column([p.get(f) for p in payloads]) for f in FILTER_FIELDS}
        self.dense = dense  # lane -> (n x d normalized float32, has-vector mask)
        # multivector lane -> (m x d normalized float32 of all points' vectors, owning point of each
        # row, first row of each owner)
        self.multi = multi or {}
        self._latest: dict[tuple, int] = {}
        for i, p in enumerate(payloads):
            if p.get("is_latest", True):
                self._latest.setdefault((p.get("repo_id"), p.get("file_path"), p.get("chunk_index")), i)
        if sparse_rows is not None:
            self._build_sparse(sparse_rows)

    def unknown_fields(self, keys, optional=frozenset()) -> list[str]:
        """The payload fields among `keys` that no point carries and that are not `optional` (fields some
        points lack by design, such as the LLM's scores): a `--where` typo, not a filter."""
        if not hasattr(self, "_fields"):
            self._fields = {k for p in self.payloads for k in p}
        return sorted(k for k in keys if k not in self._fields and k not in optional)

    def _set_sparse(self, matrix: sp.csc_matrix, has_sparse: np.ndarray, vocab_tokens: np.ndarray) -> None:
        self.sparse, self.has_sparse, self.vocab_tokens = matrix, has_sparse, vocab_tokens
        self.token_col = {int(t): i for i, t in enumerate(self.vocab_tokens)}
        self.df = np.diff(self.sparse.indptr)
        self.sparse_docs = int(self.has_sparse.sum())

    def __len__(self) -> int:
        return len(self.ids)

    def _build_sparse(self, rows: list[tuple[list[int], list[float]] | None]) -> None:
        n = len(rows)
        self.has_sparse = np.array([r is not None for r in rows], dtype=bool)
        lengths = np.fromiter((len(r[0]) if r else 0 for r in rows), dtype=np.int64, count=n)
        tokens = np.fromiter((t for r in rows if r for t in r[0]), dtype=np.int64, count=int(lengths.sum()))
        values = np.fromiter((v for r in rows if r for v in r[1]), dtype=np.float64, count=int(lengths.sum()))
        row_of = np.repeat(np.arange(n, dtype=np.int64), lengths)
        vocab_tokens, cols = np.unique(tokens, return_inverse=True)
        # CSC: a query touches a handful of token columns, so column slicing is the hot path.
        matrix = sp.csc_matrix((values, (row_of, cols)), shape=(n, len(vocab_tokens)))
        matrix.sort_indices()
        self._set_sparse(matrix, self.has_sparse, vocab_tokens)

    # ---- filters -------------------------------------------------------------
    def mask(self, flt: models.Filter | None) -> np.ndarray:
        """`flt` as a boolean mask; raises UnsupportedFilter for anything but must-MatchValue/MatchAny/IsEmpty."""
        out = np.ones(len(self.ids), dtype=bool)
        if flt is None:
            return out
        if flt.should or flt.must_not or getattr(flt, "min_should", None):
            raise UnsupportedFilter("only `must` conditions are indexed")
        must = flt.must if isinstance(flt.must, list) else ([flt.must] if flt.must else [])
        for cond in must:
            if isinstance(cond, models.IsEmptyCondition) and cond.is_empty.key in self.columns:
                out &= self.columns[cond.is_empty.key].empty
                continue
            if not isinstance(cond, models.FieldCondition) or cond.key not in self.columns:
                raise UnsupportedFilter(f"condition {cond!r}")
            if isinstance(cond.match, models.MatchValue):
                out &= self.columns[cond.key].match([cond.match.value])
            elif isinstance(cond.match, models.MatchAny):
                out &= self.columns[cond.key].match(list(cond.match.any))
            else:
                raise UnsupportedFilter(f"condition {cond!r}")
        return out

    # ---- lanes ---------------------------------------------------------------
    def dense_query(self, using: str, vector, mask: np.ndarray, limit: int) -> list[IndexedPoint]:
        matrix, has = self.dense[using]
        q = np.asarray(vector, dtype=np.float32)
        norm = np.linalg.norm(q)
        if norm > 0:
            q = q / norm
        scores = matrix @ q
        return self._top(scores, mask & has, limit)

    def multi_query(self, using: str, vector, mask: np.ndarray, limit: int) -> list[IndexedPoint]:
        """MaxSim of one query vector: a point scores its best vector (Qdrant's MAX_SIM)."""
        if using not in self.multi:
            return []
        matrix, owner, starts = self.multi[using]
        # float32 like the dense lanes (Qdrant's MaxSim works in float64: scores agree to ~1e-7,
        # and a float64 product would convert the whole matrix on every query).
        q = np.asarray(vector, dtype=np.float32)
        norm = np.linalg.norm(q)
        if norm > 0:
            q = q / norm
        best = np.full(len(self.ids), -np.inf, dtype=np.float64)
        if len(owner):
            # Rows are grouped by point (owner non-decreasing): one reduceat, not a scatter per row.
            best[owner[starts]] = np.maximum.reduceat(matrix @ q, starts)
        return self._top(best, mask & np.isfinite(best), limit)

    def sparse_query(self, indices: list[int], values: list[float], mask: np.ndarray, limit: int) -> list[IndexedPoint]:
        cols, weights = [], []
        for idx, value in zip(indices, values):
            col = self.token_col.get(int(idx))
            if col is None:
                continue  # no document has the token: it adds nothing to any score
            df = int(self.df[col])
            cols.append(col)
            weights.append(value * math.log((self.sparse_docs - df + 0.5) / (df + 0.5) + 1))
        if not cols:
            return []
        sub = self.sparse[:, cols]
        scores = sub @ np.asarray(weights, dtype=np.float64)
        # Qdrant scores only the points sharing at least one token with the query.
        touched = np.zeros(len(self.ids), dtype=bool)
        touched[sub.indices] = True
        return self._top(scores, mask & touched & self.has_sparse, limit)

    def _top(self, scores: np.ndarray, keep: np.ndarray, limit: int) -> list[IndexedPoint]:
        candidates = np.flatnonzero(keep)
        if candidates.size == 0:
            return []
        sel = scores[candidates]
        if candidates.size > limit:
            part = np.argpartition(-sel, limit - 1)[:limit]
            candidates, sel = candidates[part], sel[part]
        order = np.lexsort((candidates, -sel))
        return [IndexedPoint(self.ids[i], float(sel[j]), dict(self.payloads[i]))
                for j, i in ((j, int(candidates[j])) for j in order)]

    # ---- lookups -------------------------------------------------------------
    def latest_payload(self, repo_id: str, file_path: str, chunk_index: int) -> dict | None:
        """The latest point of one chunk, as retrieval/search.py fetch_chunk_payload answers it."""
        i = self.position.get(point_id(repo_id, file_path, chunk_index))
        if i is not None and self.payloads[i].get("is_latest", True):
            return dict(self.payloads[i])
        i = self._latest.get((repo_id, file_path, chunk_index))
        if i is None or self.payloads[i].get("is_latest") is not True:
            return None
        return dict(self.payloads[i])


Snapshot = tuple[list[str], list[dict], dict[str, tuple[np.ndarray, np.ndarray]], list,
                 dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]]


def build(store: QdrantStore, client, from_memory: bool = True) -> LocalIndex | None:
    """Read the whole collection once through `client` (which holds the folder, so no write can
    interleave) into a LocalIndex; None when there is no marker or no collection."""
    marker = storage_marker(store)
    if marker is None or not client.collection_exists(store.collection):
        return None
    snap = _from_memory(client, store.collection) if from_memory else None
    return LocalIndex(marker, *(snap or _from_scroll(client, store.collection)))


def _from_memory(client, collection: str) -> Snapshot | None:
    """The local client's own arrays, copied: about 1 s at 50,000 points where the public scroll,
    which deep-copies and validates every point, takes about 20 s. None when the client's
    internals are not the ones this reads (another qdrant-client version): then scroll."""
    coll = getattr(getattr(client, "_client", None), "collections", {}).get(collection)
    try:
        n = len(coll.payload)
        vectors, sparse_vectors, per_vector = coll.vectors, coll.sparse_vectors, coll.deleted_per_vector
        live = np.flatnonzero(~np.asarray(coll.deleted[:n], dtype=bool))
        ids = [str(coll.ids_inv[i]) for i in live]
        payloads = [dict(coll.payload[i]) for i in live]
        dense = {}
        for name in DENSE_LANES:
            matrix = np.asarray(vectors[name][:n][live], dtype=np.float32)
            has = ~np.asarray(per_vector[name][:n][live], dtype=bool)
            dense[name] = (_normalized(matrix), has)
        svs, gone = sparse_vectors[SPARSE_VECTOR], per_vector[SPARSE_VECTOR]
        sparse_rows = [None if gone[i] else (svs[i].indices, svs[i].values) for i in live]
        multi = {}
        if SYMBOL_VECTOR in getattr(coll, "multivectors", {}):
            mvs, gone = coll.multivectors[SYMBOL_VECTOR], per_vector[SYMBOL_VECTOR]
            multi[SYMBOL_VECTOR] = _stacked([None if gone[i] else mvs[i] for i in live])
    except (AttributeError, KeyError, TypeError, IndexError, ValueError):
        return None
    return ids, payloads, dense, sparse_rows, multi


def _from_scroll(client, collection: str) -> Snapshot:
    ids: list[str] = []
    payloads: list[dict] = []
    dense_rows: dict[str, list] = {name: [] for name in DENSE_LANES}
    sparse_rows: list = []
    has_multi = SYMBOL_VECTOR in named_vectors(client, collection)
    multi_rows: list = []
    offset = None
    while True:
        points, offset = client.scroll(collection, limit=_SCROLL_PAGE, offset=offset, with_payload=True,
                                       with_vectors=[*DENSE_LANES, SPARSE_VECTOR, *([SYMBOL_VECTOR] if has_multi else [])])
        for p in points:
            vec = p.vector if isinstance(p.vector, dict) else {}
            ids.append(str(p.id))
            payloads.append(p.payload or {})
            for name in DENSE_LANES:
                dense_rows[name].append(vec.get(name))
            sv = vec.get(SPARSE_VECTOR)
            sparse_rows.append((sv.indices, sv.values) if sv is not None else None)
            multi_rows.append(vec.get(SYMBOL_VECTOR))
        if offset is None:
            break
    dense = {}
    for name, rows in dense_rows.items():
        dim = next((len(r) for r in rows if r is not None), 1)
        has = np.array([r is not None for r in rows], dtype=bool)
        matrix = np.zeros((len(rows), dim), dtype=np.float32)
        if has.any():
            matrix[has] = np.asarray([r for r in rows if r is not None], dtype=np.float32)
        dense[name] = (_normalized(matrix), has)
    return ids, payloads, dense, sparse_rows, ({SYMBOL_VECTOR: _stacked(multi_rows)} if has_multi else {})


def _stacked(rows: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-point multivectors (None where a point has none) -> (all rows normalized, owner of each
    row, where each owner's rows start)."""
    parts = [np.asarray(r, dtype=np.float32).reshape(len(r), -1) for r in rows if r is not None and len(r)]
    owner = np.fromiter((i for i, r in enumerate(rows) if r is not None for _ in range(len(r))), dtype=np.int64)
    if not parts:
        return np.zeros((0, 1), dtype=np.float32), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    return _normalized(np.concatenate(parts)), owner, starts


def _normalized(matrix: np.ndarray) -> np.ndarray:
    # Qdrant keeps cosine vectors normalized at upsert; normalizing again keeps that true for any writer.
    matrix = np.array(matrix, dtype=np.float32, copy=True)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return matrix


_cache: dict[tuple[str, str], LocalIndex] = {}
_lock = threading.Lock()


def _key(store: QdrantStore) -> tuple[str, str]:
    return (str(store.settings.qdrant_path), store.collection)


def current(store: QdrantStore) -> LocalIndex | None:
    """The index queries answer from, without opening a client. With a served copy (`build_served`,
    named by the pointer promotion records in DuckDB): that copy, whatever a run stages meanwhile.
    Without one (a home from before them): this process's copy or the saved one (`save`), when built
    at the storage marker on disk."""
    pointer = served_pointer(store)
    if pointer:
        idx = _cache.get(_key(store))
        if idx is not None and idx.folder == pointer:
            return idx
        with _lock:
            idx = _load(store.settings.home_path / "index" / pointer)
            if idx is not None:
                idx.folder = pointer
                _cache[_key(store)] = idx
                return idx
        # the copy is gone (a cleaned home): the collection on disk, as without one
    marker = storage_marker(store)
    if marker is None:
        return None
    idx = _cache.get(_key(store))
    if idx is not None and idx.folder is None and idx.marker == marker:
        return idx
    with _lock:
        idx = load(store, marker)
        if idx is not None:
            _cache[_key(store)] = idx
        return idx


# ---- the served copy ------------------------------------------------------------
# A write that changes what queries see (promotion, `ledger deprecate`, a purge) builds the index it
# leaves through the writer's own client and saves it in a new folder, index/<collection>@<n>; the
# DuckDB transaction that publishes the served rows records that folder as the pointer (meta table).
# Rows and vectors switch together at that commit: a crash before it leaves readers on the previous
# pair. Readers never open the Qdrant folder, so they never wait for a writer's lock.
SERVED_POINTER = "served_index/{collection}"
KEEP_SERVED = 2  # the current copy and the one before it (a reader may be loading it)


def _db(store: QdrantStore) -> LedgerDB:
    key = str(store.settings.duckdb_path)
    if key not in _dbs:
        _dbs[key] = LedgerDB(store.settings.duckdb_path, store.settings.lock_timeout_s)
    return _dbs[key]


def served_pointer(store: QdrantStore) -> str | None:
    if store.mode != "local":
        return None
    with _db(store).connect() as con:
        row = con.execute("SELECT value FROM meta WHERE key = ?",
                          [SERVED_POINTER.format(collection=store.collection)]).fetchone()
    return row[0] if row else None


def set_served_pointer(con, store: QdrantStore, folder: str) -> None:
    """Inside the caller's DuckDB transaction: queries answer from `folder` once it commits."""
    con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [SERVED_POINTER.format(collection=store.collection), folder])


def build_served(store: QdrantStore, client) -> str | None:
    """Build the index through the writer's client and save it in a new folder (not yet served); its
    name, or None in server mode or when it could not be built or saved."""
    if store.mode != "local":
        return None
    idx = build(store, client)
    if idx is None:
        return None
    folder = f"{store.collection}@{time.time_ns()}"
    if not _write(idx, store.settings.home_path / "index" / folder):
        return None
    return folder


def prune_served(store: QdrantStore, keep: str | None) -> None:
    """Remove served copies older than the KEEP_SERVED newest (never `keep`, the one served now)."""
    root = store.settings.home_path / "index"
    copies = sorted(root.glob(f"{store.collection}@*"), key=lambda p: int(p.name.rpartition("@")[2] or 0))
    for old in copies[:-KEEP_SERVED]:
        if old.name != keep:
            shutil.rmtree(old, ignore_errors=True)


_dbs: dict = {}


# ---- the saved copy -------------------------------------------------------------
# Without a served copy, a one-shot `ledger query` would open the collection (qdrant-client loads
# every point: 15-35 s at 50,000) and rebuild the index each time. The first process to build it
# saves it under LEDGER_HOME/index/<collection>/ with the storage marker it was built at; a later
# process loads it (memory-mapped) when the marker still matches, and rebuilds it when it does not.
_FORMAT = 1


def saved_dir(store: QdrantStore) -> Path:
    return store.settings.home_path / "index" / store.collection


def save(store: QdrantStore, idx: LocalIndex) -> None:
    """Write `idx` beside the collection, atomically (a reader sees the old copy or the new one)."""
    _write(idx, saved_dir(store))


def dump_points(fh, ids: list[str], payloads: list[dict], page: int = 1024) -> None:
    """`json.dump({"ids": ids, "payloads": payloads}, fh, ensure_ascii=False, separators=(",", ":"))`, byte
    for byte, through json's C encoder a page of payloads at a time: json.dump runs the pure-Python
    encoder (7.5 of the 10 s a promotion spent on the served copy at 10,000 points), and one
    json.dumps of everything would hold the whole text in memory."""
    enc = functools.partial(json.dumps, ensure_ascii=False, separators=(",", ":"))
    fh.write('{"ids":' + enc(ids) + ',"payloads":[')
    for i in range(0, len(payloads), page):
        fh.write(("," if i else "") + enc(payloads[i:i + page])[1:-1])
    fh.write("]}")


def _write(idx: LocalIndex, final: Path) -> bool:
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}."))
    try:
        arrays = {"has_sparse": idx.has_sparse, "vocab_tokens": idx.vocab_tokens, "sparse_data": idx.sparse.data,
                  "sparse_indices": idx.sparse.indices, "sparse_indptr": idx.sparse.indptr}
        for lane, (matrix, has) in idx.dense.items():
            arrays[f"dense.{lane}"], arrays[f"has.{lane}"] = matrix, has
        for lane, (matrix, owner, starts) in idx.multi.items():
            arrays[f"multi.{lane}"], arrays[f"owner.{lane}"], arrays[f"starts.{lane}"] = matrix, owner, starts
        for name, array in arrays.items():
            np.save(tmp / f"{name}.npy", np.ascontiguousarray(array), allow_pickle=False)
        with open(tmp / "points.json", "w", encoding="utf-8") as fh:
            dump_points(fh, idx.ids, idx.payloads)
        meta = {"format": _FORMAT, "marker": list(idx.marker), "shape": list(idx.sparse.shape),
                "dense": sorted(idx.dense), "multi": sorted(idx.multi)}
        (tmp / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        old = final.with_name(f".{final.name}.old.{os.getpid()}")
        if final.exists():
            os.replace(final, old)
        os.replace(tmp, final)
        shutil.rmtree(old, ignore_errors=True)
        return True
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)  # a read-only or full disk: the next process rebuilds
        return False


def load(store: QdrantStore, marker: tuple) -> LocalIndex | None:
    """The saved copy when it was built at `marker`; None when missing, stale or unreadable."""
    idx = _load(saved_dir(store))
    return idx if idx is not None and idx.marker == tuple(marker) else None


def _load(folder: Path) -> LocalIndex | None:
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        if meta.get("format") != _FORMAT:
            return None

        def arr(name: str) -> np.ndarray:
            return np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False)

        with open(folder / "points.json", encoding="utf-8") as fh:
            points = json.load(fh)
        dense = {lane: (arr(f"dense.{lane}"), np.asarray(arr(f"has.{lane}"))) for lane in meta["dense"]}
        multi = {lane: (arr(f"multi.{lane}"), np.asarray(arr(f"owner.{lane}")), np.asarray(arr(f"starts.{lane}")))
                 for lane in meta["multi"]}
        idx = LocalIndex(tuple(meta["marker"]), points["ids"], points["payloads"], dense, None, multi)
        matrix = sp.csc_matrix((np.asarray(arr("sparse_data")), np.asarray(arr("sparse_indices")),
                                np.asarray(arr("sparse_indptr"))), shape=tuple(meta["shape"]))
        idx._set_sparse(matrix, np.asarray(arr("has_sparse")), np.asarray(arr("vocab_tokens")))
        return idx
    except (OSError, ValueError, KeyError, TypeError):
        return None


def obtain(store: QdrantStore, client) -> LocalIndex | None:
    """A fresh index for `store`, built through `client` when the cached one is stale or missing."""
    idx = current(store)
    if idx is not None or store.mode != "local":
        return idx
    with _lock:
        idx = _cache.get(_key(store))
        if idx is None or idx.folder is not None or idx.marker != storage_marker(store):
            idx = build(store, client)
            if idx is not None:
                _cache[_key(store)] = idx
                save(store, idx)
            else:
                _cache.pop(_key(store), None)
        return idx


def forget(store: QdrantStore | None = None, saved: bool = False) -> None:
    """Drop the cached index (all of them without a store), e.g. to measure a cold start; with
    `saved`, the store's saved copy too (a process that has never seen the collection)."""
    with _lock:
        if store is None:
            _cache.clear()
        else:
            _cache.pop(_key(store), None)
            if saved:
                shutil.rmtree(saved_dir(store), ignore_errors=True)
                for copy in (store.settings.home_path / "index").glob(f"{store.collection}@*"):
                    shutil.rmtree(copy, ignore_errors=True)
                with _db(store).connect() as con:
                    con.execute("DELETE FROM meta WHERE key = ?", [SERVED_POINTER.format(collection=store.collection)])
