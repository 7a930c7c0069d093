"""The points stage: declare the Qdrant points that should exist for a repo, write the difference."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from dataclasses import dataclass, field

from qdrant_client import models

from ledger_assets.encode import lexical
from ledger_assets.encode.embedder import fetch_vectors, text_hash
from ledger_assets.encode.quality import quality_vector
from ledger_assets.ingest.checks import CheckOutcome, check_qdrant_in_sync_with
from ledger_assets.ingest.pipeline import utcnow
from ledger_assets.store.db import dict_rows
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.qdrant import (CODE_VECTOR, DESIGN_VECTOR, QUALITY_VECTOR, SPARSE_VECTOR, SYMBOL_VECTOR,
                                        point_id, repo_filter)
from ledger_assets.store.registry import write_indexed_head
from ledger_assets.store.settings import EMBED_MODEL, REFRESH_BATCH, UPDATE_OPS_BATCH

MAX_PAYLOAD_SYMBOLS = 64

@dataclass
class PointsReport:
    points_total: int
    written: int
    refreshed: int
    deleted: int
    demoted: int
    collection_created: bool
    elapsed_s: float
    checks: list[CheckOutcome] = field(default_factory=list)


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
        "ledger_id": row["ledger_id"], "layer": row["layer"], "pattern": row["pattern"],
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


def points_stage(ledger: Ledger, repo_id: str, run_id: str, log) -> PointsReport:
    t0 = time.monotonic()
    s = ledger.settings
    now = utcnow().isoformat(timespec="seconds") + "Z"
    with ledger.db.connect() as con:
        head_sha = con.execute("SELECT head_sha FROM snapshots WHERE repo_id = ?", [repo_id]).fetchone()[0]
        cur = con.execute(
            "SELECT c.*, f.valid_from_utc FROM chunks c LEFT JOIN files f USING (repo_id, file_path) "
            "WHERE c.repo_id = ? ORDER BY c.file_path, c.chunk_index", [repo_id])
        rows = dict_rows(cur)
        extras: dict[tuple[str, int], dict] = defaultdict(dict)
        for path, idx, fields_json in con.execute(
                "SELECT file_path, chunk_index, fields FROM payload_extras WHERE repo_id = ? "
                "ORDER BY file_path, chunk_index, source", [repo_id]).fetchall():
            extras[(path, idx)].update(json.loads(fields_json or "{}"))
        rubrics = dict(con.execute(
            "SELECT a.analysis_key, a.rubric FROM analyses a JOIN chunks c ON c.analysis_key = a.analysis_key "
            "WHERE c.repo_id = ?", [repo_id]).fetchall())
    desired: dict[tuple[str, int], dict] = {}
    for row in rows:
        payload = _payload(row, repo_id)
        for extra in (extras.get((row["file_path"], -1)), extras.get((row["file_path"], row["chunk_index"]))):
            if extra:
                payload.update({k: v for k, v in extra.items() if v not in (None, "", [], {}) and k not in payload})
        rubric = json.loads(rubrics.get(row["analysis_key"]) or "{}")
        quality = quality_vector(row["text"], rubric)
        symbol_hashes = json.loads(row["symbol_hashes"] or "[]")
        fp = _fingerprint(payload, row["code_hash"], row["design_hash"], quality, symbol_hashes)
        payload["fingerprint"] = fp
        desired[(row["file_path"], row["chunk_index"])] = {"row": row, "payload": payload, "quality": quality,
                                                           "symbol_hashes": symbol_hashes}

    written = refreshed = deleted = demoted = 0
    with ledger.qdrant.open() as client:
        created = ledger.qdrant.ensure_collection(client)
        symbol_lane = ledger.qdrant.has_symbol_lane(client)
        if not symbol_lane:
            log.warning(f"collection {ledger.qdrant.collection!r} predates the symbol lane (no {SYMBOL_VECTOR!r}): "
                        "points are written without it; point LEDGER_COLLECTION at a new name to enable it")
        existing = {}  # (file, index) -> (id, fingerprint, content_hash) of the latest point
        stale_ids = []
        since: dict[str, str] = {}  # point id -> when its content first entered
        same_content: dict[str, str] = {}  # point id -> its content hash
        for rec in ledger.qdrant.scroll(client, repo_filter(repo_id),
                                        ["file_path", "chunk_index", "fingerprint", "content_hash", "is_latest",
                                         "system_from_utc"]):
            p = rec.payload or {}
            if p.get("system_from_utc"):
                since[str(rec.id)] = p["system_from_utc"]
                same_content[str(rec.id)] = p.get("content_hash")
            if p.get("is_latest", True) is False:
                continue
            key = (p.get("file_path"), p.get("chunk_index"))
            if key in existing:  # two latest points for one slot: keep one, retire the other
                stale_ids.append(str(rec.id))
                continue
            existing[key] = (str(rec.id), p.get("fingerprint"), p.get("content_hash"))

        to_upsert: list[tuple[str, dict]] = []
        to_overwrite: list[tuple[str, dict]] = []
        to_refresh: list[str] = []
        to_demote: list[str] = list(stale_ids)
        ticks = time.time_ns() // 100
        for key, want in desired.items():
            have = existing.get(key)
            if not s.versioning:
                pid = point_id(repo_id, key[0], key[1])
                if have and have[0] == pid and have[1] == want["payload"]["fingerprint"]:
                    to_refresh.append(pid)
                elif have and have[0] == pid and _same_vectors(have[1], want["payload"]["fingerprint"]):
                    to_overwrite.append((pid, want))
                else:
                    to_upsert.append((pid, want))
                    if have and have[0] != pid:
                        to_demote.append(have[0])
                continue
            if have and have[2] == want["payload"]["content_hash"]:
                # Same content: refresh the current latest in place, no new version.
                if have[1] == want["payload"]["fingerprint"]:
                    to_refresh.append(have[0])
                elif _same_vectors(have[1], want["payload"]["fingerprint"]):
                    to_overwrite.append((have[0], want))
                else:
                    to_upsert.append((have[0], want))
            else:
                to_upsert.append((point_id(repo_id, key[0], key[1], ticks), want))
                if have:
                    to_demote.append(have[0])
        gone = [have[0] for key, have in existing.items() if key not in desired]

        if to_upsert:
            hashes = [h for _, w in to_upsert
                      for h in (w["row"]["code_hash"], w["row"]["design_hash"], *w["symbol_hashes"])]
            vectors = fetch_vectors(ledger.db, EMBED_MODEL, hashes)
            batch: list[models.PointStruct] = []
            for pid, want in to_upsert:
                row = want["row"]
                sym_hashes = want["symbol_hashes"] if symbol_lane else []
                missing = [h for h in (row["code_hash"], row["design_hash"], *sym_hashes) if h not in vectors]
                if missing:
                    raise RuntimeError(f"no cached embedding for {row['file_path']}#{row['chunk_index']}: "
                                       "materialize `embeddings` first")
                # A cosmetic change keeps the content hash, and with it when this content entered.
                first = since.get(pid, now) if same_content.get(pid) == want["payload"]["content_hash"] else now
                payload = dict(want["payload"], is_latest=True, indexed_sha=head_sha, indexed_utc=now,
                               ingested_utc=first, system_from_utc=first)
                sparse = lexical.document_vector(
                    f"{row['file_path']}\n{row['text']}\n{payload.get('intent', '')}")
                vec: dict = {CODE_VECTOR: vectors[row["code_hash"]].tolist(),
                             DESIGN_VECTOR: vectors[row["design_hash"]].tolist(),
                             QUALITY_VECTOR: want["quality"]}
                if sparse.indices:
                    vec[SPARSE_VECTOR] = sparse
                if sym_hashes:
                    vec[SYMBOL_VECTOR] = [vectors[h].tolist() for h in sym_hashes]
                batch.append(models.PointStruct(id=pid, vector=vec, payload=payload))
                if len(batch) >= s.upsert_batch:
                    client.upsert(ledger.qdrant.collection, batch, wait=True)
                    written += len(batch)
                    batch = []
                    log.info(f"upserted {written}/{len(to_upsert)} points")
            if batch:
                client.upsert(ledger.qdrant.collection, batch, wait=True)
                written += len(batch)
        # Same vectors, new payload: overwrite the payload only, keeping when this content entered.
        ops = [models.OverwritePayloadOperation(overwrite_payload=models.SetPayload(
            payload=dict(want["payload"], is_latest=True, indexed_sha=head_sha, indexed_utc=now,
                         ingested_utc=since.get(pid, now), system_from_utc=since.get(pid, now)),
            points=[pid])) for pid, want in to_overwrite]
        for i in range(0, len(ops), UPDATE_OPS_BATCH):
            client.batch_update_points(ledger.qdrant.collection, ops[i:i + UPDATE_OPS_BATCH], wait=True)
        written += len(to_overwrite)
        if to_refresh:
            for i in range(0, len(to_refresh), REFRESH_BATCH):
                client.set_payload(ledger.qdrant.collection, {"indexed_sha": head_sha, "indexed_utc": now},
                                   points=to_refresh[i:i + REFRESH_BATCH], wait=True)
            refreshed = len(to_refresh)
        if s.versioning:
            retire = to_demote + gone
            if retire:
                client.set_payload(ledger.qdrant.collection, {"is_latest": False, "system_to_utc": now},
                                   points=retire, wait=True)
            demoted = len(retire)
        else:
            retire = to_demote + gone
            if retire:
                client.delete(ledger.qdrant.collection, points_selector=models.PointIdsList(points=retire), wait=True)
            deleted = len(retire)
        check = check_qdrant_in_sync_with(client, ledger, repo_id, desired)
    if check.passed:
        write_indexed_head(s.home_path, repo_id, head_sha)
    elapsed = time.monotonic() - t0
    ledger.db.add_to_summary(run_id, repo_id, chunks_written=written, chunks_skipped=refreshed,
                             chunks_deleted=deleted + demoted, elapsed_s=elapsed)
    log.info(f"qdrant: {written} points written, {refreshed} unchanged (payload refresh), "
             f"{deleted} deleted, {demoted} demoted")
    return PointsReport(len(desired), written, refreshed, deleted, demoted, created, elapsed, [check])
