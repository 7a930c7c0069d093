"""The agent tools beside query: read-span, symbol lookup, drift, find-similar.

Each is a plain function over a `Ledger` returning plain data; the CLI and the
MCP server (mcp_server.py) call these same functions. Bad input raises
`ToolInputError` (exit 2 on the command line, a tool error over MCP).
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from chunkers import chunk_file_guarded
from chunkers.extensions import extension_of
from chunkers.languages import SETTINGS_EXTENSIONS
from chunkers.redact import redact_lines
from chunkers.text import BinaryContent, decode, split_lines
from qdrant_client import models

from ledger_assets.ingest.snapshot import MAX_PATH_CHARS, RepoStateError, check_repo
from ledger_assets.store.printable import printable, printable_code, show_path
from ledger_assets.store import git
from ledger_assets.store.ledger import Ledger
from ledger_assets.retrieval.hits import Hit
from ledger_assets.retrieval.search import fetch_chunk_payload
from ledger_assets.store.qdrant import CODE_VECTOR, DESIGN_VECTOR, QUALITY_VECTOR, latest_filter
from ledger_assets.retrieval.symbols import ToolInputError
from ledger_assets.store.registry import RegistryError, Repo
from ledger_assets.store.settings import MAX_K, SIMILAR_EXTRA

SIMILAR_MODES = {"code": CODE_VECTOR, "design": DESIGN_VECTOR, "quality": QUALITY_VECTOR}


def _repo(ledger: Ledger, repo_id: str) -> Repo:
    try:
        return ledger.registry.get(repo_id)
    except RegistryError as exc:
        raise ToolInputError(str(exc)) from exc


# --------------------------------------------------------------- read-span ---
# A path component longer than this is refused (NAME_MAX on Linux, in bytes).
MAX_COMPONENT_BYTES = 255


def redact_span_text(file_path: str, text: str) -> list[str]:
    """The file's lines, redacted as its chunks are (`chunkers.redact.redact_lines`); a settings
    file's (the language table's) values under secret-shaped keys too."""
    return redact_lines(text, settings=extension_of(file_path) in SETTINGS_EXTENSIONS)


def normalize_rel_path(rel: str) -> str:
    """A repo-relative path as the manifest spells it (`a/b.py`), or ToolInputError.

    Refused: empty, NUL, over MAX_PATH_CHARS, absolute, `..`, a component over
    MAX_COMPONENT_BYTES, anything under `.git/`. Every test is one pass over the
    string (linear time), before any file system call.
    """
    if not isinstance(rel, str) or not rel.strip():
        raise ToolInputError("file path is empty")
    if len(rel) > MAX_PATH_CHARS:
        raise ToolInputError(f"{show_path(rel)}: path too long (over {MAX_PATH_CHARS} characters)")
    if "\0" in rel:
        raise ToolInputError(f"{show_path(rel)!r}: a NUL character is not allowed in a path")
    norm = rel.replace("\\", "/")
    if norm.startswith("/") or re.match(r"[A-Za-z]:", norm):
        raise ToolInputError(f"{show_path(rel)}: absolute paths are refused; give a path relative to the repo root")
    parts = norm.split("/")
    if ".." in parts:
        raise ToolInputError(f"{show_path(rel)}: '..' is refused; give a path inside the repo")
    parts = [p for p in parts if p not in ("", ".")]
    if not parts:
        raise ToolInputError(f"{show_path(rel)}: not a file path")
    for part in parts:
        if len(part.encode("utf-8", "surrogateescape")) > MAX_COMPONENT_BYTES:
            raise ToolInputError(f"{show_path(rel)}: a path component is longer than {MAX_COMPONENT_BYTES} bytes")
        if part.lower() == ".git":
            raise ToolInputError(f"not indexed: {show_path(rel)}: .git/ is never indexed")
    return "/".join(parts)


def safe_repo_path(root: str | Path, rel: str) -> Path:
    """`rel` resolved inside `root`, or ToolInputError: no absolute paths, no `..`, no symlink escapes."""
    norm = normalize_rel_path(rel)
    root_real = os.path.realpath(root)
    target = os.path.realpath(os.path.join(root_real, norm))
    if target != root_real and not target.startswith(root_real.rstrip(os.sep) + os.sep):
        raise ToolInputError(f"{show_path(rel)}: resolves outside the repo root (symlink)")
    return Path(target)


def _indexed(ledger: Ledger, repo_ids: list[str], file_path: str) -> tuple[dict, dict]:
    """({repo_id: head} of repos with a stored snapshot, {repo_id: skip reason or ""} for the
    repos whose latest manifest holds file_path)."""
    marks = ", ".join("?" for _ in repo_ids)
    with ledger.db.connect() as con:
        heads = dict(con.execute(f"SELECT repo_id, head_sha FROM served.snapshots WHERE repo_id IN ({marks})",
                                 repo_ids).fetchall())
        rows = con.execute(
            "SELECT m.repo_id, m.skip_reason, CASE WHEN f.blob_hash = m.blob_hash THEN f.skip_reason END "
            f"FROM served.manifest m LEFT JOIN served.files f ON f.repo_id = m.repo_id AND f.file_path = m.file_path "
            f"WHERE m.file_path = ? AND m.repo_id IN ({marks})", [file_path, *repo_ids]).fetchall()
    return heads, {rid: (static or chunker or "") for rid, static, chunker in rows}


def read_span(ledger: Ledger, file: str, start: int, end: int, repo: str | None = None,
              max_lines: int | None = None) -> dict:
    """Lines start..end (1-based, inclusive) of a file the ledger indexed, clamped to EOF and capped.

    Only a file of the repo's latest stored snapshot (tracked, not skipped) is served, never
    anything under .git/, and redacted as its chunks are; anything else is refused with
    "not indexed: ...". The lines are read from the work tree (what an agent edits next).
    """
    cap = max_lines or ledger.settings.read_span_max_lines
    if start < 1:
        raise ToolInputError(f"START must be >= 1, got {start}")
    if end < start:
        raise ToolInputError(f"END ({end}) is before START ({start})")
    if cap < 1:
        raise ToolInputError(f"--max-lines must be >= 1, got {cap}")
    norm = normalize_rel_path(file)
    try:
        repos = ledger.registry.load()
    except RegistryError as exc:
        raise ToolInputError(str(exc)) from exc
    if repo:
        candidates = [_repo(ledger, repo)]
    else:
        if not repos:
            raise ToolInputError("no repos registered; add one with `ledger add-repo PATH`")
        candidates = sorted(repos.values(), key=lambda r: r.repo_id)
    targets = {r.repo_id: safe_repo_path(r.path, norm) for r in candidates}
    heads, in_manifest = _indexed(ledger, [r.repo_id for r in candidates], norm)
    shown = show_path(norm)
    found = [r for r in candidates if r.repo_id in in_manifest and not in_manifest[r.repo_id]]
    if not found:
        skipped = {rid: why for rid, why in in_manifest.items() if why}
        if skipped:
            rid, why = sorted(skipped.items())[0]
            raise ToolInputError(f"not indexed: {shown} in repo {rid!r} was skipped by the ingest ({why})")
        if not heads:
            ids = ", ".join(r.repo_id for r in candidates)
            raise ToolInputError(f"not indexed: repo(s) {ids} not ingested yet; run `ledger ingest {candidates[0].repo_id}`")
        where = ", ".join(f"{rid}@{head[:12]}" for rid, head in sorted(heads.items()))
        raise ToolInputError(f"not indexed: {shown} is not a tracked file of the latest snapshot of {where} "
                             "(untracked, ignored, or no such file)")
    if len(found) > 1:
        raise ToolInputError(f"{shown} exists in several repos ({', '.join(r.repo_id for r in found)}); "
                             "choose one with --repo")
    r = found[0]
    target = targets[r.repo_id]
    try:
        if not target.is_file():
            raise ToolInputError(f"{shown}: indexed in repo {r.repo_id!r} but no longer in its work tree; "
                                 f"run `ledger ingest {r.repo_id}`")
        data = target.read_bytes()
    except OSError as exc:
        raise ToolInputError(f"{shown}: {exc.strerror or exc}") from exc
    try:
        lines = redact_span_text(norm, decode(data))
    except BinaryContent as exc:
        raise ToolInputError(f"{shown}: {exc}") from exc
    total = len(lines)
    if start > total:
        raise ToolInputError(f"{shown} has {total} lines; START {start} is past the end")
    clamped = min(end, total)
    capped = min(clamped, start + cap - 1)
    return {
        "repo_id": r.repo_id, "file_path": norm,
        "start_line": start, "end_line": capped, "total_lines": total,
        "clamped": clamped < end, "truncated": capped < clamped, "max_lines": cap,
        "text": "\n".join(lines[start - 1:capped]),
    }


def format_span(span: dict) -> str:
    width = len(str(span["end_line"]))
    out = [f"{printable(span['repo_id'] + ':' + span['file_path'])}:{span['start_line']}-{span['end_line']} "
           f"(of {span['total_lines']} lines)"]
    for i, line in enumerate(printable_code(span["text"]).split("\n") if span["text"] else [], span["start_line"]):
        out.append(f"{i:>{width}}  {line}")
    if span["truncated"]:
        out.append(f"… capped at {span['max_lines']} lines; ask for the rest with START {span['end_line'] + 1}")
    return "\n".join(out)


# -------------------------------------------------------------------- drift ---
@dataclass(frozen=True)
class SymbolAt:
    kind: str
    qualified_name: str
    file_path: str
    start_line: int
    end_line: int
    signature: str


def signature_of(lines: list[str], start: int, end: int) -> str:
    """The declaration of a symbol: from its first line up to its body, whitespace-collapsed."""
    parts = []
    for line in lines[max(start, 1) - 1:min(end, start + 7)]:
        stripped = line.strip()
        if stripped.startswith(("///", "//", "#", "/*", "*", "[", "@")) and not parts:
            continue  # doc comments, attributes, decorators sit before the declaration proper
        cut = len(stripped)
        for stop in ("{", "=>"):
            pos = stripped.find(stop)
            if pos != -1:
                cut = min(cut, pos)
        parts.append(stripped[:cut])
        if cut < len(stripped) or stripped.endswith((":", ";")):
            break
    return re.sub(r"\s+", " ", " ".join(parts)).strip().rstrip(":;").strip()


def symbols_of_file(rel: str, data: bytes) -> list[SymbolAt]:
    try:
        lines = split_lines(decode(data))
    except BinaryContent:
        return []
    seen: dict[tuple, SymbolAt] = {}
    for piece in chunk_file_guarded(rel, data).pieces:
        for s in piece.symbols:
            qname = f"{s.parent}.{s.name}" if s.parent else s.name
            key = (s.kind, qname, s.start_line, s.end_line)
            if key not in seen:
                seen[key] = SymbolAt(s.kind, qname, rel, s.start_line, s.end_line,
                                     signature_of(lines, s.start_line, s.end_line))
    return list(seen.values())


def drift(ledger: Ledger, repo_id: str, since: str, move_threshold: int | None = None) -> dict:
    """Symbols at `since` against the work tree now, by kind-qualified name.

    Only files that differ are parsed (`git diff --name-only SHA`), at SHA via
    `git show SHA:path` and now from the work tree. A symbol whose signature is
    unchanged counts as Moved when it changed file or shifted by more than
    `move_threshold` lines: edits above it shift it by a few lines, which is
    noise to an agent.
    """
    threshold = ledger.settings.drift_move_threshold if move_threshold is None else move_threshold
    repo = _repo(ledger, repo_id)
    if repo.kind != "git":
        raise ToolInputError(f"repo {repo_id!r} is a plain folder: drift needs git history")
    try:
        check_repo(repo.path, repo.kind)
    except RepoStateError as exc:
        raise ToolInputError(f"repo {repo_id!r}: {exc}") from exc
    if not re.match(r"^[\w./~^@{}-]+$", since or "") or since.startswith("-"):
        raise ToolInputError(f"{since!r} is not a commit")
    resolved = git.run(repo.path, "rev-parse", "--verify", "--quiet", f"{since}^{{commit}}", check=False)
    if resolved.returncode != 0:
        raise ToolInputError(f"{since!r} is not a commit in repo {repo_id!r}")
    sha = resolved.stdout.decode().strip()
    diff = git.run(repo.path, "diff", "--name-only", "--no-renames", "--ignore-submodules=all", "-z", sha,
                   worktree=True)
    changed = [p for p in diff.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
    others = git.run(repo.path, "ls-files", "--others", "--exclude-standard", "-z", worktree=True)
    untracked = [p for p in others.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
    old: list[SymbolAt] = []
    new: list[SymbolAt] = []
    for rel in sorted(set(changed) | set(untracked)):
        shown = git.run(repo.path, "show", f"{sha}:{rel}", check=False)
        if shown.returncode == 0:
            old.extend(symbols_of_file(rel, shown.stdout))
        live = Path(repo.path) / rel
        if live.is_file() and not live.is_symlink():
            new.extend(symbols_of_file(rel, live.read_bytes()))
    by_old: dict[tuple, list[SymbolAt]] = defaultdict(list)
    by_new: dict[tuple, list[SymbolAt]] = defaultdict(list)
    for s in old:
        by_old[(s.kind, s.qualified_name)].append(s)
    for s in new:
        by_new[(s.kind, s.qualified_name)].append(s)
    added, removed, changed_sig, moved = [], [], [], []
    for key in sorted(set(by_old) | set(by_new)):
        before, after = list(by_old.get(key, [])), list(by_new.get(key, []))
        # Overloads share a name: pair identical signatures first, then what is left in order.
        pairs = []
        for s in list(before):
            twin = next((t for t in after if t.signature == s.signature), None)
            if twin is not None:
                pairs.append((s, twin))
                before.remove(s)
                after.remove(twin)
        for s, t in zip(list(before), list(after)):
            changed_sig.append({"kind": s.kind, "name": s.qualified_name, "file_path": t.file_path,
                                "start_line": t.start_line, "end_line": t.end_line,
                                "old_signature": s.signature, "new_signature": t.signature})
            before.remove(s)
            after.remove(t)
        for s, t in pairs:
            if s.file_path != t.file_path or abs(t.start_line - s.start_line) > threshold:
                moved.append({"kind": s.kind, "name": s.qualified_name, "from_file": s.file_path,
                              "from_start_line": s.start_line, "file_path": t.file_path,
                              "start_line": t.start_line, "end_line": t.end_line})
        removed += [{"kind": s.kind, "name": s.qualified_name, "file_path": s.file_path,
                     "start_line": s.start_line, "end_line": s.end_line} for s in before]
        added += [{"kind": t.kind, "name": t.qualified_name, "file_path": t.file_path,
                   "start_line": t.start_line, "end_line": t.end_line} for t in after]
    return {"repo_id": repo_id, "since": sha, "files_changed": len(set(changed) | set(untracked)),
            "move_threshold": threshold, "added": added, "removed": removed,
            "signature_changed": changed_sig, "moved": moved}


def format_drift(report: dict) -> str:
    out = [f"{report['repo_id']} since {report['since'][:12]}: {report['files_changed']} files changed; "
           f"{len(report['added'])} added, {len(report['removed'])} removed, "
           f"{len(report['signature_changed'])} signature changed, {len(report['moved'])} moved"]
    for s in report["added"]:
        out.append(f"+ {s['kind']} {printable(s['name'] + '  ' + s['file_path'])}:{s['start_line']}-{s['end_line']}")
    for s in report["removed"]:
        out.append(f"- {s['kind']} {printable(s['name'] + '  (was ' + s['file_path'])}:{s['start_line']}-{s['end_line']})")
    for s in report["signature_changed"]:
        out.append(f"~ {s['kind']} {printable(s['name'] + '  ' + s['file_path'])}:{s['start_line']}  "
                   f"{s['old_signature']}  ->  {s['new_signature']}")
    for s in report["moved"]:
        out.append(f"> {s['kind']} {printable(s['name'] + '  ' + s['from_file'])}:{s['from_start_line']} -> "
                   f"{printable(s['file_path'])}:{s['start_line']}-{s['end_line']}")
    return "\n".join(out)


# ------------------------------------------------------------------ similar ---
def parse_location(target: str) -> tuple[str, int]:
    if len(target or "") > MAX_PATH_CHARS + 12:
        raise ToolInputError(f"{show_path(target)}: path too long (over {MAX_PATH_CHARS} characters)")
    file, sep, line = (target or "").rpartition(":")
    if not sep or not file or not line.isdigit() or int(line) < 1:
        raise ToolInputError(f"{target!r}: give FILE:LINE, e.g. src/Booking.cs:42")
    return file, int(line)


def chunk_at(ledger: Ledger, file: str, line: int, repo: str | None = None) -> tuple[str, int]:
    """(repo_id, chunk_index) of the most specific indexed chunk holding FILE:LINE."""
    norm = file.replace("\\", "/").removeprefix("./")
    sql = ("SELECT repo_id, chunk_index FROM served.chunks WHERE file_path = ? AND start_line <= ? AND end_line >= ? ")
    params: list = [norm, line, line]
    if repo:
        sql += "AND repo_id = ? "
        params.append(repo)
    sql += "ORDER BY (end_line - start_line), chunk_index"
    with ledger.db.connect() as con:
        rows = con.execute(sql, params).fetchall()
    if not rows:
        raise ToolInputError(f"{file}:{line} is in no indexed chunk" + (f" of repo {repo!r}" if repo else ""))
    repos = {r[0] for r in rows}
    if len(repos) > 1:
        raise ToolInputError(f"{file} is indexed in several repos ({', '.join(sorted(repos))}); choose one with --repo")
    return rows[0][0], rows[0][1]


def similar(ledger: Ledger, target: str, mode: str = "code", repo: str | None = None, k: int = 10,
            client=None) -> list:
    """Chunks nearest to the chunk at FILE:LINE by its code, design or quality vector; mode `concept`:
    the chunks sharing its concept_id (`concept_chunks`)."""
    if mode == "concept":
        return concept_chunks(ledger, target, repo, k)
    if mode not in SIMILAR_MODES:
        raise ToolInputError(f"unknown mode {mode!r}: use code, design, quality or concept")
    if not 1 <= k <= MAX_K:
        raise ToolInputError(f"k must be between 1 and {MAX_K}, got {k}")
    file, line = parse_location(target)
    repo_id, idx = chunk_at(ledger, file, line, repo)
    using = SIMILAR_MODES[mode]
    norm = file.replace("\\", "/").removeprefix("./")

    def run(c) -> list:
        me = fetch_chunk_payload(ledger, c, repo_id, norm, idx, with_vectors=[using])
        if me is None:
            raise ToolInputError(f"{target}: the chunk is not in the Qdrant collection yet; run `ledger ingest`")
        vector = me.vector.get(using) if isinstance(me.vector, dict) else me.vector
        if vector is None:  # only the full embedding profile gives a keyless (heuristic) intent a design vector
            raise ToolInputError(f"{target}: the chunk has no {mode} vector (its intent is keyless: set GROQ_API_KEY "
                                 "for LLM intents, or re-ingest with LEDGER_EMBED_PROFILE=full); use --mode code")
        res = c.query_points(ledger.qdrant.collection, query=vector, using=using, limit=k + SIMILAR_EXTRA, with_payload=True).points
        # Local mode filters in Python per point: over-fetch, then drop itself and non-latest points.
        res = [p for p in res if p.id != me.id and (p.payload or {}).get("is_latest", True)]
        if len(res) < k:
            res = c.query_points(ledger.qdrant.collection, query=vector, using=using,
                                 query_filter=models.Filter(must=latest_filter(None).must,
                                                            must_not=[models.HasIdCondition(has_id=[me.id])]),
                                 limit=k, with_payload=True).points
        return [Hit(rank, float(p.score), p.payload or {}, {mode: rank}) for rank, p in enumerate(res[:k], 1)]

    if client is not None:
        return run(client)
    with ledger.qdrant.open() as c:
        return run(c)


def concept_chunks(ledger: Ledger, target: str, repo: str | None = None, k: int = MAX_K) -> list:
    """`ledger similar FILE:LINE --mode concept`: every point sharing the concept_id of the chunk at FILE:LINE
    (or a concept_id given as it is): the unit's shapes, parts and, under versioning, its old versions.
    Latest first (by file and line), then older versions, newest first."""
    if not 1 <= k <= MAX_K:
        raise ToolInputError(f"k must be between 1 and {MAX_K}, got {k}")
    if re.fullmatch(r"[0-9a-fA-F-]{36}", (target or "").strip()):
        concept, repo_id = target.strip().lower(), repo
    else:
        file, line = parse_location(target)
        repo_id, idx = chunk_at(ledger, file, line, repo)
        with ledger.db.connect() as con:
            row = con.execute(
                "SELECT k.concept_id FROM served.chunks c JOIN chunk_concepts k USING (repo_id, ledger_id) "
                "WHERE c.repo_id = ? AND c.file_path = ? AND c.chunk_index = ?",
                [repo_id, file.replace("\\", "/").removeprefix("./"), idx]).fetchone()
        if row is None:
            raise ToolInputError(f"{target}: the chunk has no concept_id yet; run `ledger ingest`")
        concept = row[0]
    must = [models.FieldCondition(key="concept_id", match=models.MatchValue(value=concept))]
    if repo_id:
        must.append(models.FieldCondition(key="repo_id", match=models.MatchValue(value=repo_id)))
    flt = models.Filter(must=must)
    from ledger_assets.store import local_index

    index = local_index.current(ledger.qdrant)
    if index is not None:
        payloads = [index.payloads[i] for i in index.mask(flt).nonzero()[0]]
    else:
        with ledger.qdrant.open() as c:
            payloads = ([p.payload or {} for p in ledger.qdrant.scroll(c, flt)]
                        if c.collection_exists(ledger.qdrant.collection) else [])
    payloads = [p for p in payloads if not p.get("staged")]
    payloads.sort(key=lambda p: (p.get("repo_id") or "", p.get("file_path") or "", p.get("start_line") or 0,
                                 p.get("chunk_index") or 0))
    latest = [p for p in payloads if p.get("is_latest", True) is True]
    older = sorted((p for p in payloads if p.get("is_latest", True) is not True),
                   key=lambda p: p.get("system_from_utc") or "", reverse=True)
    return [Hit(rank, 1.0, dict(p), {"concept": rank}) for rank, p in enumerate((latest + older)[:k], 1)]


def to_json(obj) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False)
