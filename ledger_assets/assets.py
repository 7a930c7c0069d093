"""The asset graph, one partition per repo:

repo_snapshot -> chunks -> intents -> embeddings -> qdrant_points

Each asset calls one core function of pipeline.py and turns its report into
metadata a person reads in the UI; blocking checks on `chunks` and
`qdrant_points` stop the run before bad data travels further.
"""


import json

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    Failure,
    MaterializeResult,
    MetadataValue,
    asset,
)

from . import pipeline
from .partitions import repos_partitions
from .repos import RegistryError
from .resources import EmbedderResource, LedgerResource
from .snapshot import SnapshotError

GROUP = "ledger"


def _table(rows: dict, key: str, value: str) -> MetadataValue:
    lines = [f"| {key} | {value} |", "| --- | ---: |"] + [f"| {k} | {v} |" for k, v in rows.items()]
    return MetadataValue.md("\n".join(lines) if rows else f"_no {key}s_")


def _check_results(asset_key: str, outcomes: list[pipeline.CheckOutcome]) -> list[AssetCheckResult]:
    return [
        AssetCheckResult(check_name=o.name, asset_key=asset_key, passed=o.passed,
                         severity=AssetCheckSeverity.ERROR, description=o.description,
                         metadata={k: (MetadataValue.json(json.loads(v)) if k == "offenders" else v)
                                   for k, v in o.metadata.items()})
        for o in outcomes
    ]


@asset(
    partitions_def=repos_partitions,
    group_name=GROUP,
    kinds={"git", "duckdb"},
    description="The repo at HEAD: its sha (a content hash for a plain folder) and the manifest of tracked "
                "files with size, blob hash and language; binary, vendored and over-size files are skipped "
                "with a recorded reason.",
)
def repo_snapshot(context: AssetExecutionContext, ledger: LedgerResource) -> MaterializeResult:
    try:
        report = pipeline.snapshot_stage(ledger.ledger(), context.partition_key, context.run.run_id, context.log)
    except (RegistryError, SnapshotError) as exc:
        raise Failure(description=str(exc)) from exc
    return MaterializeResult(metadata={
        "head_sha": report.head_sha,
        "source": report.source,
        "files_total": report.files_total,
        "files_indexable": report.files_indexable,
        "files_skipped": sum(report.skipped.values()),
        "skipped_by_reason": _table(report.skipped, "reason", "files"),
        "languages": _table(dict(sorted(report.languages.items(), key=lambda kv: -kv[1])), "language", "files"),
        "elapsed_s": round(report.elapsed_s, 3),
    })


CHUNK_CHECKS = [
    AssetCheckSpec("line_coverage", asset="chunks", blocking=True,
                   description="Every indexed file has 100% of its lines inside some chunk; no truncation marker."),
    AssetCheckSpec("member_symbols", asset="chunks", blocking=True,
                   description="Every per-member chunk (cs_member, py_function, sql_proc, ...) carries its own symbol."),
    AssetCheckSpec("idempotent", asset="chunks", blocking=True,
                   description="Re-chunking the snapshot reproduces the stored chunk ids and content hashes."),
]


@asset(
    partitions_def=repos_partitions,
    group_name=GROUP,
    kinds={"python", "duckdb"},
    deps=[repo_snapshot],
    check_specs=CHUNK_CHECKS,
    description="Language-aware chunks of every indexable file (chunkers/), in DuckDB. Only new or changed "
                "files are re-chunked (by blob hash); rows of removed files are deleted; ledger_id survives renames.",
)
def chunks(context: AssetExecutionContext, ledger: LedgerResource) -> MaterializeResult:
    report = pipeline.chunk_stage(ledger.ledger(), context.partition_key, context.run.run_id, context.log)
    summary = (
        f"**{report.files_changed}** files chunked, **{report.files_removed}** removed, "
        f"**{report.files_unchanged}** unchanged; **{report.chunk_rows_written}** chunk rows written, "
        f"**{report.chunk_rows_deleted}** deleted; **{report.total_chunks}** chunks in the repo."
    )
    return MaterializeResult(
        metadata={
            "summary": MetadataValue.md(summary),
            "files_changed": report.files_changed,
            "files_removed": report.files_removed,
            "chunk_rows_written": report.chunk_rows_written,
            "chunk_rows_deleted": report.chunk_rows_deleted,
            "total_chunks": report.total_chunks,
            "chunk_types": _table(report.chunk_types, "chunk_type", "chunks"),
            "files_skipped_by_chunker": MetadataValue.json(report.files_skipped_by_chunker),
            "chunker_notes": MetadataValue.json(dict(list(report.notes.items())[:100])),
            "elapsed_s": round(report.elapsed_s, 3),
        },
        check_results=_check_results("chunks", report.checks),
    )


