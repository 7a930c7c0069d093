"""The asset graph, one partition per repo:

repo_snapshot -> chunks -> intents -> embeddings -> qdrant_points -> promoted_index, with
chunk_quality, git_history and code_graph between chunks and qdrant_points.

Each asset calls one core function (ingest/pipeline.py and ingest/points.py for the
stages, enrich/stages.py for the enrichment) and turns its report into metadata a
person reads in the UI; blocking checks (ingest/checks.py) on `chunks` and
`qdrant_points` stop the run before bad data travels further, and before it is
promoted: queries see a run's points only after promoted_index.
"""

import json
from contextlib import contextmanager

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    AssetObservation,
    Backoff,
    Failure,
    MaterializeResult,
    MetadataValue,
    RetryPolicy,
    TableColumn,
    TableSchema,
    asset,
)

from ledger_assets.enrich import stages as enrich
from ledger_assets.ingest import checks, pipeline, points, promotion
from ledger_assets.defs.partitions import REPOS_PARTITION, repos_partitions
from ledger_assets.store.registry import RegistryError, UnknownRepo
from ledger_assets.defs.resources import EmbedderResource, LedgerResource
from ledger_assets.store.qdrant import CollectionMismatch, QdrantBusy
from ledger_assets.ingest.snapshot import SnapshotError
from ledger_assets.store.printable import printable
from ledger_assets.store.db import LedgerLockTimeout, table_columns
from ledger_assets.store.settings import LOCK_RETRIES, LOCK_RETRY_DELAY_S, SettingsError

GROUP = "ledger"
OWNERS = ["team:code-ledger"]
# A lock wait that outlasted lock_timeout_s (another writer on the DuckDB file or the local Qdrant
# folder) is retried with backoff. The policy would retry any exception a step raises, so _errors turns
# every other one (a user error, a corrupt DuckDB file, a bug) into a Failure that is not retried.
LOCK_RETRY = RetryPolicy(max_retries=LOCK_RETRIES, delay=LOCK_RETRY_DELAY_S, backoff=Backoff.EXPONENTIAL)
USER_ERRORS = (RegistryError, SnapshotError, CollectionMismatch, SettingsError, promotion.PromotionRefused)


def _common(stage: str) -> dict:
    return {"partitions_def": repos_partitions, "group_name": GROUP, "owners": OWNERS,
            "retry_policy": LOCK_RETRY, "tags": {"stage": stage}}


@contextmanager
def _errors(context: AssetExecutionContext):
    """Typed errors become a Failure whose message is one clear line (the UI still lists Dagster's own
    stack of the raise beneath it, but not the cause's traceback); a partition no registered repo backs
    is removed (the sensor would remove it too) and fails its run at once. Only a lock wait may be
    retried (LOCK_RETRY); any other exception fails the step once, its traceback kept as the cause."""
    try:
        yield
    except UnknownRepo as exc:
        key = context.partition_key
        if context.instance.has_dynamic_partition(REPOS_PARTITION, key):
            context.instance.delete_dynamic_partition(REPOS_PARTITION, key)
        raise Failure(description=f"{exc}. The partition {key!r} was removed.", allow_retries=False) from None
    except (LedgerLockTimeout, QdrantBusy) as exc:
        raise Failure(description=f"{exc} (retried with backoff)", allow_retries=True) from None
    except USER_ERRORS as exc:
        raise Failure(description=str(exc), allow_retries=False) from None
    except Failure:
        raise
    except Exception as exc:  # deterministic: retrying a corrupt file or a bug only delays the failure
        raise Failure(description=f"{type(exc).__name__}: {exc}", allow_retries=False) from exc


def _schema(core, table: str) -> dict:
    """The DuckDB table an asset writes: its columns, name and file, as catalog metadata."""
    with core.db.connect() as con:
        columns = table_columns(con, table)
    return {"dagster/column_schema": TableSchema(columns=[TableColumn(name, kind) for name, kind in columns]),
            "dagster/table_name": f"ledger.{table}", "duckdb_path": MetadataValue.path(str(core.settings.duckdb_path))}


def _cell(text: str) -> str:
    """A markdown table cell of the UI's metadata: a path's `|` escaped, its line breaks and bidi marks too."""
    return printable(text).replace("|", "\\|")


