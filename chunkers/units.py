"""Bounds shared by the structural chunkers (C#, TypeScript/JavaScript, the
tree-sitter engine): what a chunk may carry besides its own lines.

A chunk's `text` is its lines; everything else it stores (`symbols`,
`skeleton`, the enclosing type's outline in `analysis_text`) is context, and
context must not grow with the file: a member of a 50,000-line class that
carried the class's whole outline made the stored bytes grow with the square
of the class (issue 16). Each helper here returns its input unchanged while it
is within the bound, so files of ordinary size chunk exactly as before.
"""

from __future__ import annotations

import re
from typing import Sequence

from .model import ChunkSymbol
from .redact import cut_redacted


def cap_symbols(symbols: Sequence[ChunkSymbol], limit: int) -> list[ChunkSymbol]:
    """At most `limit` symbols, in order (a chunk's own symbol comes first)."""
    return list(symbols) if len(symbols) <= limit else list(symbols[:max(1, limit)])


# A grammar's parse of hostile input can grow with the square of its size (a `.js` of `secret: …` runs and tabs: 30
# CPU s for 784 KB), where real files cost 7-19 of tree-sitter's progress calls a KB (dagster-webserver's bundles of
# 0.5-3.4 MB, jotai's sources) and that input 104-410. Past PARSE_CALLS_PER_KB a KB (at least PARSE_CALLS_MIN) the
# parse stops and the chunker takes its other path. Counted in calls, not seconds: a file chunks the same way on a
# loaded machine (the idempotent check re-chunks and compares).
PARSE_CALLS_PER_KB, PARSE_CALLS_MIN = 100, 2000
# The lexer's own work is read, not counted by progress calls: a comment opened again and again and never closed
# (`x /*` × 16,000, 62 KB) is lexed to the end of the file from each opening, the square of the file (JavaScript
# 9.3 CPU s, TypeScript, C#, Go, Java, Kotlin, Swift 4-5 s; a 2 MB file hours). The source is handed to the parser
# PARSE_READ_BYTES at a time and its reads counted: real files take 1.7 reads a KB (1.6-1.8 on 0.3-3.2 MB bundles, up
# to 7 on files of 2 KB), that file 8,400-16,800. Past PARSE_READS_PER_KB a KB (at least PARSE_READS_MIN) the parse
# stops as above.
PARSE_READ_BYTES, PARSE_READS_PER_KB, PARSE_READS_MIN = 1024, 64, 2000
# C#'s and Java's grammars take the square of a run of `<` after a word that nothing closes (`x is List<` × 8,000,
# 80 KB: 125 CPU s in C#; `x <`, `Func<`, `a<b<`), and neither progress calls nor reads see the work, which is the
# error recovery between them. Such a run is ended by `;`, a brace, `)`, `]` or `>`: real files hold at most 6 (the
# JDK's 15,224 sources, eShop's and MediatR's C#), and runs of 200 between them parse in linear time. Past
# GENERIC_RUN_MAX the parse is not begun and the chunker takes its other path.
GENERIC_RUN_MAX = 256
_GENERIC_SCAN = re.compile(
    rb'"""(?:[\s\S]*?"""|[\s\S]*)|@"(?:[^"]|"")*"?|"(?:\\.|[^"\\\n])*"?|\'(?:\\.|[^\'\\\n])*\'?'  # strings
    rb"|//[^\n]*|/\*(?:[\s\S]*?\*/|[\s\S]*)"  # comments (one never closed runs to the end, read once)
    rb"|\w[ \t\r\n]*(<)(?![<=])|[;{})\]>]")


def longest_generic_run(src: bytes) -> int:
    """The longest run of `<` after a word (a type argument list opened, or a comparison) with no `;`, brace,
    `)`, `]` or `>` between them, outside strings and comments; 0 where the file holds too few `<` for a run to
    pass GENERIC_RUN_MAX (not read)."""
    if src.count(b"<") <= GENERIC_RUN_MAX:
        return 0
    run = longest = 0
    for m in _GENERIC_SCAN.finditer(src):
        if m.start(1) >= 0:
            run += 1
            longest = max(longest, run)
        elif m.end() - m.start() == 1:
            run = 0
    return longest


