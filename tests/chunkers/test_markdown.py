"""Markdown: one md_section per heading, breadcrumbs, fences, front matter, oversized splits."""

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkers import ChunkOptions, chunk_file, chunk_file_result
from chunkers.markdown import chunk_markdown
from tests.invariants import assert_invariants, assert_lossless

FIXTURE = Path(__file__).parent.parent / "fixtures" / "markdown" / "ingest-design.md"


def sections(options: ChunkOptions = ChunkOptions()):
    return chunk_markdown("docs/ingest-design.md", FIXTURE.read_text(), options)


def test_one_section_per_heading_with_breadcrumbs_and_exact_lines():
    pieces = sections()
    assert [(p.header, p.start_line, p.end_line) for p in pieces] == [
        ("<!-- Path: Ingest pipeline -->\n", 1, 11),
        ("<!-- Path: Ingest pipeline > Snapshot -->\n", 12, 20),
        ("<!-- Path: Ingest pipeline > Chunking -->\n", 21, 22),
        ("<!-- Path: Ingest pipeline > Chunking > Markdown sections -->\n", 23, 32),
        ("<!-- Path: Ingest pipeline > Chunking > PDF pages -->\n", 33, 36),
        ("<!-- Path: Ingest pipeline > Storage -->\n", 37, 49),
        ("<!-- Path: Operations -->\n", 50, 53),
    ]
    assert {p.chunk_type for p in pieces} == {"md_section"}
    assert_invariants(pieces, FIXTURE.read_text())


def test_front_matter_and_preamble_stay_with_the_first_section():
    first = sections()[0]
    assert first.body.startswith("---\ntitle: Ingest pipeline design\n")
    assert "This page describes how a repository" in first.body
    assert first.symbols[0].name == "Ingest pipeline" and first.symbols[0].start_line == 8


def test_hash_lines_inside_fences_are_not_headings():
    bodies = {p.symbols[0].name: p.body for p in sections()}
    assert "# List the files git tracks" in bodies["Snapshot"]
    assert "# Neither is this" in bodies["Markdown sections"]


def test_setext_headings_take_their_level_from_the_underline():
    symbols = [p.symbols[0] for p in sections()]
    storage = next(s for s in symbols if s.name == "Storage")
    operations = next(s for s in symbols if s.name == "Operations")
    assert (storage.kind, storage.parent, storage.start_line) == ("md_heading", "Ingest pipeline", 37)
    assert (operations.parent, operations.start_line) == ("", 50)


def test_an_oversized_section_splits_on_paragraphs_and_repeats_the_breadcrumb():
    options = ChunkOptions(md_section_max_chars=700)
    storage = [p for p in sections(options) if p.symbols[0].name == "Storage"]
    n = len(storage)
    assert n == 3
    for k, p in enumerate(storage, 1):
        assert p.header == f"<!-- Path: Ingest pipeline > Storage (part {k}/{n}) -->\n"
        assert p.meta["part"] == k and p.meta["parts"] == n
        assert len(p.text) <= 700
    # Cuts fall on paragraph boundaries: every part but the last ends on a blank line.
    lines = FIXTURE.read_text().split("\n")
    assert [(p.start_line, p.end_line) for p in storage] == [(37, 43), (44, 47), (48, 49)]
    assert all(not lines[p.end_line - 1].strip() for p in storage[:-1])
    assert_invariants(sections(options), FIXTURE.read_text())


def test_a_single_overlong_paragraph_is_cut_by_lines_never_truncated():
    text = "# Big\n\n" + "\n".join(f"line {i} " + "x" * 60 for i in range(60)) + "\n"
    pieces = chunk_markdown("big.md", text, ChunkOptions(md_section_max_chars=1000))
    assert len(pieces) > 4
    assert_invariants(pieces, text)
    assert "".join(p.body + "\n" for p in pieces[1:]).count("line ") == 60


def test_no_headings_is_plain_text():
    text = "Just notes.\n\n    # indented code is not a heading\n#hashtag is not one either\n"
    pieces = chunk_markdown("notes.md", text, ChunkOptions())
    assert [(p.chunk_type, p.start_line, p.end_line) for p in pieces] == [("plain", 1, 4)]


