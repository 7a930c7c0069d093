"""Promotion: queries switch to a run's points only after its blocking checks pass.

qdrant_points *stages* a run's state: every new or changed point is written hidden
(`is_latest` false, `staged` true, `staged_sha` = the snapshot's HEAD) at an id no
live point holds, and what would change for the live points (payload overwrites,
indexed_sha refreshes, retirements) is recorded in DuckDB as the staged plan. The
qdrant_in_sync check reads the *staged view* back (live points not retired by the
plan, plus the staged ones) against the chunk rows. The promoted_index asset runs
only when every blocking check passed; it re-verifies the staged view, makes the
staged points live, applies the plan and records `promoted_sha`. A failed check or
a crash in between leaves the previous promoted state answering queries; the next
run deletes the stale staged points before it stages its own.

The table `promotions` holds, per repo, the sha queries answer from (promoted_sha),
the sha last staged (staged_sha) and why the two differ (check_failed).
"""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime, timezone

from qdrant_client import models

from ledger_assets.ingest.checks import CheckOutcome, check_qdrant_in_sync_with
from ledger_assets.store.db import utcnow
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.registry import indexed_head_path, read_indexed_head, write_indexed_head
from ledger_assets.store.settings import REFRESH_BATCH, UPDATE_OPS_BATCH

STAGED_KEYS = ["staged", "staged_sha", "staged_run"]


class PromotionRefused(RuntimeError):
    """Nothing promotable: no staged state, or the staged state fails its check."""


@dataclass
class PromotionState:
    repo_id: str
    promoted_sha: str = ""
    promoted_utc: datetime | None = None
    staged_sha: str = ""
    staged_run: str = ""
    check_failed: str = ""
    plan: dict | None = None

    def note(self, head: str = "") -> str:
        """Why the served sha is not HEAD (empty when it is)."""
        if head and self.promoted_sha == head:
            return ""
        if self.check_failed:
            return f"checks failed: {self.check_failed}; queries answer from the promoted sha"
        if self.plan is not None:
            return f"staged {self.staged_sha[:12]} (run {self.staged_run[:8]}) awaits promotion"
        if not self.promoted_sha:
            return "never promoted: no run has passed its checks yet"
        return "HEAD moved since the last promoted run" if head else ""

    def to_dict(self) -> dict:
        return {"promoted_sha": self.promoted_sha,
                "promoted_utc": self.promoted_utc.isoformat(timespec="seconds") + "Z" if self.promoted_utc else "",
                "staged_sha": self.staged_sha, "check_failed": self.check_failed,
                "awaiting_promotion": self.plan is not None}


@dataclass
class PromotionReport:
    promoted_sha: str
    previous_sha: str
    made_live: int
    payloads_updated: int
    refreshed: int
    retired: int
    elapsed_s: float
    noop: bool = False


def read_state(ledger: Ledger, repo_id: str) -> PromotionState:
    with ledger.db.connect() as con:
        row = con.execute(
            "SELECT promoted_sha, promoted_utc, staged_sha, staged_run, check_failed, staged_plan "
            "FROM promotions WHERE repo_id = ?", [repo_id]).fetchone()
    if row is None:
        return PromotionState(repo_id)
    return PromotionState(repo_id, row[0] or "", row[1], row[2] or "", row[3] or "", row[4] or "",
                          json.loads(row[5]) if row[5] else None)


def _upsert_state(con, repo_id: str, **values) -> None:
    con.execute("INSERT INTO promotions (repo_id) VALUES (?) ON CONFLICT DO NOTHING", [repo_id])
    sets = ", ".join(f"{k} = ?" for k in values)
    con.execute(f"UPDATE promotions SET {sets} WHERE repo_id = ?", [*values.values(), repo_id])


def describe_failures(outcomes: list[CheckOutcome], run_id: str) -> str:
    failed = [o for o in outcomes if not o.passed]
    return "; ".join(f"{o.name} ({o.description})" for o in failed) + f" in run {run_id[:8]}" if failed else ""


