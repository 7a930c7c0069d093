"""The symbol lane: one short sentence per symbol, scored per chunk by its best symbol.

A chunk is a unit of storage, not of meaning: a small C# class is one chunk holding a dozen
members, and its code and design vectors average over all of them. A question about one member
is best answered by a vector of that member alone. So each symbol gets a line of its own,

    Gets the clr type. property clr type of core type mapping: <doc sentence>. public Type ClrType { get; }

(the name worded as its doc's first sentence would be, see `gloss`, since a question reads like a
doc sentence; kind, name and parent in words; the first doc sentence; the declaration and the first
lines of the body: the next line where there is a doc sentence, five without), embedded with the same
model and stored on the chunk that *owns* the symbol as one vector of a Qdrant multivector (`symbol_vector`,
MaxSim): a query scores a chunk by its closest symbol. Ownership: of the chunks listing a symbol, the smallest one
holding its first line, so each symbol is embedded once. A name not led by a known verb gets no gloss ("vat_amount"
would read "Vats the amount"). What the lane and the gloss are worth: docs/decisions.md, benchmarks/README.md.
"""

from __future__ import annotations

import re
from typing import Iterable

from chunkers.model import TRANSFORMED_TYPES

from ledger_assets.encode.lexical import words
from ledger_assets.intents.heuristic import doc_comment

MAX_SYMBOL_CHARS = 400
# A chunk listing hundreds of symbols (an enum, a config file) keeps its first ones:
# a point's multivector stays small, and such symbols are alike anyway.
MAX_SYMBOLS_PER_CHUNK = 48
# ... and at most one a line past the first few: a slice of a minified line owns dozens of symbols on
# one line (a 0.25 MB bundle: 44 chunks, 2,200 sentences, 50 embeddings a chunk, nearly all of the
# ingest's time), where readable code has fewer symbols than lines (no chunk of starlette, chi,
# MediatR or jotai is over the bound).
MIN_SYMBOLS_PER_CHUNK = 8
_BODY_LINES = 6
# A symbol with a doc sentence: its sentence reads the declaration and one body line, since the doc sentence says
# what the body lines would (measured in docs/decisions.md, issue 30's seventeenth round). The lines a sentence
# *quotes* for pooling and `told_by_type` stay `_BODY_LINES` (`quoted_lines`).
_DOC_BODY_LINES = 2
_DOC_ABOVE = 12
_DOCSTRING = ('"""', "'''")
_SKIP_LINE = re.compile(r"^\s*(?://|#|/\*|\*|\[|@|--)")


def owned_symbols(chunks: Iterable[dict]) -> dict[int, list[dict]]:
    """chunk_index -> the symbols that chunk owns, for the chunks of one file.

    Each chunk: chunk_index, start_line, end_line, symbols (a list of dicts).
    """
    owner: dict[tuple, tuple[int, int, dict]] = {}
    for c in chunks:
        syms = c.get("symbols") or []
        start, end, idx = c["start_line"], c["end_line"], c["chunk_index"]
        for s in syms:
            key = (s.get("name"), s.get("kind"), s.get("parent", ""), s.get("start_line"), s.get("end_line"))
            holds = start <= (s.get("start_line") or 0) <= end
            # Holding the first line beats not holding it; then the smaller span, then the earlier chunk.
            rank = (0 if holds else 1, end - start, idx)
            cur = owner.get(key)
            if cur is None or rank < cur[0]:
                owner[key] = (rank, idx, s)
    lines = {c["chunk_index"]: c["end_line"] - c["start_line"] + 1 for c in chunks}
    out: dict[int, list[dict]] = {}
    for _, idx, s in sorted(owner.values(), key=lambda v: (v[1], v[2].get("start_line") or 0, v[2].get("name", ""))):
        lst = out.setdefault(idx, [])
        if len(lst) < min(MAX_SYMBOLS_PER_CHUNK, max(MIN_SYMBOLS_PER_CHUNK, lines[idx])):
            lst.append(s)
    return out


