"""The chunking library: bytes in, `ChunkPiece`s out. No Dagster, no database, no network."""

from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkPiece, ChunkResult, ChunkSymbol, TRANSFORMED_TYPES
from .extensions import extension_of
from .registry import chunk_file, chunk_file_result, chunker_name, options_key, options_read
from .sandbox import chunk_file_guarded

# Bumped whenever a chunker's output for the same input may change: stored
# files chunked by an older version are re-chunked on the next ingest.
CHUNKER_VERSION = "144"


def rechunk_key(path: str, options: ChunkOptions = DEFAULT_OPTIONS) -> str:
    """What a stored file's chunks were made with: CHUNKER_VERSION, plus a hash of the changed
    options its chunker reads (none with the defaults). A different key re-chunks the file."""
    key = options_key(path, options)
    return f"{CHUNKER_VERSION}+{key}" if key else CHUNKER_VERSION

__all__ = [
    "CHUNKER_VERSION",
    "DEFAULT_OPTIONS",
    "TRANSFORMED_TYPES",
    "ChunkOptions",
    "ChunkPiece",
    "ChunkResult",
    "ChunkSymbol",
    "chunk_file",
    "chunk_file_guarded",
    "chunk_file_result",
    "chunker_name",
    "extension_of",
    "options_key",
    "options_read",
    "rechunk_key",
]
