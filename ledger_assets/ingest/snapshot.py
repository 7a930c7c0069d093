"""repo_snapshot's core: HEAD and the file manifest of a repo.

A git repo is read at HEAD (`git ls-tree -r -l HEAD`: tracked files only, so
.gitignore is honoured, with blob hashes and sizes for free); content comes
from `git cat-file --batch` by blob hash, so what is chunked is exactly the
snapshot, whatever the work tree holds. A plain folder is walked, and its
snapshot id is a signature of the walk's (path, size, mtime): the same id
`read_head` gives the sensor and `ledger status`, so a folder indexed at its
head is not requested again.

Skipped with a recorded reason, never read into a chunk: vendored, binary and
over-size files, symlinks, submodules, what in a folder is not a regular file
(a FIFO, a socket, a device), private key material (`*.pem`, `*.key`,
`id_rsa`, ...) and Git LFS pointer files (the pointer, not the content).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Iterator

from chunkers.extensions import extension_of
from chunkers.languages import language_of
from chunkers.paths import VENDORED_DIRS, VENDORED_NAMES, VENDORED_SUFFIXES
from ledger_assets.store import git
from ledger_assets.store.folders import folder_files
from ledger_assets.store.printable import show_path

BINARY_EXTENSIONS = frozenset({
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tif", ".tiff", ".psd",
    ".zip", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".jar", ".war", ".nupkg", ".whl",
    ".dll", ".exe", ".so", ".dylib", ".a", ".o", ".obj", ".pdb", ".class", ".pyc", ".wasm",
    ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4", ".wav", ".ogg", ".avi", ".mov",
    ".sqlite", ".db", ".duckdb", ".parquet", ".bin", ".dat", ".snk",
})
# Private keys and certificate bundles: never chunked, embedded or served by read-span.
KEY_EXTENSIONS = frozenset({".pem", ".key", ".p12", ".pfx"})
SSH_KEY_PREFIXES = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519")
KEY_MATERIAL = "private key material"
# https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md: a pointer is < 1024 bytes and starts so.
LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/"
LFS_POINTER_MAX_BYTES = 1024
LFS_POINTER = "git-lfs pointer (the content is not in the repo)"
# Longer paths are refused before any file system call (PATH_MAX on Linux).
MAX_PATH_CHARS = 4096


class SnapshotError(RuntimeError):
    """The repo cannot be snapshotted (path gone, not readable, git failed)."""


class RepoStateError(SnapshotError):
    """The repo is in a state no ingest can use (path gone, not a directory, no commits):
    bad input, named in one line (exit 2 on the command line)."""


def check_repo(repo_path: str | Path, kind: str) -> str:
    """Is the repo usable for an ingest? Its HEAD sha (git) or "" (folder); RepoStateError
    with a one-line reason when not.

    Cheap (one stat, one `git rev-parse`): the CLI runs it before starting Dagster.
    """
    text = str(repo_path)
    if len(text) > MAX_PATH_CHARS:
        raise RepoStateError(f"{show_path(text)}: path too long (over {MAX_PATH_CHARS} characters)")
    root = Path(text)
    try:
        st_ok = root.is_dir()
        exists = st_ok or root.exists()
    except OSError as exc:  # ENAMETOOLONG for one over-long component, EACCES, ELOOP ...
        raise RepoStateError(f"{show_path(text)}: {exc.strerror or exc}") from exc
    if not exists:
        raise RepoStateError(f"{show_path(text)}: directory not found (was the repo moved or deleted?)")
    if not st_ok:
        raise RepoStateError(f"{show_path(text)}: not a directory")
    if kind == "git":
        try:
            out = git.run(text, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False,
                          timeout=git.REF_TIMEOUT_S)
            probe = out if out.returncode == 0 else git.run(text, "rev-parse", "--git-dir", check=False,
                                                            timeout=git.REF_TIMEOUT_S)
        except git.GitError as exc:
            raise SnapshotError(f"git rev-parse failed in {show_path(text)}: {exc.detail}") from exc
        if out.returncode != 0:
            if refused := git.refusal(show_path(text), probe.stderr):
                raise RepoStateError(refused)
            if probe.returncode != 0:
                raise RepoStateError(f"{show_path(text)}: not a git repository any more "
                                     "(registered as one; re-register it with `ledger add-repo`)")
            raise RepoStateError(f"{show_path(text)}: the git repository has no commits yet; "
                                 "commit something, then ingest")
        return out.stdout.decode().strip()
    return ""


@dataclass(frozen=True)
class ManifestEntry:
    file_path: str
    blob_hash: str
    size: int
    language: str
    skip_reason: str = ""


@dataclass(frozen=True)
class Snapshot:
    head_sha: str
    source: str  # "git" or "folder"
    entries: list[ManifestEntry]

    @property
    def indexable(self) -> list[ManifestEntry]:
        return [e for e in self.entries if not e.skip_reason]


def is_key_material(path: str) -> bool:
    """A private key or certificate bundle by its name: *.pem, *.key, *.p12, *.pfx, and SSH
    private keys (id_rsa, id_ed25519, ... but not their .pub halves)."""
    name = path.rsplit("/", 1)[-1]
    if extension_of(name) in KEY_EXTENSIONS:
        return True
    low = name.lower()
    return low.startswith(SSH_KEY_PREFIXES) and not low.endswith(".pub")


def is_lfs_pointer(data: bytes) -> bool:
    return len(data) < LFS_POINTER_MAX_BYTES and data.startswith(LFS_POINTER_PREFIX)


def static_skip_reason(path: str, size: int, max_file_bytes: int, max_pdf_bytes: int) -> str:
    parts = path.split("/")
    for part in parts[:-1]:
        if part in VENDORED_DIRS:
            return f"vendored ({part}/)"
    name = parts[-1]
    if is_key_material(name):
        return KEY_MATERIAL
    if name in VENDORED_NAMES or name.endswith(VENDORED_SUFFIXES):
        return "vendored or generated (lock/minified/map file)"
    ext = extension_of(path)
    if ext in BINARY_EXTENSIONS:
        return f"binary ({ext})"
    limit = max_pdf_bytes if ext == ".pdf" else max_file_bytes
    if size > limit:
        return f"over size ({size} bytes > {limit})"
    return ""


def git_bytes(repo: str | Path, *args: str, input: bytes | None = None) -> bytes:
    """`git -C repo ARGS` stdout; SnapshotError (with git's message) when it cannot run or fails."""
    try:
        return git.run(repo, *args, input=input, timeout=git.BULK_TIMEOUT_S).stdout
    except git.GitError as exc:
        raise SnapshotError(str(exc)) from exc


def read_head(repo_path: str | Path, kind: str = "git") -> str:
    """HEAD's sha (git) or a cheap stat signature (folder): what the sensor compares."""
    head = check_repo(repo_path, kind)
    if kind == "git":
        return head
    root = Path(repo_path)
    digest = hashlib.sha1()
    try:
        for rel, full, not_read in folder_files(root):
            if not not_read:
                _stat_line(digest, rel, full.stat())
    except OSError as exc:  # a file removed or made unreadable during the walk: ask again next tick
        raise SnapshotError(f"{show_path(root)}: cannot read the folder: {exc}") from exc
    return "stat-" + digest.hexdigest()


def _stat_line(digest, rel: str, st: os.stat_result) -> None:
    """One file's share of a folder's head id (read_head and take_snapshot must agree)."""
    digest.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))


