"""The name lane, and which identifiers a query names.

`name_lane` reranks the other lanes' candidates by how much of a symbol's name the query spells out,
read from their payloads (`owned_names`: the symbols a point answers for); name words are stemmed
(`stem`) so a name and its forms in a doc meet. `named_symbols`: the identifiers a query names, which
search pins first. Pure functions over payloads.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ledger_assets.encode import lexical

# Not a stored vector: the other lanes' candidates reranked by name coverage (`name_lane`).
NAME_LANE = "name"
_IDENT_IN_QUERY = re.compile(r"[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_~][\w]*)+|[A-Za-z_]*[a-z][A-Z_]\w*|[A-Z]\w*[a-z]\w*[A-Z]\w*")
_ES_AFTER_SIBILANT = ("ches", "shes", "xes", "zes", "ses")
_CALLED_IN_QUERY = re.compile(r"([A-Za-z_]\w*)\(\)")
# A keyword query this short names its bare identifiers; a longer sentence only mentions them.
NAMED_BARE_MAX_WORDS = 3
_WHOLE_IDENT = re.compile(r"^[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_~][\w]*)*(?:\(\))?$")


def name_seq(text: str) -> tuple[str, ...]:
    """The name words of a query or a symbol name, stemmed, in their order (`_name_words`: as a set)."""
    return tuple(stem(w) for w in lexical.words(text).split() if len(w) >= 2 and w not in lexical.STOP)


@lru_cache(maxsize=65536)
def name_seq_cached(name: str) -> tuple[str, ...]:
    return name_seq(name)


def in_order(name: tuple[str, ...], query: tuple[str, ...]) -> bool:
    """Do a name's words occur in the query in the name's order (not necessarily adjacent)?"""
    rest = iter(query)
    return all(any(word == q for q in rest) for word in name)


@dataclass
class NamePoint:
    """One entry of the name lane: a candidate point of the other lanes, rescored."""
    id: Any
    payload: dict
    score: float


def _name_words(text: str) -> frozenset[str]:
    return frozenset(name_seq(text))


@lru_cache(maxsize=65536)
def symbol_words(name: str) -> frozenset[str]:
    return frozenset(name_seq_cached(name))


@lru_cache(maxsize=65536)
def _owned_words(chunk_type: str, start: int, end: int, chunk_symbols: str) -> tuple[frozenset[str], ...]:
    """The name words of each symbol a point owns (see owned_names), cached by the payload fields."""
    return tuple(w for w in map(symbol_words, _owned(chunk_type, start, end, chunk_symbols)) if w)


def stem(word: str) -> str:
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
