"""What is served, per repo, checked against what is on disk: `ledger status` and the reads' guard.

A read answers from the promoted state (store/served.py, the served index copy). `repo_status`
says which sha that is, why it is not HEAD, and whether the index on disk still holds it
(ingest/promotion.verify_index), and how many files changed on disk since (`stale_files`);
`require_index` turns a read over a repo with nothing served into an error instead of "no hits".
"""

from __future__ import annotations

from dataclasses import dataclass

from ledger_assets.ingest.promotion import read_state, verify_index
from ledger_assets.ingest.snapshot import SnapshotError, read_head, take_snapshot
from ledger_assets.store.printable import printable
from ledger_assets.store import git
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.registry import read_indexed_head
from ledger_assets.store.served import served_chunk_count


class UnknownRepoId(ValueError):
    """A read named a repo id no registry entry has (bad input: exit 2)."""


class IndexMissing(RuntimeError):
    """Nothing is served for what a read asked about (exit 1, with the command that builds it)."""


def require_index(ledger: Ledger, repos: dict, repo: str | None) -> None:
    if repo and repo not in repos:
        raise UnknownRepoId(f"unknown repo {repo!r} (registered: {', '.join(sorted(repos)) or 'none'})")
    targets = [repo] if repo else sorted(repos)
    with ledger.db.connect() as con:
        if targets and not any(served_chunk_count(con, r) for r in targets):
            raise IndexMissing(f"{'repo ' + repr(repo) if repo else 'no registered repo'} has no promoted index "
                               f"(never ingested, or its index was lost): run `ledger ingest "
                               f"{repo or '--all'} --rebuild`")


def repo_status(ledger: Ledger, repos: dict) -> list[dict]:
    """One row per registered repo: HEAD, the promoted sha every read answers from, why they differ,
    stale files, and whether the index on disk holds the promoted state (`index_ok`, `index_problem`)."""
    rows = []
    for rid, repo in sorted(repos.items()):
        try:
            head = read_head(repo.path, repo.kind)
        except SnapshotError as exc:
            head = f"unavailable ({exc})"
        state = read_state(ledger, rid)
        # promoted: what reads answer from (a ledger from before promotion: its recorded head)
        promoted = state.promoted_sha or read_indexed_head(ledger.settings.home_path, rid)
        stale = stale_files(ledger, rid, repo.path, repo.kind, promoted)
        health = verify_index(ledger, rid, promoted)
        rows.append({"repo_id": rid, "path": repo.path, "head": head, "indexed_sha": state.staged_sha or promoted,
                     "promoted_sha": promoted, "promoted_utc": state.to_dict()["promoted_utc"],
                     "promotion_note": state.note(head) if promoted != head or state.promoting else "",
                     "up_to_date": bool(promoted) and promoted == head and stale.count == 0 and health.ok,
                     "index_ok": health.ok, "index_problem": health.problem,
                     "served_chunks": health.served_chunks, "live_points": health.live_points,
                     "stale_files": stale.count, "stale_committed": stale.committed,
                     "stale_uncommitted": stale.uncommitted, "stale_note": stale.note})
    return rows


def format_status(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        if not r["index_ok"]:
            state = "index broken"
        elif not r["promoted_sha"]:
            state = "never indexed"
        elif r["up_to_date"]:
            state = "up to date"
        elif r["promoted_sha"] == r["head"]:
            state = "uncommitted"
        else:
            state = "behind HEAD"
        stale = "?" if r["stale_files"] is None else r["stale_files"]
        lines.append(f"{r['repo_id']:<24} {state:<14} head={r['head'][:12]} promoted={r['promoted_sha'][:12] or '-':<12} "
                     f"chunks={r['served_chunks']} stale_files={stale}  {printable(r['path'])}")
        if r["head"].startswith("unavailable ("):  # the repo moved, or git refuses it: say why here too
            lines.append(f"{'':<24} head {printable(r['head'])}")
        if r["promotion_note"]:
            lines.append(f"{'':<24} {r['promotion_note']}")
    return "\n".join(lines) if rows else "no repos registered"


# ------------------------------------------------------------ stale files ---
@dataclass
class Staleness:
    count: int | None       # files changed since the indexed snapshot; None = cannot tell
    committed: int | None   # changed by commits INDEXED..HEAD (git) or on disk (folder)
    uncommitted: int | None  # tracked changes not committed, plus untracked files (git)
    note: str = ""


def _git_lines(repo: str, *args: str, worktree: bool = False) -> list[str] | None:
    """git's NUL-separated answer, or None when git cannot tell (not run, timed out, failed)."""
    try:
        out = git.run(repo, *args, timeout=git.READ_TIMEOUT_S, worktree=worktree)
    except git.GitError:
        return None
    return [p for p in out.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def stale_files(ledger: Ledger, repo_id: str, repo_path: str, kind: str, indexed_sha: str) -> Staleness:
    """How many files differ from what the ledger indexed: `git diff INDEXED..HEAD` plus uncommitted changes."""
    if not indexed_sha:
        return Staleness(None, None, None, "never indexed")
    if kind != "git":
        try:
            snap = take_snapshot(repo_path, "folder", ledger.settings.max_file_bytes, ledger.settings.max_pdf_bytes)
        except SnapshotError as exc:
            return Staleness(None, None, None, str(exc))
        with ledger.db.connect() as con:
            indexed = dict(con.execute("SELECT file_path, blob_hash FROM served.manifest WHERE repo_id = ?",
                                       [repo_id]).fetchall())
        now = {e.file_path: e.blob_hash for e in snap.entries}
        changed = {p for p in set(indexed) | set(now) if indexed.get(p) != now.get(p)}
        return Staleness(len(changed), len(changed), 0)
    committed = _git_lines(repo_path, "-c", "core.quotePath=false", "diff", "--name-only", "-z", indexed_sha, "HEAD", "--")
    # A submodule's files are not indexed (a recorded skip), so git is not sent into it either.
    status = _git_lines(repo_path, "-c", "core.quotePath=false", "status", "--porcelain=v1", "-z",
                        "--untracked-files=all", "--ignore-submodules=all", worktree=True)
    if status is None:
        return Staleness(None, None, None, "git status failed")
    uncommitted: set[str] = set()
    skip_next = False
    for entry in status:
        if skip_next:  # the old name of a rename: its own record, already counted via the new name
            skip_next = False
            continue
        uncommitted.add(entry[3:])
        skip_next = entry[:1] in ("R", "C") or entry[1:2] in ("R", "C")
    if committed is None:
        return Staleness(None, None, len(uncommitted), f"indexed sha {indexed_sha[:12]} is not in the repo any more")
    changed = set(committed) | uncommitted
    return Staleness(len(changed), len(committed), len(uncommitted))
