"""Git, as every room runs it: `git -C REPO ARGS` with a named timeout per kind of call and one typed error.

`run` answers a whole call (stdout as bytes); `stream` starts a long reader (`cat-file --batch`, a
full `log`) whose output the caller consumes as it comes. Each caller keeps its own error type
(SnapshotError, GoldenError, None for "cannot tell") by catching `GitError`, which names the
command, the repo and git's own words.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

# Seconds one call may take, by what it asks.
PROBE_TIMEOUT_S = 30     # is this folder a git work tree (add-repo): a quick answer or "no"
REF_TIMEOUT_S = 60       # resolve HEAD or a ref
READ_TIMEOUT_S = 120     # a diff, status, merge-base, one commit's time, one blob: sized by the change
BULK_TIMEOUT_S = 600     # the whole tree of a large repo (ls-tree -r)
NO_TIMEOUT = None        # golden sets: a local copy built once, as long as it takes


class GitError(RuntimeError):
    """git could not start, ran past its timeout, or exited non-zero."""

    def __init__(self, repo: str | Path, args: tuple[str, ...], detail: str, returncode: int | None = None):
        super().__init__(f"git {' '.join(args)} failed in {repo}: {detail}")
        self.repo, self.command, self.detail, self.returncode = str(repo), args, detail, returncode


def run(repo: str | Path, *args: str, timeout: float | None = READ_TIMEOUT_S, check: bool = True,
        input: bytes | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """`git -C repo ARGS`, stdout and stderr captured as bytes. GitError when git cannot start or
    times out, and (with `check`) when it exits non-zero, with git's stderr as the detail."""
    try:
        out = subprocess.run(["git", "-C", str(repo), *args], input=input, capture_output=True,
                             timeout=timeout, env=env)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(repo, args, str(exc)) from exc
    if check and out.returncode != 0:
        raise GitError(repo, args, out.stderr.decode(errors="replace").strip(), out.returncode)
    return out


def stream(repo: str | Path, *args: str, stdin: bool = False, stderr=subprocess.DEVNULL,
           text: bool = False) -> subprocess.Popen:
    """`git -C repo ARGS` started with its stdout piped (and stdin, when asked), for the caller to
    read as it comes and then close or kill; GitError when git cannot start."""
    try:
        return subprocess.Popen(["git", "-C", str(repo), *args], stdin=subprocess.PIPE if stdin else None,
                                stdout=subprocess.PIPE, stderr=stderr, text=text,
                                errors="replace" if text else None)
    except OSError as exc:
        raise GitError(repo, args, str(exc)) from exc
