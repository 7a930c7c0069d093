"""The read side: hybrid search over the code, design, lexical, symbol and name lanes.

query -> (named symbol? its member first) -> one query per lane -> reciprocal
rank fusion -> `plain` prior -> collapse shapes of one symbol -> a private
member yields to its public twin -> staleness against the live file -> hits.

Lanes: `code` (the chunk's text), `design` ("[repo/layer] intent"), `sparse`
(identifier-aware BM25, lexical.py) and `symbol` (one sentence per symbol the
chunk owns, a chunk scored by its best one: symbol_lane.py) are stored vectors;
`name` reranks their candidates by how much of a symbol's name the query spells
out (`name_lane`, computed from the payloads).

Fusion: score = Σ_lane weight_lane / (rrf_k + rank_lane), times `plain_prior`
for blind `plain` windows; equal scores in a lane share a rank. The defaults
were chosen with `ledger eval --sweep` and a wider grid over the same lane lists,
on two golden sets built by `ledger golden` from code we did not write, with no
LLM key (heuristic intents): dotnet/efcore src/EFCore/Storage (132 files, 261
queries) and src/EFCore.Relational/Storage (86 files, 250 queries), ranked by
mean MRR@10 over both; two more efcore sets, src/EFCore.Relational/Update (60
files, 114 queries) and src/EFCore/Infrastructure (77 files, 258 queries), came
after: no default was chosen on them, though the name lane's variants were
also looked at there (so they are only weakly held out):
  * k=5, code 0.25 / sparse 1 / symbol 2 (the best mean MRR of 288 grid points
    before the name lane): the symbol lane alone reached 0.525 / 0.874 and
    0.452 / 0.800 (R@1 / R@5); the fusion keeps about its R@1 and adds R@5 from
    the lexical lane. The code lane (0.356 / 0.701 and 0.300 / 0.572 alone)
    adds little beside them at any weight. Equal weights at k=10 gave 0.456 /
    0.812 and 0.332 / 0.776.
  * named symbols: a query that is an identifier, or a keyword query of at
    most three words naming one, resolves it and pins it first (when at most
    three symbols match); a name inside a longer sentence is not resolved
    (`named_symbols`). How that came about: first a bare type name in a
    sentence stopped being resolved, since it is usually the object, not the
    answer; then a qualified or called name in a sentence stopped being pinned
    and scored as a first place in the sparse lane instead. Pinning there put
    the event id first for each "Logs for the CoreEventId.X event" (the doc of
    a logging method): on a golden set from src/EFCore/Diagnostics (315 queries, built after the
    defaults above) R@1 / MRR@10 went 0.333 / 0.497 -> 0.349 / 0.520; the
    other five sets have no such query and did not move. Later, with the
    private-twin rule below, the logger and the event id tied but for that
    first place, so a name in a sentence is now not resolved at all (the
    sparse lane still matches its words): R@1 / MRR@10 Diagnostics 0.444 /
    0.616 -> 0.562 / 0.675; rich 0.548 -> 0.551 and _pytest 0.415 -> 0.419
    R@1; the other five efcore sets unchanged (Diagnostics was looked at to
    choose this, so it is no longer held out).
  * name 0.5: R@1 / R@5 / MRR@10 without -> with the name lane: Storage 0.544
    / 0.877 / 0.682 -> 0.525 / 0.889 / 0.676, Relational 0.472 / 0.828 / 0.620
    -> 0.496 / 0.856 / 0.639, Update 0.430 / 0.772 / 0.575 -> 0.465 /
    0.781 / 0.601, Infrastructure 0.527 / 0.818 / 0.653 -> 0.531 /
    0.830 / 0.664. Weights 0.25-1 and IDF-weighted words moved these by about
    0.01. Later its stemming was fixed (a doc's "Creates"/"Consumes" had lost
    the e, "properties" became "propert"), R@1 / MRR@10 before -> after:
    Relational 0.532 / 0.670 -> 0.544 / 0.678, Storage 0.540 -> 0.536 R@1,
    Update 0.474 / 0.611 -> 0.482 / 0.615, Infrastructure 0.546 / 0.684 ->
    0.554 / 0.688, Diagnostics 0.562 -> 0.565, Migrations 0.496 / 0.655 ->
    0.496 / 0.657 (R@5 0.885 -> 0.879), rich 0.551 (R@5 0.851 -> 0.848),
    _pytest 0.419 -> 0.415: a fix, not a gain. A second pass from a review
    (`-ses`, a final e or y: "disposes" meets `Dispose`, "statuses" `Status`)
    moved only Migrations' R@5, 0.879 -> 0.882.
  * the symbol sentence's gloss ("Gets the command text", symbol_lane.gloss),
    all four sets looked at: R@1 / R@5 / MRR@10 Storage 0.540 / 0.877 / 0.681,
    Relational 0.532 / 0.864 / 0.669, Update 0.491 / 0.807 / 0.620,
    Infrastructure 0.550 / 0.845 / 0.684 (before: the figures above, with the
    name lane). The same 192-point sweep on all four still ranks these
    defaults first by mean MRR@10. Two sets built afterwards (held out) moved
    little: src/EFCore/Diagnostics 0.346 -> 0.333, src/EFCore.Relational/
    Migrations 0.493 -> 0.496 R@1.
  * private twins (`yield_private_twins`): a private member yields to a non-private member of
    the same name in the same type and file (a backing field `_comparer` to `Comparer` too): the
    twin takes its place and it goes just below. Measured after a clean re-chunk at chunker
    version 2 (C# fields after the first member became members), R@1 / R@5 / MRR@10 without ->
    with the rule: src/EFCore/Diagnostics 0.397 / 0.825 / 0.565 -> 0.444 / 0.825 / 0.616 (each
    of its logging methods has a private same-name message builder); Relational 0.528 -> 0.532
    and Storage 0.533 -> 0.540 R@1 (backing fields); Update R@5 0.807 -> 0.798 (a lifted twin
    pushed a target from 5th to 6th); Infrastructure, Migrations and two Python sets (rich,
    _pytest; built after the rule was chosen) did not move. Trading scores instead (the
    private hit falling to its twin's place, possibly out of the list) kept Update at 0.807.
    A prior on every private member (x0.8) gave more on Diagnostics and Infrastructure, but
    golden sets are built from doc comments, which efcore writes on public members, so they
    cannot measure what it costs someone looking for a private helper: not shipped.
  * design: a heuristic intent is built from the names and declaration the
    symbol lane embeds; every grid point that counted its design-lane rank
    beside the symbol lane lost MRR, so such a rank is not counted in a fusion
    with the symbol lane (it still is with `--lane design`). An LLM intent
    counts at weight 1: no LLM key here, so that weight is not a measurement.
  * a point without intent has the same design vector as every other such
    point, so its design-lane rank is noise and is never counted.
  * plain_prior 0.5 is a prior, not a measurement: neither golden set has
    `plain` chunks, so the sweep could not move it.
"""

