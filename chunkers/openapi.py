"""OpenAPI 3.0/3.1 and Swagger 2.0 documents; every other .json/.yaml is config.

A document with a top-level `openapi:` or `swagger:` key becomes:
- one `openapi_operation` chunk per path + verb (and per 3.1 webhook), symbol
  `GET /pets/{petId}`, holding the operation with the path-level parameters
  merged in and every local `$ref` it uses resolved inline, so the chunk
  alone answers "what does this endpoint take and return";
- one `openapi_schema` chunk per named schema (`components/schemas`, Swagger 2
  `definitions`), its refs inlined the same way;
- `config` chunks (flattened, redacted) for everything else: info, servers,
  tags, security schemes, shared parameters.

Inlining is bounded: a ref already being expanded is marked
`x-circular-ref` instead of recursing, and past MAX_REF_DEPTH nested refs or
MAX_INLINE_NODES visited nodes a ref stays a bare `$ref`. A rendered chunk
over `options.config_max_chars` is split into parts that share its range.

Line ranges come from the source: YAML node marks, or positions kept by the
JSON tokenizer of the config chunker. Operation ranges partition their path
item (path-level keys go with the operation before them), lines that hold
only structure (`paths:`, `components:`, comments) go with the next chunk,
so together the chunks cover every line. A document that does not parse, or
whose root is not an OpenAPI object, is chunked as config with the reason in
`ChunkResult.notes`.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

import yaml

from .config import (
    ConfigEntry,
    YAML_LOADER,
    Node,
    chunk_config,
    config_pieces,
    flatten_tree,
    parse_json_tree,
    tree_to_python,
    yaml_node_tree,
)
from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkPiece, ChunkResult, ChunkSymbol
from .redact import REDACTED, redact_text
from .secret_names import SECRET_KEY
from .extensions import extension_of
from .text import split_lines
from .windows import line_windows

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
MAX_REF_DEPTH = 8
MAX_INLINE_NODES = 20000
MAX_EXPANSION = 10  # how many times its own nodes aliases may make a document (_check_aliases)
# A top-level `openapi:` (YAML, column 0) or `"openapi":` (JSON, any indent)
# says a document that fails to load was meant as OpenAPI: worth a note.
_OPENAPI_HINT = re.compile(r"""(?m)^(?:\{\s*)?["']?(openapi|swagger)["']?\s*:|^\s*"(openapi|swagger)"\s*:""")


class NotOpenApi(ValueError):
    """The document parsed but is no OpenAPI/Swagger object."""


# --- loading -------------------------------------------------------------------
def _load(path: str, text: str, lines: list[str]) -> tuple[Node, Any]:
    """(position tree, plain data) of a single-document JSON or YAML file."""
    if extension_of(path) == ".json":
        tree = parse_json_tree(text)
        return tree, tree_to_python(tree)
    loader = YAML_LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise NotOpenApi("empty document")
        _check_aliases(node)
        data = loader.construct_document(node)
    finally:
        loader.dispose()
    return yaml_node_tree(node, lines), data


def _check_aliases(root: yaml.Node) -> None:
    """NotOpenApi when YAML aliases would make the document grow past MAX_EXPANSION times its own nodes (and
    past MAX_INLINE_NODES): an operation or schema is rendered whole, so a "billion laughs" of nested aliases (nine
    lists of nine aliases, 2 KB) was copied node by node until memory ran out. The config chunker lists a shared
    subtree once, so the file is read as config."""
    def kids(node: yaml.Node) -> list[yaml.Node]:
        if isinstance(node, yaml.MappingNode):
            return [part for pair in node.value for part in pair]
        return list(node.value) if isinstance(node, yaml.SequenceNode) else []

    seen, todo = {id(root)}, [root]
    while todo:  # the distinct nodes: what the document writes
        for child in kids(todo.pop()):
            if id(child) not in seen:
                seen.add(id(child))
                todo.append(child)
    limit = max(MAX_INLINE_NODES, MAX_EXPANSION * len(seen))
    size: dict[int, int] = {}
    entered: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:  # post-order: a node's size is itself and its children's, each alias counted in full
        node, leaving = stack.pop()
        if leaving:  # a child still open is an ancestor (a recursive alias): it adds nothing
            size[id(node)] = min(limit + 1, 1 + sum(size.get(id(c), 0) for c in kids(node)))
        elif id(node) not in entered:
            entered.add(id(node))
            stack.append((node, True))
            stack.extend((c, False) for c in kids(node) if id(c) not in entered)
    if size[id(root)] > limit:
        raise NotOpenApi(f"YAML aliases expand it past {limit:,} nodes ({len(seen):,} written)")


def _map_items(node: Node | None) -> list[tuple[str, int, Node]]:
    return node[3] if node is not None and node[0] == "map" else []


def _child(node: Node | None, key: str) -> tuple[int, Node] | None:
    for k, line, child in _map_items(node):
        if k == key:
            return line, child
    return None


def _get(data: Any, key: str) -> Any:
    """A key of parsed data; YAML reads `200:` as an int key."""
    if not isinstance(data, dict):
        return None
    if key in data:
        return data[key]
    if key.lstrip("-").isdigit() and int(key) in data:
        return data[int(key)]
    return None


# --- $ref inlining -----------------------------------------------------------------
def _pointer(doc: Any, ref: str) -> Any:
    if not ref.startswith("#"):
        return None  # another file: not ours to read
    node = doc
    for raw in ref[1:].split("/")[1:]:
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict):
            node = _get(node, part)
        else:
            return None
        if node is None:
            return None
    return node


def inline_refs(doc: Any, value: Any) -> Any:
    """`value` with local `$ref`s replaced by `{$ref, ...target}`, bounded."""
    budget = [MAX_INLINE_NODES]

    def walk(obj: Any, stack: tuple[str, ...]) -> Any:
        budget[0] -= 1
        if isinstance(obj, list):
            return [walk(v, stack) for v in obj]
        if not isinstance(obj, dict):
            return obj
        ref = obj.get("$ref")
        if not isinstance(ref, str):
            return {k: walk(v, stack) for k, v in obj.items()}
        out: dict[Any, Any] = {"$ref": ref}
        target = _pointer(doc, ref)
        if ref in stack:
            out["x-circular-ref"] = True
        elif target is not None and len(stack) < MAX_REF_DEPTH and budget[0] > 0:
            resolved = walk(target, stack + (ref,))
            if isinstance(resolved, dict):
                out.update((k, v) for k, v in resolved.items() if k != "$ref")
            else:
                out["value"] = resolved
        out.update((k, walk(v, stack)) for k, v in obj.items() if k != "$ref")
        return out

    return walk(value, ())


def _redact_examples(value: Any, key: str = "") -> Any:
    """A literal under a secret-shaped key (an example password, a default
    token) is redacted; schema objects under such names are kept."""
    if isinstance(value, dict):
        return {k: _redact_examples(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_examples(v, key) for v in value]
    if isinstance(value, str):
        return REDACTED if key and SECRET_KEY.search(key) and value else redact_text(value)
    return value


def _dump(value: Any) -> str:
    return yaml.safe_dump(_redact_examples(value), sort_keys=False, allow_unicode=True, width=120,
                          default_flow_style=False).rstrip("\n")


# --- chunks ------------------------------------------------------------------------
def _pieces(path: str, title: str, body: str, chunk_type: str, start: int, end: int,
            symbols: list[ChunkSymbol], options: ChunkOptions, meta: dict[str, Any]) -> list[ChunkPiece]:
    header = f"<!-- Path: {path} > {title} -->\n"
    if len(header) + len(body) <= options.config_max_chars:
        return [ChunkPiece(text=header + body, chunk_type=chunk_type, start_line=start, end_line=end,
                           symbols=symbols, header=header, meta=dict(meta))]
    body_lines = body.split("\n")
    budget = max(200, options.config_max_chars - len(header) - 16)
    windows = line_windows(body_lines, 1, len(body_lines), budget, 0)
    out = []
    for k, w in enumerate(windows, 1):
        h = f"<!-- Path: {path} > {title} (part {k}/{len(windows)}) -->\n"
        out.append(ChunkPiece(text=h + w.text, chunk_type=chunk_type, start_line=start, end_line=end,
                              symbols=symbols, header=h, meta={**meta, "part": k, "parts": len(windows)}))
    return out


def _merged_parameters(doc: Any, path_params: Any, op_params: Any) -> list[Any]:
    """Path-level parameters apply to every operation unless it overrides the same name+in."""
    def ident(p: Any) -> tuple[Any, Any]:
        target = _pointer(doc, p["$ref"]) if isinstance(p, dict) and isinstance(p.get("$ref"), str) else p
        return (target.get("name"), target.get("in")) if isinstance(target, dict) else (id(p), None)

    ops = op_params if isinstance(op_params, list) else []
    own = {ident(p) for p in ops}
    inherited = [p for p in (path_params if isinstance(path_params, list) else []) if ident(p) not in own]
    return inherited + ops


def _operations(path: str, tree: Node, doc: dict, api: str, options: ChunkOptions,
                section: str) -> tuple[list[ChunkPiece], list[tuple[int, int]], set[int]]:
    """Chunks of every operation under `paths` (or `webhooks`), their ranges,
    and the ids of the op nodes (pruned from the config remainder)."""
    found = _child(tree, section)
    pieces: list[ChunkPiece] = []
    ranges: list[tuple[int, int]] = []
    taken: set[int] = set()
    if not found:
        return pieces, ranges, taken
    section_data = _get(doc, section)
    for route, route_line, item in _map_items(found[1]):
        item_data = _get(section_data, route)
        ops = [(k, line, node) for k, line, node in _map_items(item)
               if k.lower() in HTTP_METHODS and isinstance(_get(item_data, k), dict)]
        for idx, (verb, verb_line, node) in enumerate(ops):
            start = route_line if idx == 0 else verb_line
            end = ops[idx + 1][1] - 1 if idx + 1 < len(ops) else item[2]
            op = dict(_get(item_data, verb))
            params = _merged_parameters(doc, _get(item_data, "parameters"), op.get("parameters"))
            if params and "parameters" not in op:
                # Inherited parameters read best where the operation's own would be.
                at = next((i for i, k in enumerate(op) if k in ("requestBody", "responses")), len(op))
                items = list(op.items())
                op = dict(items[:at] + [("parameters", params)] + items[at:])
            elif params:
                op["parameters"] = params
            name = f"{verb.upper()} {route}"
            symbols = [ChunkSymbol(name, "openapi_operation", api, start, end)]
            if isinstance(op.get("operationId"), str):
                symbols.append(ChunkSymbol(op["operationId"], "openapi_operation_id", name, start, end))
            title = name if section == "paths" else f"webhook {name}"
            body = f"{title}\n{_dump(inline_refs(doc, op))}"
            meta = {"method": verb.upper(), "route": route}
            if section != "paths":
                meta["webhook"] = True
            pieces.extend(_pieces(path, title, body, "openapi_operation", start, max(start, end),
                                  symbols, options, meta))
            ranges.append((start, max(start, end)))
            taken.add(id(node[3]))
    return pieces, ranges, taken


def _schemas(path: str, tree: Node, doc: dict, api: str,
             options: ChunkOptions) -> tuple[list[ChunkPiece], list[tuple[int, int]], set[int]]:
    if "swagger" in doc:
        where, data, parent = _child(tree, "definitions"), _get(doc, "definitions"), "definitions"
    else:
        comps = _child(tree, "components")
        where = _child(comps[1], "schemas") if comps else None
        data, parent = _get(_get(doc, "components"), "schemas"), "components/schemas"
    pieces: list[ChunkPiece] = []
    ranges: list[tuple[int, int]] = []
    taken: set[int] = set()
    if not where or not isinstance(data, dict):
        return pieces, ranges, taken
    for name, line, node in _map_items(where[1]):
        schema = _get(data, name)
        if schema is None:
            continue
        start, end = line, max(line, node[2])
        symbols = [ChunkSymbol(name, "openapi_schema", parent, start, end)]
        body = f"schema {name}\n{_dump(inline_refs(doc, schema))}"
        pieces.extend(_pieces(path, f"schema {name}", body, "openapi_schema", start, end, symbols,
                              options, {"schema": name, "api": api}))
        ranges.append((start, end))
        taken.add(id(node[3]) if node[0] != "scalar" else id(node))
    return pieces, ranges, taken


def _prune(node: Node, taken: set[int]) -> Node:
    """The tree without the subtrees already chunked as operations/schemas."""
    kind, s, e, payload = node
    if kind == "map":
        return (kind, s, e, [(k, ln, _prune(c, taken)) for k, ln, c in payload
                             if id(c[3]) not in taken and id(c) not in taken])
    if kind == "seq":
        return (kind, s, e, [_prune(c, taken) for c in payload])
    return node


def _cover_rest(path: str, tree: Node, taken: set[int], pieces: list[ChunkPiece],
                ranges: list[tuple[int, int]], n_lines: int, options: ChunkOptions) -> list[ChunkPiece]:
    """Config chunks for the uncovered stretches that hold keys; stretches of
    bare structure (`paths:`, comments) join the chunk that follows them."""
    covered = bytearray(n_lines + 2)
    for s, e in ranges:
        covered[s:e + 1] = b"\x01" * (e - s + 1)
    rest: list[ConfigEntry] = [e for e in flatten_tree(_prune(tree, taken)) if not covered[e.line]]
    runs: list[tuple[int, int]] = []
    line = 1
    while line <= n_lines:
        if covered[line]:
            line += 1
            continue
        start = line
        while line <= n_lines and not covered[line]:
            line += 1
        runs.append((start, line - 1))
    out: list[ChunkPiece] = []
    for s, e in runs:
        entries = [x for x in rest if s <= x.line <= e]
        if entries:
            out.extend(config_pieces(path, entries, s, e, options, label="OpenAPI"))
            continue
        after = [p for p in pieces if p.start_line == e + 1]
        before = [p for p in pieces if p.end_line == s - 1]
        for p in after or before:
            if after:
                p.start_line = s
            else:
                p.end_line = e
        if not after and not before:
            out.extend(config_pieces(path, [], s, e, options, label="OpenAPI"))
    return out


def chunk_openapi(path: str, text: str, tree: Node, doc: dict, options: ChunkOptions) -> list[ChunkPiece]:
    lines = split_lines(text)
    info = _get(doc, "info")
    title = str(_get(info, "title") or "") if isinstance(info, dict) else ""
    version = str(_get(info, "version") or "") if isinstance(info, dict) else ""
    api = f"{title} {version}".strip()
    pieces, ranges, taken = _operations(path, tree, doc, api, options, "paths")
    hooks = _operations(path, tree, doc, api, options, "webhooks")
    schema_pieces, schema_ranges, schema_taken = _schemas(path, tree, doc, api, options)
    pieces += hooks[0] + schema_pieces
    ranges += hooks[1] + schema_ranges
    taken |= hooks[2] | schema_taken
    pieces += _cover_rest(path, tree, taken, pieces, ranges, len(lines), options)
    spec = str(doc.get("openapi") or f"swagger {doc.get('swagger')}")
    for p in pieces:
        p.meta.setdefault("spec", spec)
    pieces.sort(key=lambda p: (p.start_line, p.end_line, p.meta.get("part", 0)))
    return pieces


def chunk_structured(path: str, text: str, options: ChunkOptions = DEFAULT_OPTIONS) -> ChunkResult:
    """.json/.yaml/.yml: OpenAPI when the root says so, else config."""
    lines = split_lines(text)
    hinted = bool(_OPENAPI_HINT.search(text))
    if not hinted:
        # The root key decides; without it, do not pay for parsing twice.
        return chunk_config(path, text, options)
    try:
        tree, doc = _load(path, text, lines)
        if not isinstance(doc, dict) or not ({"openapi", "swagger"} & set(doc)):
            raise NotOpenApi("no top-level openapi/swagger key")
        for section in ("paths", "webhooks"):
            if section in doc and doc[section] is not None and not isinstance(doc[section], dict):
                raise NotOpenApi(f"`{section}` is a {type(doc[section]).__name__}, not a mapping")
        if _child(tree, "openapi") is None and _child(tree, "swagger") is None:
            raise NotOpenApi("openapi/swagger key not found in the document tree")
    except (NotOpenApi, ValueError, yaml.YAMLError, RecursionError) as exc:
        result = chunk_config(path, text, options)
        if not hinted:
            return result
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        note = f"openapi parse failed, fell back to config: {reason[:200]}"
        return ChunkResult(result.pieces, result.skip_reason, (note,) + result.notes)
    return ChunkResult(chunk_openapi(path, text, tree, doc, options))
