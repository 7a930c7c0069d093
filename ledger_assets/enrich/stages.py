"""Payload enrichment stages: chunks -> quality metrics, git history, code graph -> payload_extras.

Each stage is partition-local: it replaces its own rows (source "quality",
"git" or "graph") of the repo in `payload_extras`, which points_stage merges
into every point's payload, so a changed field becomes an upsert there. Each
stage first compares a key over its inputs with the key of its last run and
does nothing when they match; under that, metrics are cached per chunk
content hash, and git history is read only for PREVIOUS..HEAD.
"""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import PurePosixPath

from ledger_assets.store.ledger import Ledger
from ledger_assets.encode.embedder import text_hash
from ledger_assets.enrich.githistory import CHURN_DAYS, FileHistory, file_histories
from ledger_assets.enrich.graph import CODE_LANGUAGES, GRAPH_VERSION, GraphChunk, GraphSymbol, build_graph
from ledger_assets.enrich.metrics import METRICS_VERSION, SUPPORTED_LANGUAGES, chunk_body, metrics_for
from ledger_assets.ingest.snapshot import ManifestEntry, SnapshotError, read_blobs
from ledger_assets.store.db import insert_arrow, temp_keys

GIT_VERSION = "1"

COVERAGE_NAMES = frozenset({"coverage.xml", "cobertura.xml", "coverage.cobertura.xml", "lcov.info", "cobertura-coverage.xml"})


def _state(con, repo_id: str, source: str) -> tuple[str, str]:
    row = con.execute("SELECT input_key, head_sha FROM enrich_state WHERE repo_id = ? AND source = ?",
                      [repo_id, source]).fetchone()
    return (row[0], row[1] or "") if row else ("", "")


def _save_state(con, repo_id: str, source: str, input_key: str, head_sha: str = "") -> None:
    con.execute("DELETE FROM enrich_state WHERE repo_id = ? AND source = ?", [repo_id, source])
    con.execute("INSERT INTO enrich_state VALUES (?, ?, ?, ?, now())", [repo_id, source, input_key, head_sha])


def _replace_extras(con, repo_id: str, source: str, rows: list[tuple[str, int, dict]]) -> None:
    con.execute("DELETE FROM payload_extras WHERE repo_id = ? AND source = ?", [repo_id, source])
    import pyarrow as pa

    insert_arrow(con, "payload_extras", {
        "repo_id": [repo_id] * len(rows), "file_path": [r[0] for r in rows],
        "chunk_index": pa.array([r[1] for r in rows], pa.int32()), "source": [source] * len(rows),
        "fields": [json.dumps(r[2], sort_keys=True) for r in rows],
    })


def _snapshot(con, repo_id: str) -> tuple[str, str, str]:
    snap = con.execute("SELECT head_sha, source, repo_path FROM snapshots WHERE repo_id = ?", [repo_id]).fetchone()
    if snap is None:
        raise RuntimeError(f"no snapshot for repo {repo_id!r}: materialize repo_snapshot first")
    return snap


# ---------------------------------------------------------------- quality ---
@dataclass
class QualityReport:
    chunks: int
    chunks_with_metrics: int
    metrics_computed: int
    metrics_cached: int
    coverage_reports: list[str]
    chunks_with_coverage: int
    skipped: bool
    elapsed_s: float
    by_language: dict[str, dict] = field(default_factory=dict)  # language -> chunks, mean cyclomatic, max cognitive


def metrics_grammar(language: str, file_path: str) -> str:
    if language == "typescript" and file_path.lower().endswith(".tsx"):
        return "tsx"
    return language


def parse_coverage(name: str, data: bytes) -> dict[str, dict[int, int]]:
    """Line hits per source path from a Cobertura XML or lcov report; {} when it is neither."""
    out: dict[str, dict[int, int]] = defaultdict(dict)
    if name.lower().endswith((".info", ".lcov")):
        current = None
        for raw in data.decode("utf-8", "replace").splitlines():
            if raw.startswith("SF:"):
                current = raw[3:].strip()
            elif raw.startswith("DA:") and current:
                parts = raw[3:].split(",")
                try:
                    out[current][int(parts[0])] = max(out[current].get(int(parts[0]), 0), int(float(parts[1])))
                except (ValueError, IndexError):
                    continue
            elif raw.startswith("end_of_record"):
                current = None
        return dict(out)
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return {}
    if root.tag != "coverage":
        return {}
    sources = [s.text.strip() for s in root.iter("source") if s.text and s.text.strip()]
    for cls in root.iter("class"):
        fname = cls.get("filename") or ""
        if not fname:
            continue
        paths = [fname] + [f"{s.rstrip('/')}/{fname}" for s in sources]
        for line in cls.iter("line"):
            try:
                number, hits = int(line.get("number", "")), int(float(line.get("hits", "0")))
            except ValueError:
                continue
            for p in paths:
                out[p][number] = max(out[p].get(number, 0), hits)
    return dict(out)


