"""The repo registry: repo id -> path, in one JSON file.

A JSON file replaced atomically (write + rename) can be read by the sensor at
any moment, even while an ingest holds the DuckDB file. Each repo id is also a
Dagster dynamic partition of `repos` (partitions.py).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from ledger_assets.store import git
from ledger_assets.store.folders import walk

REPO_ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}$")


class RegistryError(ValueError):
    """Bad input to the registry (bad path, bad or duplicate id): a usage error."""


class UnknownRepo(RegistryError):
    """No repo is registered under that id (removed, or a partition typed into the UI)."""


@dataclass(frozen=True)
class Repo:
    repo_id: str
    path: str
    kind: str  # "git" or "folder"
    added_utc: str


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-._")
    return slug[:63] or "repo"


def validate_repo_id(repo_id: str) -> str:
    if not REPO_ID_RE.match(repo_id or ""):
        raise RegistryError(
            f"invalid repo id {repo_id!r}: use 1-63 characters of a-z, 0-9, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return repo_id


def kind_of(path: Path) -> str:
    """"git" for the top of a git work tree, "folder" otherwise. RegistryError for what git itself
    holds but ledger cannot read as a repo: a bare repository or a folder inside a `.git` (as a
    folder it would index git's own config, hooks and objects), and a repo git refuses to read
    because another user owns it (as a folder it would silently lose `.gitignore`)."""
    try:
        out = git.run(path, "rev-parse", "--show-toplevel", check=False, timeout=git.PROBE_TIMEOUT_S)
        if out.returncode == 0:
            return "git" if Path(os.fsdecode(out.stdout.strip())).resolve() == path.resolve() else "folder"
        if refused := git.refusal(path, out.stderr):
            raise RegistryError(refused)
        inside = git.run(path, "rev-parse", "--is-inside-git-dir", "--is-bare-repository", check=False,
                         timeout=git.PROBE_TIMEOUT_S)
    except git.GitError:
        return "folder"
    answers = inside.stdout.decode(errors="replace").split()
    if inside.returncode == 0 and answers[:1] == ["true"]:
        if answers[1:2] == ["true"]:
            raise RegistryError(f"{path} is a bare git repository: it has no work tree to index; clone it "
                                f"(`git clone {path} DIR`) and add DIR")
        raise RegistryError(f"{path} is inside a repository's .git folder; add the work tree that holds it")
    return "folder"


class RepoRegistry:
    def __init__(self, path: Path | str):
        self.path = Path(path)

    def load(self) -> dict[str, Repo]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except json.JSONDecodeError as exc:
            raise RegistryError(f"{self.path} is not valid JSON: {exc}") from exc
        return {rid: Repo(**entry) for rid, entry in raw.get("repos", {}).items()}

    def get(self, repo_id: str) -> Repo:
        repos = self.load()
        if repo_id not in repos:
            known = ", ".join(sorted(repos)) or "none"
            raise UnknownRepo(f"unknown repo id {repo_id!r} (registered: {known}); add it with `ledger add-repo PATH`")
        return repos[repo_id]

    def _save(self, repos: dict[str, Repo]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"repos": {rid: asdict(r) for rid, r in sorted(repos.items())}}
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".repos.", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(payload, fh, indent=2)
        os.replace(tmp, self.path)

    def add(self, path: str | Path, repo_id: str | None = None, exist_ok: bool = False, force: bool = False,
            max_files: int = 100_000) -> Repo:
        """Register a repo. A filesystem root, or a tree of more than `max_files` files, is refused
        unless `force`: most likely a slip of the path, and its ingest and status would take long."""
        root = Path(path).expanduser()
        if not root.exists():
            raise RegistryError(f"{path}: no such directory")
        if not root.is_dir():
            raise RegistryError(f"{path}: not a directory")
        root = root.resolve()
        kind = kind_of(root)
        rid = validate_repo_id(repo_id) if repo_id else slugify(root.name)
        validate_repo_id(rid)
        repos = self.load()
        if exist_ok and rid in repos and Path(repos[rid].path) == root:
            return repos[rid]
        if rid in repos:
            raise RegistryError(f"repo id {rid!r} is already registered for {repos[rid].path}; choose another with --id")
        for other in repos.values():
            if Path(other.path) == root:
                raise RegistryError(f"{root} is already registered as {other.repo_id!r}")
        if not force:
            if root.parent == root:
                raise RegistryError(f"{path}: a filesystem root, not a repo; pass --force to register it anyway")
            count = _count_files(root, kind, max_files + 1)
            if count > max_files:
                raise RegistryError(f"{path}: more than {max_files} files; pass --force to register it anyway "
                                    "(or --max-files N)")
        repo = Repo(rid, str(root), kind, datetime.now(timezone.utc).isoformat(timespec="seconds"))
        repos[rid] = repo
        self._save(repos)
        return repo


    def remove(self, repo_id: str) -> Repo:
        """Unregister a repo (its data stays until purged: Ledger.purge)."""
        repos = self.load()
        repo = self.get(repo_id)
        del repos[repo_id]
        self._save(repos)
        return repo


def indexed_head_path(home: Path, repo_id: str) -> Path:
    return Path(home) / "heads" / f"{repo_id}.txt"


def write_indexed_head(home: Path, repo_id: str, head_sha: str) -> None:
    """Recorded after qdrant_points succeeds: what the sensor compares HEAD against."""
    path = indexed_head_path(home, repo_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(head_sha, encoding="utf-8")
    os.replace(tmp, path)


def read_indexed_head(home: Path, repo_id: str) -> str:
    try:
        return indexed_head_path(home, repo_id).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return ""


def _count_files(root: Path, kind: str, stop: int) -> int:
    """The files a repo would list (tracked files of git, files outside dot folders of a folder),
    counted up to `stop`."""
    if kind == "git":
        proc = git.stream(root, "ls-files", "-z")
        count = 0
        try:
            while count < stop:
                block = proc.stdout.read(1 << 16)
                if not block:
                    break
                count += block.count(b"\0")
        finally:
            proc.kill()
            proc.wait()
        return count
    count = 0
    for _, dirnames, filenames in walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        count += len(filenames)
        if count >= stop:
            break
    return count
