"""The generic tree-sitter chunker: one engine, a node-type table per language."""

from pathlib import Path

import pytest
from tree_sitter_language_pack import get_language

from chunkers.model import ChunkOptions
from chunkers.registry import TEXT_CHUNKERS, chunk_file_result
from chunkers.text import split_lines
from chunkers.treesitter import TABLES, chunk_treesitter
from tests.invariants import assert_invariants

FIXTURES = Path(__file__).parent.parent / "fixtures" / "treesitter"

# (name, kind, parent, start_line, end_line), in order of first appearance.
EXPECTED_SYMBOLS = {
    "InvoiceRepository.kt": [
        ("Invoice", "class", "com.acme.billing", 6, 6),
        ("InvoiceSource", "class", "com.acme.billing", 8, 10),
        ("load", "method", "com.acme.billing.InvoiceSource", 9, 9),
        ("InvoiceRepository", "class", "com.acme.billing", 12, 24),
        ("overdue", "method", "com.acme.billing.InvoiceRepository", 16, 20),
        ("total", "method", "com.acme.billing.InvoiceRepository", 22, 23),
        ("BillingClock", "object", "com.acme.billing", 26, 28),
        ("today", "method", "com.acme.billing.BillingClock", 27, 27),
        ("formatAmount", "function", "com.acme.billing", 30, 32),
    ],
    "OrderService.java": [
        ("OrderService", "class", "com.acme.orders", 10, 36),
        ("OrderService", "constructor", "com.acme.orders.OrderService", 14, 16),
        ("total", "method", "com.acme.orders.OrderService", 19, 26),
        ("book", "method", "com.acme.orders.OrderService", 28, 33),
        ("Status", "enum", "com.acme.orders.OrderService", 35, 35),
        ("TaxPolicy", "interface", "com.acme.orders", 38, 40),
        ("apply", "method", "com.acme.orders.TaxPolicy", 39, 39),
    ],
    "SessionStore.swift": [
        ("SessionStoring", "protocol", "", 4, 6),
        ("session", "method", "SessionStoring", 5, 5),
        ("Session", "struct", "", 8, 12),
        ("SessionStore", "class", "", 14, 29),
        ("init", "constructor", "SessionStore", 17, 17),
        ("session", "method", "SessionStore", 19, 24),
        ("store", "method", "SessionStore", 26, 28),
        ("SessionError", "enum", "", 31, 34),
        ("makeToken", "function", "", 36, 38),
    ],
    "UserController.php": [
        ("UserController", "class", "App.Http.Controllers", 11, 30),
        ("index", "method", "App.Http.Controllers.UserController", 15, 22),
        ("update", "method", "App.Http.Controllers.UserController", 24, 29),
        ("Auditable", "interface", "App.Http.Controllers", 32, 35),
        ("auditTrail", "method", "App.Http.Controllers.Auditable", 34, 34),
        ("user_display_name", "function", "App.Http.Controllers", 37, 40),
    ],
    "WordCount.scala": [
        ("Tokenizer", "trait", "com.acme.analytics", 6, 8),
        ("tokens", "method", "com.acme.analytics.Tokenizer", 7, 7),
        ("Count", "class", "com.acme.analytics", 10, 10),
        ("WordCount", "class", "com.acme.analytics", 12, 23),
        ("add", "method", "com.acme.analytics.WordCount", 15, 19),
        ("top", "method", "com.acme.analytics.WordCount", 21, 22),
        ("WordCount", "object", "com.acme.analytics", 25, 27),
        ("simple", "method", "com.acme.analytics.WordCount", 26, 26),
    ],
    "cache.rs": [
        ("LruCache", "struct", "", 9, 13),
        ("Eviction", "enum", "", 15, 18),
        ("LruCache", "impl", "", 20, 38),
        ("new", "method", "LruCache", 22, 25),
        ("get", "method", "LruCache", 27, 37),
        ("Resolver", "trait", "", 40, 42),
        ("resolve", "method", "Resolver", 41, 41),
        ("hit_ratio", "function", "", 44, 49),
    ],
    "geometry.cpp": [
        ("geo", "namespace", "", 4, 40),
        ("Point", "struct", "geo", 7, 10),
        ("Polygon", "class", "geo", 12, 29),
        ("Polygon", "method", "geo.Polygon", 14, 14),
        ("area", "method", "geo.Polygon", 17, 25),
        ("clamp", "function", "geo", 31, 34),
        ("distance", "function", "geo", 36, 38),
    ],
    "ratelimit.go": [
        ("Bucket", "type", "ratelimit", 12, 18),
        ("Limiter", "type", "ratelimit", 20, 22),
        ("NewBucket", "function", "ratelimit", 25, 30),
        ("Allow", "method", "ratelimit.Bucket", 33, 47),
    ],
    "ringbuf.c": [
        ("ringbuf", "struct", "", 7, 11),
        ("rb_next", "function", "", 13, 16),
        ("rb_put", "function", "", 19, 28),
        ("rb_get", "function", "", 30, 38),
    ],
    "shipping.rb": [
        ("Shipping", "module", "", 5, 24),
        ("RateCalculator", "class", "Shipping", 7, 23),
        ("initialize", "method", "Shipping.RateCalculator", 10, 12),
        ("quote", "method", "Shipping.RateCalculator", 15, 18),
        ("from_json", "method", "Shipping.RateCalculator", 20, 22),
        ("format_quote", "function", "", 26, 28),
    ],
}