def _verbatim_lines(chunk: dict) -> list[str] | None:
    """The chunk's body lines, one per source line, when its body is verbatim source, else None."""
    if chunk.get("chunk_type") in TRANSFORMED_TYPES:
        return None
    text, header = chunk.get("text") or "", chunk.get("header") or ""
    body = text[len(header):] if header and text.startswith(header) else text
    lines = body.split("\n")
    return lines if len(lines) == chunk["end_line"] - chunk["start_line"] + 1 else None


def _source_lines(chunk: dict, symbol: dict) -> list[str]:
    """The symbol's own lines when the chunk's body is verbatim source, else []."""
    lines = _verbatim_lines(chunk)
    if lines is None:
        return []
    lo = max(symbol.get("start_line", 0), chunk["start_line"]) - chunk["start_line"]
    hi = min(symbol.get("end_line", 0), chunk["end_line"]) - chunk["start_line"]
    if lo > hi:
        return []
    # The doc comment and attributes directly above a declaration belong to it.
    top = lo
    while top > 0 and lo - top < _DOC_ABOVE and lines[top - 1].strip() and _SKIP_LINE.match(lines[top - 1]):
        top -= 1
    return lines[top:hi + 1]


_ASKS = frozenset(("is", "has", "can", "should", "contains", "supports", "are", "equals", "exists"))
# Verbs that begin method names; a name led by any other word (`vat_amount`,
# `ToString`) gets no gloss rather than a wrong one ("Vats the amount").
_VERBS = frozenset("""
accept acquire activate add adjust allocate append apply assert assign attach authenticate authorize
begin bind build cache calculate call cancel capture change check clean clear clone close collect combine
commit compare compile complete compose compute configure connect construct consume contain convert copy
count create decode decorate delete deserialize detach detect determine discover dispatch dispose do
download drop emit enable disable encode end enqueue dequeue ensure enter enumerate escape evaluate
execute exit expand export extract fetch fill filter find finish flush format generate get group handle
hash import include increment decrement index infer initialize inject insert install invoke join keep
load lock log lookup make map mark match materialize merge migrate modify move normalize notify open
optimize order parse pause peek perform persist pop populate post prepare print process produce
project publish pull push put query queue raise read rebuild receive record reduce refresh register
reject release reload remove rename render reorder replace report request require reset resize resolve
restore resume retrieve retry return reverse rewrite roll rollback run save scan schedule search select
send serialize set setup show shutdown skip sort split start stop store strip submit subscribe
substitute suppress swap sync take throw toggle track transform translate traverse trim truncate try
unlock unregister unsubscribe unwrap update upload upsert use validate verify visit wait walk warn
wrap write
aggregate archive book bootstrap broadcast charge clamp customize decrypt delimit deploy describe destroy
diff disconnect edit encrypt enlist evict expire flatten fold forward freeze grant guard ignore indent
inspect intercept invalidate iterate limit listen measure mount observe pack pad paginate patch pay ping
poll prepend preview probe promote propagate protect provide prune purge rank redirect refine refund
reindex rent repair repeat replay reserve revoke rotate route sample sanitize scale seed seek ship shift
sign simplify slice spawn stage stream summarize suspend tag tokenize touch trace trigger unpack unset
upgrade watch yield""".split())
_VALUE_KINDS = frozenset(("property", "field", "const"))
_TYPE_GLOSS_KINDS = frozenset(("class", "struct", "record", "record struct"))


