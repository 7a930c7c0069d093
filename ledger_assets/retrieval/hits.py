"""A search hit and how it is shown: the JSON object, the TOON row, the text listing."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ledger_assets.store.printable import UNPRINTABLE, printable, printable_code
from ledger_assets.store.settings import FILE_CHUNKS, SNIPPET_CHARS


@dataclass
class Deprecation:
    """A chunk's `deprecated` mark, as a hit shows it."""
    reason: str
    utc: str = ""


@dataclass
class HitRow:
    """The fields of `Hit.to_dict` (the payload it carries along aside): the CLI's JSON hit, and the
    MCP output schema of one (mcp_server.py builds it from these fields)."""
    rank: int
    score: float
    repo_id: str
    file_path: str
    start_line: int
    end_line: int
    chunk_type: str
    symbols: list[str] = field(default_factory=list)
    snippet: str = ""
    intent: str = ""
    intent_source: str = ""
    stale: bool = False
    stale_reason: str | None = None
    live_start_line: int | None = None
    live_end_line: int | None = None
    lane_ranks: dict[str, int] = field(default_factory=dict)
    collapsed: list[str] = field(default_factory=list)
    deprecated: Deprecation | None = None


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
        if p.get("deprecated"):  # shown only when a query asked for deprecated points too
            out["deprecated"] = deprecation(p)
        if self.collapsed:
            out["collapsed"] = list(self.collapsed)
        out["payload"] = dict(p)
        return out


def deprecation(payload: dict) -> dict | None:
    """The payload's `deprecated` mark as {"reason", "utc"} (None when not deprecated)."""
    mark = payload.get("deprecated")
    if not mark:
        return None
    if isinstance(mark, dict):
        return {"reason": str(mark.get("reason") or ""), "utc": str(mark.get("utc") or "")}
    return {"reason": str(mark), "utc": ""}


def _deprecated_flag(payload: dict) -> str:
    mark = deprecation(payload)
    if mark is None:
        return ""
    reason = mark["reason"].replace("\r", " ").replace("\n", " ").replace("|", "¦").replace("⟫", ">")
    return f"!deprecated({reason}) "


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


# What would break a TOON row (one hit per line, `|` between fields, `⟫` before the body): a line
# break of any kind (str.splitlines splits at \v, \f, \x1c-\x1e, \x85, \u2028, \u2029 too), a delimiter,
# a quote, a backslash, other control characters, blanks at an end; and what would disguise it on screen (bidi
# controls, zero-width characters: printable's set).
_TOON_UNSAFE = re.compile(rf'[|⟫",\\{UNPRINTABLE}]|^\s|\s$')
_TOON_QUOTED = re.compile(f"[|⟫{UNPRINTABLE}]")  # what json.dumps leaves as it is
_TOON_BREAKS = re.compile(r"[\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def toon_field(value) -> str:
    """A field of a TOON row: as it is, or (when it holds what would break the row) a JSON
    string with the delimiters escaped too, so that `json.loads` gives the value back."""
    text = "" if value is None else str(value)
    if not _TOON_UNSAFE.search(text):
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    return _TOON_QUOTED.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def toon_body(text: str) -> str:
    """The body after `⟫`: one line, `⏎` for each line break, `¦` for `|`."""
    return printable_code(_TOON_BREAKS.sub("⏎", text.replace("\r\n", "\n").replace("\r", "")).replace("|", "¦"))


def toon_row(h: Hit, detail: str = "snippet") -> str:
    p = h.payload
    body = toon_body(render_body(p, detail))
    if detail == "snippet":
        body = body[:SNIPPET_CHARS]
    start, end = p.get("start_line"), p.get("end_line")
    if h.freshness.get("live_start_line") is not None:
        start, end = h.freshness["live_start_line"], h.freshness["live_end_line"]
    flag = ("!stale " if h.freshness.get("stale") else "") + _deprecated_flag(p)
    return (f"{toon_field(p.get('repo_id'))}|{toon_field(p.get('layer', ''))}|{toon_field(p.get('pattern', ''))}|"
            f"{toon_field(p.get('file_path'))}|L{start}-L{end}⟫{flag}{body}")


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
        syms = printable(", ".join(d["symbols"][:5]))
        lanes = " ".join(f"{k}#{v}" for k, v in sorted(d["lane_ranks"].items()))
        stale = ""
        if d["stale"]:
            stale = f"  STALE ({d.get('stale_reason', '')}"
            stale += f"; now L{d['live_start_line']}-L{d['live_end_line']})" if "live_start_line" in d else ")"
        where = printable(f"{d['repo_id']}:{d['file_path']}")
        out.append(f"{d['rank']:>2}. {where}:{d['start_line']}-{d['end_line']} "
                   f"[{d['chunk_type']}] score={d['score']:.4f} ({lanes})" + (f"  {syms}" if syms else "") + stale)
        if d.get("deprecated"):
            out.append(f"    DEPRECATED ({d['deprecated']['utc'] or 'no date'}): {d['deprecated']['reason']}")
        if d["intent"]:
            out.append(f"    intent: {d['intent']}")
        limit = None if detail != "snippet" else 12
        out.extend("    " + line for line in printable_code(d["snippet"]).splitlines()[:limit])
    return "\n".join(out) if out else "no hits"


FILE_TOON_LEGEND = "repo|path|score|test|Lstart-Lend,…(best chunks)⟫best snippet"


def format_files(files: list, fmt: str = "text", detail: str = "snippet", chunks: int = FILE_CHUNKS) -> str:
    """`--group file` hits (groups.FileHit): a file per row, with its best chunks' line ranges."""
    if fmt == "json":
        return json.dumps([f.to_dict(detail, chunks) for f in files], indent=2, ensure_ascii=False)
    if fmt == "jsonl":
        return json.dumps([f.to_dict(detail, chunks) for f in files], ensure_ascii=False)
    if fmt == "toon":
        rows = [FILE_TOON_LEGEND]
        for f in files:
            spans = ",".join(f"L{h.payload.get('start_line')}-L{h.payload.get('end_line')}" for h in f.chunks[:chunks])
            body = toon_body(render_body(f.chunks[0].payload, detail))
            if detail == "snippet":
                body = body[:SNIPPET_CHARS]
            rows.append(f"{toon_field(f.repo_id)}|{toon_field(f.file_path)}|{f.score:.4f}|{'test' if f.test else ''}|"
                        f"{spans}⟫{body}")
        return "\n".join(rows)
    out = []
    for f in files:
        out.append(f"{f.rank:>2}. {printable(f.repo_id)}:{printable(f.file_path)} score={f.score:.4f} "
                   f"({len(f.chunks)} chunks{', test' if f.test else ''})")
        for h in f.chunks[:chunks]:
            p = h.payload
            syms = printable(", ".join(symbol_names(p)[:4]))
            stale = "  STALE" if h.freshness.get("stale") else ""
            if deprecation(p):
                stale += f"  DEPRECATED: {deprecation(p)['reason']}"
            out.append(f"    L{p.get('start_line')}-L{p.get('end_line')} [{p.get('chunk_type')}] "
                       f"score={h.score:.4f}" + (f"  {syms}" if syms else "") + stale)
        first = printable_code(render_body(f.chunks[0].payload, detail)).splitlines()
        out.extend("      " + line for line in first[:(6 if detail == "snippet" else None)])
    return "\n".join(out) if out else "no hits"
