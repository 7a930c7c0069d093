"""Razor rules (issue 3, "Razor (.razor, .cshtml)") on a real-shaped component."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from chunkers import ChunkOptions, chunk_file_result
from chunkers.razor import chunk_razor
from tests.invariants import assert_invariants, uncovered_lines

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "razor"
TEXT = (FIXTURES / "OrderBoard.razor").read_text(encoding="utf-8")
N_LINES = 116


def test_code_blocks_and_markup_partition_the_file():
    pieces = chunk_razor("Pages/OrderBoard.razor", TEXT, ChunkOptions())
    assert_invariants(pieces, TEXT)
    assert [(p.chunk_type, p.start_line, p.end_line) for p in pieces] == [
        ("razor_markup", 1, 24),
        ("razor_code", 25, 34),
        ("razor_markup", 35, 87),
        ("razor_code", 88, 116),
    ]


def test_code_block_members_are_real_csharp_symbols_at_original_lines():
    pieces = chunk_razor("Pages/OrderBoard.razor", TEXT, ChunkOptions())
    second = pieces[3]
    assert [(s.name, s.kind, s.parent, s.start_line, s.end_line) for s in second.symbols] == [
        ("orders", "field", "OrderBoard", 89, 89),
        ("refreshTimer", "field", "OrderBoard", 90, 90),
        ("Visible", "property", "OrderBoard", 93, 97),
        ("OnInitializedAsync", "method", "OrderBoard", 99, 107),
        ("Open", "method", "OrderBoard", 109, 113),
        ("Dispose", "method", "OrderBoard", 115, 115),
    ]
    lines = TEXT.split("\n")
    assert lines[109 - 1].strip() == "private void Open(Guid id)"
    assert second.skeleton.startswith("@code {")
    assert "protected override async Task OnInitializedAsync()\n    { … }" in second.skeleton


def test_oversized_units_are_split_not_dropped():
    options = ChunkOptions(type_max_chars=700)
    pieces = chunk_razor("OrderBoard.razor", TEXT, options)
    assert_invariants(pieces, TEXT)
    assert uncovered_lines(pieces, N_LINES) == []
    markup = [p for p in pieces if p.chunk_type == "razor_markup"]
    assert all(len(p.body) <= 700 for p in pieces)
    # parts cut where an element or Razor block starts, never inside a tag
    for p in markup[1:]:
        first = p.body.split("\n")[0].strip()
        assert first == "" or first.startswith(("<", "@")), first
    code = [p for p in pieces if p.chunk_type == "razor_code" and p.start_line >= 88]
    assert [(p.start_line, p.end_line, p.meta["part"]) for p in code] == [(88, 98, 1), (99, 116, 2)]
    assert [s.name for s in code[1].symbols] == ["OnInitializedAsync", "Open", "Dispose"]
    assert code[1].header == "// OrderBoard @code (part 2/2)\n"


def test_brace_in_a_string_does_not_close_the_block():
    pieces = chunk_razor("OrderBoard.razor", TEXT, ChunkOptions())
    assert pieces[-1].body.endswith("    public void Dispose() => refreshTimer?.Dispose();\n}")


def test_cshtml_functions_block_through_the_registry():
    page = (
        "@model InvoiceModel\n"
        "<h2>Invoice @Model.Number</h2>\n"
        "@functions {\n"
        "    public string Money(decimal value) => value.ToString(\"C\");\n"
        "}\n"
        "<p>Total: @Money(Model.Total)</p>\n"
    )
    result = chunk_file_result("Views/Invoice.cshtml", page.encode())
    assert result.notes == ()
    assert [(p.chunk_type, p.start_line, p.end_line) for p in result.pieces] == [
        ("razor_markup", 1, 2), ("razor_code", 3, 5), ("razor_markup", 6, 6)]
    assert [(s.name, s.kind, s.parent) for s in result.pieces[1].symbols] == [("Money", "method", "Invoice")]


def test_unbalanced_code_block_runs_to_the_end():
    page = "<p>hi</p>\n@code {\n    void M() {\n        var s = \"}\";\n"
    pieces = chunk_razor("Broken.razor", page, ChunkOptions())
    assert_invariants(pieces, page)
    assert [(p.chunk_type, p.start_line, p.end_line) for p in pieces] == [
        ("razor_markup", 1, 1), ("razor_code", 2, 4)]


@settings(max_examples=50, deadline=None)
@given(
    cuts=st.lists(st.tuples(st.integers(0, 4000), st.integers(0, 300)), max_size=3),
    noise=st.sampled_from(["", "@code {", "}", "<div>", "\"", "@*", "\n" + "y" * 3000 + "\n"]),
    cap=st.sampled_from([300, 700, 6000]),
)
# Found by this test: a member recovered from a damaged `@code` block ended past the block's
# last line, and sizing it raised IndexError.
@example(cuts=[(765, 129), (2135, 184)], noise="@code {", cap=300)
def test_property_mutated_components_keep_invariants(cuts, noise, cap):
    text = TEXT
    for at, length in cuts:
        at %= len(text)
        text = text[:at] + noise + text[at + length:]
    if not text.strip():
        return
    pieces = chunk_razor("M.razor", text, ChunkOptions(type_max_chars=cap))
    assert_invariants(pieces, text)


# The pattern markup was read with before: one scan of alternatives (the specification on small inputs; an opening
# tag's lazy scan for its `>` from every `<` cost the square of a markup of `<` never closed).
_SPEC = re.compile(
    r"""<!--.*?(?:-->|\Z)
    | @\*.*?(?:\*@|\Z)
    | <(?P<raw>script|style)\b(?:[^>"']|"[^"]*"|'[^']*')*>.*?(?:</(?P=raw)\s*>|\Z)
    | </(?P<close>[A-Za-z][\w:.\-]*)\s*>
    | <(?P<open>[A-Za-z][\w:.\-]*)(?:[^>"']|"[^"]*"|'[^']*')*?(?P<self>/?)>
    | (?P<brace>[{}])""",
    re.S | re.X | re.I,
)
_FRAGMENTS = ["<", ">", "/", "/>", "<a", "<div", "<br/>", "</a>", "</div >", "<script", "<SCRIPT", "</script>",
              "</Script >", "<style", "</style>", "<!--", "-->", "@*", "*@", "{", "}", '"', "'", " ", "\n", "x", "-"]


def _spec_tokens(text: str, lo: int, hi: int) -> list[tuple[int, int, str, str]]:
    out = []
    for m in _SPEC.finditer(text, lo, hi):
        kind = next((k for k in ("open", "close", "brace", "raw") if m.group(k)), "comment")
        name = "" if kind == "comment" else m.group(kind) + (m.group("self") if kind == "open" else "")
        out.append((m.start(), m.end(), kind, name))
    return out


def test_markup_tokens_are_the_patterns_on_any_mix_of_tags_quotes_and_comments():
    from chunkers.razor import _markup_tokens

    rng = random.Random(5)
    for _ in range(3000):
        text = "".join(rng.choice(_FRAGMENTS) for _ in range(rng.randint(0, 40)))
        lo = rng.randint(0, len(text)) if rng.random() < 0.3 else 0
        hi = rng.randint(lo, len(text)) if rng.random() < 0.3 else len(text)
        assert _markup_tokens(text, lo, hi) == _spec_tokens(text, lo, hi), (text, lo, hi)


def test_markup_of_tags_never_closed_is_cut_in_linear_time():
    # 4,000 lines of `x <<EOF` (32 KB): 8.6 CPU s on main, each `<EOF`'s scan for a `>` running to the end; 0.03 s
    # now. The bound is generous, as the redactor's worst cases' are.
    text = "x <<EOF\n" * 16_000
    start = time.process_time()
    pieces = chunk_file_result("Views/Bad.cshtml", text.encode()).pieces
    assert time.process_time() - start < 1.5
    assert len(pieces) > 1 and not uncovered_lines(pieces, 16_000)
