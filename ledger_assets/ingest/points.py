"""The points stage: declare the Qdrant points that should exist for a repo, write the difference.

desired (from DuckDB) + existing (from Qdrant) -> a `PointsPlan` (one planner per policy:
`plan_replace` with versioning off, `plan_versioned` with it on) -> `stage_plan` writes its new
vectors as hidden, staged points -> the qdrant_in_sync check reads the staged view back ->
promotion (ingest/promotion.py) makes it the state queries answer from.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from dataclasses import dataclass, field

from qdrant_client import models

from ledger_assets.encode import lexical
from ledger_assets.encode.embedder import fetch_vectors, text_hash, vector_model_name
from ledger_assets.encode.onnx_model import MODEL_NAME as ONNX_MODEL_NAME
from ledger_assets.encode.quality import RUBRIC_FIELDS, quality_vector
from ledger_assets.ingest import promotion
from ledger_assets.ingest.checks import CheckOutcome
from ledger_assets.ingest.promotion import StagedPlan, verify_staged
from ledger_assets.store.db import dict_rows, utcnow
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.qdrant import (CODE_VECTOR, DESIGN_VECTOR, QUALITY_VECTOR, SPARSE_VECTOR, SYMBOL_VECTOR,
                                        point_id, repo_filter, slot_ids)
from ledger_assets.store.settings import EMBED_MODEL

MAX_PAYLOAD_SYMBOLS = 64


@dataclass
class PointsReport:
    points_total: int
    written: int
    unchanged: int
    deleted: int
    demoted: int
    collection_created: bool
    elapsed_s: float
    checks: list[CheckOutcome] = field(default_factory=list)
    staged_sha: str = ""


def compact_symbols(symbols_json: str) -> str:
    symbols = json.loads(symbols_json or "[]")[:MAX_PAYLOAD_SYMBOLS]
    return json.dumps([[s["name"], s["kind"], s.get("parent", ""), s["start_line"], s["end_line"]] for s in symbols],
                      separators=(",", ":")) if symbols else ""


def _payload(row: dict, repo_id: str) -> dict:
    meta = json.loads(row["meta"] or "{}")
    payload = {
        "repo_id": repo_id, "file_path": row["file_path"], "chunk_index": row["chunk_index"],
        "content": row["text"], "content_hash": row["content_hash"], "chunk_type": row["chunk_type"],
        "language": row["language"], "start_line": row["start_line"], "end_line": row["end_line"],
        "skeleton": row["skeleton"], "chunk_symbols": compact_symbols(row["symbols"]),
        "ledger_id": row["ledger_id"], "concept_id": row.get("concept_id"),
        "layer": row["layer"], "pattern": row["pattern"],
        "intent": row["intent"], "intent_source": row["intent_source"],
        "valid_from_utc": row["valid_from_utc"].isoformat() + "Z" if row["valid_from_utc"] else "",
        "start_page": meta.get("start_page"), "end_page": meta.get("end_page"),
        "part": meta.get("part"), "parts": meta.get("parts"), "visibility": meta.get("visibility"),
    }
    return {k: v for k, v in payload.items() if v not in (None, "", [], {})}


def _fingerprint(payload: dict, code_hash: str, design_hash: str, quality: list[float],
                 symbol_hashes: list[str] | None = None) -> str:
    """`vectors:payload` — the first half changes only when a vector would, so a
    payload-only change (a new commit time, an enrichment field) is written as a
    payload overwrite, without re-sending vectors."""
    vectors = text_hash(json.dumps([code_hash, design_hash, quality, payload.get("content"),
                                    payload.get("file_path"), payload.get("intent")]
                                   + ([symbol_hashes] if symbol_hashes else []), sort_keys=True))[:16]
    return vectors + ":" + text_hash(json.dumps(payload, sort_keys=True))[:16]


def _same_vectors(fp_a: str | None, fp_b: str | None) -> bool:
    return bool(fp_a and fp_b) and fp_a.split(":")[0] == fp_b.split(":")[0]


@dataclass
class Existing:
    """What the collection holds for a repo, read in one scroll."""
    latest: dict[tuple[str, int], tuple[str, str | None, str | None]]  # slot -> (id, fingerprint, content hash)
    doubled: list[str]  # a second latest point for a slot: retired
    since: dict[str, str]  # point id -> when its content first entered
    content_of: dict[str, str | None]  # point id -> its content hash
    staged: list[str] = field(default_factory=list)  # left staged by a run that was never promoted


@dataclass
class PointsPlan:
    upsert: list[tuple[str, dict]] = field(default_factory=list)  # new vectors, staged at an id no live point holds
    overwrite: list[tuple[str, dict]] = field(default_factory=list)  # same vectors, new payload (at promotion)
    unchanged: list[str] = field(default_factory=list)  # same vectors and payload: not written at all
    retire: list[str] = field(default_factory=list)  # replaced or gone: deleted, or demoted with versioning
    drop: list[str] = field(default_factory=list)  # replaced by the same content: deleted even with versioning
    replaces: dict[str, str] = field(default_factory=dict)  # staged id -> the live point it replaces


def _desired(ledger: Ledger, repo_id: str) -> tuple[str, dict[tuple[str, int], dict]]:
    """HEAD and the points that should exist: payload, quality vector and symbol hashes per chunk row."""
    from ledger_assets.store.db import deprecation_marks

    with ledger.db.connect() as con:
        head_sha = con.execute("SELECT head_sha FROM snapshots WHERE repo_id = ?", [repo_id]).fetchone()[0]
        cur = con.execute(
            "SELECT c.*, f.valid_from_utc, k.concept_id FROM chunks c LEFT JOIN files f USING (repo_id, file_path) "
            "LEFT JOIN chunk_concepts k USING (repo_id, ledger_id) "
            "WHERE c.repo_id = ? ORDER BY c.file_path, c.chunk_index", [repo_id])
        rows = dict_rows(cur)
        deprecated = deprecation_marks(con, repo_id)  # `ledger deprecate`: carried while the ledger_id lives
        extras: dict[tuple[str, int], dict] = defaultdict(dict)
        for path, idx, fields_json in con.execute(
                "SELECT file_path, chunk_index, fields FROM payload_extras WHERE repo_id = ? "
                "ORDER BY file_path, chunk_index, source", [repo_id]).fetchall():
            extras[(path, idx)].update(json.loads(fields_json or "{}"))
        rubrics, risks = {}, {}
        for key, rubric, risk in con.execute(
                "SELECT DISTINCT a.analysis_key, a.rubric, a.risk_note FROM analyses a "
                "JOIN chunks c ON c.analysis_key = a.analysis_key WHERE c.repo_id = ?", [repo_id]).fetchall():
            rubrics[key], risks[key] = rubric, risk
    desired: dict[tuple[str, int], dict] = {}
    for row in rows:
        payload = _payload(row, repo_id)
        for extra in (extras.get((row["file_path"], -1)), extras.get((row["file_path"], row["chunk_index"]))):
            if extra:
                payload.update({k: v for k, v in extra.items() if v not in (None, "", [], {}) and k not in payload})
        rubric = json.loads(rubrics.get(row["analysis_key"]) or "{}")
        if row["intent_source"] == "llm":  # the LLM's scores, filterable (`ledger query --where q_testability<=2`)
            payload.update({f"q_{name}": int(rubric[name]) for name in RUBRIC_FIELDS if name in rubric})
            if risks.get(row["analysis_key"]):
                payload["q_risk_note"] = risks[row["analysis_key"]]
        if row["ledger_id"] in deprecated:
            payload["deprecated"] = deprecated[row["ledger_id"]]
        quality = quality_vector(row["text"], rubric)
        symbol_hashes = json.loads(row["symbol_hashes"] or "[]")
        fp = _fingerprint(payload, row["code_hash"], row["design_hash"], quality, symbol_hashes)
        payload["fingerprint"] = fp
        desired[(row["file_path"], row["chunk_index"])] = {"row": row, "payload": payload, "quality": quality,
                                                           "symbol_hashes": symbol_hashes}
    return head_sha, desired


def _existing(ledger: Ledger, client, repo_id: str) -> Existing:
    found = Existing({}, [], {}, {})
    for rec in ledger.qdrant.scroll(client, repo_filter(repo_id),
                                    ["file_path", "chunk_index", "fingerprint", "content_hash", "is_latest",
                                     "system_from_utc", "staged"]):
        p = rec.payload or {}
        if p.get("staged"):
            found.staged.append(str(rec.id))
            continue
        if p.get("system_from_utc"):
            found.since[str(rec.id)] = p["system_from_utc"]
            found.content_of[str(rec.id)] = p.get("content_hash")
        if p.get("is_latest", True) is False:
            continue
        key = (p.get("file_path"), p.get("chunk_index"))
        if key in found.latest:  # two latest points for one slot: keep one, retire the other
            found.doubled.append(str(rec.id))
            continue
        found.latest[key] = (str(rec.id), p.get("fingerprint"), p.get("content_hash"))
    return found


def _same_or_overwrite(plan: PointsPlan, pid: str, have_fp: str | None, want: dict) -> bool:
    """Refresh an identical point, overwrite the payload of one with the same vectors; False: neither."""
    if have_fp == want["payload"]["fingerprint"]:
        plan.unchanged.append(pid)
    elif _same_vectors(have_fp, want["payload"]["fingerprint"]):
        plan.overwrite.append((pid, want))
    else:
        return False
    return True


def plan_replace(repo_id: str, desired: dict, existing: Existing) -> PointsPlan:
    """Versioning off: one point per slot at one of its two deterministic ids; new vectors are staged at
    the other one, and the point they replace (or a point whose slot is gone) is deleted at promotion."""
    plan = PointsPlan(retire=list(existing.doubled))
    for key, want in desired.items():
        have = existing.latest.get(key)
        ids = slot_ids(repo_id, key[0], key[1])
        if have and have[0] in ids and _same_or_overwrite(plan, have[0], have[1], want):
            continue
        pid = ids[1] if have and have[0] == ids[0] else ids[0]
        plan.upsert.append((pid, want))
        if have:
            plan.retire.append(have[0])
            plan.replaces[pid] = have[0]
    plan.retire += [have[0] for key, have in existing.latest.items() if key not in desired]
    return plan


def plan_versioned(repo_id: str, desired: dict, existing: Existing, ticks: int) -> PointsPlan:
    """Versioning on: the same content is refreshed in place (new vectors for it are staged at a new id and
    replace it without a history entry); new content is a new point (id from `ticks`) and the point it
    replaces is demoted (is_latest false) at promotion, as is a point whose slot is gone."""
    plan = PointsPlan(retire=list(existing.doubled))
    for key, want in desired.items():
        have = existing.latest.get(key)
        pid = point_id(repo_id, key[0], key[1], ticks)
        if have and have[2] == want["payload"]["content_hash"]:
            if not _same_or_overwrite(plan, have[0], have[1], want):
                plan.upsert.append((pid, want))
                plan.drop.append(have[0])
                plan.replaces[pid] = have[0]
        else:
            plan.upsert.append((pid, want))
            if have:
                plan.retire.append(have[0])
                plan.replaces[pid] = have[0]
    plan.retire += [have[0] for key, have in existing.latest.items() if key not in desired]
    return plan


def _live_payload(want: dict, head_sha: str, now: str, first: str) -> dict:
    return dict(want["payload"], is_latest=True, indexed_sha=head_sha, indexed_utc=now,
                ingested_utc=first, system_from_utc=first)


def stage_plan(ledger: Ledger, client, plan: PointsPlan, existing: Existing, head_sha: str, run_id: str,
               now: str, symbol_lane: bool, log) -> StagedPlan:
    """Write the plan's new vectors as staged points (hidden from queries); return the rest of the plan,
    what promotion applies to the live points (ingest/promotion.py). Stale staged points are deleted first."""
    s = ledger.settings
    since, content_of = existing.since, existing.content_of
    if existing.staged:
        client.delete(ledger.qdrant.collection, points_selector=models.PointIdsList(points=existing.staged),
                      wait=True)
        log.info(f"deleted {len(existing.staged)} points left staged by a run that was not promoted")
    if plan.upsert:
        hashes = [h for _, w in plan.upsert
                  for h in (w["row"]["code_hash"], w["row"]["design_hash"], *w["symbol_hashes"]) if h]
        # The configured backend's vectors; a hash only the other key has (an embedder overridden per run) from there.
        preferred = vector_model_name(s.embed_device, s.embed_backend)
        vectors = fetch_vectors(ledger.db, preferred, hashes)
        other = EMBED_MODEL if preferred != EMBED_MODEL else ONNX_MODEL_NAME
        vectors.update({h: v for h, v in fetch_vectors(ledger.db, other, [h for h in hashes if h not in vectors]).items()})
        batch: list[models.PointStruct] = []
        written = 0
        for pid, want in plan.upsert:
            row = want["row"]
            sym_hashes = want["symbol_hashes"] if symbol_lane else []
            # The lean profile (settings.EMBED_PROFILE) leaves a keyless intent without a design hash: no design vector.
            design_hash = row["design_hash"] or ""
            missing = [h for h in (row["code_hash"], *([design_hash] if design_hash else []), *sym_hashes)
                       if not h or h not in vectors]
            if missing:
                raise RuntimeError(f"no cached embedding for {row['file_path']}#{row['chunk_index']}: "
                                   "materialize `embeddings` first")
            # A cosmetic change keeps the content hash, and with it when this content entered.
            prev = plan.replaces.get(pid, pid)
            first = since.get(prev, now) if content_of.get(prev) == want["payload"]["content_hash"] else now
            payload = dict(_live_payload(want, head_sha, now, first), is_latest=False, staged=True,
                           staged_sha=head_sha, staged_run=run_id)
            sparse = lexical.document_vector(f"{row['file_path']}\n{row['text']}\n{payload.get('intent', '')}")
            vec: dict = {CODE_VECTOR: vectors[row["code_hash"]].tolist(), QUALITY_VECTOR: want["quality"]}
            if design_hash:
                vec[DESIGN_VECTOR] = vectors[design_hash].tolist()
            if sparse.indices:
                vec[SPARSE_VECTOR] = sparse
            if sym_hashes:
                vec[SYMBOL_VECTOR] = [vectors[h].tolist() for h in sym_hashes]
            batch.append(models.PointStruct(id=pid, vector=vec, payload=payload))
            if len(batch) >= s.upsert_batch:
                client.upsert(ledger.qdrant.collection, batch, wait=True)
                written += len(batch)
                batch = []
                log.info(f"staged {written}/{len(plan.upsert)} points")
        if batch:
            client.upsert(ledger.qdrant.collection, batch, wait=True)
    # Same vectors, new payload: overwritten at promotion, keeping when this content entered.
    return StagedPlan(head_sha, now, bool(s.versioning), staged=tuple(pid for pid, _ in plan.upsert),
                      overwrite=tuple((pid, _live_payload(want, head_sha, now, since.get(pid, now)))
                                      for pid, want in plan.overwrite),
                      retire=tuple(plan.retire), drop=tuple(plan.drop))


def points_stage(ledger: Ledger, repo_id: str, run_id: str, log, promote: bool = True,
                 rebuild: bool = False) -> PointsReport:
    """Stage the repo's points and check the staged view; with `promote` (the callers outside Dagster),
    promote it when the check passed. The Dagster graph stages here and promotes in promoted_index.
    `rebuild`: every point is staged anew, whatever the collection holds."""
    t0 = time.monotonic()
    s = ledger.settings
    now = utcnow().isoformat(timespec="seconds") + "Z"
    promotion.finish_interrupted(ledger, repo_id, run_id, log)
    head_sha, desired = _desired(ledger, repo_id)
    with ledger.qdrant.open() as client:
        created = ledger.qdrant.ensure_collection(client)
        symbol_lane = ledger.qdrant.has_symbol_lane(client)
        if not symbol_lane:
            log.warning(f"collection {ledger.qdrant.collection!r} predates the symbol lane (no {SYMBOL_VECTOR!r}): "
                        "points are written without it; point LEDGER_COLLECTION at a new name to enable it")
        existing = _existing(ledger, client, repo_id)
        if rebuild:  # nothing held is trusted: every slot gets a new point, the old ones retire
            existing.latest = {k: (pid, None, None) for k, (pid, _, _) in existing.latest.items()}
        if s.versioning:
            plan = plan_versioned(repo_id, desired, existing, time.time_ns() // 100)
        else:
            plan = plan_replace(repo_id, desired, existing)
        staged = stage_plan(ledger, client, plan, existing, head_sha, run_id, now, symbol_lane, log)
        check = verify_staged(client, ledger, repo_id, head_sha, set(plan.retire) | set(plan.drop),
                              {key: want["payload"]["content_hash"] for key, want in desired.items()})
    promotion.save_plan(ledger, repo_id, head_sha, run_id, staged, [check])
    written = len(plan.upsert) + len(plan.overwrite)
    unchanged = len(plan.unchanged)
    # As before staging: a point replaced by its slot's new version is not counted as deleted.
    deleted, demoted = (0, len(plan.retire)) if s.versioning else (len(plan.retire) - len(plan.replaces), 0)
    elapsed = time.monotonic() - t0
    ledger.db.add_to_summary(run_id, repo_id, chunks_written=written, chunks_skipped=unchanged,
                             chunks_deleted=deleted + demoted, elapsed_s=elapsed)
    log.info(f"qdrant: {len(plan.upsert)} points staged, {len(plan.overwrite)} payload updates, {unchanged} "
             f"unchanged (not written), {deleted} to delete, {demoted} to demote at promotion"
             + ("" if check.passed else f"; qdrant_in_sync FAILED: {check.description}"))
    if promote and check.passed:
        promotion.promote(ledger, repo_id, run_id, log)
    return PointsReport(len(desired), written, unchanged, deleted, demoted, created, time.monotonic() - t0,
                        [check], staged_sha=head_sha)
