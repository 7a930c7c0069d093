"""concept_id: one id for the chunks that are the same unit of code across shapes, edits and renames.

A chunk's concept is its *subject*: the symbol whose range holds every other symbol the chunk
lists (a member chunk -> the member; each part of a split member -> that member; a type's header
and each part of its whole-type copy -> the type). A chunk listing sibling symbols (a file chunk,
a window) or none has no subject; its concept is its own ledger_id.

The id of a subject is made once, from (repo, the file where it was first seen, language,
qualified name), and then inherited, never recomputed, so it outlives what ledger_id does not:
    1. a chunk whose ledger_id already has a concept keeps it (same content: an unchanged chunk,
       a renamed file, a revert);
    2. else, a chunk of a file re-chunked in place inherits the concept the file's old chunk with
       the same subject had (an edit; the new version under LEDGER_VERSIONING shares it with the
       old one);
    3. else, a chunk of a new file inherits from the file this run removed that it reuses the most
       ledger_ids of (a rename with edits);
    4. else a fresh id.
Overloads share their name, and with it a concept. Stored in `chunk_concepts` (repo, ledger_id ->
concept_id), joined into the points' payload by the points stage.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections import Counter, defaultdict

from ledger_assets.store.db import insert_arrow


def subject(symbols: list[dict] | str | None) -> str | None:
    """The qualified name (`Parent.Name`) of the symbol that holds every other one, or None."""
    if isinstance(symbols, str):
        symbols = json.loads(symbols or "[]")
    if not symbols:
        return None
    spans = [(s.get("start_line") or 0, s.get("end_line") or 0) for s in symbols]
    best = max(range(len(symbols)), key=lambda i: (spans[i][1] - spans[i][0], -spans[i][0], -i))
    lo, hi = spans[best]
    if any(not (lo <= a and b <= hi) for a, b in spans):
        return None
    return qualified_name(symbols[best]["name"], symbols[best].get("parent"))


def qualified_name(name: str, parent: str | None) -> str:
    """`Parent.Name`, a C++/PHP `::` read as `.`."""
    parent = (parent or "").replace("::", ".")
    return f"{parent}.{name}" if parent else name


def fresh_concept(repo_id: str, file_path: str, language: str, qualified: str) -> str:
    key = f"{repo_id}|{file_path}|{language}|{qualified}"
    return str(uuid.UUID(hashlib.md5(key.encode("utf-8")).hexdigest()))


def assign_concepts(con, repo_id: str, new_rows: list[dict], removed: list[str]) -> int:
    """Record a concept for each new chunk row (and for rows of untouched files that have none, from
    before concepts existed). Call inside the chunks transaction, with the temp table `touched` (the
    changed and removed files), before their old rows are deleted: their concepts are what steps 2
    and 3 inherit. Returns the concepts added."""
    have = dict(con.execute("SELECT ledger_id, concept_id FROM chunk_concepts WHERE repo_id = ?",
                            [repo_id]).fetchall())
    old: dict[str, dict[str, str]] = defaultdict(dict)  # file -> subject -> concept, of the touched files
    old_ids: dict[str, str] = {}  # ledger_id -> file, of the removed files
    old_paths: set[str] = set()
    removed_set = set(removed)
    for path, lid, symbols in con.execute(
            "SELECT file_path, ledger_id, symbols FROM chunks WHERE repo_id = ? AND file_path IN "
            "(SELECT k FROM touched) ORDER BY file_path, chunk_index", [repo_id]).fetchall():
        old_paths.add(path)
        subj = subject(symbols)
        if subj and lid in have:
            old[path].setdefault(subj, have[lid])
        if path in removed_set:
            old_ids[lid] = path
    renamed_from: dict[str, str] = {}
    reuse: dict[str, Counter] = defaultdict(Counter)
    for row in new_rows:
        if row["ledger_id"] in old_ids and row["file_path"] not in old_paths:
            reuse[row["file_path"]][old_ids[row["ledger_id"]]] += 1
    for path, counts in reuse.items():
        renamed_from[path] = counts.most_common(1)[0][0]
    added: dict[str, str] = {}
    legacy = con.execute(
        "SELECT c.file_path, c.ledger_id, c.symbols, c.language FROM chunks c LEFT JOIN chunk_concepts k "
        "USING (repo_id, ledger_id) WHERE c.repo_id = ? AND k.concept_id IS NULL AND c.file_path NOT IN "
        "(SELECT k FROM touched)", [repo_id]).fetchall()
    rows = [(r["file_path"], r["ledger_id"], r["symbols"], r["language"]) for r in new_rows] + legacy
    for path, lid, symbols, language in rows:
        if lid in have or lid in added:
            continue
        subj = subject(symbols)
        if subj is None:
            added[lid] = lid
            continue
        origin = renamed_from.get(path)
        added[lid] = (old.get(path, {}).get(subj) or (old.get(origin, {}).get(subj) if origin else None)
                      or fresh_concept(repo_id, path, language or "", subj))
    insert_arrow(con, "chunk_concepts", {"repo_id": [repo_id] * len(added), "ledger_id": list(added),
                                         "concept_id": list(added.values())})
    return len(added)