from __future__ import annotations

import json
import math
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable, Iterator

from qdrant_client import models

from . import heuristic, lexical, local_index
from .core import Ledger
from .embedder import Embedder
from .local_index import LocalIndex
from .qdrant_store import CODE_VECTOR, DESIGN_VECTOR, SPARSE_VECTOR, SYMBOL_VECTOR

RRF_K = 5
LANES = ("code", "design", "sparse", "symbol")
# Not a stored vector: the other lanes' candidates reranked by name coverage (`name_lane`).
NAME_LANE = "name"
FUSED_LANES = (*LANES, NAME_LANE)
DEFAULT_WEIGHTS = {"code": 0.25, "design": 1.0, "sparse": 1.0, "symbol": 2.0, NAME_LANE: 0.5}
PLAIN_PRIOR = 0.5
HEURISTIC_SOURCE = "heuristic"
SNIPPET_CHARS = 600
# A resolved symbol outranks any fused hit: the largest possible RRF sum is 4/(k+1).
SYMBOL_BONUS = 1.0
# A bare name matching more members than this is ambiguous: it joins the fusion as a lane, not as a pin.
SYMBOL_PIN_MAX = 3
FORMATS = ("text", "json", "toon", "jsonl")
# Local mode: how many times the lane depth to fetch unfiltered before filtering client-side.
LOCAL_OVERFETCH = 4
DETAILS = ("snippet", "skeleton", "full")
# Chunk shapes that hold other shapes of the same unit (type header, whole type, whole file).
_CONTAINER_SUFFIXES = ("_class", "_full", "_file")
_IDENT_IN_QUERY = re.compile(r"[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_~][\w]*)+|[A-Za-z_]*[a-z][A-Z_]\w*|[A-Z]\w*[a-z]\w*[A-Z]\w*")
_ES_AFTER_SIBILANT = ("ches", "shes", "xes", "zes", "ses")
_CALLED_IN_QUERY = re.compile(r"([A-Za-z_]\w*)\(\)")
# A keyword query this short names its bare identifiers; a longer sentence only mentions them.
NAMED_BARE_MAX_WORDS = 3
_BACKING_PREFIX = re.compile(r"^(?:m_|_+|#)")
_WHOLE_IDENT = re.compile(r"^[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_~][\w]*)*(?:\(\))?$")


