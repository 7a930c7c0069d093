"""The code graph of one repo: who references whom, and what that makes of each chunk.

Definitions come from the `symbols` table (the chunkers' symbols); references
are what the tree-sitter query of the file's language captures (`queries/<language>.scm`,
over the file's text rebuilt from its chunks, so comments and string text hold none):
type names anywhere, functions and methods where called, imports/usings and
namespaces per file. Razor, with no grammar here, is read lexically per chunk body with
comments and strings blanked; SQL by its objects after EXEC, FROM, JOIN, INSERT
INTO, UPDATE, MERGE, DELETE FROM and REFERENCES. A reference is attributed to the
smallest chunk holding its line, and resolves to the smallest chunk defining the symbol —
preferring the same file, then imported files / used namespaces, and dropping
names defined in too many places to tell.

Per chunk then: graph_in / graph_out (distinct chunks referencing / referenced),
graph_centrality (PageRank: being referenced by central chunks counts most),
blast_radius (how many chunks reach this one through references, i.e. may
break when it changes) and graph_cluster (Louvain community).

Re-runs settle against the values stored before (`settle`): PageRank, the
transitive blast radius and Louvain's labels move for nearly every chunk when
any file changes (one small commit rewrote 81% of a repo's points, 973 of them
for a centrality that moved in its fifth digit), so a value within tolerance of
the stored one is kept, and communities are carried forward (Louvain's at the first
run; then a chunk moves only to a community holding more of its neighbours, and new
chunks join by Louvain's label for them, matched to the old communities). The values
are then those of some run within the tolerance, not necessarily of this one.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from chunkers.languages import extensions_of
from ledger_assets.enrich.metrics import sql_tokens

# Bumped whenever edges or per-chunk fields may change for the same chunks
# (2: references from the tree-sitter queries instead of per-chunk regexes).
GRAPH_VERSION = "2"

CODE_LANGUAGES = frozenset({"csharp", "typescript", "javascript", "python", "sql", "razor"})
TYPE_KINDS = frozenset({"class", "interface", "struct", "enum", "record", "record struct", "record class",
                        "delegate", "type", "trait"})
CALLABLE_KINDS = frozenset({"function", "method"})
SQL_KINDS = frozenset({"sql_procedure", "sql_function", "sql_view", "sql_table"})
# Framework member names too common to resolve lexically to one repo method.
COMMON_MEMBERS = frozenset("""
tostring equals gethashcode dispose add remove get set contains clear count map filter reduce push pop
then catch finally init main run start stop close open read write send update delete insert create
""".split())
# References resolve only within one language family (a TS `total()` is not a Python `total`).
LANGUAGE_FAMILY = {"csharp": "dotnet", "razor": "dotnet", "typescript": "js", "javascript": "js"}
MAX_DEFINITIONS = 3
# Re-run tolerances (`settle`): a stored value is kept while the new one is within these.
CENTRALITY_TOLERANCE = 0.25  # relative
BLAST_TOLERANCE = (0.25, 3)  # relative, and at least this many chunks
MAX_CLUSTER_ROUNDS = 10
MIN_NAME_LEN = 3

# The grammar whose query (`queries/<file>.scm`) states a language's references: grammar -> query file.
QUERY_FILES = {"python": "python", "csharp": "csharp", "typescript": "typescript", "tsx": "typescript",
               "javascript": "javascript"}
QUERY_DIR = Path(__file__).with_name("queries")
# Razor has no grammar here: its chunks are read lexically, C#-style.
_C_LIKE_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|@"(?:[^"]|"")*"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|`(?:\\.|[^`\\])*`',
                           re.S)
_IDENT = re.compile(r"(?<![\w$@])([A-Za-z_][A-Za-z0-9_]*)(\s*(?:<[\w\s,.<>\[\]?]*>)?\s*\()?")
_CS_USING = re.compile(r"^\s*(?:global\s+)?using\s+(?:static\s+)?(?:\w+\s*=\s*)?([\w.]+)\s*;", re.M)
_CS_NAMESPACE = re.compile(r"^\s*namespace\s+([\w.]+)", re.M)
# A relative import's file, tried in this order: as written, then the JS family's extensions with
# the ESM/CJS-only TypeScript kinds (.mts, .cts) last, then a folder's index.
TS_EXTENSIONS = ("", *sorted(extensions_of("typescript", "javascript"), key=lambda ext: ext in (".mts", ".cts")),
                 "/index.ts", "/index.tsx", "/index.js", "/index.jsx")


@dataclass(frozen=True)
class GraphChunk:
    file_path: str
    chunk_index: int
    language: str
    start_line: int
    end_line: int
    body: str


@dataclass(frozen=True)
class GraphSymbol:
    file_path: str
    chunk_index: int
    name: str
    kind: str
    parent: str
    start_line: int


@dataclass(frozen=True)
class Edge:
    src_file: str
    src_chunk: int       # -1 = the file (imports/usings)
    dst_file: str        # "" = unresolved (a namespace a file uses)
    dst_chunk: int       # -1 = the file
    dst_symbol: str
    kind: str            # import | using | call | type | sql_exec | sql_read | sql_write | sql_ref


@dataclass
class GraphResult:
    edges: list[Edge]
    fields: dict[tuple[str, int], dict]
    centrality_top: list[tuple[str, float, int]] = field(default_factory=list)  # (label, pagerank, blast)


@dataclass(frozen=True)
class FileReferences:
    """What one file's query captured."""

    names: list[tuple[int, str, bool]]              # (0-based line, name, called)
    modules: list[tuple[str, tuple[str, ...]]]      # (module or specifier, names imported from it)
    usings: list[str]                               # C# namespaces used
    namespaces: list[str]                           # C# namespaces declared


