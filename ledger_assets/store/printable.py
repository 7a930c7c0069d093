"""What a text output shows of a name, a file's lines or an error: one line, as the terminal will draw it.

A path, a repo id or a symbol name can hold what a terminal takes for something else (a carriage return, a line
break, an escape sequence, a bidi override); a huge input echoed in an error floods a terminal or an agent's
context. These helpers escape the first and cut the second; the JSON outputs carry every value exact
(docs/decisions.md, "What a hostile name or line shows").
"""

from __future__ import annotations

import re
from pathlib import Path

# What a file name may hold that would break or disguise a line of text where it is shown: control characters (a
# carriage return writes over the line, a line break starts a false one), the Unicode marks that reorder what
# follows on screen (bidi embeddings, overrides and isolates: "Trojan Source"), zero-width characters and line
# and paragraph separators.
UNPRINTABLE = "\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff"  # a regex class's body
_UNPRINTABLE = re.compile(f"[{UNPRINTABLE}]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match) -> str:
    ch = match.group()
    return _ESCAPES.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


def printable(text: str) -> str:
    """`text` with what `_UNPRINTABLE` names written as an escape (`\\r`, `\\x1b`, `\\u202e`): what the text outputs
    show of a path, a repo id or a symbol name. The JSON outputs carry the value as it is."""
    return _UNPRINTABLE.sub(_escape, text)


MAX_MESSAGE_CHARS = 2_000


def error_line(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """An error line for a person (`printable`) or an agent: one that echoes a huge input back (a symbol name or
    a repo id of a megabyte) is cut in the middle, with its length, and stays one readable line. Escaped before it
    is cut, so an escape's six characters a character cannot stretch it past the limit."""
    text = printable(text)
    if len(text) > limit:
        text = f"{text[:limit // 2]}… ({len(text):,} characters) …{text[-limit // 3:]}"
    return text


_UNPRINTABLE_IN_CODE = re.compile(f"(?![\t\n]|\r\n)[{UNPRINTABLE}]")


def printable_code(text: str) -> str:
    """`printable` for lines of a file as the text outputs show them: tabs and line ends kept; an escape sequence
    (a terminal's title, colours, a cursor move), a stray carriage return or a bidi override ("Trojan Source") in a
    line shown as its escape, so what the terminal shows is what the file holds."""
    return _UNPRINTABLE_IN_CODE.sub(_escape, text)


def show_path(path: str | Path, limit: int = 120) -> str:
    """A path for a one-line message: `error_line`'s escape and cut, to a path's shorter limit (its end, the file's
    name, kept)."""
    return error_line(str(path), limit)