class QueryError(ValueError):
    """Bad query input (empty text, bad lane, k out of range, bad filter)."""


def parse_weights(spec: str | dict | None) -> dict[str, float]:
    if not spec:
        return dict(DEFAULT_WEIGHTS)
    if isinstance(spec, dict):
        items = spec.items()
    else:
        items = []
        for part in spec.split(","):
            name, sep, value = part.partition("=")
            if not sep:
                raise QueryError(f"lane weights {spec!r}: write lane=weight pairs, e.g. code=1,design=0.5,sparse=1")
            items.append((name.strip(), value.strip()))
    out = dict(DEFAULT_WEIGHTS)
    for name, value in items:
        if name not in FUSED_LANES:
            raise QueryError(f"lane weights: unknown lane {name!r} (lanes: {', '.join(FUSED_LANES)})")
        try:
            out[name] = float(value)
        except ValueError as exc:
            raise QueryError(f"lane weights: {name}={value!r} is not a number") from exc
        if out[name] < 0:
            raise QueryError(f"lane weights: {name} must be >= 0")
    return out


@dataclass
class Hit:
    rank: int
    score: float
    payload: dict[str, Any]
    lane_ranks: dict[str, int] = field(default_factory=dict)
    freshness: dict[str, Any] = field(default_factory=dict)
    collapsed: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple:
        p = self.payload
        return (p.get("repo_id"), p.get("file_path"), p.get("chunk_index"))

    def to_dict(self, detail: str = "snippet") -> dict[str, Any]:
        p = self.payload
        out = {
            "rank": self.rank,
            "score": round(self.score, 6),
            "repo_id": p.get("repo_id"),
            "file_path": p.get("file_path"),
            "start_line": p.get("start_line"),
            "end_line": p.get("end_line"),
            "chunk_type": p.get("chunk_type"),
            "symbols": symbol_names(p),
            "snippet": render_body(p, detail),
            "intent": p.get("intent", ""),
            "intent_source": p.get("intent_source", ""),
            "stale": bool(self.freshness.get("stale", False)),
            "lane_ranks": dict(self.lane_ranks),
        }
        for extra in ("stale_reason", "live_start_line", "live_end_line"):
            if extra in self.freshness:
                out[extra] = self.freshness[extra]
        if self.collapsed:
            out["collapsed"] = list(self.collapsed)
        out["payload"] = dict(p)
        return out


def symbol_names(payload: dict) -> list[str]:
    try:
        return [s[0] for s in json.loads(payload.get("chunk_symbols") or "[]")]
    except (TypeError, ValueError):
        return []


