"""Promotion: every read path switches to a run's state only after its blocking checks pass.

qdrant_points *stages* a run's state: every new or changed point is written hidden
(`is_latest` false, `staged` true) at an id no live point holds, and what would change
for the live points (payload overwrites, retirements) is recorded in DuckDB as the
staged plan; unchanged points are not touched, so a commit costs what it changed.
qdrant_in_sync reads the *staged view* back against the chunk rows. promoted_index
runs only when every blocking check passed: it re-verifies the staged view, applies
the plan to Qdrant, then in one DuckDB transaction publishes the working rows to the
served tables (store/served.py) and records `promoted_sha`. `promoting` marks a plan
being applied: a crash part-way is finished by the next run before it stages anything.

The table `promotions` holds, per repo, the sha every read answers from (promoted_sha),
the sha last staged (staged_sha) and why the two differ (check_failed).
"""

from __future__ import annotations

import json
import random
import time
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime, timezone

from qdrant_client import models

from ledger_assets.ingest.checks import CheckOutcome, check_qdrant_in_sync_with
from ledger_assets.store.db import utcnow
from ledger_assets.store import git, local_index
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.qdrant import repo_filter
from ledger_assets.store.registry import indexed_head_path, read_indexed_head, write_indexed_head
from ledger_assets.store.served import publish, served_chunk_count
from ledger_assets.store.settings import REFRESH_BATCH, UPDATE_OPS_BATCH

STAGED_KEYS = ["staged", "staged_sha", "staged_run"]


class PromotionRefused(RuntimeError):
    """Nothing promotable: no staged state, or the staged state fails its check."""


@dataclass(frozen=True)
class StagedPlan:
    """What promotion does to the live points, decided when they were staged (ingest/points.py) and
    journaled in `promotions.staged_plan` as JSON, so a promotion a crash cut short can be finished."""
    head_sha: str
    now: str  # when it was staged: the retired points' system_to_utc
    versioning: bool  # retire = demote (is_latest false), else delete
    staged: tuple[str, ...] = ()  # staged point ids, made live
    overwrite: tuple[tuple[str, dict], ...] = ()  # (point id, its full new payload)
    retire: tuple[str, ...] = ()  # replaced or gone: demoted with versioning, else deleted
    drop: tuple[str, ...] = ()  # replaced by the same content: deleted even with versioning

    def to_json(self) -> str:
        return json.dumps({"head_sha": self.head_sha, "now": self.now, "versioning": self.versioning,
                           "staged": list(self.staged), "overwrite": [list(o) for o in self.overwrite],
                           "retire": list(self.retire), "drop": list(self.drop)})

    @classmethod
    def from_json(cls, text: str) -> StagedPlan:
        """Also reads a plan journaled by an older version (keys it no longer writes, such as
        `refresh`, are ignored)."""
        d = json.loads(text)
        return cls(d["head_sha"], d["now"], bool(d["versioning"]), tuple(d["staged"]),
                   tuple((pid, payload) for pid, payload in d["overwrite"]), tuple(d["retire"]), tuple(d["drop"]))


@dataclass
class PromotionState:
    repo_id: str
    promoted_sha: str = ""
    promoted_utc: datetime | None = None
    staged_sha: str = ""
    staged_run: str = ""
    check_failed: str = ""
    plan: StagedPlan | None = None
    promoting: bool = False

    def note(self, head: str = "") -> str:
        """Why the served sha is not HEAD (empty when it is)."""
        if head and self.promoted_sha == head:
            return ""
        if self.promoting:
            return f"the promotion of {self.staged_sha[:12]} was interrupted; the next run finishes it"
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
    retired: int
    elapsed_s: float
    noop: bool = False
    served_chunks: int = 0
    note: str = ""  # why a promotion did nothing


def read_state(ledger: Ledger, repo_id: str) -> PromotionState:
    with ledger.db.connect() as con:
        row = con.execute(
            "SELECT promoted_sha, promoted_utc, staged_sha, staged_run, check_failed, staged_plan, promoting "
            "FROM promotions WHERE repo_id = ?", [repo_id]).fetchone()
    if row is None:
        return PromotionState(repo_id)
    return PromotionState(repo_id, row[0] or "", row[1], row[2] or "", row[3] or "", row[4] or "",
                          StagedPlan.from_json(row[5]) if row[5] else None, bool(row[6]))


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


