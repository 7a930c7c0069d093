"""`ledger mcp`: the ledger's read side as MCP tools over stdio.

query_ledger, read_span, symbol_lookup, drift_since and find_similar call the
same functions as the CLI (search.Searcher, tools.*). Bad input comes back as
a tool error carrying the same message the CLI prints, never a crash of the
server. The model is loaded on the first dense query and kept for the
process; the Qdrant client is held only for the duration of one call, so an
ingest running beside the server still gets the local-mode folder.
"""

from __future__ import annotations

import json
from typing import Literal

from ledger_assets.store.ledger import Ledger
from ledger_assets.encode.embedder import Embedder, query_embedder

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
    "find_similar finds chunks like the one at FILE:LINE."
)


def build_server(ledger: Ledger | None = None, embedder: Embedder | None = None):
    from ledger_assets.retrieval import symbols, tools
    from ledger_assets.retrieval.hits import format_files, format_hits
    from ledger_assets.retrieval.fusion import QueryError
    from ledger_assets.retrieval.search import Searcher, SearchOptions

    ledger = ledger or Ledger.from_env()
    embedder = embedder or query_embedder(ledger.settings.embed_device, ledger.settings.embed_batch)
    searcher = Searcher(ledger, embedder)
    server = _Server("code-ledger", instructions=INSTRUCTIONS)

    def guard(fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (QueryError, symbols.ToolInputError, ValueError) as exc:
            raise ToolError(str(exc)) from exc

    @server.tool(structured_output=False)
    def query_ledger(query: str, repo: str | None = None, k: int = 10,
                     lane: Literal["hybrid", "code", "design", "sparse", "symbol"] = "hybrid",
                     chunk_types: list[str] | None = None, languages: list[str] | None = None,
                     path_prefix: str | None = None, format: Literal["toon", "json"] = "toon",
                     detail: Literal["snippet", "skeleton", "full"] = "snippet",
                     group: Literal["none", "file"] = "none", where: list[str] | None = None) -> str:
        """Hybrid search (code, design, identifier-aware lexical, per-symbol and name lanes). Returns one row per hit;
        group="file": one row per file, ranked by the evidence of its chunks, with its best chunks' line ranges;
        where: payload conditions such as "q_testability<=2" or "layer=domain"."""
        opts = SearchOptions(repo=repo, k=k, lane=lane, chunk_types=tuple(chunk_types or ()),
                             languages=tuple(languages or ()), path_prefix=path_prefix or "",
                             group="" if group == "none" else group, where=tuple(where or ()))
        if opts.group:
            return format_files(guard(searcher.search_files, query, opts), format, detail)
        hits = guard(searcher.search, query, opts)
        return format_hits(hits, format, detail)

    @server.tool(structured_output=False)
    def read_span(file: str, start: int, end: int, repo: str | None = None) -> str:
        """Lines start..end (1-based, inclusive) of a file inside a registered repo, numbered."""
        return tools.format_span(guard(tools.read_span, ledger, file, start, end, repo))

    @server.tool(structured_output=False)
    def symbol_lookup(name: str, repo: str | None = None) -> str:
        """Where a symbol is defined: exact, case-insensitive; `Type.Member` qualifies. JSON list."""
        return json.dumps([m.to_dict() for m in guard(symbols.symbol_lookup, ledger, name, repo)])

    @server.tool(structured_output=False)
    def drift_since(repo: str, since: str, move_threshold: int | None = None) -> str:
        """Symbols added, removed, signature-changed or moved in a repo since commit `since`."""
        return tools.format_drift(guard(tools.drift, ledger, repo, since, move_threshold))

    @server.tool(structured_output=False)
    def find_similar(location: str, mode: Literal["code", "design", "quality"] = "code",
                     repo: str | None = None, k: int = 10) -> str:
        """Chunks most similar to the chunk at FILE:LINE, by code, design or quality vector (toon rows)."""
        return format_hits(guard(tools.similar, ledger, location, mode, repo, k), "toon")

    return server


def serve() -> None:
    build_server().run("stdio")
