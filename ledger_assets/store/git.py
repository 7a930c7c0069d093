"""Git, as every room runs it: `git -C REPO ARGS` with a named timeout per kind of call and one typed error.

`run` answers a whole call (stdout as bytes); `stream` starts a long reader (`cat-file --batch`, a
full `log`) whose output the caller consumes as it comes. Each caller keeps its own error type
(SnapshotError, GoldenError, None for "cannot tell") by catching `GitError`, which names the
command, the repo and git's own words.

A repo's own config (`.git/config` and what it includes) can name commands that git runs on a
read: an fsmonitor hook (status, diff), a post-index-change hook (status refreshing the index), a
signature verifier (log and show under `log.showSignature`), a clean filter (status or a diff
hashing a changed work-tree file). Ledger only reads a repo it may not trust, so every call
switches the first three off and takes no optional lock (status leaves the index as it was), and a
call that compares the work tree (`worktree=True`) switches off the filters the repo's own config
defines (the user's global and system config, git-lfs's, are the user's and kept) and reads the
registered folder as the work tree, not one the repo's `core.worktree` names.
"""

from __future__ import annotations

import os
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


# Config every call carries (as GIT_CONFIG_KEY_n / VALUE_n: a key is never split at an `=`).
READ_ONLY_CONFIG = (("core.fsmonitor", "false"), ("core.hooksPath", os.devnull), ("log.showSignature", "false"))
_TRUSTED_SCOPES = ("system", "global")


def _env(base: dict | None, config: tuple[tuple[str, str], ...]) -> dict:
    env = dict(os.environ if base is None else base)
    n = int(env.get("GIT_CONFIG_COUNT") or 0)
    for i, (key, value) in enumerate(config, start=n):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    env["GIT_CONFIG_COUNT"] = str(n + len(config))
    env["GIT_OPTIONAL_LOCKS"] = "0"
    return env


def refusal(repo: str | Path, stderr: bytes | str) -> str:
    """What to do when git refused a repo another user owns (its `safe.directory` check), or "" when
    git's words say something else: ledger keeps git's policy and says how to change it."""
    text = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr
    if "dubious ownership" not in text:
        return ""
    return (f"git refuses to read {repo}: another user owns it (\"detected dubious ownership\"); if you trust "
            f"it, run `git config --global --add safe.directory {repo}`")


def own_filters_off(repo: str | Path, env: dict | None = None) -> tuple[tuple[str, str], ...]:
    """Config that switches off every filter driver the repo's own config defines (local or worktree
    scope, includes followed): nothing is run in place of a clean filter, and none is required."""
    out = run(repo, "config", "--show-scope", "--name-only", "-z", "--get-regexp", r"^filter\.",
              check=False, env=env)
    fields = out.stdout.decode("utf-8", "surrogateescape").split("\0")
    drivers = {name[len("filter."):name.rindex(".")] for scope, name in zip(fields[::2], fields[1::2])
               if scope not in _TRUSTED_SCOPES and name.count(".") >= 2}
    return tuple((f"filter.{d}.{key}", value) for d in sorted(drivers)
                 for key, value in (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")))


def run(repo: str | Path, *args: str, timeout: float | None = READ_TIMEOUT_S, check: bool = True,
        input: bytes | None = None, env: dict | None = None, worktree: bool = False) -> subprocess.CompletedProcess:
    """`git -C repo ARGS`, stdout and stderr captured as bytes. GitError when git cannot start or
    times out, and (with `check`) when it exits non-zero, with git's stderr as the detail.
    `worktree`: the call compares the work tree, so the repo's own filter drivers are switched off, and
    the work tree is `repo` itself (never where the repo's `core.worktree` points)."""
    config = READ_ONLY_CONFIG + (own_filters_off(repo, env) if worktree else ())
    env = _env(env, config)
    if worktree:  # the registered folder, whatever core.worktree in the repo's config says
        env["GIT_WORK_TREE"] = str(repo)
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
                                stdout=subprocess.PIPE, stderr=stderr, text=text, env=_env(None, READ_ONLY_CONFIG),
                                errors="replace" if text else None)
    except OSError as exc:
        raise GitError(repo, args, str(exc)) from exc