# A tracked file whose name is not UTF-8 (git stores names as bytes): recorded, never read, so that
# one such name cannot fail the repo where the name is stored, printed or sent.
BAD_NAME = "file name is not valid UTF-8"


def decode_name(raw: bytes) -> tuple[str, bool]:
    """(path, whether the name is bad): a name that is not UTF-8 is shown with `\\xNN` escapes,
    which keep two such names apart and encode anywhere."""
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="backslashreplace"), True


def git_blob_hash(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def take_snapshot(repo_path: str | Path, kind: str, max_file_bytes: int, max_pdf_bytes: int,
                  lfs_known: dict[str, str] | None = None) -> Snapshot:
    """`lfs_known` (git): blob hash -> "" or LFS_POINTER, the verdicts of the last snapshot: a blob
    with one is not read again to tell whether it is a Git LFS pointer (a repo of many small files
    read each of them on every run)."""
    head = check_repo(repo_path, kind)
    lfs_known = lfs_known or {}
    root = Path(repo_path)
    entries: list[ManifestEntry] = []
    if kind == "git":
        raw = git_bytes(root, "ls-tree", "-r", "-l", "-z", "--full-tree", "HEAD")
        small: list[int] = []  # entries that may be Git LFS pointers
        for record in raw.split(b"\0"):
            if not record:
                continue
            meta, _, path_b = record.partition(b"\t")
            mode, otype, sha, size = meta.decode().split()
            path, bad_name = decode_name(path_b)
            if bad_name:
                entries.append(ManifestEntry(path, sha, 0, "", BAD_NAME))
                continue
            if otype != "blob":
                entries.append(ManifestEntry(path, sha, 0, "", f"not a file ({otype}: submodule)"))
                continue
            nbytes = int(size) if size != "-" else 0
            reason = "symlink" if mode == "120000" else static_skip_reason(path, nbytes, max_file_bytes, max_pdf_bytes)
            if not reason and len(LFS_POINTER_PREFIX) <= nbytes < LFS_POINTER_MAX_BYTES:
                if sha in lfs_known:
                    reason = lfs_known[sha]
                else:
                    small.append(len(entries))
            entries.append(ManifestEntry(path, sha, nbytes, language_of(path), reason))
        if small:
            for i, (entry, data) in zip(small, read_blobs(root, "git", [entries[i] for i in small])):
                if is_lfs_pointer(data):
                    entries[i] = replace(entry, skip_reason=LFS_POINTER)
        return Snapshot(head, "git", entries)
    # The head id is the stat signature read_head computes, each file stat'ed before it is
    # read: a file changed during the walk moves the head, and the sensor asks again.
    digest = hashlib.sha1()
    try:
        for rel, full, not_read in folder_files(root):
            if not_read:  # recorded, as a git repo's symlinks are, and never opened
                entries.append(ManifestEntry(decode_name(os.fsencode(rel))[0], "", 0, "", not_read))
                continue
            st = full.stat()
            _stat_line(digest, rel, st)
            shown, bad_name = decode_name(os.fsencode(rel))
            if bad_name:
                entries.append(ManifestEntry(shown, "", st.st_size, "", BAD_NAME))
                continue
            reason = static_skip_reason(rel, st.st_size, max_file_bytes, max_pdf_bytes)
            blob = ""
            if not reason:
                data = full.read_bytes()
                blob = git_blob_hash(data)
                if is_lfs_pointer(data):
                    reason = LFS_POINTER
            entries.append(ManifestEntry(rel, blob, st.st_size, language_of(rel), reason))
    except OSError as exc:
        raise SnapshotError(f"{show_path(root)}: cannot read the folder: {exc}") from exc
    return Snapshot("stat-" + digest.hexdigest(), "folder", entries)


def read_blobs(repo_path: str | Path, kind: str, entries: Iterable[ManifestEntry]) -> Iterator[tuple[ManifestEntry, bytes]]:
    """Content of each entry, streamed: `git cat-file --batch` for git, the file for folders."""
    root = Path(repo_path)
    entries = list(entries)
    if kind != "git":
        for e in entries:
            data = (root / e.file_path).read_bytes()
            yield e, data
        return
    try:
        proc = git.stream(root, "cat-file", "--batch", stdin=True)
    except git.GitError as exc:
        raise SnapshotError(str(exc)) from exc
    try:
        for e in entries:
            proc.stdin.write(e.blob_hash.encode() + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) < 3 or header[1] != b"blob":
                raise SnapshotError(f"git cat-file could not read {e.file_path} ({e.blob_hash})")
            size = int(header[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)  # the LF after each object
            yield e, data
    finally:
        proc.stdin.close()
        proc.stdout.close()
        proc.wait(timeout=30)


def last_commit_times(repo_path: str | Path, paths: Iterable[str]) -> dict[str, int]:
    """Unix time of the last commit touching each path, from one `git log` pass."""
    wanted = set(paths)
    found: dict[str, int] = {}
    if not wanted:
        return found
    try:
        proc = git.stream(repo_path, "log", "--format=@%ct", "--name-only", "--no-renames", "HEAD", text=True)
    except git.GitError as exc:
        raise SnapshotError(str(exc)) from exc
    current = 0
    try:
        for line in proc.stdout:
            line = line.rstrip("\n")
            if line.startswith("@"):
                current = int(line[1:] or 0)
            elif line and line in wanted and line not in found:
                found[line] = current
                if len(found) == len(wanted):
                    break
    finally:
        proc.kill()
        proc.wait()
    return found


def stored_manifest(con, repo_id: str) -> tuple[dict[str, ManifestEntry], dict[str, tuple], tuple]:
    """The snapshot stored for a repo: manifest entries, chunked files (blob, chunker version), (head, source, path)."""
    entries = {
        r[0]: ManifestEntry(*r)
        for r in con.execute(
            "SELECT file_path, blob_hash, size, language, skip_reason FROM manifest WHERE repo_id = ?",
            [repo_id]).fetchall()
    }
    files = {r[0]: (r[1], r[2]) for r in con.execute(
        "SELECT file_path, blob_hash, chunker_version FROM files WHERE repo_id = ?", [repo_id]).fetchall()}
    snap = con.execute("SELECT head_sha, source, repo_path FROM snapshots WHERE repo_id = ?", [repo_id]).fetchone()
    return entries, files, snap
