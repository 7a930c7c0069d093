"""C# chunking rules (issue 3, "C# (tree-sitter)") on real-shaped fixtures."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkers import ChunkOptions, chunk_file_result
from chunkers.csharp import chunk_csharp
from chunkers.text import split_lines
from tests.invariants import assert_invariants

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "csharp"
SPLIT = ChunkOptions(type_max_chars=1500)


def load(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def chunks(name: str, options: ChunkOptions = ChunkOptions()):
    text = load(name)
    pieces = chunk_csharp(name, text, options)
    assert_invariants(pieces, text)
    return pieces


def kinds(pieces):
    return [(p.chunk_type, p.start_line, p.end_line) for p in pieces]


def test_registry_uses_the_csharp_chunker_without_fallback():
    data = (FIXTURES / "StockLedger.cs").read_bytes()
    result = chunk_file_result("src/StockLedger.cs", data)
    assert result.notes == ()
    assert {p.chunk_type for p in result.pieces} == {"cs_class", "cs_member", "cs_class_full"}
    assert_invariants(result.pieces, data)


def test_each_small_top_level_type_is_one_chunk_with_usings_and_namespace_header():
    pieces = chunks("ShippingContracts.cs")
    assert kinds(pieces) == [
        ("cs_class", 1, 12),   # usings + namespace line ride the first type
        ("cs_class", 13, 19),
        ("cs_class", 20, 21),
        ("cs_class", 22, 23),
        ("cs_class", 24, 41),  # the namespace's closing brace rides the last type
    ]
    assert [p.symbols[0].name for p in pieces] == [
        "ICarrierGateway", "ServiceLevel", "Parcel", "ShipmentBooked", "Dimensions"]
    assert [p.symbols[0].kind for p in pieces] == ["interface", "enum", "record", "delegate", "struct"]
    assert pieces[0].header == ""
    expected_header = "using System;\nusing System.Threading.Tasks;\nnamespace Logistics.Shipping {\n"
    for p in pieces[1:]:
        assert p.header == expected_header
        assert p.text.startswith(expected_header)
    record = pieces[2]
    assert record.body == "\n    public record Parcel(string Sku, decimal WeightKg, ServiceLevel Level);"


def test_symbols_list_every_member_with_exact_lines():
    struct = chunks("ShippingContracts.cs")[-1]
    assert [(s.name, s.kind, s.parent, s.start_line, s.end_line) for s in struct.symbols] == [
        ("Dimensions", "struct", "Logistics.Shipping", 25, 40),
        ("Dimensions", "constructor", "Logistics.Shipping.Dimensions", 28, 33),
        ("Length", "property", "Logistics.Shipping.Dimensions", 35, 35),
        ("Width", "property", "Logistics.Shipping.Dimensions", 36, 36),
        ("Height", "property", "Logistics.Shipping.Dimensions", 37, 37),
        ("Volume", "property", "Logistics.Shipping.Dimensions", 39, 39),
    ]
    enum = chunks("ShippingContracts.cs")[1]
    assert [s.name for s in enum.symbols] == ["ServiceLevel", "Economy", "Standard", "Express"]


def test_skeleton_keeps_signatures_attributes_and_docs_and_folds_bodies():
    struct = chunks("ShippingContracts.cs")[-1]
    assert struct.skeleton == (
        "    [Serializable]\n"
        "    public readonly struct Dimensions\n"
        "    {\n"
        "        public Dimensions(int length, int width, int height)\n"
        "        { … }\n"
        "\n"
        "        public int Length { get; }\n"
        "        public int Width { get; }\n"
        "        public int Height { get; }\n"
        "\n"
        "        public int Volume => …;\n"
        "    }"
    )


def test_type_over_the_cap_becomes_header_members_and_full():
    pieces = chunks("StockLedger.cs")  # 6,926 chars > the default 6,000
    types = [p.chunk_type for p in pieces]
    assert types.count("cs_class") == 1
    head = pieces[0]
    assert (head.chunk_type, head.start_line, head.end_line) == ("cs_class", 1, 24)
    assert head.meta == {"type_start_line": 14, "type_end_line": 183}
    # the head's stored text is verbatim; its analysis text is the folded outline
    assert head.body.endswith("    private bool _disposed;\n")
    assert "public ReconciliationReport Reconcile(" in head.analysis_text
    assert "_onHand[movement.Sku] = next;" not in head.analysis_text
    members = [p for p in pieces if p.chunk_type == "cs_member"]
    assert [(p.symbols[0].name, p.symbols[0].kind) for p in members] == [
        ("StockLedger", "constructor"), ("ReorderNeeded", "event"), ("WarehouseCode", "property"),
        ("Journal", "property"), ("this[]", "indexer"), ("operator +", "operator"),
        ("SetReorderPoint", "method"), ("Receive", "method"), ("Pick", "method"),
        ("Reconcile", "method"), ("Dispose", "method"), ("Apply", "method"),
        ("ThrowIfDisposed", "method"), ("StockMovement", "record"),
    ]
    # the header chunk lists every member too
    head_names = {s.name for s in head.symbols}
    assert {s.name for p in members for s in p.symbols} <= head_names
    assert {"_onHand", "DefaultReorderPoint"} <= head_names
    full = [p for p in pieces if p.chunk_type == "cs_class_full"]
    assert full[0].start_line == 1 and full[-1].end_line == 183
    assert all(p.meta["parts"] == len(full) for p in full)
    assert all(len(p.body) <= 6000 for p in full)


def test_fields_after_the_first_member_are_members_and_members_carry_their_visibility():
    pieces = chunks("StockLoggerExtensions.cs")  # 6,927 chars: split
    head = pieces[0]
    # A field before the first other member stays in the head; one after it is a member of its own.
    assert (head.chunk_type, head.start_line, head.end_line) == ("cs_class", 1, 14)
    assert head.body.endswith("    private const int StockBaseId = 4100;\n")
    members = {(p.symbols[0].name, p.start_line): p for p in pieces if p.chunk_type == "cs_member"}
    field = members[("StockWrittenOffId", 18)]
    assert (field.end_line, field.symbols[0].kind) == (21, "field")
    assert field.body.startswith("    /// <summary>\n    ///     A pallet was written off")
    assert members[("NoArguments", 193)].end_line == 196
    assert "StockBaseId" not in {name for name, _ in members}
    # The public logging method and its private message builder of the same name.
    assert members[("StockWrittenOff", 53)].meta == {"visibility": "public"}
    assert members[("StockWrittenOff", 67)].meta == {"visibility": "private"}
    assert members[("MakeStockId", 15)].meta == {"visibility": "private"}
    text = (
        "namespace Shop;\n\npublic class Cart : ICart\n{\n    int _lead;\n\n"
        + "".join(f"    public int Item{i}() {{ return {i} * {i} + {i}; }}\n" for i in range(120))
        + "    void ICart.Clear() { }\n    private protected int Seen { get; }\n    decimal Total() => 0;\n"
        + "    internal const int A = 1, B = 2;\n    protected internal event EventHandler Changed;\n}\n"
        + "public interface ICart\n{\n    void Clear();\n}\n")
    pieces = chunk_csharp("Cart.cs", text)
    assert_invariants(pieces, text)
    seen = {p.symbols[0].name: (p.meta["visibility"], [s.name for s in p.symbols])
            for p in pieces if p.chunk_type == "cs_member" and not p.symbols[0].name.startswith("Item")}
    assert seen == {
        "Clear": ("public", ["Clear"]),  # an explicit interface implementation
        "Seen": ("private protected", ["Seen"]),
        "Total": ("private", ["Total"]),  # no modifier in a class: private
        "A": ("internal", ["A", "B"]),  # one declaration owns every name it declares
        "Changed": ("protected internal", ["Changed"]),
    }


def test_a_field_sharing_a_line_with_a_method_gives_way_and_recovered_members_read_their_modifiers():
    pad = "".join(f"    public int Pad{i}() {{ return {i} * {i} + {i} * 3; }}\n" for i in range(3))
    text = ("namespace N;\npublic class C\n{\n" + pad
            + "    private int _count; public int Count() { return _count * 2 + 1; }\n" + pad + "}\n")
    pieces = chunk_csharp("C.cs", text, ChunkOptions(type_max_chars=200))
    assert_invariants(pieces, text)
    line7 = [p for p in pieces if p.chunk_type == "cs_member" and p.start_line == 7]
    assert [([s.name for s in p.symbols], p.meta["visibility"]) for p in line7] == [(["Count"], "public")]
    # The grammar loses this class (see the test above): its members come from the brace scanner,
    # and their modifiers are read past attributes and before `(`, `=` or `{`.
    text = load("QuoteCacheKeyFactory.cs").replace(
        "    private readonly IQuoteConnection _connection;\n",
        "    private readonly IQuoteConnection _connection;\n    public int Count { get; private set; }\n"
        "    [Obsolete(\"use CreateKey\")]\n    public object Legacy(Expression q) => null;\n"
        "    [NonSerialized]\n    internal readonly int _hits;\n")
    pieces = chunk_csharp("QuoteCacheKeyFactory.cs", text, ChunkOptions(type_max_chars=800))
    assert_invariants(pieces, text)
    seen = {p.symbols[0].name: p.meta["visibility"] for p in pieces if p.chunk_type == "cs_member"}
    assert {k: seen[k] for k in ("Count", "Legacy", "_hits")} == {"Count": "public", "Legacy": "public",
                                                                 "_hits": "internal"}


def test_member_chunk_has_namespace_header_own_symbol_and_type_skeleton():
    pieces = chunks("StockLedger.cs")
    apply = next(p for p in pieces if p.chunk_type == "cs_member" and p.symbols[0].name == "Apply")
    assert (apply.start_line, apply.end_line) == (153, 171)
    assert apply.header == "// Warehouse.Inventory.StockLedger\n"
    assert apply.text.startswith("// Warehouse.Inventory.StockLedger\n    private void Apply(StockMovement movement)")
    assert apply.symbols[0].parent == "Warehouse.Inventory.StockLedger"
    assert (apply.symbols[0].start_line, apply.symbols[0].end_line) == (153, 171)
    assert apply.analysis_text.startswith(apply.text)
    assert "public sealed class StockLedger : IStockLedger, IDisposable" in apply.analysis_text
    doc = next(p for p in pieces if p.chunk_type == "cs_member" and p.symbols[0].name == "Receive")
    assert doc.body.startswith("    /// <summary>Books goods received from a supplier.</summary>")


def test_member_over_the_cap_splits_at_statements_with_signature_repeated():
    pieces = chunks("StockLedger.cs", SPLIT)
    parts = [p for p in pieces if p.chunk_type == "cs_member" and p.symbols[0].name == "Reconcile"]
    assert [(p.start_line, p.end_line, p.meta) for p in parts] == [
        (87, 118, {"visibility": "public", "part": 1, "parts": 2}),
        (119, 144, {"visibility": "public", "part": 2, "parts": 2}),
    ]
    assert parts[0].header == "// Warehouse.Inventory.StockLedger (part 1/2)\n"
    assert parts[1].header == (
        "// Warehouse.Inventory.StockLedger (part 2/2)\n"
        "    public ReconciliationReport Reconcile(IReadOnlyDictionary<string, int> counted, string countReference)\n"
        "    {\n"
    )
    # the cut falls before a statement (its comment riding along), not mid-statement
    assert parts[1].body.startswith("        // SKUs on the books that nobody counted")
    assert all(len(p.body) <= 1500 for p in parts)


def test_file_scoped_namespace_header():
    pieces = chunks("StockLedger.cs", SPLIT)
    full_parts = [p for p in pieces if p.chunk_type == "cs_class_full"]
    assert full_parts[1].header.endswith("namespace Warehouse.Inventory;\n")
    assert full_parts[1].header.startswith("using System;\n")


def test_top_level_statements_are_one_cs_file_chunk():
    pieces = chunks("Program.cs")
    assert kinds(pieces) == [("cs_file", 1, 17), ("cs_class", 18, 28)]
    assert [(s.name, s.kind) for s in pieces[0].symbols] == [("Describe", "function")]
    assert pieces[1].symbols[0].name == "StockImporter"


def test_a_file_of_usings_only_is_one_cs_file_chunk():
    assert kinds(chunks("GlobalUsings.cs")) == [("cs_file", 1, 4)]


def test_error_inside_a_method_keeps_the_method():
    text = load("PriceBook.cs")
    from tree_sitter_language_pack import get_parser

    assert get_parser("csharp").parse(text.encode()).root_node.has_error  # `values?[i] = newValue;`
    pieces = chunks("PriceBook.cs", ChunkOptions(type_max_chars=300))
    set_slot = next(p for p in pieces if p.chunk_type == "cs_member" and p.symbols[0].name == "SetSlot")
    # Its doc comment to its closing brace (lines 12-16); the blank line after it rides along
    # (a type over the cap even as an outline has no whole-type copy to cover it).
    assert (set_slot.start_line, set_slot.end_line) == (12, 17)
    assert (set_slot.symbols[0].start_line, set_slot.symbols[0].end_line) == (13, 16)
    assert "values?[i] = newValue;" in set_slot.text
    whole = chunks("PriceBook.cs")
    assert kinds(whole) == [("cs_class", 1, 29)]


def test_type_wrapper_lost_by_the_grammar_is_recovered_from_braces():
    text = load("QuoteCacheKeyFactory.cs")
    from tree_sitter_language_pack import get_parser

    root = get_parser("csharp").parse(text.encode()).root_node
    assert any(c.type == "ERROR" for c in root.children)  # the grammar split the class
    pieces = chunks("QuoteCacheKeyFactory.cs")
    assert kinds(pieces) == [("cs_class", 1, 48)]
    assert [(s.name, s.kind, s.start_line, s.end_line) for s in pieces[0].symbols] == [
        ("QuoteCacheKeyFactory", "class", 13, 48),
        ("_connection", "field", 15, 15),
        ("QuoteCacheKeyFactory", "constructor", 18, 22),
        ("CreateKey", "method", 25, 28),
        ("QuoteCacheKey", "struct", 30, 47),
    ]
    split = chunks("QuoteCacheKeyFactory.cs", ChunkOptions(type_max_chars=800))
    members = [(p.symbols[0].name, p.start_line, p.end_line) for p in split if p.chunk_type == "cs_member"]
    assert members == [("QuoteCacheKeyFactory", 17, 22), ("CreateKey", 24, 28), ("QuoteCacheKey", 30, 47)]


def test_every_member_chunk_carries_its_own_symbol():
    for name in ("StockLedger.cs", "QuoteCacheKeyFactory.cs", "PriceBook.cs"):
        for p in chunks(name, ChunkOptions(type_max_chars=600)):
            if p.chunk_type == "cs_member":
                assert p.symbols and p.symbols[0].start_line <= p.end_line, (name, p.start_line)


def test_output_is_deterministic():
    text = load("StockLedger.cs")
    a = [p.to_dict() for p in chunk_csharp("a.cs", text, SPLIT)]
    b = [p.to_dict() for p in chunk_csharp("a.cs", text, SPLIT)]
    assert a == b


def test_bad_input_never_raises_and_stays_lossless():
    for text in (
        "namespace A {\n class B {\n void M() {\n",  # unbalanced
        "class C { string s = \"unterminated; }\n}\n",
        "}}}}\n{{{\n",
        "class D { void M() { var x = \"" + "y" * 20000 + "\"; } }\n",  # one huge line
    ):
        pieces = chunk_csharp("bad.cs", text, SPLIT)
        assert_invariants(pieces, text)


FRAGMENTS = [load(n) for n in ("StockLedger.cs", "ShippingContracts.cs", "Program.cs", "PriceBook.cs")]


@settings(max_examples=60, deadline=None)
@given(
    source=st.sampled_from(FRAGMENTS),
    cuts=st.lists(st.tuples(st.integers(0, 7000), st.integers(0, 400)), max_size=4),
    noise=st.sampled_from(["", "{", "}", "\"", "/*", "'", "\n" + "x" * 5000 + "\n", "\r\n"]),
    cap=st.sampled_from([300, 1500, 6000]),
)
def test_property_mutated_sources_keep_invariants(source, cuts, noise, cap):
    text = source
    for at, length in cuts:
        at %= max(1, len(text))
        text = text[:at] + noise + text[at + length:]
    text = text.replace("\r\n", "\n")
    if not text.strip():
        return
    pieces = chunk_csharp("m.cs", text, ChunkOptions(type_max_chars=cap))
    assert pieces
    assert_invariants(pieces, text)
    assert max(p.end_line for p in pieces) == len(split_lines(text))


# ------------------------------------------------------------------ lazy parse ---
# The tree is first built without member bodies and `///` blocks (chunkers/csharp.py,
# _parse_lazily); its chunks must be exactly those of the whole parse.
LAZY_CASES = {
    # A doc comment that pushes a member over the cap: the member is split at its statements,
    # which needs its body, so the lazy tree is given up for the whole parse.
    "doc_pushes_over_cap.cs": (
        "namespace Shop;\n\npublic class Cart\n{\n"
        + "".join(f"    /// <summary>Line {i} of a long explanation of totals.</summary>\n" for i in range(12))
        + "    public decimal Total(decimal[] prices)\n    {\n        var sum = 0m;\n"
        + "        foreach (var p in prices)\n        {\n            sum += p;\n        }\n        return sum;\n    }\n"
        + "".join(f"\n    /// <summary>Gets item {i}.</summary>\n    public int Item{i}()\n    {{\n        return {i};\n    }}\n"
                  for i in range(20))
        + "}\n"),
    # Expression bodies (`=>` first on its line) are left out but their first character:
    # members', and a local function's inside a body too large to leave out.
    "expression_bodies.cs": (
        "namespace Shop;\n\npublic class Prices\n{\n"
        + "".join(f"    /// <summary>Price {i}.</summary>\n    public decimal Price{i}(decimal basePrice)\n"
                  f"        => Round(basePrice * {i}\n            + Tax(basePrice));\n\n" for i in range(15))
        + "    public decimal Long(decimal p)\n        => " + " + ".join(f"Tax(p * {i})" for i in range(200)) + ";\n\n"
        "    public decimal Total(decimal[] prices)\n    {\n"
        + "".join(f"        var sum{i} = Sum(prices, {i});\n" for i in range(300))
        + "        static decimal Sum(decimal[] ps, int k)\n            => ps.Length * k;\n"
        "        return sum0;\n    }\n}\n"),
    # A member whose doc comment pushes it over the cap (at 3,000) while its expression body
    # was left out: its split needs the expression, so the whole text is parsed.
    "arrow_member_over_cap.cs": (
        "namespace Shop;\n\npublic class Prices\n{\n"
        + "".join(f"    /// <summary>Line {i} of a long explanation of totals and more.</summary>\n" for i in range(30))
        + "    public decimal Long(decimal p)\n        => " + "\n            + ".join(f"Tax(p * {i})" for i in range(50))
        + ";\n\n" + "".join(f"    public int N{i}()\n        => Value{i};\n\n" for i in range(40)) + "}\n"),
    # Where an expression body is not left out, or the lazy tree is refused: a field's lambda
    # (not a member's body), `async` as an argument and a collection expression (the grammar
    # mis-parses both).
    "expression_bodies_refused.cs": (
        "namespace Shop;\n\npublic class Prices\n{\n"
        "    private static readonly Func<int, int> Twice\n        = x\n        => x * 2;\n\n"
        "    public string Name\n        => Describe(name, async: false);\n\n"
        "    public int Mode\n        => async ? 1 : 2;\n\n"
        "    public int[] Ids(int id)\n        => Pick([id]);\n}\n"),
    # Fields and doc comments only, over the cap: no bodies to leave out, only `///` blocks.
    "fields_only.cs": (
        "namespace Shop;\n\npublic class Limits\n{\n"
        + "".join(f"    /// <summary>The limit number {i}.</summary>\n    public const int Limit{i} = {i};\n\n"
                  for i in range(80))
        + "}\n"),
}


def _all_lazy_cases():
    for name in sorted(p.name for p in FIXTURES.glob("*.cs")):
        yield name, load(name)
    yield from LAZY_CASES.items()


def test_lazy_parse_gives_exactly_the_whole_parse_chunks():
    for name, text in _all_lazy_cases():
        for options in (ChunkOptions(), ChunkOptions(type_max_chars=3000), SPLIT, ChunkOptions(type_max_chars=300)):
            lazy = [p.to_dict() for p in chunk_csharp(name, text, options)]
            whole = [p.to_dict() for p in chunk_csharp(name, text, options, lazy=False)]
            assert lazy == whole, (name, options.type_max_chars)


def test_lazy_parse_is_taken_for_ordinary_members_and_refused_where_unsafe():
    from chunkers.csharp import _File, _parse_lazily

    text = load("StockLedger.cs")
    f = _File("StockLedger.cs", text, ChunkOptions())
    assert _parse_lazily(f, text.encode("utf-8"))
    assert f.skipped  # member bodies really were left out of the tree
    # A body holding a raw interpolated string the grammar mis-parses is never left out.
    risky = ('class R\n{\n    string M()\n    {\n        return $@"""\n  {x}\n  """;\n    }\n'
             '    int N()\n    {\n        return 1;\n    }\n}\n')
    g = _File("R.cs", risky, ChunkOptions())
    _parse_lazily(g, risky.encode("utf-8"))
    skipped_lines = {risky[:o].count("\n") + 1 for o, _, _ in g.skipped}
    assert 4 not in skipped_lines and 10 in skipped_lines
    assert [p.to_dict() for p in chunk_csharp("R.cs", risky)] == [p.to_dict() for p in chunk_csharp("R.cs", risky, lazy=False)]


def test_lazy_parse_leaves_out_member_expression_bodies():
    from chunkers.csharp import ARROW_FOLD, _File, _parse_lazily

    text = ("namespace Shop;\n\npublic class Prices\n{\n    public decimal Net(decimal gross)\n"
            "        => gross * (1 - Rate(gross));\n\n    public string Name\n        => Describe(\"name\");\n}\n")
    f = _File("P.cs", text, ChunkOptions())
    assert _parse_lazily(f, text.encode("utf-8"))
    arrows = sorted((a, b) for a, b, r in f.skipped if r == ARROW_FOLD)
    # Net's body is left out (and its fold spans the whole expression); Name's holds a string.
    assert [text[a:b] for a, b in arrows] == ["=> gross * (1 - Rate(gross))"]
    assert [p.to_dict() for p in chunk_csharp("P.cs", text, SPLIT)] == [
        p.to_dict() for p in chunk_csharp("P.cs", text, SPLIT, lazy=False)]
    # A field's lambda is no member's body: nothing folds it, so the lazy tree is not proven.
    field = ("public class Prices\n{\n    private static readonly Func<int, int> Twice\n        = x\n"
             "        => x * 2;\n\n    public int One()\n    {\n        return 1;\n    }\n}\n")
    g = _File("F.cs", field, ChunkOptions())
    assert not _parse_lazily(g, field.encode("utf-8"))
    assert g.arrow_ends  # it was left out, then refused