def test_through_chunk_file_the_markdown_chunker_runs():
    result = chunk_file_result("docs/ingest-design.md", FIXTURE.read_bytes())
    assert result.notes == ()
    assert [p.chunk_type for p in result.pieces] == ["md_section"] * 7


_md_line = st.one_of(
    st.sampled_from(["", "# Title", "## Sub", "### Deep", "Text", "===", "---", "```", "~~~", "    # code",
                     "- item", "> quote", "+++", "#", "#no space", "```python", "<!-- c -->"]),
    st.text(alphabet="#-=`~ ab\t>", max_size=12),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_md_line, max_size=40), st.integers(min_value=80, max_value=400))
def test_generated_markdown_is_always_covered(lines, cap):
    text = "\n".join(lines)
    if not text.strip():
        return
    options = ChunkOptions(md_section_max_chars=cap)
    direct = chunk_markdown("gen.md", text, options)
    assert_invariants(direct, text)
    assert_lossless(chunk_file("gen.md", text.encode(), options), text)


def test_a_file_whose_line_breaks_are_lone_carriage_returns_is_chunked_once_over():
    """Such a file is one line, and its first heading's title the rest of the file: every part of the section
    re-emitted it as its breadcrumb, 200 times the file at 50 KB and quadratic beyond (1.2 MB never finished).
    A title ends at a lone carriage return and holds at most MAX_TITLE_CHARS."""
    from chunkers.markdown import MAX_TITLE_CHARS

    text = "".join(f"# h{i}\rtext {i}\r" for i in range(3000))
    result = chunk_file_result("mac.md", text.encode())
    assert sum(len(p.text) for p in result.pieces) < 1.1 * len(text)
    assert result.pieces[0].header.startswith("<!-- Path: h0 (part 1/")
    assert_lossless(result.pieces, text)
    long = "## " + "word " * 100 + "\n\nbody\n"
    (piece,) = chunk_file_result("long.md", long.encode()).pieces
    assert len(piece.header) < MAX_TITLE_CHARS + 40 and piece.header.rstrip().endswith("… -->")


def test_a_file_of_too_many_sections_packs_whole_consecutive_sections():
    """A generated changelog of thousands of headings was a chunk (and an embedding) per heading: 100,000 headings
    were 100,000 texts to embed. Over `md_max_sections` consecutive sections share a chunk, whole, each heading
    still a symbol; a file under the cap is cut as before."""
    text = "".join(f"## 1.0.{i}\n\n- fixed bug {i}\n\n" for i in range(5_000))
    result = chunk_file_result("CHANGELOG.md", text.encode())
    pieces = result.pieces
    assert 1_000 <= len(pieces) <= 2_000 and max(len(p.symbols) for p in pieces) <= 16  # a mean of four
    assert [s.name for p in pieces for s in p.symbols] == [f"1.0.{i}" for i in range(5_000)]
    assert all(p.header == f"<!-- Path: {p.symbols[0].name} -->\n" and p.start_line == p.symbols[0].start_line
               and p.meta.get("sections", 1) == len(p.symbols) for p in pieces)
    assert_invariants(pieces, text)
    assert result.notes == ("5,000 sections, over md_max_sections=2,000: consecutive sections share a chunk "
                            f"({len(pieces):,} chunks)",)
    # A pack never grows past md_section_max_chars; a section alone over it is split as any section is.
    big = "# a\n\n" + ("word " * 30 + "\n\n") * 10 + "# b\n\nx\n\n# c\n\ny\n\n# d\n\nz\n"
    small = chunk_file_result("big.md", big.encode(), ChunkOptions(md_max_sections=2, md_section_max_chars=800))
    shown = [([s.name for s in p.symbols], p.meta.get("part")) for p in small.pieces]
    assert shown[:2] == [(["a"], 1), (["a"], 2)] and all(part is None for _, part in shown[2:])
    assert [name for names, _ in shown[2:] for name in names] == ["b", "c", "d"] and len(shown) < 5
    assert max(len(p.text) for p in small.pieces) <= 800
    assert_invariants(small.pieces, big)
    # The fixture's seven sections, under the cap, are the seven chunks they always were.
    assert [len(p.symbols) for p in chunk_file_result("g.md", FIXTURE.read_bytes()).pieces] == [1] * 7