def query_grammar(language: str, path: str) -> str | None:
    """The grammar whose query reads this file, or None (Razor, SQL)."""
    grammar = "tsx" if language == "typescript" and path.lower().endswith(".tsx") else language
    return grammar if grammar in QUERY_FILES else None


@lru_cache(maxsize=None)
def _language_and_query(grammar: str):
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    language = get_language(grammar)
    return language, Query(language, (QUERY_DIR / f"{QUERY_FILES[grammar]}.scm").read_text(encoding="utf-8"))


def file_references(grammar: str, text: str) -> FileReferences:
    """The captures of `grammar`'s query over one file's text."""
    from tree_sitter import Parser, QueryCursor

    language, query = _language_and_query(grammar)
    src = text.encode("utf-8", "replace")
    captures = QueryCursor(query).captures(Parser(language).parse(src).root_node)

    def found(capture: str) -> list[tuple[int, int, str]]:
        return sorted((n.start_byte, n.start_point[0], src[n.start_byte:n.end_byte].decode("utf-8", "replace"))
                      for n in captures.get(capture, ()))

    called = {n.start_byte for n in captures.get("call", ())}
    names = [(n.start_point[0], src[n.start_byte:n.end_byte].decode("utf-8", "replace"), n.start_byte in called)
             for n in captures.get("name", ())]
    modules = [(m[2], ()) for m in found("import.module") + found("import.source")]
    # Python `from m import a, b`: an imported name belongs to the module named last before it.
    froms = found("import.from")
    starts = [m[0] for m in froms]
    imported: dict[int, tuple[str, ...]] = defaultdict(tuple)
    for start, _, name in found("import.name"):
        k = bisect.bisect(starts, start) - 1
        if k >= 0:
            imported[k] += (name,)
    modules += [("".join(m[2].split()), imported[k]) for k, m in enumerate(froms)]
    return FileReferences(names, modules, [u[2] for u in found("using")], [n[2] for n in found("namespace")])


def lexical_names(text: str) -> list[tuple[int, str, bool]]:
    """(0-based line, name, called) in a Razor chunk: identifiers outside C#-style comments and strings."""
    clean = _C_LIKE_NOISE.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    return [(line0, m.group(1), bool(m.group(2)))
            for line0, line in enumerate(clean.split("\n")) for m in _IDENT.finditer(line)]