def symbol_rows(pieces):
    rows = []
    for p in pieces:
        for s in p.symbols:
            row = (s.name, s.kind, s.parent, s.start_line, s.end_line)
            if row not in rows:
                rows.append(row)
    return rows


def test_every_table_grammar_loads_and_names_only_node_types_it_has():
    for ext, table in TABLES.items():
        language = get_language(table.grammar)
        unknown = [t for t in sorted(table.node_types()) if language.id_for_node_kind(t, True) is None]
        assert not unknown, f"{ext} ({table.grammar}): {unknown}"
        for fname in (*table.name_fields, table.body_field, table.kind_field, table.receiver_field):
            assert not fname or language.field_id_for_name(fname) is not None, (ext, fname)


def test_every_extension_the_registry_routes_here_has_a_table_and_a_fixture_language():
    routed = {ext for ext, target in TEXT_CHUNKERS.items() if target == "treesitter:chunk_treesitter"}
    assert routed == set(TABLES)
    fixture_grammars = {TABLES[Path(name).suffix].grammar for name in EXPECTED_SYMBOLS}
    assert fixture_grammars == {"java", "go", "rust", "kotlin", "php", "ruby", "c", "cpp", "swift", "scala"}


@pytest.mark.parametrize("name", sorted(EXPECTED_SYMBOLS))
def test_fixture_symbols_have_exact_lines_and_chunks_partition_the_file(name):
    data = (FIXTURES / name).read_bytes()
    text = data.decode()
    pieces = chunk_treesitter(f"src/{name}", text, ChunkOptions())
    assert symbol_rows(pieces) == EXPECTED_SYMBOLS[name]
    assert all(p.chunk_type == "code_block" for p in pieces)
    # Small units: one chunk each, back to back, covering every line exactly once.
    assert pieces[0].start_line == 1 and pieces[-1].end_line == len(split_lines(text))
    assert all(a.end_line + 1 == b.start_line for a, b in zip(pieces, pieces[1:]))
    assert_invariants(pieces, data)
    result = chunk_file_result(f"src/{name}", data)
    assert result.notes == ()  # no silent plain fallback
    assert [p.to_dict() for p in result.pieces] == [p.to_dict() for p in pieces]


def test_leading_comments_attributes_and_imports_ride_the_next_unit():
    text = (FIXTURES / "cache.rs").read_text()
    pieces = chunk_treesitter("src/cache.rs", text, ChunkOptions())
    first = pieces[0]
    # `use` lines, the doc comment and `#[derive]` ride the struct they precede.
    assert (first.start_line, first.end_line) == (1, 13)
    assert first.text.splitlines()[7] == "#[derive(Debug, Clone)]"


def test_closing_namespace_brace_rides_the_last_unit():
    text = (FIXTURES / "geometry.cpp").read_text()
    last = chunk_treesitter("src/geometry.cpp", text, ChunkOptions())[-1]
    assert (last.start_line, last.end_line) == (35, 40)
    assert last.text.endswith("}  // namespace geo")


def test_skeleton_folds_bodies_and_keeps_signatures_and_comments():
    text = (FIXTURES / "ratelimit.go").read_text()
    pieces = chunk_treesitter("ratelimit/ratelimit.go", text, ChunkOptions())
    allow = next(p for p in pieces if any(s.name == "Allow" for s in p.symbols))
    assert allow.skeleton == "// Allow takes one token if one is available.\nfunc (b *Bucket) Allow() bool { … }"
    ruby = chunk_treesitter("lib/shipping.rb", (FIXTURES / "shipping.rb").read_text(), ChunkOptions())
    assert "    def quote(weight_kg, zone)\n      …\n    end" in ruby[0].skeleton
    assert "BASE_RATE = 4.5" in ruby[0].skeleton


