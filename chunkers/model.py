"""The chunk as every chunker returns it: bytes in, `ChunkPiece`s out."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from .windows import PLAIN_MAX_CHARS, PLAIN_OVERLAP_CHARS

# Chunk types whose text is a transformed view of the file (flattened, redacted,
# refs inlined, extracted from pages): their line ranges are honest, but their
# body is not a verbatim copy of those lines.
TRANSFORMED_TYPES = frozenset({"config", "openapi_operation", "openapi_schema", "pdf_pages"})


@dataclass(frozen=True)
class ChunkSymbol:
    name: str
    kind: str
    parent: str = ""
    start_line: int = 0
    end_line: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "parent": self.parent,
            "start_line": self.start_line,
            "end_line": self.end_line,
        }


@dataclass
class ChunkPiece:
    """One unit of meaning cut from a file.

    `text` = `header` + body. For verbatim chunk types the body is exactly the
    original lines `start_line..end_line` (1-based, inclusive); a piece of one
    over-long line holds a slice of that line and keeps its line number.
    """

    text: str
    chunk_type: str
    start_line: int
    end_line: int
    analysis_text: str = ""
    symbols: list[ChunkSymbol] = field(default_factory=list)
    skeleton: str = ""
    header: str = ""
    # Format-specific extras that travel to storage as they are
    # (start_page/end_page for PDFs, part/parts for split units, language, ...).
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def body(self) -> str:
        return self.text[len(self.header):] if self.header and self.text.startswith(self.header) else self.text

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunk_type": self.chunk_type,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "text": self.text,
            "analysis_text": self.analysis_text,
            "symbols": [s.to_dict() for s in self.symbols],
            "skeleton": self.skeleton,
            "header": self.header,
            "meta": dict(self.meta),
        }


@dataclass(frozen=True)
class ChunkResult:
    """What `chunk_file_result` returns: the pieces, or why the file was skipped."""

    pieces: list[ChunkPiece]
    skip_reason: str = ""
    # Non-fatal notes (e.g. "openapi parse failed, fell back to config: ...").
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChunkOptions:
    """Every tunable of the chunkers, in one typed place (defaults measured or specified)."""

    # C#/Python/generic: a type over this many characters is split into
    # header + members + full shapes; a member over it is split at statements;
    # the full-type chunk kept beside them is in parts of at most this size, cut
    # at member boundaries. (A separate, larger cap of the full parts, 24,000,
    # was measured and removed: on MediatR's commit set C# full parts of 24,000
    # lost a query at Acc@1 and two at Acc@5 (--group file 0.320 / 0.667 ->
    # 0.313 / 0.653), and Python's at 6,000 instead of 24,000 changed no
    # starlette query; MiniLM reads a part's first 256 tokens only.)
    type_max_chars: int = 6000
    # Bounds on what a chunk stores beside its own lines (issue 16: a member of
    # a huge type carrying the type's whole outline made storage quadratic).
    # At most this many `symbols` per chunk (the chunk's own first; every
    # symbol still lies in the chunk holding its declaration).
    chunk_max_symbols: int = 256
    # Code and SQL: a file of more chunks than this packs runs of consecutive members into one chunk
    # (`packs.pack_members`), so 50,000 generated one-line methods are about this many texts to embed, not
    # 50,000. The most chunks measured in a real code file: docs/decisions.md, "What a hostile name or line shows".
    code_max_chunks: int = 2000
    # At most about this many characters of `skeleton` per chunk (whole outline
    # lines, then a "… N more lines" line). Above the largest real outline
    # measured (rich's Console class: 40,490 characters, docstrings kept).
    skeleton_max_chars: int = 48000
    # C#/TS/JS: a member of a type whose outline is over `type_max_chars`
    # carries, in its analysis_text, the type's declaration and the outline of
    # the members around it (at most this many characters, and at most the
    # member's own size), with "… N more members" lines, instead of the
    # whole outline.
    member_context_chars: int = 1200
    # Markdown: a section over this is split on paragraph boundaries.
    md_section_max_chars: int = 12000
    # Markdown: a file of more sections than this packs consecutive whole sections into one chunk, so a
    # generated changelog of 100,000 headings is about this many chunks to embed, not 100,000. The most
    # sections measured in a real file: 259 (docs/decisions.md).
    md_max_sections: int = 2000
    # PDF: pages are grouped up to about this many characters.
    pdf_group_chars: int = 8000
    # The last resort for a PDF's work that chunkers/pdf.py's count of parsed bytes does not see (that count
    # stops a hostile file first; a deadline is read on the clock, so a file cut by it may chunk differently
    # on a loaded machine).
    pdf_timeout_s: float = 120.0
    # Config / OpenAPI chunks are split when over this.
    config_max_chars: int = 6000
    # Plain fallback windows.
    plain_max_chars: int = PLAIN_MAX_CHARS
    plain_overlap_chars: int = PLAIN_OVERLAP_CHARS
    # SQL: CREATE TABLE statements are boundaries too.
    split_sql_tables: bool = True
    # TS/JS: the tree-sitter path (per-method split of large classes) instead of
    # the brace-depth chunker. Default chosen by measurement (see docs/decisions.md).
    ts_tree_sitter: bool = True
    js_tree_sitter: bool = True


    @classmethod
    def parse(cls, text: str) -> "ChunkOptions":
        """`name=value,name=value` (LEDGER_CHUNK_OPTIONS) over the defaults; ValueError names what is wrong."""
        values: dict = {}
        kinds = {f.name: f.type for f in fields(cls)}
        for item in filter(None, (part.strip() for part in (text or "").split(","))):
            name, sep, raw = item.partition("=")
            name, raw = name.strip(), raw.strip()
            if not sep or name not in kinds:
                raise ValueError(f"{item!r}: expected name=value with a name among {', '.join(sorted(kinds))}")
            kind = kinds[name]
            try:
                if kind in (bool, "bool"):
                    if raw.lower() not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                        raise ValueError
                    values[name] = raw.lower() in ("true", "1", "yes", "on")
                elif kind in (int, "int"):
                    values[name] = int(raw)
                else:
                    values[name] = float(raw)
            except ValueError:
                raise ValueError(f"{name}={raw!r}: not a {getattr(kind, '__name__', kind)}") from None
            if kind not in (bool, "bool") and values[name] <= 0:
                raise ValueError(f"{name}={raw!r}: must be positive")
        return replace(cls(), **values)

    def changed(self) -> dict:
        """The options that differ from the defaults."""
        base = ChunkOptions()
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) != getattr(base, f.name)}


DEFAULT_OPTIONS = ChunkOptions()