def sql_name(raw: str) -> str:
    parts = [p.strip('[]"` ').lower() for p in raw.split(".")]
    return ".".join(p for p in parts if p)


def sql_references(text: str) -> list[tuple[str, str, int]]:
    """(kind, normalised object name, 0-based line) of each SQL object a body reads, writes or executes."""
    words = [(k, t, line) for k, t, line in sql_tokens(text) if k != "comment"]
    refs = []
    i, n = 0, len(words)

    def qualified(j: int) -> tuple[str, int]:
        parts = []
        while j < n and words[j][0] == "name" and not words[j][1].startswith("@"):
            parts.append(words[j][1])
            if j + 1 < n and words[j + 1][1] == ".":
                j += 2
                continue
            j += 1
            break
        return sql_name(".".join(parts)), j

    while i < n:
        w = words[i][1].lower()
        prev = words[i - 1][1].lower() if i else ""
        kind = ""
        j = i + 1
        if w in ("exec", "execute"):
            kind = "sql_exec"
            if j + 1 < n and words[j][1].startswith("@") and words[j + 1][1] == "=":
                j += 2  # EXEC @rc = dbo.proc
        elif w == "from":
            kind = "sql_write" if prev == "delete" else "sql_read"
        elif w == "join" or (w == "apply" and prev in ("cross", "outer")):
            kind = "sql_read"
        elif w == "into" and prev in ("insert", "merge"):
            kind = "sql_write"
        elif w in ("update", "merge") and (j < n and words[j][1].lower() not in ("into", "statistics")):
            kind = "sql_write"
        elif w == "references":
            kind = "sql_ref"
        elif w == "table" and prev == "truncate":
            kind = "sql_write"
        if kind and j < n and words[j][0] == "name" and not words[j][1].startswith("@"):
            name, _ = qualified(j)
            if name and name.split(".")[-1] not in ("select", "set", "values", "output"):
                refs.append((kind, name, words[i][2]))
        i += 1
    return refs


def _py_module_files(module: str, importer: str, files: set[str]) -> list[str]:
    dots = len(module) - len(module.lstrip("."))
    rest = module[dots:].replace(".", "/")
    if dots:
        base = posixpath.dirname(importer)
        for _ in range(dots - 1):
            base = posixpath.dirname(base)
        stem = posixpath.join(base, rest) if rest else base
        cands = [stem + ".py", posixpath.join(stem, "__init__.py")]
        return [c for c in cands if c in files]
    if not rest:
        return []
    tails = (rest + ".py", rest + "/__init__.py")
    # Absolute imports match wherever the package root is (src/ layouts, monorepos).
    under = tuple("/" + t for t in tails)
    return [f for f in files if f in tails or f.endswith(under)]


def _ts_module_files(spec: str, importer: str, files: set[str]) -> list[str]:
    if not spec.startswith("."):
        return []
    stem = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
    for ext in TS_EXTENSIONS:
        if stem + ext in files:
            return [stem + ext]
    return []


def file_imports(language: str, path: str, text: str, files: set[str],
                 refs: FileReferences | None = None) -> tuple[list[str], list[str]]:
    """(repo files imported, C# namespaces used) by one file's text (`refs`: its captures, when already read)."""
    if language == "razor":
        return [], sorted(set(_CS_USING.findall(text)))
    grammar = query_grammar(language, path)
    if grammar is None:
        return [], []
    refs = refs or file_references(grammar, text)
    found = []
    for module, names in refs.modules:
        if language == "python":
            found += _py_module_files(module, path, files)
            if module.strip("."):
                for name in names:
                    found += _py_module_files(f"{module}.{name}", path, files)
        else:
            found += _ts_module_files(module, path, files)
    return sorted(set(found) - {path}), sorted(set(refs.usings))