def record_checks(ledger: Ledger, repo_id: str, sha: str, run_id: str, outcomes: list[CheckOutcome]) -> None:
    """A stage's blocking checks: a failure is recorded (and drops any staged plan, which it
    invalidates); a pass leaves the state alone."""
    failed = describe_failures(outcomes, run_id)
    if failed:
        with ledger.db.transaction() as con:
            _upsert_state(con, repo_id, staged_sha=sha, staged_run=run_id, check_failed=failed, staged_plan=None)


def save_plan(ledger: Ledger, repo_id: str, sha: str, run_id: str, plan: dict, outcomes: list[CheckOutcome]) -> None:
    failed = describe_failures(outcomes, run_id)
    with ledger.db.transaction() as con:
        _upsert_state(con, repo_id, staged_sha=sha, staged_run=run_id, staged_utc=utcnow(),
                      check_failed=failed or None, staged_plan=None if failed else json.dumps(plan))


def verify_staged(client, ledger: Ledger, repo_id: str, sha: str, retired,
                  expected: dict[tuple[str, int], str] | None = None) -> CheckOutcome:
    """qdrant_in_sync on the staged view: what queries would see after promotion. `expected` (slot ->
    content hash): the chunk rows, when the caller has them already; else read from DuckDB."""
    if expected is None:
        with ledger.db.connect() as con:
            expected = {(p, i): h for p, i, h in con.execute(
                "SELECT file_path, chunk_index, content_hash FROM chunks WHERE repo_id = ?", [repo_id]).fetchall()}
    return check_qdrant_in_sync_with(client, ledger, repo_id, expected, staged_sha=sha, retired=retired)


def promote(ledger: Ledger, repo_id: str, run_id: str, log) -> PromotionReport:
    """Make the staged state the one queries answer from (see the module docstring)."""
    t0 = time.monotonic()
    state = read_state(ledger, repo_id)
    if state.check_failed:
        raise PromotionRefused(f"{repo_id}: not promoted, {state.check_failed}; queries still answer from "
                               f"{state.promoted_sha[:12] or 'nothing (never promoted)'}")
    plan = state.plan
    if plan is None:
        if state.promoted_sha and state.promoted_sha == state.staged_sha:
            return PromotionReport(state.promoted_sha, state.promoted_sha, 0, 0, 0, 0, 0.0, noop=True)
        raise PromotionRefused(f"{repo_id}: nothing staged to promote: materialize qdrant_points first")
    sha, now = plan["head_sha"], plan["now"]
    retired = plan["retire"] + plan["drop"]
    coll = ledger.qdrant.collection
    with ledger.qdrant.open() as client:
        check = verify_staged(client, ledger, repo_id, sha, set(retired))
        if not check.passed:
            record_checks(ledger, repo_id, sha, run_id, [check])
            raise PromotionRefused(f"{repo_id}: the staged state of {sha[:12]} no longer passes qdrant_in_sync "
                                   f"({check.description}: {check.metadata.get('offenders')}); not promoted")
        staged = plan["staged"]
        # Live first, then retire: a query in between may see a chunk twice, never lose one.
        for i in range(0, len(staged), REFRESH_BATCH):
            ids = staged[i:i + REFRESH_BATCH]
            client.batch_update_points(coll, [
                models.SetPayloadOperation(set_payload=models.SetPayload(payload={"is_latest": True}, points=ids)),
                models.DeletePayloadOperation(delete_payload=models.DeletePayload(keys=STAGED_KEYS, points=ids)),
            ], wait=True)
        ops = [models.OverwritePayloadOperation(overwrite_payload=models.SetPayload(payload=payload, points=[pid]))
               for pid, payload in plan["overwrite"]]
        for i in range(0, len(ops), UPDATE_OPS_BATCH):
            client.batch_update_points(coll, ops[i:i + UPDATE_OPS_BATCH], wait=True)
        for i in range(0, len(plan["refresh"]), REFRESH_BATCH):
            client.set_payload(coll, {"indexed_sha": sha, "indexed_utc": now},
                               points=plan["refresh"][i:i + REFRESH_BATCH], wait=True)
        if plan["retire"] and plan["versioning"]:
            client.set_payload(coll, {"is_latest": False, "system_to_utc": now}, points=plan["retire"], wait=True)
        doomed = plan["drop"] + ([] if plan["versioning"] else plan["retire"])
        if doomed:
            client.delete(coll, points_selector=models.PointIdsList(points=doomed), wait=True)
    write_indexed_head(ledger.settings.home_path, repo_id, sha)
    with ledger.db.transaction() as con:
        _upsert_state(con, repo_id, promoted_sha=sha, promoted_utc=utcnow(), promoted_run=run_id,
                      staged_plan=None, check_failed=None)
    report = PromotionReport(sha, state.promoted_sha, len(staged), len(plan["overwrite"]), len(plan["refresh"]),
                             len(retired), time.monotonic() - t0)
    log.info(f"promoted {repo_id} to {sha[:12]} (was {state.promoted_sha[:12] or 'nothing'}): "
             f"{report.made_live} staged points made live, {report.payloads_updated} payloads updated, "
             f"{report.retired} retired")
    return report


