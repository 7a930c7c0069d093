"""A top-level name bound twice in one module serves all of its readers with the second binding: round 57 bound
`_PASCAL_WORDS` again in `chunkers/redact.py`, and round 36's `_parser_token` read round 57's pattern unseen for
twenty rounds (benchmarks/secrets_recall.md, round 61). Every module of the project binds each top-level name once
(a regex, a constant, a function or a class)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(p for d in ("chunkers", "ledger_assets") for p in (ROOT / d).rglob("*.py"))


def _top_level_names(source: str) -> list[str]:
    names = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            names.append(node.target.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
    return names


def _bound_twice(source: str) -> list[str]:
    names = _top_level_names(source)
    return sorted({n for n in names if names.count(n) > 1})


def test_a_name_bound_twice_is_found():
    assert _bound_twice("import re\n_A = re.compile('a')\ndef f():\n    return _A\n_A = re.compile('b')\n") == ["_A"]
    assert _bound_twice("_A = 1\n_B: int = 2\nclass C:\n    _A = 3\n") == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_top_level_name_is_bound_twice(path):
    assert _bound_twice(path.read_text(encoding="utf-8")) == []