def render_body(payload: dict, detail: str = "snippet") -> str:
    if detail == "skeleton" and payload.get("skeleton"):
        return payload["skeleton"]
    content = payload.get("content", "")
    if detail in ("full", "skeleton"):
        return content
    return content if len(content) <= SNIPPET_CHARS else content[:SNIPPET_CHARS] + "…"


def latest_filter(repo: str | None, chunk_types: Iterable[str] = (), languages: Iterable[str] = (),
                  file_paths: Iterable[str] | None = None) -> models.Filter:
    must: list = [models.FieldCondition(key="is_latest", match=models.MatchValue(value=True))]
    if repo:
        must.append(models.FieldCondition(key="repo_id", match=models.MatchValue(value=repo)))
    chunk_types, languages = list(chunk_types or ()), list(languages or ())
    if chunk_types:
        must.append(models.FieldCondition(key="chunk_type", match=models.MatchAny(any=chunk_types)))
    if languages:
        must.append(models.FieldCondition(key="language", match=models.MatchAny(any=languages)))
    if file_paths is not None:
        must.append(models.FieldCondition(key="file_path", match=models.MatchAny(any=list(file_paths))))
    return models.Filter(must=must)


def matches_filter(payload: dict, flt: models.Filter) -> bool:
    """`latest_filter`'s conditions (MatchValue / MatchAny on keyword fields) checked on one payload."""
    for cond in flt.must or ():
        value = payload.get(cond.key)
        match = cond.match
        if isinstance(match, models.MatchValue):
            if value != match.value:
                return False
        elif isinstance(match, models.MatchAny):
            if value not in match.any:
                return False
        else:  # a condition this check does not know: let Qdrant decide
            raise ValueError(f"unsupported condition {cond!r}")
    return True


def fetch_chunk_payload(ledger: Ledger, client, repo_id: str, file_path: str, chunk_index: int,
                        with_vectors: list[str] | bool = False):
    """The latest point of one chunk: by its deterministic id first (one lookup), else by filter
    (versioned writes give new ids; a filtered scroll is a full scan in local mode)."""
    from .qdrant_store import point_id

    found = client.retrieve(ledger.qdrant.collection, [point_id(repo_id, file_path, chunk_index)],
                            with_payload=True, with_vectors=with_vectors)
    if found and (found[0].payload or {}).get("is_latest", True):
        return found[0] if with_vectors else found[0].payload
    flt = models.Filter(must=[
        models.FieldCondition(key="repo_id", match=models.MatchValue(value=repo_id)),
        models.FieldCondition(key="file_path", match=models.MatchValue(value=file_path)),
        models.FieldCondition(key="chunk_index", match=models.MatchValue(value=chunk_index)),
        models.FieldCondition(key="is_latest", match=models.MatchValue(value=True)),
    ])
    points, _ = client.scroll(ledger.qdrant.collection, scroll_filter=flt, limit=1, with_payload=True,
                              with_vectors=with_vectors)
    if not points:
        return None
    return points[0] if with_vectors else points[0].payload


def is_container(chunk_type: str) -> bool:
    return (chunk_type or "").endswith(_CONTAINER_SUFFIXES)


def collapse_shapes(hits: list[Hit]) -> list[Hit]:
    """A type header / whole-type / whole-file hit that holds a more specific hit
    of the same file gives way to it: the specific hit takes the better score.

    Ordered by score, a container hit is folded into the best-scoring hit nested
    in its range; nested hits are never dropped for their container.
    """
    by_file: dict[tuple, list[Hit]] = {}
    for h in hits:
        by_file.setdefault((h.payload.get("repo_id"), h.payload.get("file_path")), []).append(h)
    dropped: set[int] = set()
    for group in by_file.values():
        if len(group) < 2:
            continue
        # Largest containers first, so header-in-full folds before full-in-file.
        for outer in sorted(group, key=lambda h: -_span(h)):
            if id(outer) in dropped or not is_container(outer.payload.get("chunk_type", "")):
                continue
            inner = [h for h in group if h is not outer and id(h) not in dropped and _nested(h, outer)]
            if not inner:
                continue
            best = max(inner, key=lambda h: h.score)
            if outer.score > best.score:
                best.score = outer.score
                for lane, rank in outer.lane_ranks.items():
                    best.lane_ranks[lane] = min(rank, best.lane_ranks.get(lane, rank))
            p = outer.payload
            best.collapsed.append(f"{p.get('chunk_type')} L{p.get('start_line')}-L{p.get('end_line')}")
            dropped.add(id(outer))
    return [h for h in hits if id(h) not in dropped]


