"""What is served, per repo, checked against what is on disk: `ledger status` and the reads' guard.

A read answers from the promoted state (store/served.py, the served index copy). `repo_status`
says which sha that is, why it is not HEAD, and whether the index on disk still holds it
(ingest/promotion.verify_index); `require_index` turns a read over a repo with nothing served into
an error instead of "no hits".
"""

from __future__ import annotations

from ledger_assets.enrich.stages import stale_files
from ledger_assets.ingest.promotion import read_state, verify_index
from ledger_assets.ingest.snapshot import SnapshotError, read_head
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
                     f"chunks={r['served_chunks']} stale_files={stale}  {r['path']}")
        if r["promotion_note"]:
            lines.append(f"{'':<24} {r['promotion_note']}")
    return "\n".join(lines) if rows else "no repos registered"