@asset(
    partitions_def=repos_partitions,
    group_name=GROUP,
    kinds={"groq", "duckdb"},
    deps=[chunks],
    pool="groq",
    description="Each chunk's intent, layer and pattern, written by an LLM (Groq) when a key is set, else by "
                "the keyless analyser; cached by the hash of (model, prompt version, analysis input). "
                "intent_source says where every intent came from.",
)
def intents(context: AssetExecutionContext, ledger: LedgerResource) -> MaterializeResult:
    report = pipeline.intent_stage(ledger.ledger(), context.partition_key, context.run.run_id, context.log)
    return MaterializeResult(metadata={
        "chunks_analysed": report.analysed,
        "llm_requests": report.llm_requests,
        "intent_skipped": report.intent_skipped,
        "llm_cost_usd": round(report.cost_usd, 6),
        "intent_sources": _table(report.by_source, "intent_source", "chunks"),
    })


@asset(
    partitions_def=repos_partitions,
    group_name=GROUP,
    kinds={"pytorch", "duckdb"},
    deps=[intents],
    description="code_vector = embed(text) and design_vector = embed('[repo/layer] intent') with "
                "all-MiniLM-L6-v2 (offline), cached by (model, normalised text hash): unchanged text is "
                "never embedded twice.",
)
def embeddings(context: AssetExecutionContext, ledger: LedgerResource, embedder: EmbedderResource) -> MaterializeResult:
    report = pipeline.embedding_stage(ledger.ledger(), context.partition_key, context.run.run_id, context.log,
                                      embedder.embedder())
    return MaterializeResult(metadata={
        "chunks": report.chunks,
        "distinct_texts": report.texts,
        "embeddings_computed": report.embeddings_computed,
        "cache_hits": report.cache_hits,
        "elapsed_s": round(report.elapsed_s, 3),
    })


@asset(
    partitions_def=repos_partitions,
    group_name=GROUP,
    kinds={"qdrant"},
    deps=[embeddings],
    check_specs=[AssetCheckSpec("qdrant_in_sync", asset="qdrant_points", blocking=True,
                                description="Latest points = latest chunk rows; no orphan or duplicate points.")],
    description="Points in the Qdrant collection (code_vector, design_vector, quality_vector, sparse lexical "
                "lane): only new or changed chunks are upserted, unchanged ones get an indexed_sha refresh, "
                "points of removed chunks are deleted (or demoted, with versioning on).",
)
def qdrant_points(context: AssetExecutionContext, ledger: LedgerResource) -> MaterializeResult:
    core = ledger.ledger()
    report = pipeline.points_stage(core, context.partition_key, context.run.run_id, context.log)
    summary = core.db.summary([context.run.run_id])
    md = "\n".join(["| counter | value |", "| --- | ---: |"] + [f"| {k} | {v} |" for k, v in summary.items()])
    return MaterializeResult(
        metadata={
            "collection": core.qdrant.collection,
            "qdrant_mode": core.qdrant.mode,
            "points_total": report.points_total,
            "points_written": report.written,
            "points_refreshed": report.refreshed,
            "points_deleted": report.deleted,
            "points_demoted": report.demoted,
            "run_summary": MetadataValue.md(md),
            "elapsed_s": round(report.elapsed_s, 3),
        },
        check_results=_check_results("qdrant_points", report.checks),
    )


ALL_ASSETS = [repo_snapshot, chunks, intents, embeddings, qdrant_points]
