"""Python: functions and classes through the generic tree-sitter engine.

The table says where Python's units are; the Python specifics are the chunk
types (`py_function`, `py_class`, `py_class_full`), `#` headers naming the
module (`# pkg.module.Class`), and docstrings that survive body folding in the
skeleton. Decorators ride their definition (they sit inside
`decorated_definition`); module-level code (imports, constants,
`if __name__ == "__main__":`) rides the next unit or becomes a `code_block`.
"""

from __future__ import annotations

import os

from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkPiece
from .treesitter import LanguageTable, chunk_with_table

PYTHON = LanguageTable(
    grammar="python",
    types={"class_definition": "class"},
    functions={"function_definition": "function"},
    wrappers=frozenset({"decorated_definition"}),
    line_comment="#",
    fold_marker="...",
    docstrings=True,
    underscore_private=True,
    type_chunk="py_class",
    function_chunk="py_function",
    full_chunk="py_class_full",
)


def module_name(path: str) -> str:
    """Dotted module name for a repository-relative path; the file stem for an absolute one."""
    stem = os.path.splitext(path.replace("\\", "/"))[0]
    if os.path.isabs(stem) or stem.startswith(".."):
        stem = os.path.basename(stem)
    parts = [p for p in stem.split("/") if p and p != "."]
    if len(parts) > 1 and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def chunk_python(path: str, text: str, options: ChunkOptions = DEFAULT_OPTIONS) -> list[ChunkPiece]:
    return chunk_with_table(path, text, PYTHON, options, module=module_name(path))
