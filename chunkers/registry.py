"""Dispatch: the lowercased extension (never the content) picks the chunker.

Every chunker is `fn(path, text, options) -> list[ChunkPiece]` over decoded
text, except byte-level formats (PDF) which get the raw bytes. After the
chunker, one pass here redacts secret-shaped values and guarantees the
file is never silently lost: a file that yields nothing but has content
falls back to the plain chunker, and any chunker error does the same, with
the reason kept in `ChunkResult.notes`.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from typing import Callable

from .extensions import extension_of
from .languages import BY_EXTENSION, extensions_of
from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkPiece, ChunkResult
from .packs import pack_members
from .plain import chunk_plain
from .redact import redact_pieces, redact_text
from .text import BinaryContent, decode, split_lines

# extension -> "module:function" (module relative to this package), from the language table
TEXT_CHUNKERS: dict[str, str] = {ext: lang.chunker for ext, lang in BY_EXTENSION.items()
                                 if lang.chunker and not lang.reads_bytes}
BYTES_CHUNKERS: dict[str, str] = {ext: lang.chunker for ext, lang in BY_EXTENSION.items() if lang.reads_bytes}


def _resolve(target: str) -> Callable:
    module, func = target.split(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), func)


def chunker_name(path: str) -> str:
    ext = extension_of(path)
    return (TEXT_CHUNKERS.get(ext) or BYTES_CHUNKERS.get(ext) or "plain:chunk_plain").split(":")[0]


def chunk_file_result(path: str, data: bytes, options: ChunkOptions = DEFAULT_OPTIONS,
                      plain_only: bool = False) -> ChunkResult:
    """Chunk one file; never raises for bad input. Empty and binary files are skipped with a reason. `plain_only`:
    the plain windows a failed chunker falls back to, without the chunker (sandbox's for a file that passed its
    limits; never a byte-level format's, which has none)."""
    ext = extension_of(path)
    notes: list[str] = []
    if ext in BYTES_CHUNKERS and not plain_only:
        try:
            result = _resolve(BYTES_CHUNKERS[ext])(path, data, options)
        except Exception as exc:  # a chunker bug must not lose the file
            return ChunkResult([], skip_reason=redact_text(f"{ext[1:]} chunker failed: {type(exc).__name__}: {exc}"))
        if isinstance(result, ChunkResult):
            return ChunkResult(redact_pieces(result.pieces), result.skip_reason and redact_text(result.skip_reason),
                               tuple(map(redact_text, result.notes)))
        return ChunkResult(redact_pieces(result))
    try:
        text = decode(data)
    except BinaryContent as exc:
        return ChunkResult([], skip_reason=str(exc))
    if not text.strip():
        return ChunkResult([], skip_reason="empty (no non-blank text)")
    pieces: list[ChunkPiece] = []
    target = None if plain_only else TEXT_CHUNKERS.get(ext)
    if target:
        try:
            result = _resolve(target)(path, text, options)
            if isinstance(result, ChunkResult):
                pieces = list(result.pieces)
                notes.extend(result.notes)
            else:
                pieces = list(result)
        except Exception as exc:
            notes.append(f"{target} failed, plain fallback: {type(exc).__name__}: {exc}")
            pieces = []
        if not pieces:
            if not notes:
                notes.append(f"{target} produced no chunks, plain fallback")
        elif "code_max_chunks" in CHUNKER_OPTIONS.get(target.split(":")[0], ()):
            pieces, note = pack_members(pieces, split_lines(text), options)
            notes.extend([note] if note else [])
    if not pieces:
        pieces = chunk_plain(path, text, options.plain_max_chars, options.plain_overlap_chars)
    # A note may quote the file (a parser's message): shown in Dagster's metadata and by the CLI, redacted as chunks are.
    return ChunkResult(redact_pieces(pieces, text), notes=tuple(map(redact_text, notes)))


def chunk_file(path: str, data: bytes, options: ChunkOptions = DEFAULT_OPTIONS) -> list[ChunkPiece]:
    """The chunk contract of docs/architecture.md: deterministic, lossless, never raises on bad input."""
    return chunk_file_result(path, data, options).pieces


# The options each chunker reads (itself and what it calls), for the re-chunk key: a changed option
# re-chunks exactly the files whose chunker reads it. Every file may fall back to plain windows.
_CODE = ("type_max_chars", "chunk_max_symbols", "skeleton_max_chars", "member_context_chars", "code_max_chunks")
_FALLBACK = ("plain_max_chars", "plain_overlap_chars")
CHUNKER_OPTIONS: dict[str, tuple[str, ...]] = {
    "csharp": _CODE, "razor": _CODE, "python_code": _CODE, "treesitter": _CODE,
    "typescript": _CODE, "components": _CODE + ("ts_tree_sitter", "js_tree_sitter"),
    "sql": ("split_sql_tables", "type_max_chars", "chunk_max_symbols", "code_max_chunks"),
    "markdown": ("md_section_max_chars", "md_max_sections"),
    "openapi": ("config_max_chars",), "config": ("config_max_chars",),
    "pdf": ("pdf_group_chars", "pdf_timeout_s"), "plain": (),
}
_TS_SWITCH = {**dict.fromkeys(extensions_of("typescript"), "ts_tree_sitter"),
              **dict.fromkeys(extensions_of("javascript"), "js_tree_sitter")}


def options_read(path: str) -> tuple[str, ...]:
    """The ChunkOptions fields that can change how `path` is chunked."""
    extra = (_TS_SWITCH[extension_of(path)],) if extension_of(path) in _TS_SWITCH else ()
    return CHUNKER_OPTIONS[chunker_name(path)] + extra + _FALLBACK


def options_key(path: str, options: ChunkOptions) -> str:
    """"" with the defaults for what `path`'s chunker reads; else a short hash of the changed ones."""
    changed = {k: v for k, v in options.changed().items() if k in options_read(path)}
    if not changed:
        return ""
    return hashlib.sha1(json.dumps(changed, sort_keys=True).encode()).hexdigest()[:8]

