"""Per-file git history from one `git log` pass: last change, authors, churn.

The log is read newest first (`--date-order`: no parent before its
children) with `--name-status -M`, and history is folded across renames: a
path at HEAD owns the commits of every older name git saw it renamed from,
until the commit that added it. When HEAD moved forward from the previous
run, only `PREVIOUS..HEAD` is read and merged into the stored per-file facts;
a rewritten history (previous HEAD no longer an ancestor) reads it all again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from ledger_assets.ingest.snapshot import SnapshotError, git_bytes
from ledger_assets.store import git

DAY_S = 86_400
# git_churn_90d: the window is part of the field's name, so it is not a setting.
CHURN_DAYS = 90


@dataclass
class Commit:
    sha: str
    ct: int            # committer time, unix seconds
    author: str        # email, lowercased (respects .mailmap)
    subject: str
    changes: list[tuple[str, str, str]]  # (status letter, old path, new path); old == new unless R/C


@dataclass
class FileHistory:
    last_sha: str
    last_ct: int
    last_msg: str
    authors: set[str] = field(default_factory=set)
    recent_ct: list[int] = field(default_factory=list)  # commit times inside the churn window

    def to_fields(self, head_ct: int, churn_days: int) -> dict:
        from datetime import datetime, timezone

        start = head_ct - churn_days * DAY_S
        return {
            "git_last_modified_utc": datetime.fromtimestamp(self.last_ct, timezone.utc)
            .strftime("%Y-%m-%dT%H:%M:%SZ"),
            "git_author_count": len(self.authors),
            "git_churn_90d": sum(1 for t in self.recent_ct if start <= t <= head_ct),
            "git_last_sha": self.last_sha,
            "git_last_msg": self.last_msg,
        }


def _git(repo: str | Path, *args: str) -> str:
    return git_bytes(repo, *args).decode("utf-8", errors="replace")


def commit_time(repo: str | Path, rev: str) -> int:
    return int(_git(repo, "show", "-s", "--format=%ct", rev).strip())


def is_ancestor(repo: str | Path, older: str, newer: str) -> bool:
    """Is `older` an ancestor of `newer`? False too when git cannot tell: history is then read whole."""
    try:
        return git.run(repo, "merge-base", "--is-ancestor", older, newer, check=False).returncode == 0
    except git.GitError:
        return False


def read_log(repo: str | Path, rev_range: str) -> Iterator[Commit]:
    """Commits of `rev_range`, newest first, with their name-status changes (one git process)."""
    try:
        data = git.run(repo, "-c", "core.quotePath=false", "log", "--date-order", "-M", "--name-status", "-z",
                       "--format=%x1e%H%x1f%ct%x1f%aE%x1f%s", rev_range, "--", timeout=git.NO_TIMEOUT).stdout
    except git.GitError as exc:
        raise SnapshotError(f"git log {rev_range} failed in {repo}: {exc.detail}") from exc
    for record in data.split(b"\x1e"):
        if not record.strip(b"\0\n"):
            continue
        header, _, body = record.partition(b"\0")
        sha, ct, email, subject = (header.decode("utf-8", "replace").split("\x1f", 3) + ["", "", "", ""])[:4]
        tokens = body.lstrip(b"\n").split(b"\0")
        changes: list[tuple[str, str, str]] = []
        i = 0
        while i < len(tokens):
            status = tokens[i].decode("ascii", "replace").strip()
            if not status:
                i += 1
                continue
            letter = status[0]
            if letter in "RC" and i + 2 < len(tokens):
                old, new = tokens[i + 1].decode("utf-8", "surrogateescape"), tokens[i + 2].decode("utf-8", "surrogateescape")
                changes.append((letter, old, new))
                i += 3
            elif i + 1 < len(tokens):
                path = tokens[i + 1].decode("utf-8", "surrogateescape")
                changes.append((letter, path, path))
                i += 2
            else:
                break
        yield Commit(sha, int(ct or 0), email.strip().lower(), subject.strip(), changes)


def fold_history(commits: Iterable[Commit], head_paths: Iterable[str], window_start: int
                 ) -> tuple[dict[str, FileHistory], dict[str, str]]:
    """Facts per HEAD path from newest-first commits, following renames backwards.

    Returns (histories, origins): origins maps each HEAD path to the name it had
    at the oldest commit read, or omits it when that range added the file (its
    history starts inside the range)."""
    alias: dict[str, str] = {p: p for p in head_paths}  # name at the current point in the walk -> HEAD path
    hist: dict[str, FileHistory] = {}
    for c in commits:
        touched: set[str] = set()
        renames: list[tuple[str, str]] = []
        added: list[str] = []
        for letter, old, new in c.changes:
            current = alias.get(new)
            if current is None:
                continue
            touched.add(current)
            if letter == "R" and old != new:
                renames.append((old, new))
            elif letter in "AC":
                added.append(new)
        for current in touched:
            h = hist.get(current)
            if h is None:
                h = hist[current] = FileHistory(c.sha, c.ct, c.subject)
            h.authors.add(c.author)
            if c.ct >= window_start:
                h.recent_ct.append(c.ct)
        # Older commits see the file under its old name; before an add, the path was another file.
        for old, new in renames:
            alias[old] = alias.pop(new)
        for new in added:
            alias.pop(new, None)
    origins = {head: name for name, head in alias.items()}
    return hist, origins


def merge_previous(new: dict[str, FileHistory], origins: dict[str, str], previous: dict[str, FileHistory],
                   window_start: int) -> dict[str, FileHistory]:
    """HEAD facts = facts of PREVIOUS..HEAD on top of the stored facts of each file's name at PREVIOUS."""
    merged: dict[str, FileHistory] = {}
    for head_path, old_name in origins.items():
        old = previous.get(old_name)
        fresh = new.get(head_path)
        if old is None:
            if fresh is not None:
                merged[head_path] = fresh
            continue
        kept_recent = [t for t in old.recent_ct if t >= window_start]
        if fresh is None:
            merged[head_path] = FileHistory(old.last_sha, old.last_ct, old.last_msg, set(old.authors), kept_recent)
        else:
            merged[head_path] = FileHistory(fresh.last_sha, fresh.last_ct, fresh.last_msg,
                                            fresh.authors | old.authors, fresh.recent_ct + kept_recent)
    for head_path, fresh in new.items():
        merged.setdefault(head_path, fresh)
    return merged


@dataclass
class HistoryResult:
    files: dict[str, FileHistory]
    head_ct: int
    commits_read: int
    mode: str  # "full" or "incremental"


def file_histories(repo: str | Path, head_sha: str, head_paths: list[str], churn_days: int,
                   previous_head: str = "", previous: dict[str, FileHistory] | None = None) -> HistoryResult:
    """One `git log` pass: the whole history, or PREVIOUS..HEAD merged into `previous`."""
    head_ct = commit_time(repo, head_sha)
    window_start = head_ct - churn_days * DAY_S
    incremental = bool(previous_head and previous is not None and previous_head != head_sha
                       and is_ancestor(repo, previous_head, head_sha)
                       and commit_time(repo, previous_head) <= head_ct)
    rev_range = f"{previous_head}..{head_sha}" if incremental else head_sha
    commits = list(read_log(repo, rev_range))
    hist, origins = fold_history(commits, head_paths, window_start)
    if incremental:
        hist = merge_previous(hist, origins, previous or {}, window_start)
    wanted = set(head_paths)
    return HistoryResult({p: h for p, h in hist.items() if p in wanted}, head_ct, len(commits),
                         "incremental" if incremental else "full")