def yield_private_twins(hits: list[Hit]) -> None:
    """A private member never ranks above a non-private member of the same name in the same type
    of the same file: its best such twin is lifted to the private hit's score and the private hit
    goes just below it, so both stay listed and nothing else moves. Such a twin is the entry point
    and the private one its helper (every `CoreLoggerExtensions.X(this IDiagnosticsLogger ...)`
    has a private `X(EventDefinitionBase, EventData)` building its message; the short helper
    out-scored it in the code lane), or the property a backing field serves. A private hit the
    query names (`named`) keeps its place unless its twin is named too. Visibility comes from
    the chunker (payload `visibility`: C# members, Python units, members of a split
    TypeScript/JavaScript class)."""
    public: dict[tuple, list[Hit]] = {}
    private: list[Hit] = []
    for h in hits:
        visibility = h.payload.get("visibility")
        if not visibility:
            continue
        if visibility == "private":
            private.append(h)
            continue
        key = _twin_key(h.payload)
        if key is not None:
            public.setdefault(key, []).append(h)
    if not public:
        return
    for h in sorted(private, key=_order):
        twins = public.get(_twin_key(h.payload), ())
        if not twins:
            continue
        twin = min(twins, key=_order)
        if twin.score >= h.score or ("named" in h.lane_ranks and "named" not in twin.lane_ranks):
            continue
        twin.score, h.score = h.score, math.nextafter(h.score, -math.inf)


def _twin_key(payload: dict) -> tuple | None:
    """(repo, file, parent, name) of a member chunk's own symbol (its first), the name as
    _twin_name reads it; a nested type's members are not its name."""
    try:
        own = json.loads(payload.get("chunk_symbols") or "[]")[0]
        name, parent = own[0], own[2]
    except (TypeError, ValueError, IndexError, KeyError):
        return None
    return (payload.get("repo_id"), payload.get("file_path"), parent, _twin_name(name))


def _twin_name(name: str) -> str:
    """`_comparer`, `m_comparer` and `Comparer` are one name: a backing field and its property
    (and a JavaScript `#render` is `render`)."""
    return _BACKING_PREFIX.sub("", name).lower()


def _span(h: Hit) -> int:
    return int(h.payload.get("end_line") or 0) - int(h.payload.get("start_line") or 0)


def _nested(inner: Hit, outer: Hit) -> bool:
    a, b = inner.payload, outer.payload
    i0, i1 = int(a.get("start_line") or 0), int(a.get("end_line") or 0)
    o0, o1 = int(b.get("start_line") or 0), int(b.get("end_line") or 0)
    return o0 <= i0 and i1 <= o1 and (i1 - i0) <= (o1 - o0) and (i0, i1, a.get("chunk_index")) != (o0, o1, b.get("chunk_index"))


@dataclass
class NamePoint:
    """One entry of the name lane: a candidate point of the other lanes, rescored."""
    id: Any
    payload: dict
    score: float


def _name_words(text: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in heuristic.words(text).split() if len(w) >= 2 and w not in lexical.STOP)


@lru_cache(maxsize=65536)
def _symbol_words(name: str) -> frozenset[str]:
    return _name_words(name)


@lru_cache(maxsize=65536)
def _owned_words(chunk_type: str, start: int, end: int, chunk_symbols: str) -> tuple[frozenset[str], ...]:
    """The name words of each symbol a point owns (see owned_names), cached by the payload fields."""
    return tuple(w for w in map(_symbol_words, _owned(chunk_type, start, end, chunk_symbols)) if w)