def save_plan(ledger: Ledger, repo_id: str, sha: str, run_id: str, plan: StagedPlan,
              outcomes: list[CheckOutcome]) -> None:
    failed = describe_failures(outcomes, run_id)
    with ledger.db.transaction() as con:
        _upsert_state(con, repo_id, staged_sha=sha, staged_run=run_id, staged_utc=utcnow(),
                      check_failed=failed or None, staged_plan=None if failed else plan.to_json())


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
            _heads_file_at(ledger, repo_id, state.promoted_sha)
            return PromotionReport(state.promoted_sha, state.promoted_sha, 0, 0, 0, 0.0, noop=True,
                                   served_chunks=_served_count(ledger, repo_id))
        raise PromotionRefused(f"{repo_id}: nothing staged to promote: materialize qdrant_points first")
    if _nothing_to_apply(ledger, state, plan):
        # A re-run at the promoted sha whose checked plan changes no point: Qdrant is not opened again (local
        # mode would load every point to re-check a view that no write since can have changed, and none is
        # made now); the working rows are published as always, the promoted sha and its time stay.
        with ledger.db.transaction() as con:
            publish(con, repo_id)
            _upsert_state(con, repo_id, staged_plan=None)
        _heads_file_at(ledger, repo_id, plan.head_sha)
        note = (f"{plan.head_sha[:12]} was already promoted and this run's staged plan (checked by qdrant_in_sync) "
                "changes no point: Qdrant not opened, nothing re-promoted")
        log.info(f"{repo_id}: {note}")
        return PromotionReport(plan.head_sha, state.promoted_sha, 0, 0, 0, time.monotonic() - t0, noop=True,
                               served_chunks=_served_count(ledger, repo_id), note=note)
    sha = plan.head_sha
    retired = plan.retire + plan.drop
    with ledger.qdrant.open() as client:  # one open for the check and the writes: local mode loads every point
        if not state.promoting:
            check = verify_staged(client, ledger, repo_id, sha, set(retired))
            if not check.passed:
                record_checks(ledger, repo_id, sha, run_id, [check])
                raise PromotionRefused(f"{repo_id}: the staged state of {sha[:12]} no longer passes qdrant_in_sync "
                                       f"({check.description}: {check.metadata.get('offenders')}); not promoted")
            with ledger.db.transaction() as con:
                _upsert_state(con, repo_id, promoting=True)
        files = _apply(ledger, repo_id, run_id, plan, client)
    report = PromotionReport(sha, state.promoted_sha, len(plan.staged), len(plan.overwrite), len(retired),
                             time.monotonic() - t0,
                             served_chunks=_served_count(ledger, repo_id))
    log.info(f"promoted {repo_id} to {sha[:12]} (was {state.promoted_sha[:12] or 'nothing'}): "
             f"{report.made_live} staged points made live, {report.payloads_updated} payloads updated, "
             f"{report.retired} retired; the rows of {files} files published")
    return report


def _heads_file_at(ledger: Ledger, repo_id: str, sha: str) -> None:
    """The heads file the sensor reads names the promoted sha: written again only where a crash came between
    the promotion's commit and its write (a no-op promotion leaves it, and its time, as they are)."""
    if read_indexed_head(ledger.settings.home_path, repo_id) != sha:
        write_indexed_head(ledger.settings.home_path, repo_id, sha)


def _nothing_to_apply(ledger: Ledger, state: PromotionState, plan: StagedPlan) -> bool:
    """The staged plan is of the sha already promoted and writes nothing: no point staged, overwritten, retired
    or dropped, no promotion half done, and (local mode) a served index copy to keep answering from."""
    return (not state.promoting and bool(state.promoted_sha) and plan.head_sha == state.promoted_sha
            and not (plan.staged or plan.overwrite or plan.retire or plan.drop)
            and (ledger.qdrant.mode != "local" or local_index.served_pointer(ledger.qdrant) is not None))


def _apply(ledger: Ledger, repo_id: str, run_id: str, plan: StagedPlan, client=None) -> int:
    """Apply a checked plan: Qdrant first (and, in local mode, a new served index copy built from it),
    then the served rows, the copy's pointer and the promoted sha in one DuckDB transaction, then the
    heads file the sensor reads. Every step may run twice (a crash in between
    leaves `promoting` set, and the next run calls this again): ids are set, overwritten or deleted,
    never added. Returns the number of files whose served rows were rewritten. `client`: the caller's
    open client (else one is opened)."""
    sha, now = plan.head_sha, plan.now
    coll = ledger.qdrant.collection
    pointer = local_index.served_pointer(ledger.qdrant)
    with (nullcontext(client) if client is not None else ledger.qdrant.open()) as client:
        staged = list(plan.staged)
        # Live first, then retire: a query in between may see a chunk twice (search keeps one), never lose one.
        for i in range(0, len(staged), REFRESH_BATCH):
            ids = staged[i:i + REFRESH_BATCH]
            client.batch_update_points(coll, [
                models.SetPayloadOperation(set_payload=models.SetPayload(payload={"is_latest": True}, points=ids)),
                models.DeletePayloadOperation(delete_payload=models.DeletePayload(keys=STAGED_KEYS, points=ids)),
            ], wait=True)
        ops = [models.OverwritePayloadOperation(overwrite_payload=models.SetPayload(payload=payload, points=[pid]))
               for pid, payload in plan.overwrite]
        for i in range(0, len(ops), UPDATE_OPS_BATCH):
            client.batch_update_points(coll, ops[i:i + UPDATE_OPS_BATCH], wait=True)
        # (A plan staged by an older version may list `refresh` ids: unchanged points, left as they are.)
        if plan.retire and plan.versioning:
            client.set_payload(coll, {"is_latest": False, "system_to_utc": now}, points=list(plan.retire), wait=True)
        doomed = list(plan.drop) + ([] if plan.versioning else list(plan.retire))
        if doomed:
            client.delete(coll, points_selector=models.PointIdsList(points=doomed), wait=True)
        changed = staged or ops or plan.retire or doomed
        folder = local_index.build_served(ledger.qdrant, client) if changed or not pointer else None
    with ledger.db.transaction() as con:  # the switch: served rows and the served index copy at once
        files = publish(con, repo_id)
        if folder:
            local_index.set_served_pointer(con, ledger.qdrant, folder)
        _upsert_state(con, repo_id, promoted_sha=sha, promoted_utc=utcnow(), promoted_run=run_id,
                      staged_plan=None, check_failed=None, promoting=None)
    if folder:
        local_index.prune_served(ledger.qdrant, folder)
    write_indexed_head(ledger.settings.home_path, repo_id, sha)
    return files


