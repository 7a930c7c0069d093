"""A plain folder, as every room walks it (a folder repo's snapshot and head, add-repo's file count, golden sets
without git, `ledger chunk`).

`walk` is os.walk's top-down walk with a stack of its own: Python 3.11's os.walk (and Path.rglob) recurse once per
level, so a folder nested deeper than the interpreter's recursion limit (about a thousand levels, well within
PATH_MAX) raised RecursionError, failing the repo's snapshot and every sensor tick that read its head.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterator


def walk(root: str | Path) -> Iterator[tuple[str, list[str], list[str]]]:
    """(folder, its sub-folders, its files) for `root` and every folder under it, top-down and depth-first, as
    os.walk yields them: a caller may prune the sub-folders in place (`dirnames[:] = …`) and they are walked in the
    order left. A symlinked folder is listed but not entered; an unreadable folder is passed over."""
    stack = [os.fspath(root)]
    while stack:
        top = stack.pop()
        dirs: list[str] = []
        files: list[str] = []
        try:
            with os.scandir(top) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    (dirs if is_dir else files).append(entry.name)
        except OSError:
            continue
        yield top, dirs, files
        stack.extend(path for path in (os.path.join(top, d) for d in reversed(dirs)) if not os.path.islink(path))


def folder_files(root: Path) -> Iterator[tuple[str, Path, str]]:
    """(path relative to `root`, full path, "" or why it is not read) of each file a folder repo holds, dot folders
    left out, sorted within each folder (the order a folder's head id hashes them in). Not read: a symlink (as a git
    repo's), and what is not a regular file: a FIFO would block its reader, a device has no end."""
    for dirpath, dirnames, filenames in walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        linked = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]  # listed here, never entered
        for name in sorted(filenames + linked):
            full = Path(dirpath) / name
            yield full.relative_to(root).as_posix(), full, _not_read(full)


def _not_read(full: Path) -> str:
    try:
        mode = full.lstat().st_mode
    except OSError:  # gone since the folder was listed
        return "not a file (gone)"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISREG(mode):
        return ""
    kind = "fifo" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode) else "device"
    return f"not a file ({kind})"