def _stem(word: str) -> str:
    """A name word and its forms in a doc meet: plural and third-person endings, a final e or y.

    "parameters" meets `Parameter`, "properties" `Property` (both "properti"), "indexes"
    `Index`, "statuses" `Status`, "creates" and "disposes" meet `Create` and `Dispose` (a
    doc's first verb), "uses" `Use`. Both sides go through it, so only agreement matters.
    """
    if len(word) <= 2:
        return word
    if len(word) >= 5 and word.endswith("ies"):
        word = word[:-3] + "i"
    elif len(word) >= 5 and word.endswith(_ES_AFTER_SIBILANT):  # "classes", "indexes", "statuses"
        word = word[:-2]
    elif len(word) >= 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) >= 4 and word.endswith("e"):
        word = word[:-1]
    if len(word) >= 4 and word.endswith("y"):
        word = word[:-1] + "i"
    return word


def owned_names(payload: dict) -> list[str]:
    """The symbols a point answers for by name: those whose first line it holds. A whole-type
    copy (`*_full`) holds every member's first line but owns none: its member chunks do.

    Read from the payload alone, so it can differ from symbol_lane.owned_symbols (which sees
    every chunk of the file) where two chunks hold a symbol's first line."""
    return _owned(*_ownership_key(payload))


def _ownership_key(payload: dict) -> tuple[str, int, int, str]:
    """The payload fields ownership is read from (and the name lane's cache key)."""
    return (str(payload.get("chunk_type", "")), payload.get("start_line") or 0,
            payload.get("end_line") or 0, payload.get("chunk_symbols") or "")


def _owned(chunk_type: str, start: int, end: int, chunk_symbols: str) -> list[str]:
    if chunk_type.endswith("_full"):
        return []
    try:
        symbols = json.loads(chunk_symbols or "[]")
    except (TypeError, ValueError):
        return []
    return [s[0] for s in symbols if isinstance(s, list) and len(s) >= 4 and start <= (s[3] or 0) <= end]


def name_lane(text: str, results: dict[str, list], depth: int) -> list[NamePoint]:
    """The other lanes' candidates ranked by how much of a symbol's name the query spells out.

    Score: the best, over the symbols a candidate owns, of the share of the name's words that
    occur in the query ("Gets the command text" covers all of `CommandText` and half of
    `CommandTimeout`). Words are camel/snake parts, lower-cased, plural endings dropped. It
    reranks what the vector and lexical lanes found, from their payloads, so it is the same
    code in local and server mode and costs no store query.
    """
    query = _name_words(text)
    if not query:
        return []
    seen: dict[str, Any] = {}
    for points in results.values():
        for point in points:
            seen.setdefault(str(point.id), point)
    scored = []
    for point in seen.values():
        payload = point.payload or {}
        owned = _owned_words(*_ownership_key(payload))
        best = max((len(words & query) / len(words) for words in owned), default=0.0)
        if best > 0:
            scored.append(NamePoint(point.id, payload, round(best, 6)))
    scored.sort(key=lambda h: (-h.score, h.payload.get("file_path", ""), h.payload.get("chunk_index", 0)))
    return scored[:depth]


def fuse(lane_results: dict[str, list], weights: dict[str, float], rrf_k: int = RRF_K,
         plain_prior: float = PLAIN_PRIOR) -> list[Hit]:
    """RRF over ranked lane lists of Qdrant points (or anything with .id and .payload)."""
    fused: dict[str, Hit] = {}
    fusing = bool(lane_results.get("symbol")) and sum(1 for points in lane_results.values() if points) > 1
    for name, points in lane_results.items():
        rank = seen = 0
        last = None
        for point in points:
            payload = point.payload or {}
            if name == "design" and (not payload.get("intent") or (
                    fusing and payload.get("intent_source") == HEURISTIC_SOURCE)):
                # No intent: the design vector says nothing about this chunk. A heuristic intent is
                # made of the names and declaration the symbol lane already embeds: counting it
                # again beside that lane counts one piece of evidence twice (measured: see the docstring).
                continue
            seen += 1
            # Equal scores share a rank (two shapes of a unit often carry the same text), so the
            # fused order never depends on how a store happens to order ties.
            score = getattr(point, "score", None)
            if score is None or last is None or abs(score - last) > 1e-6:
                rank = seen
            last = score
            hit = fused.setdefault(str(point.id), Hit(0, 0.0, payload))
            hit.lane_ranks[name] = rank
            hit.score += weights.get(name, 1.0) / (rrf_k + rank)
    for hit in fused.values():
        if hit.payload.get("chunk_type") == "plain":
            hit.score *= plain_prior
    return sorted(fused.values(), key=_order)


