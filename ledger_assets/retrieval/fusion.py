"""Fusion of the ranked lanes into one list, and the rules applied after it.

Reciprocal rank fusion over the lanes (`fuse`), the `name` lane that reranks their candidates by
how much of a symbol's name the query spells out (`name_lane`), which identifiers a query names
(`named_symbols`), and the post-fusion rules: shapes of one unit collapse into the most specific
(`collapse_shapes`), a private member yields to its public twin (`yield_private_twins`), of two
names the query spells out the one that says more ranks first (`prefer_specific_names`). Pure
functions over payloads; the measurements behind each rule are in retrieval/search.py's docstring.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ledger_assets.encode import lexical
from ledger_assets.retrieval.hits import Hit
from ledger_assets.store.settings import DEFAULT_LANE_WEIGHTS, LANES, PLAIN_PRIOR, RRF_K

# Not a stored vector: the other lanes' candidates reranked by name coverage (`name_lane`).
NAME_LANE = "name"
FUSED_LANES = (*LANES, NAME_LANE)
HEURISTIC_SOURCE = "heuristic"
# Chunk shapes that hold other shapes of the same unit (type header, whole type, whole file).
_CONTAINER_SUFFIXES = ("_class", "_full", "_file")
_IDENT_IN_QUERY = re.compile(r"[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_~][\w]*)+|[A-Za-z_]*[a-z][A-Z_]\w*|[A-Z]\w*[a-z]\w*[A-Z]\w*")
_ES_AFTER_SIBILANT = ("ches", "shes", "xes", "zes", "ses")
_CALLED_IN_QUERY = re.compile(r"([A-Za-z_]\w*)\(\)")
# A keyword query this short names its bare identifiers; a longer sentence only mentions them.
NAMED_BARE_MAX_WORDS = 3
# `prefer_specific_names` compares the first hits only: the ones a reader sees.
SPECIFIC_TOP = 10
_BACKING_PREFIX = re.compile(r"^(?:m_|_+|#)")
_WHOLE_IDENT = re.compile(r"^[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_~][\w]*)*(?:\(\))?$")


class QueryError(ValueError):
    """Bad query input (empty text, bad lane, k out of range, bad filter)."""


def parse_weights(spec: str | dict | None, base: dict[str, float] = DEFAULT_LANE_WEIGHTS) -> dict[str, float]:
    """Lane weights from "code=1,sparse=0.5" (or a dict); a lane not named keeps its weight in `base`."""
    if not spec:
        return dict(base)
    if isinstance(spec, dict):
        items = spec.items()
    else:
        items = []
        for part in spec.split(","):
            name, sep, value = part.partition("=")
            if not sep:
                raise QueryError(f"lane weights {spec!r}: write lane=weight pairs, e.g. code=1,design=0.5,sparse=1")
            items.append((name.strip(), value.strip()))
    out = dict(base)
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
    query = _name_seq(text)
    words = frozenset(query)
    hits.sort(key=order_hits)
    if not words:
        return
    head = hits[:top]
    spelled: list[tuple[frozenset[str], bool] | None] = []
    for h in head:
        best = None
        for name in owned_names(h.payload):
            seq, own = _name_seq_cached(name), _symbol_words(name)
            if own and own <= words:
                key = (len(own), _in_order(seq, query))
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


def _name_seq(text: str) -> tuple[str, ...]:
    """The name words of a query or a symbol name, stemmed, in their order (`_name_words`: as a set)."""
    return tuple(_stem(w) for w in lexical.words(text).split() if len(w) >= 2 and w not in lexical.STOP)


@lru_cache(maxsize=65536)
def _name_seq_cached(name: str) -> tuple[str, ...]:
    return _name_seq(name)


def _in_order(name: tuple[str, ...], query: tuple[str, ...]) -> bool:
    """Do a name's words occur in the query in the name's order (not necessarily adjacent)?"""
    rest = iter(query)
    return all(any(word == q for q in rest) for word in name)


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
    return frozenset(_name_seq(text))


@lru_cache(maxsize=65536)
def _symbol_words(name: str) -> frozenset[str]:
    return frozenset(_name_seq_cached(name))


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

    Read from the payload alone, so it can differ from ingest/symbol_texts.owned_symbols (which sees
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
    return sorted(fused.values(), key=order_hits)


def order_hits(h: Hit) -> tuple:
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


# ------------------------------------------------------------------ tests ---
# A test file ranks below the code it tests unless the question is about tests: a test that
# repeats the query's words ("test_cancel_booking_refunds") out-scores the one function of the
# source file that does it (measured on commit sets: retrieval/search.py's docstring).
_TEST_DIR = re.compile(r"^(?:.*[._-])?(?:unit|integration|functional|e2e|acceptance)?(?:tests?|specs?)$|^__tests__$"
                       r"|^__mocks__$|^testdata$|^testing$|^fixtures$")
_TEST_NAME = re.compile(
    r"^(?:test_.*\.py|.*_test\.py|conftest\.py|.*_test\.go|.*[._-](?:test|spec)s?\.[cm]?[jt]sx?"
    r"|.*(?:Tests?|Specs?|Fixture)\.(?:cs|java|kt|fs|vb|swift|scala)|.*_spec\.rb|.*_test\.rb|test_.*\.rb"
    r"|.*_test\.(?:rs|exs|dart|c|cc|cpp))$")
# Test code by what it holds. Python's `def test_x` is read from the symbols a chunk owns, not its
# text: docstrings (pytest's own) show `def test_x():` examples at the start of a line.
_TEST_CONTENT = re.compile(
    r"^func (?:Test|Benchmark|Fuzz)\w*\(\w+ \*testing\.[TBF]\)"
    r"|^[ \t]*\[(?:Fact|Theory|Test|TestMethod|TestCase|TestFixture)\b"
    r"|^[ \t]*(?:describe|it|test)(?:\.\w+)?\(\s*['\"`]", re.MULTILINE)
_ABOUT_TESTS = re.compile(r"\b(?:tests?|testing|tested|unit[- ]?tests?|specs?|pytest|jest|vitest|mocha|xunit|"
                          r"nunit|mstest|fixtures?|mocks?|mocking|coverage|benchmarks?|conftest)\b", re.IGNORECASE)


def is_test_path(path: str) -> bool:
    """By path convention: a tests/ (spec/, __tests__/, Foo.Tests/ ...) folder, test_x.py, x_test.go,
    x.test.ts, x.spec.js, FooTests.cs ..."""
    parts = (path or "").replace("\\", "/").split("/")
    if any(_TEST_DIR.match(d.lower()) for d in parts[:-1]):
        return True
    return bool(_TEST_NAME.match(parts[-1]))


def is_test_chunk(payload: dict) -> bool:
    """A test by its path, or by what it holds: a symbol it owns named `test_*`, a
    `func TestX(t *testing.T)`, a `[Fact]`/`[Test]` attribute, `describe("..."` / `it("..."`."""
    if is_test_path(payload.get("file_path", "")):
        return True
    if any(name.startswith("test_") for name in owned_names(payload)):
        return True
    return bool(_TEST_CONTENT.search(payload.get("content", "") or ""))


def asks_about_tests(text: str) -> bool:
    return bool(_ABOUT_TESTS.search(text or ""))


def apply_test_prior(hits: list[Hit], text: str, prior: float) -> None:
    """Test chunks' scores times `prior` (< 1 sinks them), unless the query is about tests."""
    if prior == 1.0 or asks_about_tests(text):
        return
    for h in hits:
        if is_test_chunk(h.payload):
            h.score *= prior