def test_large_type_becomes_header_members_and_full_chunks():
    text = (FIXTURES / "OrderService.java").read_text()
    lines = split_lines(text)
    pieces = chunk_treesitter("src/OrderService.java", text, ChunkOptions(type_max_chars=500))
    shape = [(p.chunk_type, p.meta.get("role", ""), p.start_line, p.end_line) for p in pieces]
    assert shape[0] == ("code_block", "", 1, 5)                 # package + imports
    assert shape[1] == ("code_block", "header", 6, 12)          # javadoc, class line, fields
    members = [p for p in pieces if p.meta.get("role") == "member"]
    assert [(p.start_line, p.end_line) for p in members] == [(13, 16), (17, 26), (27, 33), (34, 35)]
    assert all("part" not in p.meta for p in members)
    full = [p for p in pieces if p.meta.get("role") == "full"]
    # the whole type too, in parts of at most type_max_chars at member boundaries
    assert [(p.chunk_type, p.start_line, p.end_line) for p in full] == [
        ("code_block_full", 6, 16), ("code_block_full", 17, 26), ("code_block_full", 27, 36)]
    assert [p.meta["part"] for p in full] == [1, 2, 3] and all(len(p.text) <= 500 + 80 for p in full)
    header = pieces[1]
    assert header.text == "\n".join(lines[5:12])
    assert "public BigDecimal total(Order order) { … }" in header.analysis_text
    assert [s.name for s in header.symbols] == ["OrderService", "OrderService", "total", "book", "Status"]
    for member in members:
        assert member.header == "// com.acme.orders.OrderService\n"
        assert member.text == member.header + "\n".join(lines[member.start_line - 1:member.end_line])
        own = [s for s in member.symbols if s.parent == "com.acme.orders.OrderService"]
        assert len(own) == 1 and member.start_line <= own[0].start_line <= own[0].end_line <= member.end_line
        assert header.skeleton in member.analysis_text
    assert_invariants(pieces, text)


def test_oversized_function_splits_at_statements_with_header_and_signature_on_each_part():
    body = "\n".join(f"\tif v := cfg.Get(\"key{i}\"); v != \"\" {{\n\t\tout[\"key{i}\"] = v\n\t}}" for i in range(60))
    text = f"package config\n\nfunc Load(cfg Source) map[string]string {{\n\tout := map[string]string{{}}\n{body}\n\treturn out\n}}\n"
    lines = split_lines(text)
    chunks = chunk_treesitter("config/load.go", text, ChunkOptions(type_max_chars=1000))
    # Too big to carry the package clause along: that line is a chunk of its own.
    assert [(p.start_line, p.end_line) for p in chunks[:1]] == [(1, 1)]
    pieces = chunks[1:]
    n = len(pieces)
    assert n >= 3
    assert [p.meta["part"] for p in pieces] == list(range(1, n + 1))
    assert all(p.meta["parts"] == n and len(p.body) <= 1000 for p in pieces)
    assert pieces[0].header == f"// config.Load (part 1/{n})\n"
    assert pieces[1].header == f"// config.Load (part 2/{n})\nfunc Load(cfg Source) map[string]string {{\n"
    # Cuts fall on statement boundaries: every later part starts with an `if` or `return`.
    assert all(lines[p.start_line - 1].lstrip().startswith(("if ", "return")) for p in pieces[1:])
    assert all(p.symbols[0].name == "Load" for p in pieces)
    assert_invariants(chunks, text)


@pytest.mark.parametrize("bad, good", [
    ("orders.add(order);", "orders.add(order;"),                                  # error inside a method
    ("public void book(Order order) {", "public void book(Order order) {{"),     # unbalanced brace
])
def test_syntax_errors_degrade_per_region(bad, good):
    broken = (FIXTURES / "OrderService.java").read_text().replace(bad, good)
    pieces = chunk_treesitter("src/OrderService.java", broken, ChunkOptions())
    rows = {(name, start) for name, _, _, start, _ in symbol_rows(pieces)}
    assert {("total", 19), ("book", 28), ("TaxPolicy", 38), ("apply", 39)} <= rows
    assert_invariants(pieces, broken)


def test_unbalanced_braces_and_a_huge_line_never_lose_lines():
    text = "fn main() {\n    let x = {{{;\n" + "a" * 20000 + "\n}\n}\n}\nfn tail() {}\n"
    pieces = chunk_treesitter("src/main.rs", text, ChunkOptions())
    assert_invariants(pieces, text)
    assert all(len(p.body) <= 6000 for p in pieces)


def test_output_is_deterministic():
    text = (FIXTURES / "UserController.php").read_text()
    options = ChunkOptions(type_max_chars=300)
    first = [p.to_dict() for p in chunk_treesitter("app/UserController.php", text, options)]
    assert first == [p.to_dict() for p in chunk_treesitter("app/UserController.php", text, options)]
