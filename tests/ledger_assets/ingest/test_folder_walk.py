"""A folder repo that would take its walk down (issue 33: input that never takes a repo down): a folder nested
deeper than Python's recursion limit is snapshotted, its head read and its files counted; a FIFO, a socket and
symlinks (to a file, to a folder, to the root, to nowhere) are recorded skips, never opened."""

from __future__ import annotations

import os
import shutil
import socket
import threading
from pathlib import Path

import pytest

from ledger_assets.cli import main
from ledger_assets.ingest.snapshot import read_head, take_snapshot
from ledger_assets.store.registry import _count_files

DEPTH = 1_200  # past the interpreter's default recursion limit of 1,000; 2,400 characters, within PATH_MAX


def _deep(root: Path) -> str:
    """`root` with a file DEPTH folders down; its path relative to `root`."""
    root.mkdir()
    (root / "top.py").write_text("def top():\n    return 0\n")
    fd = os.open(root, os.O_RDONLY)
    try:  # one level at a time, relative to the last: no call walks the whole path
        for _ in range(DEPTH):
            os.mkdir("d", dir_fd=fd)
            fd, old = os.open("d", os.O_RDONLY, dir_fd=fd), fd
            os.close(old)
        with open(os.open("deep.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as fh:
            fh.write("def deep():\n    return 1\n")
    finally:
        os.close(fd)
    return "d/" * DEPTH + "deep.py"


@pytest.fixture
def deep_root(tmp_path):
    """A folder for `_deep`, taken apart afterwards one level at a time: shutil.rmtree recurses per level too, and
    pytest's clean-up of old temp folders would fail on it in a later session."""
    root = tmp_path / "deep"
    yield root
    spare, n = root, 0
    while (spare / "d").is_dir():
        os.rename(spare / "d", tmp_path / f"level{n}")
        shutil.rmtree(spare)
        spare, n = tmp_path / f"level{n}", n + 1
    shutil.rmtree(spare, ignore_errors=True)


def _snapshot(path: Path):
    """take_snapshot in a thread, so that a walk that blocks (a FIFO opened) fails the test instead of hanging it."""
    out: dict = {}
    thread = threading.Thread(target=lambda: out.update(snap=take_snapshot(path, "folder", 1_000_000, 1_000_000)),
                              daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the snapshot blocked"
    return out["snap"]


def test_a_folder_deeper_than_the_recursion_limit_is_snapshotted_headed_and_counted(deep_root, capsys):
    root = deep_root
    deep = _deep(root)
    snap = _snapshot(root)
    assert {e.file_path: e.skip_reason for e in snap.entries} == {"top.py": "", deep: ""}
    assert read_head(root, "folder") == snap.head_sha
    assert _count_files(root, "folder", 10) == 2
    assert main(["chunk", str(root)]) == 0
    assert "deep.py" in capsys.readouterr().out


def test_fifos_sockets_and_symlinks_are_recorded_skips_never_opened(tmp_path):
    root = tmp_path / "odd"
    root.mkdir()
    (root / "real.py").write_text("def real():\n    return 1\n")
    os.mkfifo(root / "pipe.py")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock.py"))
    (root / "to_file.py").symlink_to(root / "real.py")
    (root / "to_root").symlink_to("/")
    (root / "to_self").symlink_to(".")
    (root / "nowhere.py").symlink_to(root / "missing.py")
    try:
        snap = _snapshot(root)
    finally:
        server.close()
    assert {e.file_path: e.skip_reason for e in snap.entries} == {
        "real.py": "", "pipe.py": "not a file (fifo)", "sock.py": "not a file (socket)", "to_file.py": "symlink",
        "to_root": "symlink", "to_self": "symlink", "nowhere.py": "symlink"}
    assert read_head(root, "folder") == snap.head_sha


@pytest.mark.parametrize("extra", ["link.py", "pipe.py"])
def test_a_skipped_entry_does_not_move_the_folders_head(tmp_path, extra):
    root = tmp_path / "head"
    root.mkdir()
    (root / "real.py").write_text("x = 1\n")
    before = read_head(root, "folder")
    if extra == "link.py":
        (root / extra).symlink_to(root / "real.py")
    else:
        os.mkfifo(root / extra)
    assert read_head(root, "folder") == before