def _third_person(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return verb + "es"
    if len(verb) > 1 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def gloss(kind: str, leaf: str) -> str:
    """The name worded as the first sentence of its documentation, the way API
    docs put it: `CommandText` (property) -> "Gets the command text", `CreateDbCommand`
    -> "Creates the db command", `IsNullable` -> "Determines whether nullable", a
    constructor -> "Initializes a new instance of the ... class"; "" when the kind has
    no such wording. A question is usually phrased like such a sentence, not like
    "property command text".
    """
    w = words(leaf)
    if not w or leaf.startswith("_"):
        return ""
    if kind in _VALUE_KINDS:
        return f"Gets the {w}"
    if kind == "constructor":
        return f"Initializes a new instance of the {w} class"
    if kind in ("method", "function"):
        first, _, rest = w.partition(" ")
        if first in _ASKS:
            return f"Determines whether {rest or w}"
        if first not in _VERBS:
            return ""
        if not rest:
            return _third_person(first).capitalize()
        return f"{_third_person(first).capitalize()} the {rest}"
    if kind in _TYPE_GLOSS_KINDS:
        return f"Represents a {w}"
    if kind == "interface":
        return f"Defines a {words(leaf[1:]) if re.match(r'I[A-Z]', leaf) else w}"
    if kind == "enum":
        return f"The {w} values"
    if kind == "event":
        return f"Occurs when {w}"
    return ""


def symbol_text(symbol: dict, lines: list[str], head_only: bool = False) -> str:
    """The sentence embedded for one symbol (see the module docstring); `head_only`: without
    the declaration and body lines (the lean profile's lead of the code text)."""
    name, kind = symbol.get("name", ""), symbol.get("kind", "")
    leaf = re.split(r"\.|::", name)[-1] or name
    parent = re.split(r"\.|::", symbol.get("parent", "") or "")[-1]
    head = f"{kind} {words(leaf) or leaf}".strip()
    if parent and not parent.isdigit():
        head += f" of {words(parent) or parent}"
    window = lines[:40]
    at = _declaration_at(leaf, window)
    body = ""
    if at is not None:
        # The doc sits above the declaration, or (a docstring) right below it; never
        # further down, where a nested member's doc would be taken for this one's.
        near = window[:at + 1]
        after = [ln for ln in window[at + 1:at + 4] if ln.strip()]
        if after and after[0].lstrip().startswith(_DOCSTRING):
            near += window[at + 1:at + 8]
        doc = doc_comment("\n".join(near), window[at])
        if doc:
            head += ": " + doc.rstrip(".")
        body = " ".join(_body_lines(lines, at, _DOC_BODY_LINES if doc else _BODY_LINES))
    text = f"{head}. {body}" if body and not head_only else f"{head}."
    lead = gloss(kind, leaf)
    if lead:
        text = f"{lead}. {text}"
    return " ".join(text.split())[:MAX_SYMBOL_CHARS]


def _declaration_at(leaf: str, window: list[str]) -> int | None:
    """The line declaring the symbol: the first code line naming it, else the first code line."""
    pattern = re.compile(rf"(?<!\w){re.escape(leaf)}(?!\w)") if leaf else None
    at = next((i for i, ln in enumerate(window)
               if ln.strip() and not _SKIP_LINE.match(ln) and pattern is not None and pattern.search(ln)), None)
    if at is None:
        at = next((i for i, ln in enumerate(window) if ln.strip() and not _SKIP_LINE.match(ln)), None)
    return at


def _body_lines(lines: list[str], at: int, n: int = _BODY_LINES) -> list[str]:
    """The declaration and the first body lines (`n` lines from the declaration), stripped, comments and blanks
    left out."""
    return [ln.strip() for ln in lines[at:at + n] if ln.strip() and not _SKIP_LINE.match(ln)]


def quoted_share(chunk: dict, symbols: list[dict]) -> float:
    """The share of a chunk's code lines (not blank, not a comment or an attribute) that its symbols' sentences
    quote (each a declaration and its first body lines, as `symbol_text` reads them): how much of the chunk the
    symbol lane already reads. 0.0 where the body is not verbatim source."""
    lines = _verbatim_lines(chunk)
    if lines is None:
        return 0.0
    code = {chunk["start_line"] + i for i, ln in enumerate(lines) if ln.strip() and not _SKIP_LINE.match(ln)}
    quoted = set().union(*(quoted_lines(chunk, s, lines) for s in symbols))
    return len(quoted & code) / len(code) if code else 1.0


def quoted_lines(chunk: dict, symbol: dict, lines: list[str] | None = None) -> set[int]:
    """The source lines (numbers) a symbol's sentence quotes in its chunk: its declaration and first body lines,
    comments and blanks left out; empty where the body is not verbatim source. Always the first `_BODY_LINES`, even
    where a doc sentence shortens the sentence's text (`_DOC_BODY_LINES`): which chunks are pooled, and which
    members `told_by_type` drops, stay as the sixteenth round left them."""
    lines = _verbatim_lines(chunk) if lines is None else lines
    if lines is None:
        return set()
    lo = max(symbol.get("start_line") or 0, chunk["start_line"]) - chunk["start_line"]
    hi = min(symbol.get("end_line") or 0, chunk["end_line"]) - chunk["start_line"]
    if lo > hi:
        return set()
    window = lines[lo:hi + 1][:40]
    at = _symbol_declaration(symbol, window)
    if at is None:
        return set()
    return {chunk["start_line"] + lo + at + k for k, ln in enumerate(window[at:at + _BODY_LINES])
            if ln.strip() and not _SKIP_LINE.match(ln)}


_TYPE_KINDS = frozenset(("class", "struct", "record", "record struct"))


def told_by_type(chunk: dict, symbols: list[dict]) -> list[dict]:
    """The symbols a chunk owns less the members its type's sentence quotes whole (a small class's fields,
    auto-properties and constructor right below its head: `public Handler(IService s) => _s = s;`): that sentence
    reads the same lines and names the same type, so a second sentence buys nothing measurable (docs/decisions.md,
    issue 30's twelfth and thirteenth rounds). A documented member rarely qualifies: its doc lines push it past the
    quoted lines."""
    types = [s for s in symbols if s.get("kind", "") in _TYPE_KINDS]
    if not types:
        return symbols
    lines = _verbatim_lines(chunk)
    quoted = set().union(*(quoted_lines(chunk, t, lines) for t in types)) if lines is not None else set()
    return [s for s in symbols if s.get("kind", "") in _TYPE_KINDS
            or not {s.get("start_line"), s.get("end_line")} <= quoted]


def symbol_code(symbol: dict, lines: list[str]) -> list[str]:
    """The lines a full symbol sentence quotes after its head (declaration and first body lines): what a
    `joint` head reads in its chunk's code instead (encode/joint.py)."""
    at = _symbol_declaration(symbol, lines[:40])
    return [] if at is None else _body_lines(lines, at)


def _symbol_declaration(symbol: dict, window: list[str]) -> int | None:
    """Where in `window` the symbol is declared (`_declaration_at` of its leaf name)."""
    name = symbol.get("name", "")
    return _declaration_at(re.split(r"\.|::", name)[-1] or name, window)


def file_symbol_texts(chunks: list[dict], head_only: bool = False,
                      owned: dict[int, list[dict]] | None = None) -> dict[int, list[str]]:
    """chunk_index -> the symbol sentences of the symbols it owns, for the chunks of one file (`owned`: their
    `owned_symbols`, when the caller has it already)."""
    by_index = {c["chunk_index"]: c for c in chunks}
    owned = owned_symbols(chunks) if owned is None else owned
    return {idx: [symbol_text(s, _source_lines(by_index[idx], s), head_only) for s in syms]
            for idx, syms in owned.items()}


def file_symbol_heads(chunks: list[dict]) -> dict[int, list[tuple[str, list[str]]]]:
    """chunk_index -> (head sentence, `symbol_code`) of each symbol it owns: what a `joint` input reads."""
    by_index = {c["chunk_index"]: c for c in chunks}
    out = {}
    for idx, syms in owned_symbols(chunks).items():
        pairs = []
        for s in syms:
            lines = _source_lines(by_index[idx], s)
            pairs.append((symbol_text(s, lines, head_only=True), symbol_code(s, lines)))
        out[idx] = pairs
    return out
