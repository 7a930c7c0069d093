"""Python: functions, classes and methods with their decorators and docstrings;
large classes become header + members + full; module code is never lost."""

from pathlib import Path

from chunkers.model import ChunkOptions
from chunkers.python_code import chunk_python, module_name
from chunkers.registry import chunk_file_result
from chunkers.text import split_lines
from tests.invariants import assert_invariants

FIXTURES = Path(__file__).parent.parent / "fixtures" / "python"
BILLING = FIXTURES / "billing.py"
PATH = "billing/billing.py"


def shape(pieces):
    return [(p.chunk_type, p.meta.get("role", ""), p.start_line, p.end_line) for p in pieces]


def test_small_units_one_chunk_each_module_code_included():
    data = BILLING.read_bytes()
    pieces = chunk_python(PATH, data.decode(), ChunkOptions())
    assert shape(pieces) == [
        ("py_class", "", 1, 24),       # module docstring, imports, constants ride LineItem
        ("py_class", "", 25, 64),
        ("py_function", "", 65, 76),
        ("code_block", "", 77, 83),    # if __name__ == "__main__":
    ]
    assert [(s.name, s.kind, s.parent, s.start_line, s.end_line) for s in pieces[0].symbols] == [
        ("LineItem", "class", "", 14, 24),
        ("total", "method", "LineItem", 22, 24),   # starts at its @property decorator
    ]
    assert pieces[3].text.startswith('\n\nif __name__ == "__main__":')
    result = chunk_file_result(PATH, data)
    assert result.notes == ()
    assert [p.to_dict() for p in result.pieces] == [p.to_dict() for p in pieces]
    assert_invariants(pieces, data)


def test_decorators_and_comments_ride_their_definition():
    pieces = chunk_python(PATH, BILLING.read_text(), ChunkOptions(type_max_chars=800))
    subtotal = next(p for p in pieces if p.symbols and p.symbols[0].name == "subtotal")
    assert subtotal.body.startswith("\n    # Totals are computed on demand")
    line_item = pieces[0]
    assert "@dataclass\nclass LineItem:" in line_item.text


def test_large_class_becomes_header_members_and_full():
    text = BILLING.read_text()
    lines = split_lines(text)
    pieces = chunk_python(PATH, text, ChunkOptions(type_max_chars=800))
    assert shape(pieces) == [
        ("py_class", "", 1, 24),
        ("py_class", "header", 25, 34),
        ("py_function", "member", 35, 40),
        ("py_function", "member", 41, 50),
        ("py_function", "member", 51, 54),
        ("py_function", "member", 55, 57),
        ("py_function", "member", 58, 64),
        # the whole class too, in parts of at most type_max_chars cut at member boundaries
        ("py_class_full", "full", 25, 40),
        ("py_class_full", "full", 41, 57),
        ("py_class_full", "full", 58, 64),
        ("py_function", "", 65, 76),
        ("code_block", "", 77, 83),
    ]
    header = pieces[1]
    # Verbatim lines: class line, docstring, class attributes.
    assert header.text == "\n".join(lines[24:34])
    assert header.skeleton.startswith('class Invoice:\n    """An invoice for one customer')
    assert '    def add_line(self, description: str, quantity: int, unit_price: Decimal) -> LineItem:\n' \
           '        """Append a line; refuses once the invoice is issued."""\n        ...' in header.skeleton
    assert "self.lines.append(item)" not in header.skeleton
    assert header.analysis_text == header.skeleton
    assert [s.name for s in header.symbols] == ["Invoice", "__init__", "add_line", "subtotal", "vat", "issue"]
    members = pieces[2:7]
    for member, name in zip(members, ["__init__", "add_line", "subtotal", "vat", "issue"]):
        assert member.header == "# billing.billing.Invoice\n"
        assert member.body == "\n".join(lines[member.start_line - 1:member.end_line])
        assert [(s.name, s.kind, s.parent) for s in member.symbols] == [(name, "method", "Invoice")]
        assert header.skeleton in member.analysis_text
    full = pieces[7:10]
    assert [p.header for p in full] == [f"# billing.billing.Invoice (part {k}/3)\n" for k in (1, 2, 3)]
    assert "\n".join(p.body for p in full) == "\n".join(lines[24:64])
    assert all(len(p.text) <= 800 for p in full)
    assert_invariants(pieces, text)


def test_oversized_method_splits_into_parts_never_truncated():
    steps = "\n".join(f"        total += self.rate('{i:03d}') * weights[{i}]  # weight step {i}" for i in range(80))
    text = (f"class Scorer:\n    def score(self, weights):\n        total = 0\n{steps}\n        return total\n\n"
            f"    def rate(self, key):\n        return 1\n")
    pieces = chunk_python("scoring.py", text, ChunkOptions(type_max_chars=1200))
    parts = [p for p in pieces if p.meta.get("role") == "member" and "part" in p.meta]
    n = len(parts)
    assert n >= 4 and [p.meta["part"] for p in parts] == list(range(1, n + 1))
    assert parts[0].header == f"# scoring.Scorer.score (part 1/{n})\n"
    assert parts[1].header == f"# scoring.Scorer.score (part 2/{n})\ndef score(self, weights):\n"
    assert "".join(p.body + "\n" for p in parts) == "\n".join(split_lines(text)[1:84]) + "\n"
    assert_invariants(pieces, text)


def test_syntax_errors_keep_the_surrounding_definitions():
    data = (FIXTURES / "broken_tasks.py").read_bytes()
    pieces = chunk_python("tasks.py", data.decode(), ChunkOptions())
    assert [(s.name, s.start_line, s.end_line) for p in pieces for s in p.symbols] == [
        ("retry", 4, 7), ("poll", 10, 16), ("Worker", 19, 21), ("run", 20, 21)]
    assert_invariants(pieces, data)


def test_module_name_from_repository_path():
    assert module_name("src/ledger/cli.py") == "src.ledger.cli"
    assert module_name("pkg/__init__.py") == "pkg"
    assert module_name("/abs/path/tool.py") == "tool"


def test_a_leading_underscore_makes_a_unit_private_and_a_dunder_does_not():
    text = (
        '"""Rendering."""\n\n\ndef render(page):\n    """Render a page."""\n    return _render(page, cache=True)\n\n\n'
        'def _render(page, cache):\n    """The work behind render."""\n    return str(page)\n\n\n'
        'class _Cache:\n    """A private cache."""\n\n    def __init__(self):\n        self.pages = {}\n\n'
        '    def _evict(self, key):\n        """Forget one page, and say whether it was there."""\n'
        '        return self.pages.pop(key, None) is not None\n'
    )
    pieces = chunk_python("site/render.py", text, ChunkOptions())
    assert [(p.symbols[0].name, p.meta.get("visibility")) for p in pieces] == [
        ("render", "public"), ("_render", "private"), ("_Cache", "private")]
    big = chunk_python("site/render.py", text, ChunkOptions(type_max_chars=200))
    members = {p.symbols[0].name: p.meta.get("visibility") for p in big if p.meta.get("role") == "member"}
    assert members == {"__init__": "public", "_evict": "private"}  # a dunder is public surface
    assert_invariants(big, text)
