"""`ledger mcp`: the ledger's read side (and deprecation marks) as MCP tools over stdio.

list_repos, query_ledger, context_pack, read_span, symbol_lookup, drift_since, find_similar and
deprecate call the same functions as the CLI. Every tool publishes a described input schema (ranges,
enums), annotations and an output schema, and answers with structured content beside a text block
that is never longer than it (TOON rows, numbered lines, or the compact JSON). Bad input, an unknown
repo id included, comes back as a tool error naming what is wrong, never a crash of the server.

Warm-up: the model and the collection load on two threads beside the stdio loop. A tool that reads
the collection waits for it (local mode admits one client per folder); a query that needs the model
waits for it at most until WARM_WAIT_S after the server's start, then answers from the lexical lane
with a "warming up" note (hybrid), or says it is warming up (a dense lane), instead of stalling.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import threading
import time
import typing
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, create_model

from chunkers.languages import LANGUAGES
from ledger_assets.encode.embedder import Embedder, query_embedder
from ledger_assets.store.printable import error_line
from ledger_assets.retrieval.context import DEFAULT_FILES, MAX_BUDGET, MIN_BUDGET, ContextPack
from ledger_assets.retrieval.deprecation import MarkedChunk
from ledger_assets.retrieval.hits import Deprecation, HitRow
from ledger_assets.retrieval.rerank import RerankReport
from ledger_assets.retrieval.symbols import SymbolMatch
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.settings import FILE_CHUNKS, MAX_K, MAX_QUERY_CHARS, MCP_WARM_WAIT_S

try:  # mcp >= 2 renamed FastMCP to MCPServer
    from mcp.server.mcpserver import MCPServer as _Server
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # pragma: no cover - mcp 1.x
    from mcp.server.fastmcp import FastMCP as _Server
    from mcp.server.fastmcp.exceptions import ToolError

INSTRUCTIONS = (
    "A code ledger of indexed git repositories. Start with list_repos (repo ids, freshness). "
    "context_pack answers 'what should I read for this task' within a token budget: whole chunks of the "
    "ranked files, each with file and lines. query_ledger finds where something is (each toon row gives "
    "repo|layer|pattern|path|Lstart-Lend), then read_span reads exactly those lines. symbol_lookup finds a "
    "definition by name (Type.Member), drift_since lists symbols changed since a commit, find_similar finds "
    "chunks like the one at FILE:LINE. Deprecated chunks are left out of queries unless "
    "include_deprecated=true; deprecate marks them. Every tool also returns structured content matching "
    "its output schema."
)
# A query waits for the model until this long after the server started, then answers without it.
WARM_WAIT_S = MCP_WARM_WAIT_S

# The chunk types the chunkers write (docs/architecture.md, plus the shapes the chunkers add) and the languages
# the snapshot assigns by extension: the enums of the `chunk_types` and `languages` filters.
CHUNK_TYPES = ("cs_file", "cs_class", "cs_member", "cs_class_full", "razor_code", "razor_markup", "ts_function",
               "ts_file", "ts_class", "ts_class_full", "sql_proc", "sql_table", "md_section", "pdf_pages",
               "openapi_operation", "openapi_schema", "config", "py_function", "py_class", "py_class_full",
               "code_block", "code_block_full", "plain")
LANGUAGE_NAMES = tuple(sorted(set(LANGUAGES.values()) | {"text"}))
ChunkType = Literal[CHUNK_TYPES]  # type: ignore[valid-type]
Language = Literal[LANGUAGE_NAMES]  # type: ignore[valid-type]
Detail = Literal["snippet", "skeleton", "full"]

# ---- described parameters ---------------------------------------------------------
RepoArg = Annotated[str | None, Field(description="a repo id from list_repos; omit to search every repo")]
RepoReq = Annotated[str, Field(description="a repo id from list_repos")]
KArg = Annotated[int, Field(ge=1, le=MAX_K, description=f"how many results, 1-{MAX_K}")]
DetailArg = Annotated[Detail, Field(description="snippet: the first 600 characters of each chunk; skeleton: "
                                                "its body-folded outline (signatures); full: the whole chunk")]


# ---- output schemas -------------------------------------------------------------
def core_model(name: str, core: type, doc: str | None = None, *, retype: dict[str, tuple[Any, Any]] | None = None,
               add: dict[str, tuple[str, Any, Any]] | None = None) -> type[BaseModel]:
    """The pydantic output model of a core dataclass: its fields, in its order, with its types and defaults,
    so a field added to the core shows up in the MCP output schema without a second edit. `retype`: field ->
    (type, default) where MCP's differs (`...`: always sent, so required); `add`: field -> (the field it
    follows, type, default), for what MCP derives beside the core's fields."""
    hints = typing.get_type_hints(core)
    follows: dict[str, list[str]] = {}
    for extra, (anchor, _, _) in (add or {}).items():
        follows.setdefault(anchor, []).append(extra)
    fields: dict[str, tuple[Any, Any]] = {}
    for f in dataclasses.fields(core):
        if f.name in (retype or {}):
            fields[f.name] = retype[f.name]
        elif f.default_factory is not dataclasses.MISSING:
            fields[f.name] = (hints[f.name], Field(default_factory=f.default_factory))
        else:
            fields[f.name] = (hints[f.name], ... if f.default is dataclasses.MISSING else f.default)
        for extra in follows.get(f.name, ()):
            fields[extra] = add[extra][1:]
    return create_model(name, __doc__=doc, **fields)


