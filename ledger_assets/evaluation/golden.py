"""A golden set the CodeSearchNet way: doc comments become queries, then vanish.

repo -> each documented type or member (Python docstrings, C# `///` comments)
-> query = the doc's first sentence, target = the member's file and line span
-> a copy of the repo with those docs blanked, line numbers preserved, committed
as a git repo so it can be registered and ingested -> golden.jsonl.

Docs whose first sentence is not unique in the repo (or under three words)
are left out: such a query has no single right answer.
"""

from __future__ import annotations

import ast
import html
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from chunkers import chunk_file
from chunkers.text import BinaryContent, decode, split_lines

CS_DOC_KINDS = frozenset({"class", "struct", "interface", "record", "enum", "method", "constructor", "property",
                          "event", "indexer", "operator", "delegate", "field", "const"})
MIN_QUERY_WORDS = 3


class GoldenError(ValueError):
    """Bad input to `ledger golden` (no such repo, output folder not empty)."""


@dataclass(frozen=True)
class GoldenItem:
    query: str
    file: str
    start_line: int
    end_line: int
    symbol: str = ""

    def to_json(self) -> str:
        return json.dumps({k: v for k, v in asdict(self).items() if v != ""}, ensure_ascii=False)


@dataclass(frozen=True)
class _Doc:
    item: GoldenItem
    blank: tuple[int, int]  # doc lines to blank, 1-based inclusive


