"""`ledger golden REPO OUT --commits`: a golden set of change requests from the repo's own history.

The query is a commit's subject, the targets the source files it changed (tests are never targets).
With `tests` (benchmarks/commit_eval.py --tests), the set asks for tests instead: "tests for" and the subject,
the targets the test files it changed, so a cut to how tests are indexed is measured where it would hurt.
The eval scores it at file level against the index of the repo at HEAD: a file changed by an old
commit may have changed since (accepted practice for this kind of set; targets gone at HEAD are
dropped).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from chunkers.paths import is_source_path, is_test_source_path
from ledger_assets.evaluation.golden import MIN_QUERY_WORDS, GoldenError
from ledger_assets.retrieval.priors import asks_about_tests
from ledger_assets.store import git

MAX_COMMIT_FILES = 5
# Subjects that do not ask for behaviour: releases and version bumps, typo/format/lint/CI/docs chores.
_CHORE_SUBJECT = re.compile(
    r"^(?:merge\b|revert\b|release\b|v?\d+\.\d+(?:\.\d+)?\b|version\b|bump\b|prepare\b.*\brelease|"
    r"(?:chore|ci|build|docs?|style|test|tests)(?:\([^)]*\))?!?:)"
    r"|\b(?:typos?|spelling|misspell\w*|reformat\w*|formatting|format(?:ted)? (?:code|files)|lint\w*|"
    r"prettier|black|ruff|flake8|isort|eslint|gofmt|dotnet format|whitespace|copyright|license|"
    r"changelog|readme|docstrings?|godoc|jsdoc|documentation|ci|github actions?|workflows?|dependabot|"
    r"bump(?:ed|s)? (?:\S+ )?(?:version|from|to)|release v?\d|version \d|v\d+\.\d+\.\d+)\b",
    re.IGNORECASE)
_CONVENTIONAL = re.compile(r"^(?:feat|fix|refactor|perf|feature|bugfix|hotfix|improvement|enhancement)"
                           r"(?:\(([^)]*)\))?!?:\s*", re.IGNORECASE)
_TEST_PREFIX = re.compile(r"^tests?(?:\([^)]*\))?!?:\s*", re.IGNORECASE)
_PR_SUFFIX = re.compile(r"\s*\((?:#\d+(?:,\s*#\d+)*|closes? #\d+|fixes #\d+)\)\s*$|\s+#\d+\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class CommitItem:
    query: str
    files: tuple[str, ...]
    commit: str

    def to_json(self) -> str:
        return json.dumps({"query": self.query, "files": list(self.files), "commit": self.commit},
                          ensure_ascii=False)


def commit_query(subject: str) -> str:
    """A commit subject as a change request: the PR number and the conventional-commit type go,
    a scope stays as words ("feat(vanilla): add x" -> "vanilla: add x")."""
    text = _PR_SUFFIX.sub("", subject.strip())
    m = _CONVENTIONAL.match(text)
    if m:
        text = (f"{m.group(1)}: " if m.group(1) else "") + text[m.end():]
    return re.sub(r"\s+", " ", text).strip()


def _git_lines(root: Path, *args: str) -> str:
    try:
        return git.run(root, *args, timeout=git.NO_TIMEOUT).stdout.decode("utf-8", "surrogateescape")
    except git.GitError as exc:
        raise GoldenError(f"{root}: git {args[0]} failed: {exc.detail}") from exc


def test_query(subject: str) -> str:
    """A commit subject as a question about its tests: "tests for" and the change, unless it names tests
    already ("test: cover x" -> "tests for cover x"; "add tests for x" stays)."""
    text = commit_query(_TEST_PREFIX.sub("", subject.strip()))
    return text if asks_about_tests(text) else f"tests for {text}"


def commit_items(repo_path: str | Path, max_items: int | None = None,
                 tests: bool = False) -> tuple[list[CommitItem], Counter]:
    """Commit subjects -> source files changed (with `tests`, test files changed), newest first, and why the
    others were skipped."""
    root = Path(repo_path).expanduser()
    if not (root / ".git").exists() and not root.joinpath("HEAD").exists():
        raise GoldenError(f"{repo_path}: not a git repository")
    at_head = set(p for p in _git_lines(root, "ls-files", "-z").split("\0") if p)
    log = _git_lines(root, "log", "--no-merges", "--no-renames", "--format=%x1e%H%x1f%s", "--name-only", "-z")
    why: Counter = Counter()
    seen: set[str] = set()
    items: list[CommitItem] = []
    for record in log.split("\x1e"):
        if not record.strip():
            continue
        head, _, rest = record.partition("\0")  # -z: the subject ends in NUL, then the names
        sha, _, subject = head.partition("\x1f")
        changed = [p for p in rest.replace("\n", "\0").split("\0") if p.strip()]
        why["commits"] += 1
        if _CHORE_SUBJECT.search(_TEST_PREFIX.sub("", subject) if tests else subject):
            why["chore subject"] += 1
            continue
        source = sorted({p for p in changed if (is_test_source_path(p) if tests else is_source_path(p))})
        if not 1 <= len(source) <= MAX_COMMIT_FILES:
            why["no source file" if not source else f"over {MAX_COMMIT_FILES} source files"] += 1
            continue
        files = tuple(p for p in source if p in at_head)
        if not files:
            why["files gone at HEAD"] += 1
            continue
        query = test_query(subject) if tests else commit_query(subject)
        if len(query.split()) < MIN_QUERY_WORDS + (2 if tests and query.startswith("tests for ") else 0):
            why["short subject"] += 1
            continue
        if query.lower() in seen:
            why["repeated subject"] += 1
            continue
        seen.add(query.lower())
        items.append(CommitItem(query, files, sha))
        if max_items and len(items) >= max_items:
            break
    return items, why


def build_commit_golden(repo_path: str | Path, out_dir: str | Path, max_items: int | None = None,
                        tests: bool = False) -> dict:
    """`ledger golden REPO OUT --commits`: OUT/golden.jsonl, one {"query", "files", "commit"} a line (with
    `tests`, the questions about tests of `commit_items`).

    The repo itself is what gets indexed (at HEAD): no copy is made."""
    root = Path(repo_path).expanduser()
    if not root.is_dir():
        raise GoldenError(f"{repo_path}: no such directory")
    if max_items is not None and max_items < 1:
        raise GoldenError(f"--max must be >= 1, got {max_items}")
    out = Path(out_dir).expanduser()
    if out.exists() and any(out.iterdir()):
        raise GoldenError(f"{out_dir}: exists and is not empty; give a new folder")
    items, why = commit_items(root.resolve(), max_items, tests)
    out.mkdir(parents=True, exist_ok=True)
    golden = out / "golden.jsonl"
    golden.write_text("".join(item.to_json() + "\n" for item in items), encoding="utf-8")
    return {"golden": str(golden), "repo": str(root.resolve()), "queries": len(items),
            "commits_read": why.pop("commits", 0), "skipped": dict(why.most_common())}