def _order(h: Hit) -> tuple:
    return (-h.score, h.payload.get("repo_id", ""), h.payload.get("file_path", ""), h.payload.get("chunk_index", 0))


def _names_only(text: str) -> bool:
    """Is the query an identifier, or a keyword query of at most NAMED_BARE_MAX_WORDS words?"""
    whole = text.strip()
    return bool(_WHOLE_IDENT.match(whole)) or len(whole.split()) <= NAMED_BARE_MAX_WORDS


def named_symbols(text: str) -> list[str]:
    """Identifiers a query names: the whole query when it is one (`BookingService.Cancel`,
    `Cancel()`); the camel/snake, qualified and called names of a keyword query of at most
    NAMED_BARE_MAX_WORDS words ("find StockLedger"); none in a longer sentence.

    In a sentence a name is usually the object, not the answer ("Creates instances of
    ParameterNameGenerator" documents the factory, "Logs for the CoreEventId.X event" the
    logging method), and the sparse and name lanes still match its words (figures in the
    module docstring).
    """
    whole = text.strip()
    if _WHOLE_IDENT.match(whole):
        return [whole.removesuffix("()")]
    if not _names_only(whole):
        return []
    called = [m.group(1) for m in _CALLED_IN_QUERY.finditer(text)]
    seen: list[str] = []
    for tok in [t.strip(".") for t in _IDENT_IN_QUERY.findall(text)] + called:
        if len(tok) >= 4 and tok not in seen:
            seen.append(tok)
    return seen[:4]


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

    def validate(self) -> None:
        if self.lane not in ("hybrid", *LANES):
            raise QueryError(f"unknown lane {self.lane!r}: use hybrid, {', '.join(LANES)}")
        if not 1 <= self.k <= 200:
            raise QueryError(f"--k must be between 1 and 200, got {self.k}")
        if self.path_prefix and (self.path_prefix.startswith("/") or ".." in self.path_prefix.split("/")):
            raise QueryError(f"--path {self.path_prefix!r}: give a prefix relative to the repo root")


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
        sql = "SELECT DISTINCT file_path FROM chunks WHERE starts_with(file_path, ?)"
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
        from .tools import ToolInputError, symbol_lookup

        if index is None and client is not None:
            index = self.local_index(client)
        hits: list[Hit] = []  # a sentence names none (named_symbols)
        for name in named_symbols(text):
            try:
                matches = symbol_lookup(self.ledger, name, opts.repo, limit=20)
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
        from .staleness import LiveFiles, check_freshness

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
                            "SELECT c.repo_id, c.file_path, c.chunk_index, coalesce(c.header, '') FROM chunks c "
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
                rrf_k: int | None = None, plain_prior: float | None = None) -> list[Hit]:
        """Lane lists + resolved symbols -> the top k: fuse, pin symbols, collapse shapes, rank."""
        hits = fuse(results, weights or self.weights, rrf_k or self.rrf_k,
                    self.plain_prior if plain_prior is None else plain_prior)
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
            hits.sort(key=_order)
        hits = collapse_shapes(hits)
        yield_private_twins(hits)
        hits.sort(key=_order)
        hits = hits[:k]
        for i, hit in enumerate(hits, 1):
            hit.rank = i
        return hits

    # ---- the query ----------------------------------------------------------
    def search(self, text: str, opts: SearchOptions | None = None, dense: list[float] | None = None,
               **kw) -> list[Hit]:
        opts = opts or SearchOptions(**kw)
        if not text or not text.strip():
            raise QueryError("query text is empty")
        opts.validate()
        lanes = FUSED_LANES if opts.lane == "hybrid" else (opts.lane,)
        file_paths = None
        if opts.path_prefix:
            file_paths = self._paths_under(opts.path_prefix, opts.repo)
            if not file_paths:
                return []
        flt = latest_filter(opts.repo, opts.chunk_types, opts.languages, file_paths)
        depth = max(opts.k * 5, 50)
        symbols = opts.resolve_symbols and opts.lane == "hybrid"
        index = self.local_index()
        if index is not None:
            # A fresh in-process index answers without a Qdrant client (and without its folder lock).
            results = self.lane_results(None, text, lanes, flt, depth, dense, index=index)
            symbol = self.symbol_hits(None, text, opts, flt, index=index) if symbols else []
        else:
            with self.client() as client:
                if not client.collection_exists(self.ledger.qdrant.collection):
                    return []
                results = self.lane_results(client, text, lanes, flt, depth, dense)
                symbol = self.symbol_hits(client, text, opts, flt) if symbols else []
        hits = self.combine(results, symbol, opts.k)
        check = self.ledger.settings.check_stale if opts.check_stale is None else opts.check_stale
        if check:
            self.annotate_staleness(hits)
        return hits


