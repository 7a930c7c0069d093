"""A code file of more chunks than `code_max_chunks`: consecutive whole members share a chunk (chunkers/packs.py)."""

from collections import Counter
from pathlib import Path

import pytest

from chunkers import ChunkOptions, chunk_file_result
from chunkers.packs import ranges
from tests.invariants import assert_invariants

FIXTURES = Path(__file__).parent.parent / "fixtures"


def test_a_file_of_too_many_methods_packs_whole_consecutive_members():
    """50,000 generated one-line methods were 50,000 chunks, each a text to embed (an hour of CPU for one file).
    Over `code_max_chunks` runs of members share a chunk: every method still a symbol, no line lost or cut."""
    text = "namespace N {\nclass A {\n" + "".join(f"void M{i}() {{ Run({i}); }}\n" for i in range(5_000)) + "}\n}\n"
    result = chunk_file_result("Generated.cs", text.encode())
    pieces = result.pieces
    assert Counter(p.chunk_type for p in pieces) == {"cs_member": 2_000, "cs_class": 1}
    members = [p for p in pieces if p.chunk_type == "cs_member"]
    assert [s.name for p in members for s in p.symbols] == [f"M{i}" for i in range(5_000)]
    # the class's header piece ends the first range early: one member alone, then two or three a chunk
    assert [p.meta.get("members", 1) for p in members[:3]] == [1, 3, 2]
    assert Counter(p.meta.get("members", 1) for p in members) == {3: 1001, 2: 998, 1: 1}
    assert all(p.header == "// N.A\n" for p in members)
    assert all(b.start_line == a.end_line + 1 for a, b in zip(members, members[1:]))
    assert_invariants(pieces, text)
    assert result.notes == ("5,001 chunks, over code_max_chunks=2,000: consecutive members share a chunk "
                            "(2,001 chunks)",)


def test_a_pack_is_bounded_by_size_and_symbols_and_never_joins_across_a_type():
    """A pack stops at `type_max_chars` and at `chunk_max_symbols`; members of two types never share a chunk, nor
    a member with its type's header piece."""
    text = "".join(f"class T{t}:\n" + "".join(f"    def m{i}(self):\n        return {i}\n" for i in range(40))
                   for t in range(2))
    options = ChunkOptions(code_max_chunks=10, type_max_chars=400, chunk_max_symbols=6)
    result = chunk_file_result("gen.py", text.encode(), options)
    packed = [p for p in result.pieces if p.chunk_type == "py_function"]
    assert all(len(p.symbols) <= 6 and len(p.text) <= 400 for p in packed)
    assert all(len({s.parent for s in p.symbols}) == 1 for p in packed)  # one type's members each
    assert [s.name for p in packed for s in p.symbols] == [f"m{i}" for i in range(40)] * 2
    assert [p.chunk_type for p in result.pieces].count("py_class") == 2
    assert_invariants(result.pieces, text)
    assert "over code_max_chunks=10" in result.notes[0]


def test_a_file_under_the_cap_is_cut_as_before():
    """The cap is far above real files: the fixtures' chunks are the chunks they always were."""
    for path in sorted((FIXTURES / "csharp").glob("*.cs")) + sorted((FIXTURES / "python").glob("*.py")):
        data = path.read_bytes()
        capped = chunk_file_result(path.name, data)
        uncapped = chunk_file_result(path.name, data, ChunkOptions(code_max_chunks=10**9))
        assert [p.to_dict() for p in capped.pieces] == [p.to_dict() for p in uncapped.pieces]
        assert not any("code_max_chunks" in note for note in capped.notes)


def test_ranges_are_near_equal_and_end_where_a_unit_may_not_join():
    assert ranges([1] * 10, 5, 100) == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10)]
    assert ranges([1] * 10, 5, 100, joins=[True] * 3 + [False] + [True] * 6) == [
        (0, 2), (2, 3), (3, 4), (4, 6), (6, 8), (8, 10)]
    assert ranges([60, 60, 1, 1], 2, 100) == [(0, 1), (1, 2), (2, 4)]


GENERATED = {
    "gen.sql": "".join(f"CREATE TABLE t{i} (id int);\nGO\n" for i in range(5_000)),
    "gen.ts": "".join(f"export function f{i}(x: number) {{ return x + {i}; }}\n" for i in range(5_000)),
    "gen.js": "".join(f"function f{i}(x) {{ return x + {i}; }}\n" for i in range(5_000)),
    "gen.py": "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(5_000)),
    "gen.go": "package a\n" + "".join(f"func F{i}(x int) int {{ return x + {i} }}\n" for i in range(5_000)),
    "gen.rb": "".join(f"def f{i}(x)\n  x + {i}\nend\n" for i in range(5_000)),
}


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_every_code_chunker_packs_a_generated_file(name):
    """The cap is the registry's, after any code or SQL chunker: 5,000 generated units are 2,000 chunks in each."""
    text = GENERATED[name]
    result = chunk_file_result(name, text.encode())
    assert len(result.pieces) == 2_000 and "over code_max_chunks=2,000" in result.notes[0]
    assert sum(len(p.symbols) for p in result.pieces) >= 5_000
    assert_invariants(result.pieces, text)