def _table(rows: dict, key: str, value: str) -> MetadataValue:
    lines = [f"| {key} | {value} |", "| --- | ---: |"] + [f"| {k} | {v} |" for k, v in rows.items()]
    return MetadataValue.md("\n".join(lines) if rows else f"_no {key}s_")


REBUILD_TAG = "ledger/rebuild"


def _rebuild(context: AssetExecutionContext) -> bool:
    """A run tagged ledger/rebuild=true (`ledger ingest --rebuild`, or the tag added in the launchpad)
    re-chunks every file and re-stages every point (embeddings still come from the cache)."""
    return context.run.tags.get(REBUILD_TAG, "").lower() in ("true", "1", "yes")


def _report_blocked(context: AssetExecutionContext, core, outcomes: list[checks.CheckOutcome]) -> None:
    """A failed blocking check stops the run before promoted_index: say so on promoted_index itself (an
    observation on its page), with what queries still answer from."""
    failed = [o for o in outcomes if not o.passed]
    if not failed:
        return
    served = promotion.read_state(core, context.partition_key).promoted_sha
    context.log_event(AssetObservation(
        asset_key="promoted_index", partition=context.partition_key,
        description="promotion blocked: " + "; ".join(f"{o.name} failed ({o.description})" for o in failed),
        metadata={"promotion": "blocked", "failed_checks": ", ".join(o.name for o in failed),
                  "promoted_sha": served or "(never promoted)", "run_id": context.run.run_id}))


def _check_results(asset_key: str, outcomes: list[checks.CheckOutcome]) -> list[AssetCheckResult]:
    return [
        AssetCheckResult(check_name=o.name, asset_key=asset_key, passed=o.passed,
                         severity=AssetCheckSeverity.ERROR, description=o.description,
                         metadata={k: (MetadataValue.json(json.loads(v)) if k == "offenders" else v)
                                   for k, v in o.metadata.items()})
        for o in outcomes
    ]


