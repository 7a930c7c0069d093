"""The rules applied after fusion, on the fused hits.

Shapes of one unit collapse into the most specific (`collapse_shapes`), a private member yields to
its public twin (`yield_private_twins`), and of two names the query spells out the one that says
more ranks first (`prefer_specific_names`). Pure functions over payloads.
"""

from __future__ import annotations

import json
import math
import re

from ledger_assets.retrieval.fusion import order_hits
from ledger_assets.retrieval.hits import Hit
from ledger_assets.retrieval.names import in_order, name_seq, name_seq_cached, owned_names, symbol_words

# Chunk shapes that hold other shapes of the same unit (type header, whole type, whole file).
_CONTAINER_SUFFIXES = ("_class", "_full", "_file")
# `prefer_specific_names` compares the first hits only: the ones a reader sees.
SPECIFIC_TOP = 10
_BACKING_PREFIX = re.compile(r"^(?:m_|_+|#)")


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
    for h in sorted(private, key=order_hits):
        twins = public.get(_twin_key(h.payload), ())
        if not twins:
            continue
        twin = min(twins, key=order_hits)
        if twin.score >= h.score or ("named" in h.lane_ranks and "named" not in twin.lane_ranks):
            continue
        twin.score, h.score = h.score, math.nextafter(h.score, -math.inf)


def prefer_specific_names(hits: list[Hit], text: str, top: int = SPECIFIC_TOP) -> None:
    """Of two of the first `top` hits whose own names the query spells out in full (every name
    word in the query, as the name lane reads words), the one whose name says more ranks first:
    a name whose words are a strict subset of another's in the same file yields to it ("The addDays
    function options": `AddDaysOptions` over `addDays`; "A single entry in a Traceback":
    `TracebackEntry` over `Traceback`), and of two names with the same words the one whose words
    come in the query's order wins ("Convert days to weeks": `daysToWeeks` over `weeksToDays`).
    The name that says more takes the other's score and the other goes just below it, as with
    `yield_private_twins`; a hit the query names (`named`) keeps its place unless the other is named
    too. A hit is read by the best of the names it owns (most words, then in order). Sorts `hits`."""
    query = name_seq(text)
    words = frozenset(query)
    hits.sort(key=order_hits)
    if not words:
        return
    head = hits[:top]
    spelled: list[tuple[frozenset[str], bool] | None] = []
    for h in head:
        best = None
        for name in owned_names(h.payload):
            seq, own = name_seq_cached(name), symbol_words(name)
            if own and own <= words:
                key = (len(own), in_order(seq, query))
                if best is None or key > best[0]:
                    best = (key, own)
        spelled.append((best[1], best[0][1]) if best else None)
    for i, general in enumerate(head):
        if spelled[i] is None:
            continue
        own, ordered = spelled[i]
        for j in range(i + 1, len(head)):
            if spelled[j] is None:
                continue
            other, other_ordered = spelled[j]
            specific = head[j]
            same_file = (general.payload.get("repo_id"), general.payload.get("file_path")) == (
                specific.payload.get("repo_id"), specific.payload.get("file_path"))
            if (own < other and same_file) or (other == own and len(own) > 1 and other_ordered and not ordered):
                if specific.score < general.score and not (
                        "named" in general.lane_ranks and "named" not in specific.lane_ranks):
                    specific.score, general.score = general.score, math.nextafter(general.score, -math.inf)
                break
    hits.sort(key=order_hits)


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