# One chunk: Hit.to_dict, with what hit_out lifts from the payload.
HitOut = core_model("HitOut", HitRow, "One chunk: where it is, what it is, why it ranked.", add={
    "layer": ("intent_source", str, ""), "pattern": ("intent_source", str, ""),
    "ledger_id": ("intent_source", str, ""), "concept_id": ("intent_source", str, ""),
    "is_latest": ("intent_source", bool, True)})


class FileOut(BaseModel):
    rank: int
    score: float
    repo_id: str
    file_path: str
    test: bool
    matched_chunks: int
    lines: list[list[int]]
    chunks: list[HitOut]


RerankOut = core_model("RerankOut", RerankReport, "What the LLM rerank did and cost (retrieval/rerank.py).",
                       retype={"mode": (str, ...), "status": (Literal["reranked", "cached", "fused"], ...)})


class QueryOut(BaseModel):
    query: str
    group: Literal["none", "file"]
    hits: list[HitOut] = Field(default_factory=list, description="group none: the ranked chunks")
    files: list[FileOut] = Field(default_factory=list, description="group file: the ranked files")
    rerank: RerankOut | None = Field(default=None, description="rerank llm: what the LLM rerank did and cost")
    note: str = Field(default="", description="set while the server warms up: what this answer could not use")


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


# SymbolMatch.to_dict: the qualified name beside the name, the other parts as objects.
SymbolOut = core_model("SymbolOut", SymbolMatch, retype={"other_parts": (list[PartOut], Field(default_factory=list))},
                       add={"qualified_name": ("name", str, ...)})


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


MarkedChunkOut = core_model("MarkedChunkOut", MarkedChunk)


class DeprecateOut(BaseModel):
    repo_id: str
    target: str
    target_kind: Literal["chunk", "ledger_id", "file", "symbol"]
    undo: bool
    deprecated: Deprecation | None
    chunks: list[MarkedChunkOut]
    marks_removed: int
    points_updated: int




class RepoOut(BaseModel):
    """A registered repo as `ledger status` reports it (status.repo_status)."""
    repo_id: str = Field(description="the `repo` argument of the other tools")
    path: str
    head: str = Field(description="the work tree's HEAD sha now (or why it is unavailable)")
    indexed_sha: str = Field(description="the sha last staged (promoted or not)")
    promoted_sha: str = Field(description="the sha every read answers from; empty = never indexed")
    promoted_utc: str | None = None
    promotion_note: str = Field(default="", description="why the promoted sha is not HEAD")
    up_to_date: bool = Field(description="promoted == HEAD, no file changed since, and the index on disk holds it")
    index_ok: bool
    index_problem: str | None = None
    served_chunks: int = Field(description="chunks the reads answer from")
    live_points: int
    stale_files: int | None = Field(default=None, description="files changed since the promoted sha (None: unknown)")
    stale_committed: int | None = None
    stale_uncommitted: int | None = None
    stale_note: str = ""


