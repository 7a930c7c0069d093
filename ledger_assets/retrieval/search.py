"""The read side: hybrid search over the code, design, lexical, symbol and name lanes.

query -> (named symbol? its member first) -> one query per lane -> reciprocal
rank fusion -> `plain` prior -> test prior -> collapse shapes of one symbol -> a private
member yields to its public twin -> (`--rerank llm`: Groq reorders the top, rerank.py) -> staleness
against the live file -> hits.
`--group file` (`search_files`): the lanes read GROUP_DEPTH deep -> the same fusion under
GROUP_LANE_WEIGHTS, without the chunk test prior -> files scored by the decayed sum of their chunks' scores,
times the test prior for a test file and the docs prior for a docs file -> files, each with its best chunks.

Lanes: `code` (the chunk's text), `design` ("[repo/layer] intent"), `sparse`
(identifier-aware BM25, lexical.py) and `symbol` (one sentence per symbol the
chunk owns, a chunk scored by its best one: ingest/symbol_texts.py) are stored vectors;
`name` reranks their candidates by how much of a symbol's name the query spells
out (`name_lane`, computed from the payloads).

Fusion: score = Σ_lane weight_lane / (rrf_k + rank_lane), times `plain_prior` for blind
`plain` windows; equal scores in a lane share a rank. A query that is an identifier (or a
keyword query of at most three words naming one) pins that symbol first; a name inside a
longer sentence is not resolved. A design-lane rank is not counted beside the symbol lane
(a heuristic intent repeats what the symbol lane embeds), nor for a point without intent.
Fusion is fusion.py, the name lane names.py, the post-fusion rules rules.py, the priors priors.py,
`--group file` groups.py; the defaults are in store/settings.py. Why each was chosen, on which
golden sets: docs/decisions.md; the figures: benchmarks/README.md.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterable, Iterator

from qdrant_client import models

from chunkers.paths import is_test_path

from ledger_assets.encode import lexical
from ledger_assets.encode.quality import RUBRIC_FIELDS
from ledger_assets.retrieval import rerank
from ledger_assets.store.ledger import Ledger
from ledger_assets.encode.embedder import Embedder
from ledger_assets.store import local_index
from ledger_assets.store.local_index import LocalIndex
from ledger_assets.store.qdrant import (CODE_VECTOR, DESIGN_VECTOR, SPARSE_VECTOR, SYMBOL_VECTOR, FilterError,
                                        latest_filter, matches_filter, slot_filter, slot_ids, where_condition,
                                        where_field)
from ledger_assets.retrieval.fusion import FUSED_LANES, QueryError, fuse, order_hits, parse_weights
from ledger_assets.retrieval.groups import FileHit, group_files
from ledger_assets.retrieval.names import NAME_LANE, name_lane, named_symbols
from ledger_assets.retrieval.priors import apply_test_prior, asks_about_tests
from ledger_assets.retrieval.rules import collapse_shapes, prefer_specific_names, yield_private_twins
from ledger_assets.retrieval.hits import Hit
from ledger_assets.retrieval.symbols import ToolInputError, symbol_lookup
from ledger_assets.store.settings import (FILE_CHUNKS, FUSE_ALL, LANES, GROUP_DECAY, GROUP_DEPTH, GROUP_DEPTH_PER_K,
                                         GROUP_LANE_WEIGHTS, GROUP_RRF_K, GROUP_TESTS_DECAY, GROUP_TESTS_RRF_K,
                                         LANE_DEPTH, LANE_DEPTH_PER_K, LOCAL_OVERFETCH, MAX_K, MAX_QUERY_CHARS,
                                         SYMBOL_BONUS, SYMBOL_LOOKUP_LIMIT, SYMBOL_PIN_MAX)

GROUPS = ("", "file")


def fetch_chunk_payload(ledger: Ledger, client, repo_id: str, file_path: str, chunk_index: int,
                        with_vectors: list[str] | bool = False):
    """The latest point of one chunk: by its two deterministic ids first (one lookup), else by filter
    (versioned writes give new ids; a filtered scroll is a full scan in local mode)."""
    found = client.retrieve(ledger.qdrant.collection, list(slot_ids(repo_id, file_path, chunk_index)),
                            with_payload=True, with_vectors=with_vectors)
    found = [p for p in found if (p.payload or {}).get("is_latest", True) is True]
    if found:
        return found[0] if with_vectors else found[0].payload
    points, _ = client.scroll(ledger.qdrant.collection, scroll_filter=slot_filter(repo_id, file_path, chunk_index),
                              limit=1, with_payload=True, with_vectors=with_vectors)
    if not points:
        return None
    return points[0] if with_vectors else points[0].payload


def symbol_lane_for_tests(symbol: list, code: list, depth: int) -> list:
    """The symbol lane for a question about tests: a test file's chunk (its symbols get no sentences unless
    `embed_test_symbols` is on) enters at its code lane score, as a sentence quoting its code would. Only such a
    question: for any other, test chunks in this lane crowded the source out of it (docs/decisions.md, issue 30's
    tenth round)."""
    best = {str(p.id): p for p in symbol}
    for p in code:
        key = str(p.id)
        if is_test_path((p.payload or {}).get("file_path", "")) and (key not in best or p.score > best[key].score):
            best[key] = p
    return sorted(best.values(), key=lambda p: -p.score)[:depth]


@dataclass
class SearchOptions:
    repo: str | None = None
    k: int = 10
    lane: str = "hybrid"
    chunk_types: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    path_prefix: str = ""
    check_stale: bool | None = None
    resolve_symbols: bool = True
    group: str = ""  # "file": rank files by the evidence of their chunks (`search_files`)
    where: tuple[str, ...] = ()  # payload conditions: "q_testability<=2", "layer=domain"
    include_deprecated: bool = False  # points marked by `ledger deprecate` are left out unless asked
    rerank: str = ""  # "llm" or "none"; "" = LEDGER_RERANK (retrieval/rerank.py)

    def validate(self) -> None:
        if self.group not in GROUPS:
            raise QueryError(f"unknown group {self.group!r}: use file (or none)")
        if self.lane not in ("hybrid", *LANES):
            raise QueryError(f"unknown lane {self.lane!r}: use hybrid, {', '.join(LANES)}")
        if not 1 <= self.k <= MAX_K:
            raise QueryError(f"--k must be between 1 and {MAX_K}, got {self.k}")
        if self.path_prefix and (self.path_prefix.startswith("/") or ".." in self.path_prefix.split("/")):
            raise QueryError(f"--path {self.path_prefix!r}: give a prefix relative to the repo root")
        for expr in self.where:
            try:
                where_condition(expr)
            except FilterError as exc:
                raise QueryError(str(exc)) from exc


class Searcher:
    """Hybrid search with the model loaded once and, inside `session()`, one Qdrant client held.

    Local mode: the lanes are answered by local_index.LocalIndex, built once per
    process from one read of the collection and rebuilt when the collection's
    storage changes; while it is fresh a query opens no Qdrant client. Qdrant's
    own local-mode query scores the sparse lane point by point in Python (about
    1.1 s at 50,000 points), the index in a few ms. Server mode (QDRANT_URL)
    always asks Qdrant. `session()` still holds one client for the eval and
    batch runs, so a rebuild does not reload the collection from disk.
    """

    def __init__(self, ledger: Ledger, embedder: Embedder, weights: dict[str, float] | str | None = None,
                 rrf_k: int | None = None, plain_prior: float | None = None, use_local_index: bool = True):
        s = ledger.settings
        self.ledger = ledger
        self.use_local_index = use_local_index
        self.embedder = embedder
        self.weights = parse_weights(weights if weights is not None else s.lane_weights)
        self.rrf_k = rrf_k if rrf_k is not None else s.rrf_k
        self.plain_prior = plain_prior if plain_prior is not None else s.plain_prior
        if self.rrf_k < 1:
            raise QueryError(f"rrf k must be >= 1, got {self.rrf_k}")
        self.group_decay, self.group_rrf_k = GROUP_DECAY, GROUP_RRF_K
        self.group_tests_decay, self.group_tests_rrf_k = GROUP_TESTS_DECAY, GROUP_TESTS_RRF_K
        self.group_weights = parse_weights(s.group_lane_weights, GROUP_LANE_WEIGHTS)
        self.group_test_prior = self.chunk_test_prior = s.test_prior
        self.group_docs_prior = s.docs_prior
        self._client = None
        self._symbol_lane: bool | None = None  # does the collection carry the symbol vector?

    @contextmanager
    def session(self) -> Iterator["Searcher"]:
        if self._client is not None:
            yield self
            return
        with self.ledger.qdrant.open() as client:
            self._client = client
            try:
                yield self
            finally:
                self._client = None

    @contextmanager
    def client(self):
        if self._client is not None:
            yield self._client
        else:
            with self.ledger.qdrant.open() as client:
                yield client

    # ---- pieces -------------------------------------------------------------
    def _paths_under(self, prefix: str, repo: str | None) -> list[str]:
        prefix = prefix.removeprefix("./")
        sql = "SELECT DISTINCT file_path FROM served.chunks WHERE starts_with(file_path, ?)"
        params: list = [prefix]
        if repo:
            sql += " AND repo_id = ?"
            params.append(repo)
        with self.ledger.db.connect() as con:
            return [r[0] for r in con.execute(sql, params).fetchall()]

    def local_index(self, client=None) -> LocalIndex | None:
        """Local mode: the in-process lane index, fresh against the collection on disk (built
        through `client`, or a client opened here, when it is stale); None in server mode, or
        when local mode's storage is not where the index can watch it."""
        store = self.ledger.qdrant
        if store.mode != "local" or not self.use_local_index:
            return None
        idx = local_index.current(store)
        if idx is not None or local_index.storage_marker(store) is None:
            return idx
        if client is not None:
            return local_index.obtain(store, client)
        with self.client() as opened:
            return local_index.obtain(store, opened)

    def lane_results(self, client, text: str, lanes: Iterable[str], flt: models.Filter, depth: int,
                     dense: list[float] | None = None, index: LocalIndex | None = None) -> dict[str, list]:
        results: dict[str, list] = {}
        lanes = list(lanes)
        if index is None and client is not None:
            index = self.local_index(client)
        mask = None
        if index is not None:
            try:
                mask = index.mask(flt)
            except local_index.UnsupportedFilter:
                index = None
        if dense is None and {"code", "design", "symbol"} & set(lanes):
            dense = self.embedder.encode([text])[0].tolist()
        for name in lanes:
            if name == NAME_LANE:
                continue  # ranked from the other lanes' candidates below
            if name == "sparse":
                vec = lexical.query_vector(text)
                if not vec.indices:
                    results[name] = []
                    continue
                if index is not None:
                    results[name] = index.sparse_query(vec.indices, vec.values, mask, depth)
                    continue
                query, using = vec, SPARSE_VECTOR
            elif name == "symbol":
                if index is not None:
                    results[name] = index.multi_query(SYMBOL_VECTOR, dense, mask, depth)
                    continue
                query, using = [dense], SYMBOL_VECTOR  # a multivector of one: MaxSim = the best symbol
            else:
                query, using = dense, CODE_VECTOR if name == "code" else DESIGN_VECTOR
                if index is not None:
                    results[name] = index.dense_query(using, query, mask, depth)
                    continue
            if client is None:
                with self.client() as opened:
                    results[name] = self._query(opened, query, using, flt, depth)
            else:
                results[name] = self._query(client, query, using, flt, depth)
        if results.get("code") and "symbol" in results and asks_about_tests(text):
            results["symbol"] = symbol_lane_for_tests(results["symbol"], results["code"], depth)
        if NAME_LANE in lanes:
            results[NAME_LANE] = name_lane(text, results, depth)
        return results

    def _query(self, client, query, using: str, flt: models.Filter, depth: int) -> list:
        if using == SYMBOL_VECTOR and not self._has_symbol_lane(client):
            return []
        return self._query_lane(client, query, using, flt, depth)

    def _has_symbol_lane(self, client) -> bool:
        if self._symbol_lane is None:
            self._symbol_lane = self.ledger.qdrant.has_symbol_lane(client)
        return self._symbol_lane

    def _query_lane(self, client, query, using: str, flt: models.Filter, depth: int) -> list:
        """One lane. Local mode evaluates a filter in Python point by point (about 7 µs a
        point, so 350 ms per lane at 50k points), while the vector scan itself is numpy:
        there, over-fetch unfiltered and filter the few returned payloads; fall back to the
        filtered query only when too few pass."""
        if self.ledger.qdrant.mode == "local":
            wide = depth * LOCAL_OVERFETCH
            points = client.query_points(self.ledger.qdrant.collection, query=query, using=using,
                                         limit=wide, with_payload=True).points
            kept = [p for p in points if matches_filter(p.payload or {}, flt)]
            if len(kept) >= depth or len(points) < wide:
                return kept[:depth]
        return client.query_points(self.ledger.qdrant.collection, query=query, using=using,
                                   query_filter=flt, limit=depth, with_payload=True).points

    def symbol_hits(self, client, text: str, opts: SearchOptions, flt: models.Filter,
                    index: LocalIndex | None = None) -> list[Hit]:
        if index is None and client is not None:
            index = self.local_index(client)
        hits: list[Hit] = []  # a sentence names none (named_symbols)
        for name in named_symbols(text):
            try:
                matches = symbol_lookup(self.ledger, name, opts.repo, limit=SYMBOL_LOOKUP_LIMIT)
            except ToolInputError:
                continue
            pinned = len(matches) <= SYMBOL_PIN_MAX
            for rank, m in enumerate(matches[:SYMBOL_PIN_MAX * 2], 1):
                if index is not None:
                    payload = index.latest_payload(m.repo_id, m.file_path, m.chunk_index)
                elif client is None:
                    with self.client() as opened:
                        payload = fetch_chunk_payload(self.ledger, opened, m.repo_id, m.file_path, m.chunk_index)
                else:
                    payload = fetch_chunk_payload(self.ledger, client, m.repo_id, m.file_path, m.chunk_index)
                if payload is None or not matches_filter(payload, flt):
                    continue  # filtered out (chunk type, language, path) or not yet in Qdrant
                score = (SYMBOL_BONUS if pinned else 0.0) + self.weights.get("sparse", 1.0) / (self.rrf_k + rank)
                hits.append(Hit(0, score, payload, {"named": rank}))
        return hits

    def annotate_staleness(self, hits: list[Hit]) -> None:
        from ledger_assets.retrieval.staleness import LiveFiles, check_freshness

        try:
            repos = self.ledger.registry.load()
        except Exception:  # an unreadable registry makes freshness unknown, not the query fail
            return
        keys = [(h.payload.get("repo_id"), h.payload.get("file_path"), h.payload.get("chunk_index")) for h in hits]
        headers: dict[tuple, str] = {}
        if any(k[0] in repos for k in keys):
            import pyarrow as pa

            with self.ledger.db.connect() as con:
                con.register("_want", pa.table({"repo_id": [k[0] for k in keys], "file_path": [k[1] for k in keys],
                                                "chunk_index": pa.array([k[2] for k in keys], pa.int32())}))
                try:
                    for r, f, i, hdr in con.execute(
                            "SELECT c.repo_id, c.file_path, c.chunk_index, coalesce(c.header, '') FROM served.chunks c "
                            "JOIN _want w USING (repo_id, file_path, chunk_index)").fetchall():
                        headers[(r, f, i)] = hdr
                finally:
                    con.unregister("_want")
        live = LiveFiles()
        for hit, key in zip(hits, keys):
            repo = repos.get(key[0])
            if repo is None:
                continue
            hit.freshness = check_freshness(hit.payload, repo.path, headers.get(key), live).to_dict()

    def combine(self, results: dict[str, list], symbol: list[Hit], k: int, weights: dict[str, float] | None = None,
                rrf_k: int | None = None, plain_prior: float | None = None, text: str = "",
                test_prior: float | None = None) -> list[Hit]:
        """Lane lists + resolved symbols -> the top k: fuse, pin symbols, test prior, collapse shapes, rank."""
        hits = fuse(results, weights or self.weights, rrf_k or self.rrf_k,
                    self.plain_prior if plain_prior is None else plain_prior)
        hits = list({h.key: h for h in reversed(hits)}.values())[::-1]  # mid-promotion, a slot's best point
        prior = self.chunk_test_prior if test_prior is None else test_prior
        if text and prior != 1.0:
            apply_test_prior(hits, text, prior)
            hits.sort(key=order_hits)
        if symbol:
            by_key = {h.key: h for h in hits}
            for s in symbol:
                if s.key in by_key:
                    h = by_key[s.key]
                    h.score += s.score
                    h.lane_ranks.update(s.lane_ranks)
                else:
                    fresh = Hit(0, s.score, s.payload, dict(s.lane_ranks))
                    by_key[s.key] = fresh
                    hits.append(fresh)
            hits.sort(key=order_hits)
        hits = collapse_shapes(hits)
        yield_private_twins(hits)
        if text:
            prefer_specific_names(hits, text)
        hits.sort(key=order_hits)
        hits = hits[:k]
        for i, hit in enumerate(hits, 1):
            hit.rank = i
        return hits

    # ---- the query ----------------------------------------------------------
    def gather(self, text: str, opts: SearchOptions, depth: int, dense: list[float] | None = None
               ) -> tuple[dict[str, list], list[Hit]] | None:
        """The one walk of a query to the lanes: validate, filter, then every lane and the resolved symbols
        from the in-process index (no Qdrant client), else through one client. None: nothing can match."""
        if not text or not text.strip():
            raise QueryError("query text is empty")
        if len(text) > MAX_QUERY_CHARS:
            raise QueryError(f"query text is {len(text):,} characters, over the {MAX_QUERY_CHARS:,} a query may hold "
                             "(the model reads only its first 256 tokens): ask with its key words or lines")
        opts.validate()
        lanes = FUSED_LANES if opts.lane == "hybrid" else (opts.lane,)
        file_paths = None
        if opts.path_prefix:
            file_paths = self._paths_under(opts.path_prefix, opts.repo)
            if not file_paths:
                return None
        flt = latest_filter(opts.repo, opts.chunk_types, opts.languages, file_paths, opts.where,
                            include_deprecated=opts.include_deprecated)
        symbols = opts.resolve_symbols and opts.lane == "hybrid"
        index = self.local_index()
        if index is not None and (unknown := index.unknown_fields((where_field(w) for w in opts.where),
                                                                  {f"q_{name}" for name in RUBRIC_FIELDS})):
            raise QueryError(f"--where: no point carries the field(s) {', '.join(unknown)}")
        if index is not None:
            results = self.lane_results(None, text, lanes, flt, depth, dense, index=index)
            return results, (self.symbol_hits(None, text, opts, flt, index=index) if symbols else [])
        with self.client() as client:
            if not client.collection_exists(self.ledger.qdrant.collection):
                return None
            results = self.lane_results(client, text, lanes, flt, depth, dense)
            return results, (self.symbol_hits(client, text, opts, flt) if symbols else [])

    def _check_stale(self, opts: SearchOptions) -> bool:
        return self.ledger.settings.check_stale if opts.check_stale is None else opts.check_stale

    def search(self, text: str, opts: SearchOptions | None = None, dense: list[float] | None = None,
               **kw) -> list[Hit]:
        return self.search_ranked(text, opts, dense, **kw)[0]

    def search_ranked(self, text: str, opts: SearchOptions | None = None, dense: list[float] | None = None,
                      **kw) -> tuple[list[Hit], rerank.RerankReport | None]:
        """`search`, and the report of the LLM rerank when the query asks for it (else None)."""
        opts = opts or SearchOptions(**kw)
        fused = rerank.plan(self.ledger.settings, opts)  # k, or the rerank's deeper top; refuses early
        found = self.gather(text, opts, max(opts.k * LANE_DEPTH_PER_K, LANE_DEPTH), dense)
        hits = self.combine(*found, fused, text=text) if found is not None else []
        hits, report = rerank.apply(self.ledger, text, hits, opts)
        if hits and self._check_stale(opts):
            self.annotate_staleness(hits)
        return hits, report

    def group_shape(self, text: str) -> tuple[float, int]:
        """`--group file`'s decay and RRF k for a question: a question about tests has its own (docs/decisions.md)."""
        if asks_about_tests(text):
            return self.group_tests_decay, self.group_tests_rrf_k
        return self.group_decay, self.group_rrf_k

    def group(self, text: str, results: dict[str, list], symbol: list[Hit], k: int, decay: float | None = None,
              rrf_k: int | None = None, test_prior: float | None = None) -> list[FileHit]:
        """Lane lists -> every chunk fused (the test prior on files only) -> files by decayed chunk scores."""
        shape_decay, shape_k = self.group_shape(text)
        hits = self.combine(results, symbol, FUSE_ALL, self.group_weights, rrf_k or shape_k, text=text, test_prior=1.0)
        files = group_files(hits, shape_decay if decay is None else decay, text,
                            self.group_test_prior if test_prior is None else test_prior, self.group_docs_prior)
        return files[:k]

    def search_files(self, text: str, opts: SearchOptions | None = None, dense: list[float] | None = None,
                     **kw) -> list[FileHit]:
        """`ledger query --group file`: files ranked by the evidence of their chunks, with their best chunks."""
        opts = opts or SearchOptions(**kw)
        found = self.gather(text, opts, max(opts.k * GROUP_DEPTH_PER_K, GROUP_DEPTH), dense)
        if found is None:
            return []
        files = self.group(text, *found, opts.k)
        if self._check_stale(opts):
            self.annotate_staleness([h for f in files for h in f.chunks[:FILE_CHUNKS]])
        return files


def search(ledger: Ledger, embedder: Embedder, text: str, repo: str | None = None, k: int = 10,
           lane: str = "hybrid", weights: dict[str, float] | None = None, **options) -> list[Hit]:
    """One query, one Qdrant client opened and closed around it."""
    return Searcher(ledger, embedder, weights).search(text, SearchOptions(repo=repo, k=k, lane=lane, **options))