def _minimal_owner(chunks: list[GraphChunk]) -> dict[int, int]:
    """Line -> index in `chunks` of the smallest chunk holding it (ties: the earlier chunk)."""
    owner: dict[int, int] = {}
    order = sorted(range(len(chunks)), key=lambda k: (chunks[k].end_line - chunks[k].start_line, chunks[k].chunk_index),
                   reverse=True)
    for k in order:  # largest first, so smaller chunks overwrite
        c = chunks[k]
        for line in range(c.start_line, c.end_line + 1):
            owner[line] = k
    return owner


def build_graph(chunks: list[GraphChunk], symbols: list[GraphSymbol],
                previous: dict[tuple[str, int], dict] | None = None) -> GraphResult:
    by_file: dict[str, list[GraphChunk]] = defaultdict(list)
    for c in chunks:
        if c.language in CODE_LANGUAGES and c.start_line > 0:
            by_file[c.file_path].append(c)
    files = set(by_file)
    ranges = {(c.file_path, c.chunk_index): (c.start_line, c.end_line) for c in chunks}
    family = {c.file_path: LANGUAGE_FAMILY.get(c.language, c.language) for c in chunks}

    def rank(s: GraphSymbol) -> tuple[int, int]:
        # A class chunk lists its members' symbols too: prefer a chunk that holds the definition's line.
        lo, hi = ranges.get((s.file_path, s.chunk_index), (0, 1 << 30))
        return (0 if lo <= s.start_line <= hi else 1, hi - lo)

    # Definitions: each symbol in the smallest chunk that holds it.
    best: dict[tuple[str, str, str, int], GraphSymbol] = {}
    for s in symbols:
        if s.file_path not in files or not (s.kind in TYPE_KINDS or s.kind in CALLABLE_KINDS or s.kind in SQL_KINDS):
            continue
        key = (s.file_path, s.name, s.kind, s.start_line)
        cur = best.get(key)
        if cur is None or rank(s) < rank(cur):
            best[key] = s
    code_defs: dict[str, list[GraphSymbol]] = defaultdict(list)
    sql_full: dict[str, list[GraphSymbol]] = defaultdict(list)
    sql_last: dict[str, list[GraphSymbol]] = defaultdict(list)
    for s in best.values():
        if s.kind in SQL_KINDS:
            full = sql_name(s.name)
            sql_full[full].append(s)
            sql_last[full.split(".")[-1]].append(s)
        else:
            short = s.name.split(".")[-1]
            if len(short) >= MIN_NAME_LEN:
                code_defs[short].append(s)

    edges: set[Edge] = set()
    imports: dict[str, set[str]] = {}
    usings: dict[str, set[str]] = {}
    namespaces: dict[str, set[str]] = {}
    captured: dict[str, FileReferences] = {}
    for path, fchunks in by_file.items():
        text_by_line: dict[int, str] = {}
        # A line as the largest chunk holding it has it; the pieces of one split line tie, and the
        # earliest, its owner, gives the text (whatever order the chunks come in).
        for c in sorted(fchunks, key=lambda c: (c.start_line - c.end_line, c.chunk_index)):
            for k, line in enumerate(c.body.split("\n")):
                if c.start_line + k <= c.end_line:
                    text_by_line.setdefault(c.start_line + k, line)
        whole = "\n".join(text_by_line.get(n, "") for n in range(1, max(text_by_line, default=0) + 1))
        language = fchunks[0].language
        grammar = query_grammar(language, path)
        if grammar is not None:
            captured[path] = file_references(grammar, whole)
        imported, used = file_imports(language, path, whole, files, captured.get(path))
        imports[path] = set(imported)
        usings[path] = set(used)
        namespaces[path] = (set(captured[path].namespaces) if path in captured else
                            set(_CS_NAMESPACE.findall(whole)) if language == "razor" else set())
        edges.update(Edge(path, -1, f, -1, "", "import") for f in imported)
        edges.update(Edge(path, -1, "", -1, ns, "using") for ns in used)

    def resolve(cands: list[GraphSymbol], src_path: str) -> list[GraphSymbol]:
        cands = [s for s in cands if family.get(s.file_path) == family.get(src_path)]
        same = [s for s in cands if s.file_path == src_path]
        if same:
            return same
        near = [s for s in cands if s.file_path in imports.get(src_path, ())
                or (s.parent and any(s.parent == ns or s.parent.startswith(ns + ".")
                                     for ns in usings.get(src_path, set()) | namespaces.get(src_path, set())))]
        if near:
            return near[:MAX_DEFINITIONS]
        return cands if len(cands) <= MAX_DEFINITIONS else []

    for path, fchunks in by_file.items():
        owner = _minimal_owner(fchunks)

        def add(c: GraphChunk, line: int, targets: list[GraphSymbol], kind: str) -> None:
            if owner and fchunks[owner.get(line, 0)].chunk_index != c.chunk_index:
                return  # a smaller chunk holds this line: the reference is its own
            for t in targets:
                if (t.file_path, t.chunk_index) != (c.file_path, c.chunk_index):
                    edges.add(Edge(c.file_path, c.chunk_index, t.file_path, t.chunk_index, t.name, kind))

        if fchunks[0].language == "sql":
            for c in fchunks:
                for kind, name, line0 in sql_references(c.body):
                    cands = sql_full.get(name) or sql_last.get(name.split(".")[-1], [])
                    add(c, c.start_line + line0, resolve(cands, path), kind)
            continue
        if path in captured:  # one parse of the file: each name goes to the smallest chunk holding its line
            names = [(fchunks[owner.get(row + 1, 0)], row + 1, name, called) for row, name, called in captured[path].names]
        else:
            names = [(c, c.start_line + line0, name, called) for c in fchunks for line0, name, called in lexical_names(c.body)]
        for c, line, name, called in names:
            cands = code_defs.get(name)
            if not cands:
                continue
            types = [s for s in cands if s.kind in TYPE_KINDS]
            calls = [s for s in cands if s.kind in CALLABLE_KINDS] if called and name.lower() not in COMMON_MEMBERS else []
            if types:
                add(c, line, resolve(types, path), "type")
            if calls:
                add(c, line, resolve(calls, path), "call")
    ordered = sorted(edges, key=lambda e: (e.src_file, e.src_chunk, e.dst_file, e.dst_chunk, e.kind, e.dst_symbol))
    fields, top = chunk_metrics([(e.src_file, e.src_chunk, e.dst_file, e.dst_chunk) for e in ordered if e.src_chunk >= 0
                                 and e.dst_chunk >= 0], previous=previous)
    return GraphResult(ordered, fields, top)


