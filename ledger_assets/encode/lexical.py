"""The sparse lexical lane: identifier-aware BM25, computed in the client.

`BookingService.CancelAsync` indexes as bookingservice, booking, service,
cancelasync, cancel, async — so a query for "cancel booking" meets it. The
document side carries BM25's saturated term frequency; Qdrant's IDF modifier
supplies the collection IDF at query time, so the same vectors work in local
and server mode.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from functools import lru_cache

from qdrant_client import models

_WORD = re.compile(r"[A-Za-z0-9_]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
STOP = frozenset({
    "the", "a", "an", "of", "to", "in", "is", "it", "and", "or", "for", "on", "by", "be", "as", "at",
    "this", "that", "with", "from", "are", "was", "if", "do", "does", "where", "which", "what", "how",
})
K1 = 1.2
B = 0.75
AVG_DOC_TOKENS = 200.0


def tokenize(text: str) -> list[str]:
    out: list[str] = []
    for word in _WORD.findall(text):
        out.extend(_word_tokens(word))
    return out


@lru_cache(maxsize=1 << 16)
def _word_tokens(word: str) -> tuple[str, ...]:
    """One word's tokens: the whole word and, for a compound, its parts. Cached: code repeats its words, and
    splitting each occurrence again was most of a point's sparse vector."""
    parts = [p for piece in word.split("_") for p in _CAMEL.findall(piece)]
    whole = word.lower().strip("_")
    out = [whole] if len(whole) >= 2 and whole not in STOP else []
    if len(parts) > 1:
        out.extend(p.lower() for p in parts if len(p) >= 2 and p.lower() not in STOP)
    return tuple(out)


def token_id(token: str) -> int:
    return zlib.crc32(token.encode("utf-8")) & 0x7FFFFFFF


def document_vector(text: str) -> models.SparseVector:
    tokens = tokenize(text)
    counts = Counter(tokens)
    dl = len(tokens) or 1
    norm = K1 * (1 - B + B * dl / AVG_DOC_TOKENS)
    weights: dict[int, float] = {}
    for tok, tf in counts.items():
        idx = token_id(tok)
        weights[idx] = weights.get(idx, 0.0) + tf * (K1 + 1) / (tf + norm)
    items = sorted(weights.items())
    return models.SparseVector(indices=[i for i, _ in items], values=[round(v, 4) for _, v in items])


def query_vector(text: str) -> models.SparseVector:
    ids = sorted({token_id(t) for t in tokenize(text)})
    return models.SparseVector(indices=ids, values=[1.0] * len(ids))


# Words of an identifier for prose (intents, symbol sentences, the name lane); \d, not [0-9], as it always was.
_IDENT_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def words(identifier: str) -> str:
    """`AddLineItem` / `add_line_item` / `ADD-LINE` -> "add line item"."""
    parts = []
    for token in re.split(r"[^A-Za-z0-9]+", identifier):
        parts.extend(m.group(0).lower() for m in _IDENT_PART.finditer(token))
    return " ".join(parts)
