"""The chunking library: bytes in, `ChunkPiece`s out. No Dagster, no database, no network."""

from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkPiece, ChunkResult, ChunkSymbol, TRANSFORMED_TYPES
from .extensions import extension_of
from .registry import chunk_file, chunk_file_result, chunker_name

# Bumped whenever a chunker's output for the same input may change: stored
# files chunked by an older version are re-chunked on the next ingest.
CHUNKER_VERSION = "11"

__all__ = [
    "CHUNKER_VERSION",
    "DEFAULT_OPTIONS",
    "TRANSFORMED_TYPES",
    "ChunkOptions",
    "ChunkPiece",
    "ChunkResult",
    "ChunkSymbol",
    "chunk_file",
    "chunk_file_result",
    "chunker_name",
    "extension_of",
]