def chunk_metrics(pairs: list[tuple[str, int, str, int]], top_n: int = 10,
                  previous: dict[tuple[str, int], dict] | None = None
                  ) -> tuple[dict[tuple[str, int], dict], list[tuple[str, float, int]]]:
    """graph_in/out, graph_centrality, blast_radius and graph_cluster for every chunk with an edge,
    settled against `previous` (the stored fields of the last run) when given."""
    import networkx as nx

    g = nx.DiGraph()
    g.add_edges_from(((a, b), (c, d)) for a, b, c, d in pairs if (a, b) != (c, d))
    if g.number_of_nodes() == 0:
        return {}, []
    rank = nx.pagerank(g, alpha=0.85)
    blast = blast_radius(g)
    communities = nx.community.louvain_communities(g.to_undirected(), seed=7)
    labelled = sorted((sorted(c) for c in communities), key=lambda c: (-len(c), c[0]))
    cluster = {node: k for k, members in enumerate(labelled) for node in members}
    fields = {
        node: {"graph_in": g.in_degree(node), "graph_out": g.out_degree(node),
               "graph_centrality": round(rank[node], 6), "blast_radius": blast[node],
               "graph_cluster": cluster[node]}
        for node in g.nodes
    }
    if previous:
        undirected = g.to_undirected()
        fields = settle(fields, previous, {node: set(undirected[node]) for node in undirected.nodes})
    top = sorted(g.nodes, key=lambda n: (-rank[n], n))[:top_n]
    return fields, [(f"{n[0]}#{n[1]}", round(rank[n], 6), blast[n]) for n in top]