def _git_time(repo_path: str, *args: str) -> float | None:
    out = subprocess.run(["git", "-C", repo_path, "log", "--format=%ct", *args], capture_output=True, text=True)
    lines = out.stdout.split()
    return float(lines[0]) if out.returncode == 0 and lines else None


def lag_since(repo, promoted: PromotionState, head: str) -> float | None:
    """When the promoted state started lagging HEAD (epoch seconds; None: it does not lag). Git: the
    commit time of the first commit after the promoted sha (HEAD's own when the promoted sha is not an
    ancestor); a folder: when it was last promoted; never promoted: when the repo was registered."""
    if promoted.promoted_sha and promoted.promoted_sha == head:
        return None
    if not promoted.promoted_sha:
        return datetime.fromisoformat(repo.added_utc.replace("Z", "+00:00")).timestamp()
    if repo.kind == "git":
        first = _git_time(repo.path, "--reverse", f"{promoted.promoted_sha}..{head}")
        return first if first is not None else _git_time(repo.path, "-1", head)
    return promoted.promoted_utc.replace(tzinfo=timezone.utc).timestamp() if promoted.promoted_utc else None


def served_state(home, repo_id: str) -> PromotionState:
    """The promoted sha and when, from the heads file promotion writes (no DuckDB: what a sensor reads)."""
    path = indexed_head_path(home, repo_id)
    sha = read_indexed_head(home, repo_id)
    when = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).replace(tzinfo=None) if sha else None
    return PromotionState(repo_id, promoted_sha=sha, promoted_utc=when)


def check_fresh(state: PromotionState, repo, head: str, max_lag_s: float, now: float | None = None) -> CheckOutcome:
    """index_fresh: the sha queries answer from may lag HEAD, but not for longer than `max_lag_s`."""
    promoted = state.promoted_sha
    since = lag_since(repo, state, head)
    lag = 0.0 if since is None else max(0.0, (now or time.time()) - since)
    if since is None:
        description = f"queries answer from HEAD {head[:12]}"
    else:
        description = (f"queries answer from {promoted[:12] or 'nothing'}, HEAD is {head[:12]}: "
                       f"{lag / 60:.0f} min behind (limit {max_lag_s / 60:.0f} min)"
                       + (f"; {state.note(head)}" if state.note(head) else ""))
    return CheckOutcome("index_fresh", lag <= max_lag_s, description,
                        {"lag_s": round(lag, 1), "max_lag_s": max_lag_s, "head": head, "promoted_sha": promoted})