@asset(
    **_common("ingest"),
    kinds={"git", "duckdb"},
    description="The repo at HEAD: its sha (for a plain folder, the stat signature the sensor reads) and the "
                "manifest of tracked files with size, blob hash and language; binary, vendored and over-size "
                "files, private key material (*.pem, *.key, id_rsa, ...) and Git LFS pointers are skipped with "
                "a recorded reason.",
)
def repo_snapshot(context: AssetExecutionContext, ledger: LedgerResource) -> MaterializeResult:
    core = ledger.ledger()
    with _errors(context):
        report = pipeline.snapshot_stage(core, context.partition_key, context.run.run_id, context.log)
    return MaterializeResult(metadata={
        **_schema(core, "manifest"),
        "dagster/row_count": report.files_total,
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
    AssetCheckSpec("line_coverage", asset="chunks", blocking=True, partitions_def=repos_partitions,
                   description="Every indexed file has 100% of its lines inside some chunk; no truncation marker."),
    AssetCheckSpec("member_symbols", asset="chunks", blocking=True, partitions_def=repos_partitions,
                   description="Every per-member chunk (cs_member, py_function, sql_proc, ...) carries its own symbol."),
    AssetCheckSpec("idempotent", asset="chunks", blocking=True, partitions_def=repos_partitions,
                   description="Re-chunking the snapshot reproduces the stored chunk ids and content hashes."),
]


@asset(
    **_common("ingest"),
    kinds={"python", "duckdb"},
    deps=[repo_snapshot],
    check_specs=CHUNK_CHECKS,
    description="Language-aware chunks of every indexable file (chunkers/), in DuckDB. Only new or changed "
                "files are re-chunked (by blob hash); rows of removed files are deleted; ledger_id survives renames.",
)
def chunks(context: AssetExecutionContext, ledger: LedgerResource) -> MaterializeResult:
    core = ledger.ledger()
    with _errors(context):
        report = pipeline.chunk_stage(core, context.partition_key, context.run.run_id, context.log,
                                      rebuild=_rebuild(context))
    _report_blocked(context, core, report.checks)
    summary = (
        f"**{report.files_changed}** files chunked, **{report.files_removed}** removed, "
        f"**{report.files_unchanged}** unchanged, **{report.files_healed}** healed (stored rows had failed a "
        f"check); **{report.chunk_rows_written}** chunk rows written, "
        f"**{report.chunk_rows_deleted}** deleted; **{report.total_chunks}** chunks in the repo."
    )
    return MaterializeResult(
        metadata={
            "summary": MetadataValue.md(summary),
            **_schema(core, "chunks"),
            "dagster/row_count": report.total_chunks,
            "files_changed": report.files_changed,
            "files_removed": report.files_removed,
            "files_healed": report.files_healed,
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
    **_common("ingest"),
    kinds={"groq", "duckdb"},
    deps=[chunks],
    pool="groq",
    description="Each chunk's intent, layer and pattern, written by an LLM (Groq) when a key is set, else by "
                "the keyless analyser; cached by the hash of (model, prompt version, analysis input). "
                "intent_source says where every intent came from.",
)
def intents(context: AssetExecutionContext, ledger: LedgerResource) -> MaterializeResult:
    with _errors(context):
        report = pipeline.intent_stage(ledger.ledger(), context.partition_key, context.run.run_id, context.log)
    skipped = report.intent_skipped
    summary = (f"**{report.analysed}** chunks analysed: {report.llm_requests} LLM requests "
               f"(${report.cost_usd:.4f}), {report.cache_hits} from the cache, **{skipped}** without an LLM "
               "intent (intent_skipped)." + (" See intent_sources for why." if skipped else ""))
    return MaterializeResult(metadata={
        "summary": MetadataValue.md(summary),
        "dagster/row_count": sum(report.repo_sources.values()),  # the repo's chunks, each with its intent
        "chunks_analysed": report.analysed,
        "llm_requests": report.llm_requests,
        "cache_hits": report.cache_hits,
        "intent_skipped": skipped,
        "llm_cost_usd": round(report.cost_usd, 6),
        "intent_sources": _table(report.by_source, "intent_source", "chunks"),
        "repo_intent_sources": _table(report.repo_sources, "intent_source", "chunks"),
        "llm_errors": MetadataValue.json(report.errors[:20]),
    })


@asset(
    **_common("ingest"),
    kinds={"pytorch", "duckdb"},
    deps=[intents],
    description="code_vector = embed(text without its imports, led by its symbols' names); with an LLM intent "
                "(or LEDGER_EMBED_PROFILE=full, every chunk) design_vector = embed('[repo/layer] intent'); standard "
                ", pooled (the default) and full add one symbol sentence per owned symbol, and pooled takes a chunk's "
                "code_vector as their mean where they quote half its code or more; joint reads a chunk's code and its symbols' heads in "
                "one model input, a vector each. all-MiniLM-L6-v2 (offline), cached by (model, "
                "normalised text hash): unchanged text is never embedded twice, and a run with nothing new to "
                "embed never loads the model.",
)
def embeddings(context: AssetExecutionContext, ledger: LedgerResource, embedder: EmbedderResource) -> MaterializeResult:
    with _errors(context):
        model = embedder.embedder()
        report = pipeline.embedding_stage(ledger.ledger(), context.partition_key, context.run.run_id, context.log,
                                          model)
    return MaterializeResult(metadata={
        "dagster/row_count": report.chunks,  # the repo's chunks, each with its vectors
        "chunks": report.chunks,
        "distinct_texts": report.texts,
        "embeddings_computed": report.embeddings_computed,
        "texts_per_chunk": round(report.texts / max(report.chunks, 1), 2),  # what an ingest pays for (issue 30)
        "cache_hits": report.cache_hits,
        "code_vectors_pooled": report.pooled,  # the mean of the chunk's symbol vectors: no model input (pooled)
        "model_loaded": model.model_used,
        "embed_backend": model.backend,  # `auto` resolved: bf16 on a CPU with bfloat16 units, else torch
        "model_note": (f"loaded: {report.embeddings_computed} new texts to embed" if model.model_used else
                       f"not loaded: nothing new to embed, all {report.texts} texts from the cache"),
        "elapsed_s": round(report.elapsed_s, 3),
    })


@asset(
    **_common("serve"),
    kinds={"qdrant"},
    deps=[embeddings, "chunk_quality", "git_history", "code_graph"],
    check_specs=[AssetCheckSpec("qdrant_in_sync", asset="qdrant_points", blocking=True, partitions_def=repos_partitions,
                                description="Latest points = latest chunk rows; no orphan or duplicate points.")],
    description="Points in the Qdrant collection (code_vector, design_vector, quality_vector, the sparse lexical "
                "lane, symbol_vector: one vector per owned symbol): only new or changed chunks are staged, "
                "unchanged points are not written at all, points of removed chunks are deleted (or demoted, "
                "with versioning on) at promotion.",
)
def qdrant_points(context: AssetExecutionContext, ledger: LedgerResource) -> MaterializeResult:
    core = ledger.ledger()
    with _errors(context):
        report = points.points_stage(core, context.partition_key, context.run.run_id, context.log, promote=False,
                                     rebuild=_rebuild(context))
    _report_blocked(context, core, report.checks)
    summary = core.db.summary([context.run.run_id])
    md = "\n".join(["| counter | value |", "| --- | ---: |"] + [f"| {k} | {v} |" for k, v in summary.items()])
    return MaterializeResult(
        metadata={
            "staged_sha": report.staged_sha,
            "collection": core.qdrant.collection,
            "qdrant_mode": core.qdrant.mode,
            "qdrant_location": (MetadataValue.url(core.settings.qdrant_url) if core.settings.qdrant_url
                                else MetadataValue.path(str(core.settings.qdrant_path))),
            "dagster/row_count": report.points_total,
            "points_total": report.points_total,
            "points_written": report.written,
            "points_unchanged": report.unchanged,
            "points_deleted": report.deleted,
            "points_demoted": report.demoted,
            "run_summary": MetadataValue.md(md),
            "elapsed_s": round(report.elapsed_s, 3),
        },
        check_results=_check_results("qdrant_points", report.checks),
    )



@asset(
    **_common("serve"),
    kinds={"qdrant"},
    deps=[qdrant_points],
    description="The state queries answer from. qdrant_points stages a run's points hidden from queries; this "
                "step runs only when every blocking check passed (on chunks and on the staged view), re-verifies "
                "the staged view, makes it live and retires what it replaces (a plan of the promoted sha that changes no "
                "point: nothing to re-verify or apply, `noop`). A failed check leaves the previous "
                "promoted sha answering queries (`ledger status` says why).",
)
def promoted_index(context: AssetExecutionContext, ledger: LedgerResource) -> MaterializeResult:
    core = ledger.ledger()
    with _errors(context):
        r = promotion.promote(core, context.partition_key, context.run.run_id, context.log)
    summary = (f"_Nothing new: {r.note or 'this sha was already promoted'}._" if r.noop else
               f"Queries now answer from **{r.promoted_sha[:12]}** (was {r.previous_sha[:12] or 'nothing'}): "
               f"**{r.made_live}** staged points made live, **{r.payloads_updated}** payloads updated, "
               f"**{r.retired}** retired.")
    return MaterializeResult(metadata={
        "summary": MetadataValue.md(summary),
        "dagster/row_count": r.served_chunks,
        "promoted_sha": r.promoted_sha,
        "previous_sha": r.previous_sha,
        "points_made_live": r.made_live,
        "payloads_updated": r.payloads_updated,
        "points_retired": r.retired,
        "noop": r.noop,
        "elapsed_s": round(r.elapsed_s, 3),
    })


# ------------------------------------------------------- payload enrichment ---
def _skipped_note(skipped: bool, what: str) -> str:
    return f"_Inputs unchanged since the last run: {what} reused, nothing recomputed._\n\n" if skipped else ""


@asset(
    **_common("enrich"),
    kinds={"python", "duckdb"},
    deps=[chunks],
    description="Structural quality of each code chunk from its tree-sitter tree (C#, TypeScript/JavaScript, "
                "Python; SQL from tokens): q_cyclomatic, q_cognitive, q_loc, q_comment_density, q_max_nesting, "
                "q_param_count, q_error_emission, q_dup_hash (clones share it), and q_test_coverage from a "
                "Cobertura/lcov report in the repo. Cached per chunk content hash; payload fields via payload_extras.",
)
def chunk_quality(context: AssetExecutionContext, ledger: LedgerResource) -> MaterializeResult:
    with _errors(context):
        r = enrich.quality_stage(ledger.ledger(), context.partition_key, context.run.run_id, context.log)
    lines = ["| language | chunks | mean q_cyclomatic | max q_cognitive |", "| --- | ---: | ---: | ---: |"]
    lines += [f"| {lang} | {v['chunks']} | {v['mean_cyclomatic']} | {v['max_cognitive']} |"
              for lang, v in r.by_language.items()]
    return MaterializeResult(metadata={
        "summary": MetadataValue.md(_skipped_note(r.skipped, "metrics") + (
            f"**{r.chunks_with_metrics}** chunks with metrics: **{r.metrics_computed}** computed, "
            f"**{r.metrics_cached}** from the cache; coverage on **{r.chunks_with_coverage}** chunks.")),
        "by_language": MetadataValue.md("\n".join(lines) if r.by_language else "_no metrics computed this run_"),
        "dagster/row_count": r.chunks,  # the repo's chunks, each with its quality fields (empty where none)
        "metrics_computed": r.metrics_computed,
        "metrics_cached": r.metrics_cached,
        "coverage_reports": MetadataValue.json(r.coverage_reports),
        "chunks_with_coverage": r.chunks_with_coverage,
        "skipped": r.skipped,
        "elapsed_s": round(r.elapsed_s, 3),
    })


@asset(
    **_common("enrich"),
    kinds={"git", "duckdb"},
    deps=[repo_snapshot],
    description="Per-file git history folded across renames, from one `git log` pass (only PREVIOUS..HEAD when "
                "HEAD moved forward; nothing when it did not): git_last_modified_utc, git_author_count, "
                "git_churn_90d (commits in the 90 days before HEAD), git_last_sha, git_last_msg.",
)
def git_history(context: AssetExecutionContext, ledger: LedgerResource) -> MaterializeResult:
    core = ledger.ledger()
    with _errors(context):
        r = enrich.git_stage(core, context.partition_key, context.run.run_id, context.log)
    return MaterializeResult(metadata={
        **_schema(core, "git_history"),
        "dagster/row_count": r.files,
        "mode": r.mode,
        "files": r.files,
        "commits_read": r.commits_read,
        "top_churn_90d": _table(dict(r.top_churn), "file", "commits in 90 days"),
        "elapsed_s": round(r.elapsed_s, 3),
    })


@asset(
    **_common("enrich"),
    kinds={"python", "duckdb"},
    deps=[chunks],
    description="The code graph: imports/usings, calls and type references resolved against the repo's symbols, "
                "and SQL references (EXEC, FROM, JOIN, INSERT, UPDATE, MERGE), as the DuckDB table code_graph; "
                "per chunk graph_in, graph_out, graph_cluster (Louvain), graph_centrality (PageRank) and "
                "blast_radius (transitive dependents). Recomputed only when a code chunk changed.",
)
def code_graph(context: AssetExecutionContext, ledger: LedgerResource) -> MaterializeResult:
    core = ledger.ledger()
    with _errors(context):
        r = enrich.graph_stage(core, context.partition_key, context.run.run_id, context.log)
    central = ["| chunk | PageRank | blast radius |", "| --- | ---: | ---: |"]
    central += [f"| {_cell(label)} | {rank} | {blast} |" for label, rank, blast in r.top_central]
    return MaterializeResult(metadata={
        "summary": MetadataValue.md(_skipped_note(r.skipped, "the graph") + (
            f"**{r.edges}** edges; **{r.nodes}** chunks in the graph in **{r.clusters}** clusters.")),
        **_schema(core, "code_graph"),
        "dagster/row_count": r.edges,
        "edges": r.edges,
        "edge_kinds": _table(r.edge_kinds, "kind", "edges"),
        "chunks_in_graph": r.nodes,
        "clusters": r.clusters,
        "top_central": MetadataValue.md("\n".join(central) if r.top_central else "_graph unchanged_"),
        "skipped": r.skipped,
        "elapsed_s": round(r.elapsed_s, 3),
    })


ALL_ASSETS = [repo_snapshot, chunks, intents, embeddings, chunk_quality, git_history, code_graph, qdrant_points,
              promoted_index]