def blast_radius(g) -> dict:
    """Per node, how many other nodes reach it (its transitive dependents), in one pass over the SCC DAG."""
    import networkx as nx

    dag = nx.condensation(g)
    members = dag.graph["mapping"]  # node -> scc id
    bits: dict[int, int] = {}
    index = {node: k for k, node in enumerate(g.nodes)}
    member_bits: dict[int, int] = defaultdict(int)
    size: dict[int, int] = defaultdict(int)
    for node, scc in members.items():
        member_bits[scc] |= 1 << index[node]
        size[scc] += 1
    for scc in nx.topological_sort(dag):
        acc = 0
        for pred in dag.predecessors(scc):
            acc |= bits[pred] | member_bits[pred]
        bits[scc] = acc
    return {node: bits[scc].bit_count() + size[scc] - 1 for node, scc in members.items()}


def settle(new: dict[tuple[str, int], dict], old: dict[tuple[str, int], dict],
           neighbours: dict[tuple[str, int], set] | None = None) -> dict[tuple[str, int], dict]:
    """`new` graph fields with the stored ones kept where they are within tolerance, and community
    labels carried over: each new community takes the label of the old one it shares most nodes
    with (largest overlaps first, each old label once); the others take labels never used before.
    With `neighbours` (undirected), communities are carried forward instead: a stored chunk keeps its
    label and moves only to a community that holds more of its neighbours."""
    if not old:
        return new
    out = {node: dict(f) for node, f in new.items()}
    for node, f in out.items():
        prev = old.get(node)
        if not prev:
            continue
        c_new, c_old = f.get("graph_centrality"), prev.get("graph_centrality")
        if c_new is not None and c_old is not None and abs(c_new - c_old) <= CENTRALITY_TOLERANCE * max(c_new, c_old):
            f["graph_centrality"] = c_old
        b_new, b_old = f.get("blast_radius"), prev.get("blast_radius")
        if b_new is not None and b_old is not None and \
                abs(b_new - b_old) <= max(BLAST_TOLERANCE[1], BLAST_TOLERANCE[0] * max(b_new, b_old)):
            f["blast_radius"] = b_old
    members: dict[int, list] = defaultdict(list)
    for node, f in new.items():
        members[f["graph_cluster"]].append(node)
    overlaps = []
    for label, nodes in members.items():
        counts: dict[int, int] = defaultdict(int)
        for node in nodes:
            if node in old and "graph_cluster" in old[node]:
                counts[old[node]["graph_cluster"]] += 1
        overlaps += [(-n, label, prev) for prev, n in counts.items()]
    mapping: dict[int, int] = {}
    taken: set[int] = set()
    for _, label, prev in sorted(overlaps):
        if label not in mapping and prev not in taken:
            mapping[label], taken = prev, taken | {prev}
    fresh = max([f["graph_cluster"] for f in old.values() if "graph_cluster" in f] + [-1]) + 1
    for label in sorted(members):
        if label not in mapping:
            mapping[label], fresh = fresh, fresh + 1
    for f in out.values():
        f["graph_cluster"] = mapping[f["graph_cluster"]]
    if neighbours:
        # Carried forward: a chunk keeps its stored community and moves only to one holding more of its
        # neighbours (a few rounds of that, in a fixed order); Louvain labels only chunks new to the graph.
        label = {node: (old[node]["graph_cluster"] if "graph_cluster" in (old.get(node) or {}) else f["graph_cluster"])
                 for node, f in out.items()}
        for _ in range(MAX_CLUSTER_ROUNDS):
            moved = 0
            for node in sorted(label):
                counts: dict[int, int] = defaultdict(int)
                for n in neighbours.get(node, ()):
                    if n in label:
                        counts[label[n]] += 1
                if not counts:
                    continue
                best = min(counts, key=lambda c: (-counts[c], c))
                if counts[best] > counts.get(label[node], 0):
                    label[node], moved = best, moved + 1
            if not moved:
                break
        for node, f in out.items():
            f["graph_cluster"] = label[node]
    return out