class ReposOut(BaseModel):
    repos: list[RepoOut]


def hit_out(hit, detail: str = "snippet") -> dict[str, Any]:
    d = hit.to_dict(detail)
    p = d.pop("payload")
    d.update({key: p[key] for key in ("layer", "pattern", "ledger_id", "concept_id") if p.get(key)})
    d["is_latest"] = p.get("is_latest", True) is not False
    return {k: v for k, v in d.items() if v is not None}


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def result(text: str, structured: BaseModel) -> CallToolResult:
    """The text block beside the structured content, never longer than its compact JSON (which it
    then becomes): an agent pays for both."""
    data = structured.model_dump(mode="json")
    whole = compact(data)
    if len(text) > len(whole):
        text = whole
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


# ---- the server -------------------------------------------------------------------
class Warmth:
    """The server's warm-up: the model and the collection, each on a thread of its own."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.model = threading.Event()
        self.collection = threading.Event()
        self.timings: dict[str, float] = {}

    def since_start(self) -> float:
        return time.monotonic() - self.started

    def ready(self) -> None:
        self.model.set()
        self.collection.set()


def load_model(embedder: Embedder) -> float:
    t0 = time.perf_counter()
    embedder.encode(["warm up"])
    return time.perf_counter() - t0


def open_collection(searcher) -> float:
    """Local mode: the lane index, loaded from its saved copy or built; server mode: one request."""
    t0 = time.perf_counter()
    store = searcher.ledger.qdrant
    if store.mode == "local":
        searcher.local_index()
    else:
        with store.open() as client:
            client.collection_exists(store.collection)
    return time.perf_counter() - t0


def start_warm_up(warmth: Warmth, searcher, embedder: Embedder) -> None:
    def run(name: str, step, event: threading.Event) -> None:
        try:
            warmth.timings[name] = step()
            print(f"ledger mcp: {name} ready in {warmth.timings[name]:.1f}s", file=sys.stderr, flush=True)
        except Exception as exc:  # no collection yet, a busy folder: the first call does it then
            print(f"ledger mcp: {name} warm-up skipped: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        finally:
            event.set()

    for name, step, event in (("collection", lambda: open_collection(searcher), warmth.collection),
                              ("model", lambda: load_model(embedder), warmth.model)):
        threading.Thread(target=run, args=(name, step, event), name=f"ledger-mcp-{name}", daemon=True).start()


READ_ONLY = dict(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)


def build_server(ledger: Ledger | None = None, embedder: Embedder | None = None, warm: bool = False,
                 warm_wait_s: float | None = None):
    from ledger_assets.retrieval import context, deprecation, symbols, tools
    from ledger_assets.retrieval.fusion import QueryError
    from ledger_assets.retrieval.hits import format_files, format_hits
    from ledger_assets.retrieval.rerank import format_result
    from ledger_assets.retrieval.search import Searcher, SearchOptions
    from ledger_assets.store.registry import RegistryError

    ledger = ledger or Ledger.from_env()
    s = ledger.settings
    embedder = embedder or query_embedder(s.embed_device, s.embed_batch, s.embed_backend)
    searcher = Searcher(ledger, embedder)
    server = _Server("code-ledger", instructions=INSTRUCTIONS)
    wait_s = WARM_WAIT_S if warm_wait_s is None else warm_wait_s
    warmth = Warmth()
    if warm:
        start_warm_up(warmth, searcher, embedder)
    else:
        warmth.ready()

    def guard(fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (QueryError, symbols.ToolInputError, context.ContextError, ValueError) as exc:
            raise ToolError(error_line(str(exc))) from exc

    def warm_guard(fn, *args, **kwargs):  # for the tools that read the collection
        warmth.collection.wait()
        return guard(fn, *args, **kwargs)

    def known_repo(repo: str | None) -> None:
        """An unknown repo id is an error naming the known ones (a typo is not 'nothing found'), and so is a
        read where nothing is served (status.require_index, as the CLI's reads)."""
        from ledger_assets.status import IndexMissing, UnknownRepoId, require_index

        try:
            repos = ledger.registry.load()
        except RegistryError as exc:
            raise ToolError(error_line(str(exc))) from exc
        if repo is not None and repo not in repos:
            known = ", ".join(sorted(repos)) or "none (register one with `ledger add-repo PATH`)"
            raise ToolError(error_line(f"unknown repo id {repo!r}; known repo ids: {known} "
                                       "(list_repos describes them)"))
        try:
            require_index(ledger, repos, repo)
        except (UnknownRepoId, IndexMissing) as exc:
            raise ToolError(error_line(str(exc))) from exc

    def model_lane(lane: str) -> tuple[str, str]:
        """The lane to answer from and a note: while the model loads, hybrid falls back to the lexical
        lane (a dense lane cannot answer at all)."""
        if lane == "sparse" or warmth.model.wait(max(0.0, wait_s - warmth.since_start())):
            return lane, ""
        took = f"{warmth.since_start():.0f}s since the server started"
        if lane != "hybrid":
            raise ToolError(f"warming up: the embedding model is still loading ({took}); lane={lane} needs it. "
                            "Ask again in a few seconds, or use lane=sparse now")
        return "sparse", (f"warming up: the embedding model is still loading ({took}), so this answer comes "
                          "from the lexical (sparse) lane only; ask again in a few seconds for the hybrid ranking")

    @server.tool(title="List repos", annotations=ToolAnnotations(title="List repos", **READ_ONLY))
    def list_repos() -> Annotated[CallToolResult, ReposOut]:
        """The registered repos: id (the `repo` argument of the other tools), path, the promoted sha every read
        answers from, its chunk count, and freshness against the work tree's HEAD (`ledger status`)."""
        from ledger_assets.status import format_status, repo_status

        rows = warm_guard(lambda: repo_status(ledger, ledger.registry.load()))
        return result(format_status(rows), ReposOut(repos=rows))

    @server.tool(title="Search the ledger",
                 annotations=ToolAnnotations(title="Search the ledger", **{**READ_ONLY, "openWorldHint": True}))
    def query_ledger(
            query: Annotated[str, Field(max_length=MAX_QUERY_CHARS,
                                        description="what to find: a question, a change request, or an identifier")],
            repo: RepoArg = None, k: KArg = 10,
            lane: Annotated[Literal["hybrid", "code", "design", "sparse", "symbol"], Field(
                description="hybrid: every lane fused (best); code / design / symbol: one dense lane; sparse: "
                            "identifier-aware BM25 alone (needs no model)")] = "hybrid",
            chunk_types: Annotated[list[ChunkType] | None, Field(description="only chunks of these types")] = None,
            languages: Annotated[list[Language] | None, Field(description="only files of these languages")] = None,
            path_prefix: Annotated[str | None, Field(description="only files under this path, relative to the repo "
                                                                 "root (e.g. src/billing/)")] = None,
            format: Annotated[Literal["toon", "json"], Field(
                description="toon: one compact row per hit; json: the hits as compact JSON")] = "toon",
            detail: DetailArg = "snippet",
            group: Annotated[Literal["none", "file"], Field(
                description="file: one row per file, ranked by the evidence of its chunks, with its best "
                            "chunks' line ranges")] = "none",
            where: Annotated[list[str] | None, Field(
                description='payload conditions, all must hold: "q_testability<=2", "q_cyclomatic>10", '
                            '"layer=domain"')] = None,
            include_deprecated: Annotated[bool, Field(description="also chunks marked deprecated (their rows "
                                                                  "say why)")] = False,
            rerank: Annotated[Literal["none", "llm"] | None, Field(
                description="llm: Groq reorders the top fused hits (needs GROQ_API_KEY; spends money); "
                            "omit for the server's default (LEDGER_RERANK)")] = None,
    ) -> Annotated[CallToolResult, QueryOut]:
        """Hybrid search (code, design, identifier-aware lexical, per-symbol and name lanes): one row per hit,
        or per file with group="file". The result's `rerank` says what an LLM rerank did and cost."""
        known_repo(repo)
        lane, note = model_lane(lane)
        opts = SearchOptions(repo=repo, k=k, lane=lane, chunk_types=tuple(chunk_types or ()),
                             languages=tuple(languages or ()), path_prefix=path_prefix or "",
                             group="" if group == "none" else group, where=tuple(where or ()),
                             include_deprecated=include_deprecated, rerank=rerank or "")
        lead = note + "\n" if note else ""
        if opts.group:
            files = warm_guard(searcher.search_files, query, opts)
            out = QueryOut(query=query, group="file", note=note, files=[
                FileOut(**{**f.to_dict(detail), "chunks": [hit_out(h, detail) for h in f.chunks[:FILE_CHUNKS]]})
                for f in files])
            text = compact(out.model_dump(mode="json")["files"]) if format == "json" else \
                format_files(files, format, detail)
            return result(lead + text, out)
        hits, report = warm_guard(searcher.search_ranked, query, opts)
        out = QueryOut(query=query, group="none", hits=[hit_out(h, detail) for h in hits], note=note,
                       rerank=report.to_dict() if report is not None else None)
        if format == "json":
            dumped = out.model_dump(mode="json")
            text = compact({"query": query, "hits": dumped["hits"], "rerank": dumped["rerank"]}
                           if report is not None else dumped["hits"])
        else:
            text = format_result(query, hits, report, format, detail)
        return result(lead + text, out)

    @server.tool(title="Context pack for a task", annotations=ToolAnnotations(title="Context pack for a task",
                                                                              **READ_ONLY))
    def context_pack(
            task: Annotated[str, Field(max_length=MAX_QUERY_CHARS,
                                       description="the task in words: a change request, a bug, a question")],
            budget: Annotated[int, Field(ge=MIN_BUDGET, le=MAX_BUDGET,
                                         description="tokens the pack may use (MiniLM WordPiece tokens, headers "
                                                     "included; about 1 per 3-4 characters of code)")] = 4000,
            repo: RepoArg = None,
            files: Annotated[int, Field(ge=1, le=MAX_K,
                                        description="ranked files whose chunks may enter")] = DEFAULT_FILES,
            format: Annotated[Literal["text", "json"], Field(
                description="text: each span under a `### repo:path:Lstart-Lend [type]` line; json: compact "
                            "JSON of the structured result")] = "text",
    ) -> Annotated[CallToolResult, ContextPack]:
        """The code to read for a task, within a token budget: whole chunks of the best-ranked files (ranked as
        query_ledger group="file"), best chunks first, then skeletons of their neighbours where room remains.
        Each span carries its file and lines: read_span opens more around it."""
        known_repo(repo)
        lane, note = model_lane("hybrid")
        pack = warm_guard(context.build_pack, searcher, task, repo, budget, files, lane, note)
        text = compact(pack.to_dict()) if format == "json" else context.render_pack(pack)
        return result((pack.note + "\n" if pack.note and format != "json" else "") + text, pack)

    @server.tool(title="Read lines of a file", annotations=ToolAnnotations(title="Read lines of a file", **READ_ONLY))
    def read_span(file: Annotated[str, Field(description="a path relative to the repo root, as hits give it")],
                  start: Annotated[int, Field(ge=1, description="first line, 1-based")],
                  end: Annotated[int, Field(ge=1, description="last line, inclusive")],
                  repo: Annotated[str | None, Field(description="the repo id, when several hold that path")] = None,
                  ) -> Annotated[CallToolResult, SpanOut]:
        """Lines start..end (1-based, inclusive) of a file inside a registered repo, numbered."""
        known_repo(repo)
        span = guard(tools.read_span, ledger, file, start, end, repo)
        return result(tools.format_span(span), SpanOut(**span))

    @server.tool(title="Find a symbol's definition",
                 annotations=ToolAnnotations(title="Find a symbol's definition", **READ_ONLY))
    def symbol_lookup(name: Annotated[str, Field(description="a symbol name, exact and case-insensitive; "
                                                             "Type.Member qualifies it")],
                      repo: RepoArg = None) -> Annotated[CallToolResult, SymbolsOut]:
        """Where a symbol is defined: file, lines, kind and the chunk holding it. JSON list."""
        known_repo(repo)
        matches = [m.to_dict() for m in guard(symbols.symbol_lookup, ledger, name, repo)]
        return result(compact(matches), SymbolsOut(name=name, matches=matches))

    @server.tool(title="Symbols changed since a commit",
                 annotations=ToolAnnotations(title="Symbols changed since a commit", **READ_ONLY))
    def drift_since(repo: RepoReq,
                    since: Annotated[str, Field(description="a commit sha (or any ref git resolves) to compare "
                                                            "the indexed code against")],
                    move_threshold: Annotated[int | None, Field(ge=0, description="line shifts up to this are "
                                                                                  "not moves (default 10)")] = None,
                    ) -> Annotated[CallToolResult, DriftOut]:
        """Symbols added, removed, signature-changed or moved in a repo since commit `since`."""
        known_repo(repo)
        report = guard(tools.drift, ledger, repo, since, move_threshold)
        return result(tools.format_drift(report), DriftOut(**report))

    @server.tool(title="Find similar chunks", annotations=ToolAnnotations(title="Find similar chunks", **READ_ONLY))
    def find_similar(location: Annotated[str, Field(description="FILE:LINE of a chunk (a path relative to the "
                                                                "repo root); with mode concept also a concept_id")],
                     mode: Annotated[Literal["code", "design", "quality", "concept"], Field(
                         description="code / design / quality: nearest by that stored vector; concept: the chunks "
                                     "sharing its concept_id (the same unit's other shapes and older versions)")]
                     = "code",
                     repo: Annotated[str | None, Field(description="the repo FILE belongs to, when several hold "
                                                                   "that path")] = None,
                     k: KArg = 10, detail: DetailArg = "snippet") -> Annotated[CallToolResult, SimilarOut]:
        """Chunks most similar to the chunk at FILE:LINE (toon rows)."""
        known_repo(repo)
        hits = warm_guard(tools.similar, ledger, location, mode, repo, k)
        return result(format_hits(hits, "toon", detail),
                      SimilarOut(location=location, mode=mode, hits=[hit_out(h, detail) for h in hits]))

    @server.tool(title="Mark chunks deprecated", annotations=ToolAnnotations(
        title="Mark chunks deprecated", readOnlyHint=False, destructiveHint=False, idempotentHint=True,
        openWorldHint=False))
    def deprecate(repo: RepoReq,
                  target: Annotated[str, Field(description="a chunk (path#index or its ledger_id), a file path, or "
                                                           "a symbol name (its chunks, and its members' for a type)")],
                  reason: Annotated[str | None, Field(description="required when marking: why, and what to use "
                                                                  "instead")] = None,
                  undo: Annotated[bool, Field(description="true: clear the mark instead")] = False,
                  ) -> Annotated[CallToolResult, DeprecateOut]:
        """Mark chunks deprecated so queries leave them out (or undo=true to clear the mark). Writes the mark
        to the ledger and the live points; marking twice is the same as once."""
        known_repo(repo)
        report = warm_guard(deprecation.deprecate, ledger, repo, target, reason, undo)
        return result(deprecation.format_deprecation(report), DeprecateOut(**report))

    server.warmth = warmth  # tests and benchmarks read the warm-up state
    return server


def serve() -> None:
    build_server(warm=True).run("stdio")
