"""The house rules of the two packages, checked on their source: imports flow one way, rooms stay small.

Every import counts, including those inside functions: a circle hidden by a lazy import is still a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("chunkers", "ledger_assets")
MAX_MODULE_LINES = 600
# The rooms of ledger_assets, bottom first: a room imports only from rooms before it (and itself).
ROOMS = ("store", "encode", "llm", "intents", "ingest", "enrich", "retrieval", "evaluation", "defs")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Project modules imported anywhere in the file, resolved to module names."""
    is_pkg = path.name == "__init__.py"
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level:
                mod = ".".join(base[: len(base) - node.level + 1] + ([mod] if mod else []))
            targets = [f"{mod}.{a.name}" for a in node.names] + [mod]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def _graph() -> nx.DiGraph:
    mods = _modules()
    g = nx.DiGraph()
    g.add_nodes_from(mods)
    for name, path in mods.items():
        for dep in _imports(name, path, set(mods)):
            # A package's __init__ is imported on the way to any of its modules: not an edge of design.
            if not name.startswith(dep + "."):
                g.add_edge(name, dep)
    return g


def test_the_import_graph_has_no_circles():
    cycles = list(nx.simple_cycles(_graph()))
    assert cycles == [], "import circles: " + "; ".join(" -> ".join(c + [c[0]]) for c in cycles[:5])


def test_rooms_import_only_from_rooms_below_them():
    def room(mod: str) -> str | None:
        parts = mod.split(".")
        return parts[1] if parts[0] == "ledger_assets" and len(parts) >= 2 and parts[1] in ROOMS else None

    upward = []
    for src, dst in _graph().edges:
        a, b = room(src), room(dst)
        if dst.startswith("ledger_assets") and a and (b is None or ROOMS.index(b) > ROOMS.index(a)):
            upward.append(f"{src} -> {dst}")
    assert upward == []


def test_chunkers_import_nothing_of_the_ledger():
    assert [e for e in _graph().edges if e[0].startswith("chunkers") and e[1].startswith("ledger_assets")] == []


def test_no_ledger_module_is_a_mansion():
    # chunkers/ is exempt: one module per format, so csharp.py holds one language's whole rule.
    big = {str(p.relative_to(ROOT)): n for p in (ROOT / "ledger_assets").rglob("*.py")
           if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES}
    assert big == {}