def map_report_paths(report: dict[str, dict[int, int]], repo_files: set[str]) -> dict[str, dict[int, int]]:
    """Report paths (absolute, relative to a source root, Windows) -> repo paths, by the longest path suffix."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for f in repo_files:
        by_name[PurePosixPath(f).name].append(f)
    mapped: dict[str, dict[int, int]] = {}
    for raw, lines in report.items():
        rp = raw.replace("\\", "/").lstrip("./") if not raw.startswith("/") else raw.replace("\\", "/")
        cands = [f for f in by_name.get(PurePosixPath(rp).name, []) if rp == f or rp.endswith("/" + f) or f.endswith("/" + rp)]
        if not cands:
            continue
        best = max(cands, key=len)
        merged = mapped.setdefault(best, {})
        for n, hits in lines.items():
            merged[n] = max(merged.get(n, 0), hits)
    return mapped


def _coverage_entries(entries: list[ManifestEntry]) -> list[ManifestEntry]:
    return [e for e in entries if PurePosixPath(e.file_path).name.lower() in COVERAGE_NAMES
            or e.file_path.lower().endswith((".lcov", ".cobertura.xml"))]


def quality_stage(ledger: Ledger, repo_id: str, run_id: str, log) -> QualityReport:
    t0 = time.monotonic()
    min_tokens = ledger.settings.dup_min_tokens
    with ledger.db.connect() as con:
        head_sha, source, repo_path = _snapshot(con, repo_id)
        keys = con.execute(
            "SELECT file_path, chunk_index, language, content_hash, start_line, end_line FROM chunks "
            "WHERE repo_id = ? ORDER BY file_path, chunk_index", [repo_id]).fetchall()
        manifest = [ManifestEntry(*r) for r in con.execute(
            "SELECT file_path, blob_hash, size, language, skip_reason FROM manifest WHERE repo_id = ?",
            [repo_id]).fetchall()]
        state_key, _ = _state(con, repo_id, "quality")
    reports = sorted(_coverage_entries(manifest), key=lambda e: e.file_path)
    input_key = text_hash(json.dumps([METRICS_VERSION, min_tokens, keys, [(e.file_path, e.blob_hash) for e in reports]]))
    if input_key == state_key:
        log.info("quality: chunks and coverage reports unchanged since the last run; nothing to compute")
        return QualityReport(len(keys), 0, 0, 0, [e.file_path for e in reports], 0, True, time.monotonic() - t0)

    wanted = {}
    for path, idx, language, chash, _, _ in keys:
        grammar = metrics_grammar(language or "", path)
        if grammar in SUPPORTED_LANGUAGES:
            wanted[(path, idx)] = (grammar, text_hash(f"{METRICS_VERSION}\0{grammar}\0{chash}"))
    with ledger.db.connect() as con:
        temp_keys(con, "want_metrics", [k for _, k in wanted.values()])
        cached = {k: json.loads(f) for k, f in con.execute(
            "SELECT metrics_key, fields FROM chunk_metrics JOIN want_metrics ON want_metrics.k = metrics_key").fetchall()}
        missing = {pk for pk, (_, k) in wanted.items() if k not in cached}
        texts = {}
        if missing:
            temp_keys(con, "missing_files", [p for p, _ in missing])
            for path, idx, text, header in con.execute(
                    "SELECT file_path, chunk_index, text, header FROM chunks WHERE repo_id = ? "
                    "AND file_path IN (SELECT k FROM missing_files)", [repo_id]).fetchall():
                if (path, idx) in missing:
                    texts[(path, idx)] = chunk_body(text, header)
    computed: dict[str, dict] = {}
    for pk in sorted(missing):
        grammar, key = wanted[pk]
        if key in computed:
            continue
        try:
            computed[key] = metrics_for(grammar, texts.get(pk, "")) or {}
        except Exception as exc:  # a grammar crash on one chunk must not fail the repo
            log.warning(f"quality: {pk[0]}#{pk[1]}: metrics failed: {type(exc).__name__}: {exc}")
            computed[key] = {}

    coverage: dict[str, dict[int, int]] = {}
    if reports:
        repo_files = {e.file_path for e in manifest}
        try:
            for entry, data in read_blobs(repo_path, source, reports):
                for path, lines in map_report_paths(parse_coverage(entry.file_path, data), repo_files).items():
                    merged = coverage.setdefault(path, {})
                    for n, hits in lines.items():
                        merged[n] = max(merged.get(n, 0), hits)
        except (OSError, SnapshotError) as exc:
            log.warning(f"quality: coverage reports unreadable: {exc}")

    rows: list[tuple[str, int, dict]] = []
    with_cov = 0
    stats: dict[str, list] = defaultdict(list)
    for path, idx, language, _, start, end in keys:
        fields: dict = {}
        if (path, idx) in wanted:
            grammar, key = wanted[(path, idx)]
            m = dict(cached.get(key) or computed.get(key) or {})
            tokens = m.pop("dup_tokens", 0)
            if tokens < min_tokens:
                m.pop("q_dup_hash", None)
            fields.update({k: v for k, v in m.items() if v is not None})
            if m:
                stats[language].append(m)
        lines = coverage.get(path)
        if lines and start and end:
            inside = [hits for n, hits in lines.items() if start <= n <= end]
            if inside:
                fields["q_test_coverage"] = round(sum(1 for h in inside if h > 0) / len(inside), 3)
                with_cov += 1
        if fields:
            rows.append((path, idx, fields))

    with ledger.db.transaction() as con:
        insert_arrow(con, "chunk_metrics", {
            "metrics_key": list(computed), "fields": [json.dumps(v, sort_keys=True) for v in computed.values()],
        }, on_conflict="ON CONFLICT DO NOTHING")
        _replace_extras(con, repo_id, "quality", rows)
        _save_state(con, repo_id, "quality", input_key, head_sha)
    elapsed = time.monotonic() - t0
    by_language = {
        lang: {"chunks": len(ms), "mean_cyclomatic": round(sum(m.get("q_cyclomatic", 0) for m in ms) / len(ms), 2),
               "max_cognitive": max(m.get("q_cognitive", 0) for m in ms)}
        for lang, ms in sorted(stats.items())
    }
    log.info(f"quality: {len(wanted)} chunks with metrics, {len(computed)} computed, "
             f"{len(wanted) - len(missing)} cached; coverage from {len(reports)} report(s) on {with_cov} chunks")
    return QualityReport(len(keys), len(wanted), len(computed), len(wanted) - len(missing),
                         [e.file_path for e in reports], with_cov, False, elapsed, by_language)


# -------------------------------------------------------------------- git ---
@dataclass
class GitReport:
    files: int
    commits_read: int
    mode: str  # full | incremental | skipped | not-git
    elapsed_s: float
    top_churn: list[tuple[str, int]] = field(default_factory=list)


def git_stage(ledger: Ledger, repo_id: str, run_id: str, log) -> GitReport:
    t0 = time.monotonic()
    with ledger.db.connect() as con:
        head_sha, source, repo_path = _snapshot(con, repo_id)
        paths = [r[0] for r in con.execute(
            "SELECT file_path FROM manifest WHERE repo_id = ? ORDER BY file_path", [repo_id]).fetchall()]
        state_key, previous_head = _state(con, repo_id, "git")
        input_key = f"{GIT_VERSION}|{CHURN_DAYS}|{head_sha}"
        previous: dict[str, FileHistory] | None = None
        if source == "git" and input_key != state_key and previous_head \
                and state_key.startswith(f"{GIT_VERSION}|{CHURN_DAYS}|"):
            previous = {
                path: FileHistory(sha, int(when.replace(tzinfo=timezone.utc).timestamp()), msg,
                                  set(json.loads(authors or "[]")), list(json.loads(recent or "[]")))
                for path, sha, when, msg, authors, recent in con.execute(
                    "SELECT file_path, last_sha, last_utc, last_msg, authors, recent_ct FROM git_history "
                    "WHERE repo_id = ?", [repo_id]).fetchall()
            }
    if source != "git":
        with ledger.db.transaction() as con:
            _replace_extras(con, repo_id, "git", [])
            con.execute("DELETE FROM git_history WHERE repo_id = ?", [repo_id])
            _save_state(con, repo_id, "git", input_key, head_sha)
        return GitReport(0, 0, "not-git", time.monotonic() - t0)
    if input_key == state_key:
        log.info(f"git: HEAD {head_sha[:12]} unchanged since the last run; history reused")
        return GitReport(len(paths), 0, "skipped", time.monotonic() - t0)
    result = file_histories(repo_path, head_sha, paths, CHURN_DAYS, previous_head, previous)
    files = sorted(result.files.items())
    rows = [(path, -1, h.to_fields(result.head_ct, CHURN_DAYS)) for path, h in files]
    with ledger.db.transaction() as con:
        con.execute("DELETE FROM git_history WHERE repo_id = ?", [repo_id])
        insert_arrow(con, "git_history", {
            "repo_id": [repo_id] * len(files), "file_path": [p for p, _ in files],
            "last_sha": [h.last_sha for _, h in files],
            "last_utc": [datetime.fromtimestamp(h.last_ct, timezone.utc).replace(tzinfo=None) for _, h in files],
            "last_msg": [h.last_msg for _, h in files],
            "authors": [json.dumps(sorted(h.authors)) for _, h in files],
            "recent_ct": [json.dumps(sorted(h.recent_ct)) for _, h in files],
        })
        _replace_extras(con, repo_id, "git", rows)
        _save_state(con, repo_id, "git", input_key, head_sha)
    top = sorted(((p, f["git_churn_90d"]) for p, _, f in rows if f["git_churn_90d"]), key=lambda x: (-x[1], x[0]))[:10]
    log.info(f"git: {result.mode} pass over {result.commits_read} commits; history for {len(files)} files")
    return GitReport(len(files), result.commits_read, result.mode, time.monotonic() - t0, top)


# ------------------------------------------------------------------ graph ---
@dataclass
class GraphReport:
    nodes: int
    edges: int
    edge_kinds: dict[str, int]
    clusters: int
    skipped: bool
    elapsed_s: float
    top_central: list[tuple[str, float, int]] = field(default_factory=list)


def graph_stage(ledger: Ledger, repo_id: str, run_id: str, log) -> GraphReport:
    t0 = time.monotonic()
    langs = sorted(CODE_LANGUAGES)
    marks = ",".join("?" * len(langs))
    with ledger.db.connect() as con:
        head_sha, _, _ = _snapshot(con, repo_id)
        keys = con.execute(
            f"SELECT file_path, chunk_index, language, content_hash, start_line, end_line FROM chunks "
            f"WHERE repo_id = ? AND language IN ({marks}) ORDER BY file_path, chunk_index", [repo_id, *langs]).fetchall()
        state_key, _ = _state(con, repo_id, "graph")
        input_key = text_hash(json.dumps([GRAPH_VERSION, keys]))
        if input_key == state_key:
            log.info("graph: no code chunk changed since the last run; graph reused")
            n_edges = con.execute("SELECT count(*) FROM code_graph WHERE repo_id = ?", [repo_id]).fetchone()[0]
            return GraphReport(0, int(n_edges), {}, 0, True, time.monotonic() - t0)
        chunks = [GraphChunk(p, i, lang, s, e, chunk_body(text, header)) for p, i, lang, s, e, text, header in con.execute(
            f"SELECT file_path, chunk_index, language, start_line, end_line, text, header FROM chunks "
            f"WHERE repo_id = ? AND language IN ({marks})", [repo_id, *langs]).fetchall()]
        symbols = [GraphSymbol(*r) for r in con.execute(
            "SELECT file_path, chunk_index, name, kind, coalesce(parent, ''), start_line FROM symbols WHERE repo_id = ?",
            [repo_id]).fetchall()]
        stored = {(path, idx): json.loads(fields or "{}") for path, idx, fields in con.execute(
            "SELECT file_path, chunk_index, fields FROM payload_extras WHERE repo_id = ? AND source = 'graph'",
            [repo_id]).fetchall()}
    result = build_graph(chunks, symbols, stored)
    rows = [(path, idx, f) for (path, idx), f in sorted(result.fields.items())]
    e = result.edges
    with ledger.db.transaction() as con:
        con.execute("DELETE FROM code_graph WHERE repo_id = ?", [repo_id])
        insert_arrow(con, "code_graph", {
            "repo_id": [repo_id] * len(e), "src_file": [x.src_file for x in e], "src_chunk": [x.src_chunk for x in e],
            "dst_file": [x.dst_file for x in e], "dst_chunk": [x.dst_chunk for x in e],
            "dst_symbol": [x.dst_symbol for x in e], "kind": [x.kind for x in e],
        })
        _replace_extras(con, repo_id, "graph", rows)
        _save_state(con, repo_id, "graph", input_key, head_sha)
    kinds = dict(Counter(x.kind for x in e).most_common())
    clusters = len({f["graph_cluster"] for f in result.fields.values()})
    log.info(f"graph: {len(e)} edges ({kinds}), {len(result.fields)} chunks in the graph, {clusters} clusters")
    return GraphReport(len(result.fields), len(e), kinds, clusters, False, time.monotonic() - t0, result.centrality_top)
