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
    members = [p for p in pieces if p.chunk_type == "cs_member"]
    assert Counter(p.chunk_type for p in pieces)["cs_class"] == 1 and len(members) == len(pieces) - 1
    # 5,000 / 2,000 rounds up to a mean of four members a chunk (a power of two), at most sixteen
    assert 1_000 <= len(members) <= 2_000 and max(p.meta.get("members", 1) for p in members) <= 16
    assert [s.name for p in members for s in p.symbols] == [f"M{i}" for i in range(5_000)]
    assert all(p.meta.get("members", 1) == len(p.symbols) for p in members)
    assert all(p.header == "// N.A\n" for p in members)
    assert all(b.start_line == a.end_line + 1 for a, b in zip(members, members[1:]))
    assert_invariants(pieces, text)
    assert result.notes == (f"5,001 chunks, over code_max_chunks=2,000: consecutive members share a chunk "
                            f"({len(pieces):,} chunks)",)


def test_an_edit_to_a_packed_file_changes_the_packs_it_touches_not_half_the_file():
    """Where a pack ends is anchored in its members' text, not in their place: a method added at the start was
    1,000 of 2,001 chunk texts new (each an embedding again), every pack after it shifted by one member."""
    methods = [f"void M{i}() {{ Run({i}); }}\n" for i in range(5_000)]

    def texts(units: list[str]) -> list[str]:
        text = "class A {\n" + "".join(units) + "}\n"
        return [p.text for p in chunk_file_result("Generated.cs", text.encode()).pieces]
    before = set(texts(methods))
    for edit in ([*methods, "void New() {}\n"], ["void New() {}\n", *methods],
                 [*methods[:2_500], "void New() {}\n", *methods[2_500:]], methods[:2_500] + methods[2_501:],
                 [*methods[:2_500], "void M2500() { Run(-1); }\n", *methods[2_501:]]):
        after = texts(edit)
        assert len(after) > 1_000 and sum(t not in before for t in after) <= 2


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


def test_ranges_are_anchored_in_the_units_text_bounded_and_end_where_a_unit_may_not_join():
    texts = [f"unit {i}\n" for i in range(1_000)]
    spans = ranges(texts, 100, 10**6)
    assert spans[0][0] == 0 and spans[-1][1] == 1_000 and all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert 50 <= len(spans) <= 100 and max(j - i for i, j in spans) <= 64  # a mean of 16 (1,000 / 100, up to 2^k)
    # the same units anywhere end their ranges in the same places
    shifted = ranges(["first\n", *texts], 100, 10**6)
    assert {tuple(texts[i:j]) for i, j in spans[1:]} <= {tuple((["first\n", *texts])[i:j]) for i, j in shifted}
    joined = ranges(texts, 100, 10**6, joins=[True] * 500 + [False] + [True] * 499)
    assert [s for s in joined if s[1] <= 500] == [(i, min(j, 500)) for i, j in spans if i < 500]
    assert any(i == 500 for i, _ in joined) and joined[-1] == spans[-1]
    assert all(j - i == 1 or sum(map(len, texts[i:j])) <= 40 for i, j in ranges(texts, 100, 40))
    assert ranges(["x" * 60, "y" * 60], 1, 100) == [(0, 1), (1, 2)] and ranges([], 5, 100) == []


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
    """The cap is the registry's, after any code or SQL chunker: 5,000 generated units are 1,000 to 2,000 chunks in
    each."""
    text = GENERATED[name]
    result = chunk_file_result(name, text.encode())
    assert 1_000 <= len(result.pieces) <= 2_000 and "over code_max_chunks=2,000" in result.notes[0]
    assert sum(len(p.symbols) for p in result.pieces) >= 5_000
    assert_invariants(result.pieces, text)