def first_sentence(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    if not text:
        return ""
    match = re.search(r"(?<=[.!?])\s+(?=[A-Z(`\"'])|(?<=[.!?])$", text)
    sentence = text[:match.start()] if match else text
    return sentence.strip().rstrip(".").strip()


def _cs_doc_text(lines: list[str]) -> str:
    raw = " ".join(re.sub(r"^\s*///\s?", "", ln) for ln in lines)
    summary = re.search(r"<summary>(.*?)</summary>", raw, re.S)
    body = summary.group(1) if summary else raw
    body = re.sub(r"<(?:see|seealso|paramref|typeparamref)\s+\w+=\"([^\"]*)\"\s*/>", r"\1", body)
    body = re.sub(r"<[^>]+>", " ", body)
    return html.unescape(body)


def csharp_docs(rel: str, text: str) -> list[_Doc]:
    lines = split_lines(text)
    seen: set[tuple] = set()
    out: list[_Doc] = []
    for piece in chunk_file(rel, text.encode("utf-8")):
        for s in piece.symbols:
            key = (s.name, s.kind, s.parent, s.start_line)
            if key in seen or s.kind not in CS_DOC_KINDS or s.start_line < 2:
                continue
            seen.add(key)
            # Walk up over attributes to the `///` block right above the declaration.
            i = s.start_line - 1  # 1-based line above
            while i >= 1 and lines[i - 1].lstrip().startswith("[") and not lines[i - 1].lstrip().startswith("///"):
                i -= 1
            end = i
            while i >= 1 and lines[i - 1].lstrip().startswith("///"):
                i -= 1
            start = i + 1
            if start > end:
                continue
            query = first_sentence(_cs_doc_text(lines[start - 1:end]))
            qname = f"{s.parent}.{s.name}" if s.parent else s.name
            out.append(_Doc(GoldenItem(query, rel, s.start_line, s.end_line, qname), (start, end)))
    return out


def python_docs(rel: str, text: str) -> list[_Doc]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    lines = split_lines(text)
    out: list[_Doc] = []

    def visit(node, parents: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(child, clean=True)
                first = child.body[0] if child.body else None
                if doc and isinstance(first, ast.Expr) and first.lineno > child.lineno:
                    d0, d1 = first.lineno, first.end_lineno or first.lineno
                    own_lines = lines[d0 - 1].strip().startswith(("'", '"', "r'", 'r"', "b'", 'b"', "u'", 'u"'))
                    if own_lines and lines[d1 - 1].rstrip().endswith(("'", '"')):
                        start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                        name = ".".join(parents + [child.name])
                        out.append(_Doc(GoldenItem(first_sentence(doc.split("\n\n")[0]), rel, start,
                                                   child.end_lineno or child.lineno, name), (d0, d1)))
                visit(child, parents + [child.name])
            elif not isinstance(child, (ast.Lambda,)):
                visit(child, parents)

    visit(tree, [])
    return out


def _blank(lines: list[str], docs: list[_Doc], python: bool) -> list[str]:
    out = list(lines)
    for d in docs:
        s, e = d.blank
        indent = re.match(r"\s*", out[s - 1]).group(0)
        for n in range(s, e + 1):
            out[n - 1] = ""
        if python:
            # The docstring may be the body's only statement: keep the body valid on the same line.
            out[s - 1] = f"{indent}pass"
    return out


def _tracked_files(root: Path) -> list[str]:
    proc = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True)
    if proc.returncode == 0 and proc.stdout:
        return sorted(p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p)
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            full = Path(dirpath) / name
            if full.is_file() and not full.is_symlink():
                files.append(full.relative_to(root).as_posix())
    return sorted(files)


def build_golden(repo_path: str | Path, out_dir: str | Path) -> dict:
    root = Path(repo_path).expanduser()
    if not root.is_dir():
        raise GoldenError(f"{repo_path}: no such directory")
    out = Path(out_dir).expanduser()
    if out.exists() and any(out.iterdir()):
        raise GoldenError(f"{out_dir}: exists and is not empty; give a new folder")
    root = root.resolve()
    files = _tracked_files(root)
    docs_by_file: dict[str, list[_Doc]] = {}
    texts: dict[str, str] = {}
    for rel in files:
        if not rel.endswith((".py", ".cs")):
            continue
        full = root / rel
        if full.is_symlink() or not full.is_file():
            continue
        try:
            text = decode(full.read_bytes())
        except (OSError, BinaryContent):
            continue
        texts[rel] = text
        docs = python_docs(rel, text) if rel.endswith(".py") else csharp_docs(rel, text)
        if docs:
            docs_by_file[rel] = docs
    counts = Counter(d.item.query.lower() for docs in docs_by_file.values() for d in docs)
    keep = {rel: [d for d in docs if len(d.item.query.split()) >= MIN_QUERY_WORDS and counts[d.item.query.lower()] == 1]
            for rel, docs in docs_by_file.items()}

    copy = out / "repo"
    copy.mkdir(parents=True)
    for rel in files:
        src = root / rel
        if src.is_symlink() or not src.is_file():
            continue
        dst = copy / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        # Every doc of the file is blanked, kept or not: the answer must never be in the indexed text.
        all_docs = docs_by_file.get(rel)
        if all_docs:
            lines = _blank(split_lines(texts[rel]), all_docs, rel.endswith(".py"))
            dst.write_text("\n".join(lines) + "\n", encoding="utf-8")
        else:
            shutil.copyfile(src, dst)
    env = {**os.environ, "GIT_AUTHOR_NAME": "ledger golden", "GIT_AUTHOR_EMAIL": "golden@localhost",
           "GIT_COMMITTER_NAME": "ledger golden", "GIT_COMMITTER_EMAIL": "golden@localhost"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", f"golden copy of {root.name}, docs blanked"]):
        proc = subprocess.run(["git", "-C", str(copy), *args], capture_output=True, env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} in {copy}: {proc.stderr.decode(errors='replace').strip()}")
    items = [d.item for rel in sorted(keep) for d in sorted(keep[rel], key=lambda d: d.item.start_line)]
    golden = out / "golden.jsonl"
    golden.write_text("".join(item.to_json() + "\n" for item in items), encoding="utf-8")
    return {"golden": str(golden), "repo_copy": str(copy), "queries": len(items),
            "documented": sum(len(d) for d in docs_by_file.values()), "files_with_docs": len(docs_by_file)}


# ------------------------------------------------------------ commit mode ---
# `ledger golden REPO OUT --commits`: change requests from the repo's own history. The query is a
# commit's subject, the targets the source files it changed (tests are never targets). The eval
# scores it at file level against the index of the repo at HEAD: a file changed by an old commit
# may have changed since (accepted practice for this kind of set; targets gone at HEAD are dropped).

SOURCE_EXTENSIONS = frozenset({
    ".py", ".pyi", ".cs", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".go", ".java", ".kt",
    ".rs", ".rb", ".php", ".swift", ".scala", ".c", ".h", ".cc", ".cpp", ".hpp", ".cxx", ".m", ".vue",
    ".svelte", ".razor", ".cshtml", ".sql", ".lua", ".dart", ".ex", ".exs", ".sh"})
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
_PR_SUFFIX = re.compile(r"\s*\((?:#\d+(?:,\s*#\d+)*|closes? #\d+|fixes #\d+)\)\s*$|\s+#\d+\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class CommitItem:
    query: str
    files: tuple[str, ...]
    commit: str

    def to_json(self) -> str:
        return json.dumps({"query": self.query, "files": list(self.files), "commit": self.commit},
                          ensure_ascii=False)


def is_source_path(path: str) -> bool:
    from ledger_assets.retrieval.fusion import is_test_path

    suffix = Path(path).suffix.lower()
    return suffix in SOURCE_EXTENSIONS and not is_test_path(path) and not path.endswith((".d.ts", ".min.js"))


def commit_query(subject: str) -> str:
    """A commit subject as a change request: the PR number and the conventional-commit type go,
    a scope stays as words ("feat(vanilla): add x" -> "vanilla: add x")."""
    text = _PR_SUFFIX.sub("", subject.strip())
    m = _CONVENTIONAL.match(text)
    if m:
        text = (f"{m.group(1)}: " if m.group(1) else "") + text[m.end():]
    return re.sub(r"\s+", " ", text).strip()


def _git_lines(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True)
    if proc.returncode != 0:
        raise GoldenError(f"{root}: git {args[0]} failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout.decode("utf-8", "surrogateescape")


def commit_items(repo_path: str | Path, max_items: int | None = None) -> tuple[list[CommitItem], Counter]:
    """Commit subjects -> source files changed, newest first, and why the others were skipped."""
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
        if _CHORE_SUBJECT.search(subject):
            why["chore subject"] += 1
            continue
        source = sorted({p for p in changed if is_source_path(p)})
        if not 1 <= len(source) <= MAX_COMMIT_FILES:
            why["no source file" if not source else f"over {MAX_COMMIT_FILES} source files"] += 1
            continue
        files = tuple(p for p in source if p in at_head)
        if not files:
            why["files gone at HEAD"] += 1
            continue
        query = commit_query(subject)
        if len(query.split()) < MIN_QUERY_WORDS:
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


def build_commit_golden(repo_path: str | Path, out_dir: str | Path, max_items: int | None = None) -> dict:
    """`ledger golden REPO OUT --commits`: OUT/golden.jsonl, one {"query", "files", "commit"} a line.

    The repo itself is what gets indexed (at HEAD): no copy is made."""
    root = Path(repo_path).expanduser()
    if not root.is_dir():
        raise GoldenError(f"{repo_path}: no such directory")
    if max_items is not None and max_items < 1:
        raise GoldenError(f"--max must be >= 1, got {max_items}")
    out = Path(out_dir).expanduser()
    if out.exists() and any(out.iterdir()):
        raise GoldenError(f"{out_dir}: exists and is not empty; give a new folder")
    items, why = commit_items(root.resolve(), max_items)
    out.mkdir(parents=True, exist_ok=True)
    golden = out / "golden.jsonl"
    golden.write_text("".join(item.to_json() + "\n" for item in items), encoding="utf-8")
    return {"golden": str(golden), "repo": str(root.resolve()), "queries": len(items),
            "commits_read": why.pop("commits", 0), "skipped": dict(why.most_common())}
