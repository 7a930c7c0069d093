"""`ledger mcp`: the ledger's read side (and deprecation marks) as MCP tools over stdio.

query_ledger, read_span, symbol_lookup, drift_since, find_similar and deprecate call the same
functions as the CLI (search.Searcher, tools.*, deprecation.deprecate). Each tool publishes an
output schema and answers with structured content (the models below) beside the text the CLI
prints (TOON rows, numbered lines, JSON). Bad input comes back as a tool error carrying the same
message the CLI prints, never a crash of the server.

The model is loaded and the collection opened when the server starts, on a thread beside the
stdio loop (`warm_up`), so `initialize` answers at once and a query asked after the load finishes
pays neither: at 20,000 points a first hybrid query asked 20 s after `initialize` went from 13.2 s
to 0.17 s (`benchmarks/mcp_first_query.py`; figures in README "Query latency"). In local mode
"open" means loading the saved lane index, or building it from one read of the collection; the
Qdrant client is still held only for the duration of one read, so an ingest running beside the
server gets the local-mode folder.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from ledger_assets.encode.embedder import Embedder, query_embedder
from ledger_assets.store.ledger import Ledger

try:  # mcp >= 2 renamed FastMCP to MCPServer
    from mcp.server.mcpserver import MCPServer as _Server
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # pragma: no cover - mcp 1.x
    from mcp.server.fastmcp import FastMCP as _Server
    from mcp.server.fastmcp.exceptions import ToolError

INSTRUCTIONS = (
    "A code ledger of indexed git repositories. Use query_ledger to find where something is (each toon row "
    "gives repo|layer|pattern|path|Lstart-Lend), then read_span to read exactly those lines. symbol_lookup "
    "finds a definition by name (Type.Member), drift_since lists symbols changed since a commit, "
    "find_similar finds chunks like the one at FILE:LINE (mode concept: the same unit's other shapes and "
    "versions). Deprecated chunks are left out of queries unless include_deprecated=true; deprecate marks them. "
    "Every tool also returns structured content matching its output schema."
)


# ---- output schemas -------------------------------------------------------------
class Deprecation(BaseModel):
    reason: str
    utc: str = ""


class HitOut(BaseModel):
    """One chunk: where it is, what it is, why it ranked."""
    rank: int
    score: float
    repo_id: str
    file_path: str
    start_line: int
    end_line: int
    chunk_type: str
    symbols: list[str] = Field(default_factory=list)
    snippet: str = ""
    intent: str = ""
    intent_source: str = ""
    layer: str = ""
    pattern: str = ""
    ledger_id: str = ""
    concept_id: str = ""
    is_latest: bool = True
    stale: bool = False
    stale_reason: str | None = None
    live_start_line: int | None = None
    live_end_line: int | None = None
    lane_ranks: dict[str, int] = Field(default_factory=dict)
    collapsed: list[str] = Field(default_factory=list)
    deprecated: Deprecation | None = None


class FileOut(BaseModel):
    rank: int
    score: float
    repo_id: str
    file_path: str
    test: bool
    matched_chunks: int
    lines: list[list[int]]
    chunks: list[HitOut]


class RerankOut(BaseModel):
    """What the LLM rerank did and cost (retrieval/rerank.py)."""
    mode: str
    status: Literal["reranked", "cached", "fused"]
    note: str = ""
    model: str = ""
    candidates: int = 0
    ranked: int = 0
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0
    cache_hit: bool = False
    prompt_chars: int = 0


class QueryOut(BaseModel):
    query: str
    group: Literal["none", "file"]
    hits: list[HitOut] = Field(default_factory=list, description="group none: the ranked chunks")
    files: list[FileOut] = Field(default_factory=list, description="group file: the ranked files")
    rerank: RerankOut | None = Field(default=None, description="rerank llm: what the LLM rerank did and cost")


class SpanOut(BaseModel):
    repo_id: str
    file_path: str
    start_line: int
    end_line: int
    total_lines: int
    clamped: bool
    truncated: bool
    max_lines: int
    text: str


class PartOut(BaseModel):
    chunk_index: int
    start_line: int
    end_line: int


class SymbolOut(BaseModel):
    repo_id: str
    file_path: str
    name: str
    qualified_name: str
    kind: str
    parent: str
    start_line: int
    end_line: int
    chunk_index: int
    chunk_type: str
    chunk_start_line: int
    chunk_end_line: int
    other_parts: list[PartOut] = Field(default_factory=list)


class SymbolsOut(BaseModel):
    name: str
    matches: list[SymbolOut]


class DriftItem(BaseModel):
    kind: str
    name: str
    file_path: str
    start_line: int
    end_line: int
    old_signature: str | None = None
    new_signature: str | None = None
    from_file: str | None = None
    from_start_line: int | None = None


class DriftOut(BaseModel):
    repo_id: str
    since: str
    files_changed: int
    move_threshold: int
    added: list[DriftItem]
    removed: list[DriftItem]
    signature_changed: list[DriftItem]
    moved: list[DriftItem]


class SimilarOut(BaseModel):
    location: str
    mode: Literal["code", "design", "quality", "concept"]
    hits: list[HitOut]


class MarkedChunkOut(BaseModel):
    file_path: str
    chunk_index: int
    ledger_id: str
    chunk_type: str
    start_line: int
    end_line: int


class DeprecateOut(BaseModel):
    repo_id: str
    target: str
    target_kind: Literal["chunk", "ledger_id", "file", "symbol"]
    undo: bool
    deprecated: Deprecation | None
    chunks: list[MarkedChunkOut]
    marks_removed: int
    points_updated: int


def hit_out(hit, detail: str = "snippet") -> dict[str, Any]:
    d = hit.to_dict(detail)
    p = d.pop("payload")
    d.update({key: p[key] for key in ("layer", "pattern", "ledger_id", "concept_id") if p.get(key)})
    d["is_latest"] = p.get("is_latest", True) is not False
    return {k: v for k, v in d.items() if v is not None}


def result(text: str, structured: BaseModel) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=structured.model_dump(mode="json"))


# ---- the server -------------------------------------------------------------------
def warm_up(searcher, embedder: Embedder, log=None) -> dict[str, float]:
    """Load the model (one encode) and open the collection (local mode: the lane index, loaded from
    its saved copy or built), so the first query pays neither. Seconds per step."""
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    embedder.encode(["warm up"])
    timings["model_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    store = searcher.ledger.qdrant
    if store.mode == "local":
        searcher.local_index()
    else:
        with store.open() as client:
            client.collection_exists(store.collection)
    timings["collection_s"] = time.perf_counter() - t0
    if log:
        log(f"ledger mcp: model loaded in {timings['model_s']:.1f}s, collection opened in "
            f"{timings['collection_s']:.1f}s")
    return timings


def build_server(ledger: Ledger | None = None, embedder: Embedder | None = None, warm: bool = False):
    from ledger_assets.retrieval import deprecation, symbols, tools
    from ledger_assets.retrieval.fusion import QueryError
    from ledger_assets.retrieval.hits import format_files, format_hits
    from ledger_assets.retrieval.rerank import format_result
    from ledger_assets.retrieval.search import Searcher, SearchOptions

    ledger = ledger or Ledger.from_env()
    embedder = embedder or query_embedder(ledger.settings.embed_device, ledger.settings.embed_batch)
    searcher = Searcher(ledger, embedder)
    server = _Server("code-ledger", instructions=INSTRUCTIONS)
    # A tool that reads the collection waits for the warm-up: opening the collection beside it would wait
    # for the folder (local mode admits one client) and then read the whole collection a second time.
    ready = threading.Event()
    if warm:
        def run_warm_up() -> None:
            try:
                warm_up(searcher, embedder, lambda m: print(m, file=sys.stderr, flush=True))
            except Exception as exc:  # no collection yet, a busy folder: the first query does it then
                print(f"ledger mcp: warm-up skipped: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            finally:
                ready.set()

        threading.Thread(target=run_warm_up, name="ledger-mcp-warm-up", daemon=True).start()
    else:
        ready.set()

    def guard(fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (QueryError, symbols.ToolInputError, ValueError) as exc:
            raise ToolError(str(exc)) from exc

    def warm_guard(fn, *args, **kwargs):  # for the tools that read the collection
        ready.wait()
        return guard(fn, *args, **kwargs)

    @server.tool()
    def query_ledger(query: str, repo: str | None = None, k: int = 10,
                     lane: Literal["hybrid", "code", "design", "sparse", "symbol"] = "hybrid",
                     chunk_types: list[str] | None = None, languages: list[str] | None = None,
                     path_prefix: str | None = None, format: Literal["toon", "json"] = "toon",
                     detail: Literal["snippet", "skeleton", "full"] = "snippet",
                     group: Literal["none", "file"] = "none", where: list[str] | None = None,
                     include_deprecated: bool = False,
                     rerank: Literal["none", "llm"] | None = None) -> Annotated[CallToolResult, QueryOut]:
        """Hybrid search (code, design, identifier-aware lexical, per-symbol and name lanes). Returns one row per hit;
        group="file": one row per file, ranked by the evidence of its chunks, with its best chunks' line ranges;
        where: payload conditions such as "q_testability<=2" or "layer=domain"; include_deprecated: also chunks
        marked deprecated (their rows say why); rerank="llm": Groq reorders the top fused hits (needs GROQ_API_KEY;
        default LEDGER_RERANK), the result's `rerank` says what it did and cost."""
        opts = SearchOptions(repo=repo, k=k, lane=lane, chunk_types=tuple(chunk_types or ()),
                             languages=tuple(languages or ()), path_prefix=path_prefix or "",
                             group="" if group == "none" else group, where=tuple(where or ()),
                             include_deprecated=include_deprecated, rerank=rerank or "")
        if opts.group:
            files = warm_guard(searcher.search_files, query, opts)
            out = QueryOut(query=query, group="file", files=[
                FileOut(**{**f.to_dict(detail, 3), "chunks": [hit_out(h, detail) for h in f.chunks[:3]]})
                for f in files])
            return result(format_files(files, format, detail), out)
        hits, report = warm_guard(searcher.search_ranked, query, opts)
        return result(format_result(query, hits, report, format, detail),
                      QueryOut(query=query, group="none", hits=[hit_out(h, detail) for h in hits],
                               rerank=report.to_dict() if report is not None else None))

    @server.tool()
    def read_span(file: str, start: int, end: int, repo: str | None = None) -> Annotated[CallToolResult, SpanOut]:
        """Lines start..end (1-based, inclusive) of a file inside a registered repo, numbered."""
        span = guard(tools.read_span, ledger, file, start, end, repo)
        return result(tools.format_span(span), SpanOut(**span))

    @server.tool()
    def symbol_lookup(name: str, repo: str | None = None) -> Annotated[CallToolResult, SymbolsOut]:
        """Where a symbol is defined: exact, case-insensitive; `Type.Member` qualifies. JSON list."""
        matches = [m.to_dict() for m in guard(symbols.symbol_lookup, ledger, name, repo)]
        return result(json.dumps(matches), SymbolsOut(name=name, matches=matches))

    @server.tool()
    def drift_since(repo: str, since: str, move_threshold: int | None = None) -> Annotated[CallToolResult, DriftOut]:
        """Symbols added, removed, signature-changed or moved in a repo since commit `since`."""
        report = guard(tools.drift, ledger, repo, since, move_threshold)
        return result(tools.format_drift(report), DriftOut(**report))

    @server.tool()
    def find_similar(location: str, mode: Literal["code", "design", "quality", "concept"] = "code",
                     repo: str | None = None, k: int = 10) -> Annotated[CallToolResult, SimilarOut]:
        """Chunks most similar to the chunk at FILE:LINE, by code, design or quality vector (toon rows).
        mode="concept": instead, the chunks sharing its concept_id (the same unit's other shapes and parts, and
        its older versions under versioning); `location` may then also be a concept_id."""
        hits = warm_guard(tools.similar, ledger, location, mode, repo, k)
        return result(format_hits(hits, "toon"),
                      SimilarOut(location=location, mode=mode, hits=[hit_out(h) for h in hits]))

    @server.tool()
    def deprecate(repo: str, target: str, reason: str | None = None,
                  undo: bool = False) -> Annotated[CallToolResult, DeprecateOut]:
        """Mark chunks deprecated so queries leave them out (or undo=true to clear the mark). target: a chunk
        (path#index or its ledger_id), a file path, or a symbol name (its chunks, and its members' for a type).
        reason is required when marking: why, and what to use instead."""
        report = warm_guard(deprecation.deprecate, ledger, repo, target, reason, undo)
        return result(deprecation.format_deprecation(report), DeprecateOut(**report))

    return server


def serve() -> None:
    build_server(warm=True).run("stdio")