# What a chunk repeats of a declaration is bounded: a name holds at most NAME_CHARS characters and a header's line (a
# qualified name, a part's signature) at most HEADER_LINE_CHARS, cut after redaction. Each member's part repeated its
# type's whole name (a class named with 200 KB and 3,000 methods: 600 MB of headers and symbols, 2-8 minutes).
NAME_CHARS, HEADER_LINE_CHARS = 200, 1000


class ParseBudgetExceeded(ValueError):
    """A grammar's parse passed its budget (parse_bounded)."""


# Python's grammar takes the square of a run of lines each ending in a backslash glued to a name (`x\` × 8,000, 24
# KB: 1.9 CPU s; 2 MB hours), unseen by both budgets. Real files continue at most 37 lines in a row (site-packages'
# 17,233 files); past CONTINUATION_RUN_MAX the parse is not begun.
CONTINUATION_RUN_MAX = 256


def longest_continuation_run(src: bytes) -> int:
    """The most lines in a row that end in a backslash (a line continued); 0 where the file continues too few lines
    for a run to pass CONTINUATION_RUN_MAX (not read)."""
    if src.count(b"\\\n") + src.count(b"\\\r\n") <= CONTINUATION_RUN_MAX:
        return 0
    run = longest = 0
    for line in src.split(b"\n"):
        if line.endswith((b"\\", b"\\\r")):
            run += 1
            longest = max(longest, run)
        else:
            run = 0
    return longest


# The grammars that take the square of a run neither budget sees, each with its run's reader, bound and reason: the
# source is read before the parse, which is not begun past the bound.
_GENERIC = (longest_generic_run, GENERIC_RUN_MAX, "a run of {} `<` that nothing closes: the grammar's parse would take "
            "its square")
_RUN_SCREENS = {
    "csharp": _GENERIC,
    "java": _GENERIC,
    "python": (longest_continuation_run, CONTINUATION_RUN_MAX,
               "{} lines continued in a row: the grammar's parse would take their square"),
}


def parse_bounded(parser, src: bytes, grammar: str = ""):
    """`parser.parse(src)`, stopped past PARSE_CALLS_PER_KB progress calls or PARSE_READS_PER_KB reads of the
    source a KB (ParseBudgetExceeded); for a grammar in _RUN_SCREENS (`grammar`: its name), not begun on a run
    past its bound."""
    if grammar in _RUN_SCREENS:
        longest, bound, reason = _RUN_SCREENS[grammar]
        if (run := longest(src)) > bound:
            raise ParseBudgetExceeded(reason.format(run))
    budget = PARSE_CALLS_MIN + PARSE_CALLS_PER_KB * len(src) // 1024
    read_budget = PARSE_READS_MIN + PARSE_READS_PER_KB * len(src) // 1024
    calls = reads = 0
    parsing = True

    def read(at: int, _point) -> bytes:
        nonlocal reads
        if not parsing:  # a node's text, read through this after the parse: not the parse's work
            return src[at:at + 65536]
        reads += 1
        return src[at:at + PARSE_READ_BYTES] if reads <= read_budget else b""  # past it: the end, so the lexer stops

    def progress(*_) -> bool:
        nonlocal calls
        calls += 1
        return calls > budget or reads > read_budget

    try:
        tree = parser.parse(read, progress_callback=progress)
    except ValueError as exc:
        parser.reset()  # a stopped parse would otherwise resume on the parser's next input
        if calls > budget or reads > read_budget:
            raise ParseBudgetExceeded(f"the grammar's parse passed its budget ({calls} steps, {reads} reads) for "
                                      f"{len(src)} bytes") from exc
        raise
    if reads > read_budget:  # finished on the end it was shown, before a progress call could stop it
        raise ParseBudgetExceeded(f"the grammar's parse passed its budget ({reads} reads) for {len(src)} bytes")
    parsing = False
    return tree


