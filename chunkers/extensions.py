"""File extensions: how a path names its format (read by the registry, the chunkers and the snapshot).

A leaf module: the registry imports the chunkers by name, so what they share with it lives here.
"""

from __future__ import annotations

import os

# XML read as settings by the config chunker: .NET config, MSBuild projects and props/targets,
# NuGet specs, .resx resources (`root:data[OrderNotFound]:value = Order {id} was not found.`).
XML_EXTENSIONS = frozenset({".xml", ".config", ".csproj", ".fsproj", ".vbproj", ".props", ".targets",
                            ".nuspec", ".resx"})


def extension_of(path: str) -> str:
    name = os.path.basename(path).lower()
    if name == ".env" or name.startswith(".env."):
        return ".env"
    return os.path.splitext(name)[1]