def _served_count(ledger: Ledger, repo_id: str) -> int:
    with ledger.db.connect() as con:
        return served_chunk_count(con, repo_id)


def finish_interrupted(ledger: Ledger, repo_id: str, run_id: str, log) -> bool:
    """A promotion a crash cut short (`promoting` still set) is finished before anything else writes the
    repo's points: True when there was one."""
    state = read_state(ledger, repo_id)
    if not (state.promoting and state.plan is not None):
        return False
    log.warning(f"{repo_id}: the promotion of {state.plan.head_sha[:12]} (run {state.staged_run[:8]}) was "
                "interrupted; finishing it before this run stages anything")
    _apply(ledger, repo_id, run_id, state.plan)
    return True


def _git_time(repo_path: str, *args: str) -> float | None:
    try:
        out = git.run(repo_path, "log", "--format=%ct", *args, check=False)
    except git.GitError:  # git not run or timed out: the lag is unknown
        return None
    lines = out.stdout.decode(errors="replace").split()
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


@dataclass
class IndexHealth:
    ok: bool
    served_chunks: int
    live_points: int
    problem: str = ""  # empty when ok


INDEX_SAMPLE_FILES = 5


def verify_index(ledger: Ledger, repo_id: str, promoted_sha: str) -> IndexHealth:
    """Does what is on disk match the promoted state `ledger status` reports? The served rows against the
    heads file, the live points against the served rows (a count, and the chunks of a few files, slot by
    slot with their content hashes), read from the served index copy in local mode (what queries read;
    no wait on a writer), else from Qdrant. A lost or damaged DuckDB file or Qdrant folder shows here."""
    with ledger.db.connect() as con:
        served = served_chunk_count(con, repo_id)
        files = [r[0] for r in con.execute(
            "SELECT DISTINCT file_path FROM served.chunks WHERE repo_id = ? ORDER BY 1", [repo_id]).fetchall()]
        sample = random.Random(repo_id).sample(files, min(INDEX_SAMPLE_FILES, len(files)))
        want = {(p, i, h) for p, i, h in con.execute(
            "SELECT file_path, chunk_index, content_hash FROM served.chunks WHERE repo_id = ? AND file_path IN (SELECT "
            "unnest(?::VARCHAR[]))", [repo_id, sample]).fetchall()}
    if not promoted_sha:
        return IndexHealth(True, served, 0)
    store = ledger.qdrant
    if store.mode == "local" and local_index.storage_marker(store) is None:
        return IndexHealth(False, served, 0, f"index missing or corrupt: the Qdrant collection {store.collection!r} "
                                             f"is gone from {store.settings.qdrant_path}")
    served_copy = local_index.current(store) if store.mode == "local" else None
    if served_copy is not None:  # what reads answer from, and no wait on a writer's folder lock
        points = [(p.get("file_path"), p.get("chunk_index"), p.get("content_hash")) for p in served_copy.payloads
                  if p.get("repo_id") == repo_id and p.get("is_latest", True) and not p.get("staged")]
        live, have = len(points), {pt for pt in points if pt[0] in sample}
    else:
        with store.open() as client:
            if not client.collection_exists(store.collection):
                live, have = 0, set()
            else:
                flt = repo_filter(repo_id, latest_only=True)
                live = client.count(store.collection, count_filter=flt, exact=True).count
                flt.must.append(models.FieldCondition(key="file_path", match=models.MatchAny(any=sample)))
                have = {(p.payload.get("file_path"), p.payload.get("chunk_index"), p.payload.get("content_hash"))
                        for p in store.scroll(client, flt, ["file_path", "chunk_index", "content_hash"])} if sample else set()
    if not served:
        problem = f"no served chunk rows for promoted {promoted_sha[:12]} (the DuckDB file was lost or reset)"
    elif live == 0:
        problem = f"no live points for {served} served chunks (the vector index was lost)"
    elif live != served or have != want:
        problem = (f"{live} live points for {served} served chunks"
                   + (f"; {len(want ^ have)} sampled chunks differ" if have != want else ""))
    else:
        return IndexHealth(True, served, live)
    return IndexHealth(False, served, live, f"index missing or corrupt: {problem}")
