"""A path's extension, as the language table (`chunkers.languages`) and every reader of it spell it.

A leaf module: the registry imports the chunkers by name, so what they share with it lives here.
"""

from __future__ import annotations

import os


def extension_of(path: str) -> str:
    name = os.path.basename(path).lower()
    if name == ".env" or name.startswith(".env."):
        return ".env"
    return os.path.splitext(name)[1]