# ------------------------------------------------------------------- docs ---
# `--group file`: a documentation file (CHANGELOG.md, a guide) names the words of a change request
# without being where the change goes; it ranks below code unless the question is about docs.
_DOCS_EXT = re.compile(r"\.(?:md|markdown|mdx|rst|txt|adoc|asciidoc)$", re.IGNORECASE)
_DOCS_NAME = re.compile(r"^(?:changelog|changes|history|news|authors|contributors|license|copying|readme)(?:\.\w+)?$",
                        re.IGNORECASE)
_ABOUT_DOCS = re.compile(r"\b(?:docs?|documentation|documented|readme|changelog|release[- ]notes?|guides?|tutorials?|"
                         r"markdown|typos?)\b", re.IGNORECASE)


def is_docs_path(path: str) -> bool:
    """Prose by its name: .md/.rst/.txt/.adoc files, CHANGELOG, HISTORY, LICENSE, README ..."""
    name = (path or "").replace("\\", "/").rsplit("/", 1)[-1]
    return bool(_DOCS_EXT.search(name) or _DOCS_NAME.match(name))


def asks_about_docs(text: str) -> bool:
    return bool(_ABOUT_DOCS.search(text or ""))


# ------------------------------------------------------------ file groups ---
@dataclass
class FileHit:
    """`ledger query --group file`: one file, scored by the evidence of its chunks."""
    rank: int
    score: float
    repo_id: str
    file_path: str
    chunks: list[Hit]
    test: bool = False

    def to_dict(self, detail: str = "snippet", chunks: int = 3) -> dict:
        return {"rank": self.rank, "score": round(self.score, 6), "repo_id": self.repo_id,
                "file_path": self.file_path, "test": self.test, "matched_chunks": len(self.chunks),
                "lines": [[h.payload.get("start_line"), h.payload.get("end_line")] for h in self.chunks[:chunks]],
                "chunks": [h.to_dict(detail) for h in self.chunks[:chunks]]}


def group_files(hits: list[Hit], decay: float, text: str = "", test_prior: float = 1.0,
                docs_prior: float = 1.0) -> list[FileHit]:
    """Chunk hits (fused, ranked) -> files: score = Σ_i decay^i · s_i over the file's chunk scores
    s_0 ≥ s_1 ≥ … (decay 0 = its best chunk, 1 = the sum), times `test_prior` for a test file
    unless the query is about tests, and `docs_prior` for a documentation file (`is_docs_path`)
    unless it is about docs. A file is a test by path, or when most of its matched chunks are
    tests by content."""
    by_file: dict[tuple, list[Hit]] = {}
    for h in hits:
        by_file.setdefault((h.payload.get("repo_id") or "", h.payload.get("file_path") or ""), []).append(h)
    about_tests = asks_about_tests(text)
    docs_prior = 1.0 if asks_about_docs(text) else docs_prior
    out: list[FileHit] = []
    for (repo_id, path), chunks in by_file.items():
        chunks.sort(key=order_hits)
        score = sum(h.score * decay ** i for i, h in enumerate(chunks)) if decay > 0 else chunks[0].score
        test = is_test_path(path) or sum(1 for h in chunks if is_test_chunk(h.payload)) * 2 > len(chunks)
        if test and not about_tests:
            score *= test_prior
        if docs_prior != 1.0 and is_docs_path(path):
            score *= docs_prior
        out.append(FileHit(0, score, repo_id, path, chunks, test))
    out.sort(key=lambda f: (-f.score, f.repo_id, f.file_path))
    for i, f in enumerate(out, 1):
        f.rank = i
    return out