def cap_outline(text: str, limit: int, comment: str = "//") -> str:
    """An outline (skeleton) of at most about `limit` characters: whole lines
    while they fit, then one line saying how many were left out. A single line
    over the limit (minified code) keeps its first characters and ` …`."""
    if len(text) <= limit:
        return text
    limit = max(80, limit)
    room = limit - 40  # for the closing "… N more lines"
    end = text.rfind("\n", 0, room + 1)  # the last line break that keeps whole lines within room
    if end <= 0:  # the first line alone is over the limit
        first_end = text.find("\n")
        kept = cut_redacted(text[:first_end] if first_end >= 0 else text, room).rstrip() + " …"
        at = first_end + 1 if first_end >= 0 else len(text)
        last = kept
    else:
        kept = text[:end]
        at = end + 1
        last = kept[kept.rfind("\n") + 1:]
    rest = text.count("\n", at) + 1 if at < len(text) else 0
    if not rest:
        return kept
    indent = last[:len(last) - len(last.lstrip())]
    return f"{kept}\n{indent}{comment} … {rest} more line{'s' if rest != 1 else ''}"


def neighbourhood(head: str, outline: Sequence[str], index: int, budget: int, tail: str = "",
                  indent: str = "    ", comment: str = "//") -> str:
    """A large type's outline as one member sees it: the type's declaration
    (`head`), the outline lines of the members nearest to member `index` (it
    included) while they fit `budget` characters, a `… N more members` line
    for each side left out, and `tail` (the closing brace).

    The cost is O(budget) per member, so a type of n members costs O(n) in
    all, where its whole outline in every member cost O(n²)."""
    n = len(outline)
    if n == 0:
        return "\n".join(p for p in (head, tail) if p)
    index = min(max(index, 0), n - 1)
    lo = hi = index  # members lo..hi are kept
    size = len(outline[index]) + 1
    while True:
        grew = False
        if lo > 0 and size + len(outline[lo - 1]) + 1 <= budget:
            lo -= 1
            size += len(outline[lo]) + 1
            grew = True
        if hi < n - 1 and size + len(outline[hi + 1]) + 1 <= budget:
            hi += 1
            size += len(outline[hi]) + 1
            grew = True
        if not grew:
            break
    out = [head] if head else []
    if lo > 0:
        out.append(f"{indent}{comment} … {lo} more member{'s' if lo != 1 else ''}")
    out.extend(outline[lo:hi + 1])
    if hi < n - 1:
        rest = n - 1 - hi
        out.append(f"{indent}{comment} … {rest} more member{'s' if rest != 1 else ''}")
    if tail:
        out.append(tail)
    return "\n".join(out)


def fits_a_neighbour(outline: Sequence[str], index: int, budget: int) -> bool:
    """Whether `neighbourhood(..., outline, index, budget)` keeps any member's
    line besides member `index`'s own (its first step of growth)."""
    room = budget - len(outline[index]) - 1
    return any(len(outline[j]) + 1 <= room for j in (index - 1, index + 1) if 0 <= j < len(outline))


def member_context(head: str, outline: Sequence[str], index: int, room: int, tail: str = "",
                   indent: str = "    ", comment: str = "//") -> str:
    """What a member of a huge type sees of it: its `neighbourhood` within `room` characters
    of outline, or "" where no neighbour's line fits (it would only repeat the member's own
    line between "… N more members" lines). C#, TypeScript and the tree-sitter languages
    call this with room = min(member_context_chars, the member's size less what the context
    holds besides outline lines), so the whole context is at most the member itself."""
    if not fits_a_neighbour(outline, index, room):
        return ""
    return neighbourhood(head, outline, index, room, tail, indent, comment)


def part_skeleton(skeleton: str, parts: int, unit_chars: int, limit: int, comment: str = "//") -> str:
    """The skeleton one of a unit's `parts` parts carries (each part repeats
    the unit's skeleton): at most `limit` characters, and, over all its parts,
    a unit of `unit_chars` characters stores at most twice its size (or
    `limit`, when more) of skeleton: a 20,000-line enum cut into 80 parts
    must not store its outline 80 times."""
    if parts > 1:
        limit = min(limit, max(limit, 2 * unit_chars) // parts)
    return cap_outline(skeleton, limit, comment)