def search(ledger: Ledger, embedder: Embedder, text: str, repo: str | None = None, k: int = 10,
           lane: str = "hybrid", weights: dict[str, float] | None = None, **options) -> list[Hit]:
    """One query, one Qdrant client opened and closed around it."""
    return Searcher(ledger, embedder, weights).search(text, SearchOptions(repo=repo, k=k, lane=lane, **options))


# ---------------------------------------------------------------- formats ---
def toon_row(h: Hit, detail: str = "snippet") -> str:
    p = h.payload
    body = render_body(p, detail).replace("\r", "").replace("\n", "⏎").replace("|", "¦")
    if detail == "snippet":
        body = body[:SNIPPET_CHARS]
    start, end = p.get("start_line"), p.get("end_line")
    if h.freshness.get("live_start_line") is not None:
        start, end = h.freshness["live_start_line"], h.freshness["live_end_line"]
    flag = "!stale " if h.freshness.get("stale") else ""
    return (f"{p.get('repo_id')}|{p.get('layer', '')}|{p.get('pattern', '')}|{p.get('file_path')}|"
            f"L{start}-L{end}⟫{flag}{body}")


TOON_LEGEND = "repo|layer|pattern|path|Lstart-Lend⟫snippet"


def format_hits(hits: list[Hit], fmt: str = "text", detail: str = "snippet") -> str:
    if fmt == "json":
        return json.dumps([h.to_dict(detail) for h in hits], indent=2, ensure_ascii=False)
    if fmt == "jsonl":
        return json.dumps([h.to_dict(detail) for h in hits], ensure_ascii=False)
    if fmt == "toon":
        return "\n".join([TOON_LEGEND] + [toon_row(h, detail) for h in hits])
    out = []
    for h in hits:
        d = h.to_dict(detail)
        syms = ", ".join(d["symbols"][:5])
        lanes = " ".join(f"{k}#{v}" for k, v in sorted(d["lane_ranks"].items()))
        stale = ""
        if d["stale"]:
            stale = f"  STALE ({d.get('stale_reason', '')}"
            stale += f"; now L{d['live_start_line']}-L{d['live_end_line']})" if "live_start_line" in d else ")"
        out.append(f"{d['rank']:>2}. {d['repo_id']}:{d['file_path']}:{d['start_line']}-{d['end_line']} "
                   f"[{d['chunk_type']}] score={d['score']:.4f} ({lanes})" + (f"  {syms}" if syms else "") + stale)
        if d["intent"]:
            out.append(f"    intent: {d['intent']}")
        limit = None if detail != "snippet" else 12
        out.extend("    " + line for line in d["snippet"].splitlines()[:limit])
    return "\n".join(out) if out else "no hits"
