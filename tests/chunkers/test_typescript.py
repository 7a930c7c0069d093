"""TypeScript / JavaScript chunking: declaration boundaries on both paths,
large classes split per member on the tree-sitter path, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkers import ChunkOptions, chunk_file, chunk_file_result, chunker_name
from chunkers.typescript import chunk_typescript
from tests.invariants import assert_invariants

FIXTURES = Path(__file__).parent.parent / "fixtures" / "typescript"
ALL = sorted(p.name for p in FIXTURES.iterdir())
TREE = ChunkOptions(ts_tree_sitter=True, js_tree_sitter=True)
BRACE = ChunkOptions(ts_tree_sitter=False, js_tree_sitter=False)
PATHS = pytest.mark.parametrize("options", [TREE, BRACE], ids=["tree-sitter", "brace"])


def read(name: str) -> str:
    return (FIXTURES / name).read_text()


def layout(pieces):
    return [(p.chunk_type, p.start_line, p.end_line, [s.name for s in p.symbols]) for p in pieces]


@PATHS
@pytest.mark.parametrize("name", ALL)
def test_every_fixture_keeps_the_invariants_directly_and_through_the_registry(name, options):
    text = read(name)
    pieces = chunk_typescript(name, text, options)
    assert pieces
    assert_invariants(pieces, text)
    result = chunk_file_result(name, text.encode(), options)
    assert result.notes == ()  # no silent plain fallback
    assert_invariants(result.pieces, text)


@PATHS
def test_declarations_are_the_boundaries_and_imports_ride_the_first(options):
    pieces = chunk_typescript("order_service.ts", read("order_service.ts"), options)
    assert layout(pieces) == [
        ("ts_function", 1, 10, ["OrderStatus"]),  # the three imports ride the first declaration
        ("ts_function", 11, 16, ["Order"]),
        # short bindings say little alone: consecutive ones share a chunk
        ("ts_function", 17, 22, ["OrderLine", "EMPTY_BODY", "ROUTE"]),
        ("ts_function", 23, 25, ["totalQuantity"]),
        ("ts_function", 26, 30, ["describe"]),
        # the decorator rides its class, the trailing top-level call rides it too
        ("ts_function", 31, 43, ["OrderService"]),
    ]
    assert pieces[0].text.startswith('import { Injectable } from "@angular/core";')
    kinds = {s.name: s.kind for p in pieces for s in p.symbols}
    assert kinds == {"OrderStatus": "enum", "Order": "interface", "OrderLine": "type", "EMPTY_BODY": "variable",
                     "ROUTE": "variable", "totalQuantity": "function", "describe": "function", "OrderService": "class"}
    describe = next(s for p in pieces for s in p.symbols if s.name == "describe")
    assert (describe.start_line, describe.end_line) == (27, 30)


def test_braces_in_strings_templates_and_regexes_do_not_move_a_boundary():
    text = read("order_service.ts")
    assert layout(chunk_typescript("a.ts", text, BRACE)) == layout(chunk_typescript("a.ts", text, TREE))


@PATHS
def test_a_js_file_that_writes_a_script_tag_is_javascript(options):
    # Regression: a chunker that looked for "<script" in the content produced zero chunks here.
    assert chunker_name("static/loader.js") == "typescript"
    text = read("loader.js")
    pieces = chunk_file("static/loader.js", text.encode(), options)
    assert layout(pieces) == [
        ("ts_function", 1, 2, ["SNIPPET_URL"]),
        ("ts_function", 3, 9, ["injectScript"]),
        ("ts_function", 10, 16, ["loaderTemplate"]),
        ("ts_function", 17, 24, ["boot"]),
    ]


@PATHS
def test_commonjs_requires_ride_the_first_chunk_and_assignments_are_declarations(options):
    pieces = chunk_typescript("legacy_store.cjs", read("legacy_store.cjs"), options)
    assert layout(pieces) == [
        ("ts_function", 1, 9, ["Store"]),
        ("ts_function", 10, 16, ["Store.prototype.read"]),
        ("ts_function", 17, 20, ["Store.prototype.clear"]),
        ("ts_function", 21, 22, ["module.exports"]),
    ]


@PATHS
def test_jsx_text_with_apostrophes_and_brace_strings(options):
    pieces = chunk_typescript("dashboard.tsx", read("dashboard.tsx"), options)
    assert layout(pieces) == [
        ("ts_function", 1, 3, ["Props"]),
        ("ts_function", 4, 16, ["Dashboard"]),
        ("ts_function", 17, 18, ["default"]),
    ]


@PATHS
def test_top_level_code_rides_the_declaration_before_it(options):
    pieces = chunk_typescript("bootstrap.js", read("bootstrap.js"), options)
    assert layout(pieces) == [("ts_function", 1, 11, ["app"])]


@PATHS
def test_a_file_without_declarations_is_one_ts_file_chunk(options):
    pieces = chunk_typescript("script_only.js", read("script_only.js"), options)
    assert layout(pieces) == [("ts_file", 1, 5, [])]


@PATHS
def test_unbalanced_braces_and_unterminated_strings_coarsen_but_never_crash(options):
    text = read("broken.ts")
    pieces = chunk_typescript("broken.ts", text, options)
    assert_invariants(pieces, text)
    assert pieces[0].start_line == 1 and pieces[-1].end_line == 12
    assert "unbalanced" in [s.name for p in pieces for s in p.symbols]


def test_large_class_becomes_header_members_and_full_on_the_tree_sitter_path():
    text = read("cart_store.ts")
    pieces = chunk_typescript("cart_store.ts", text, ChunkOptions(type_max_chars=1200))
    assert_invariants(pieces, text)
    assert [(p.chunk_type, p.start_line, p.end_line) for p in pieces] == [
        ("ts_function", 1, 7),
        ("ts_class", 8, 18),
        ("ts_function", 19, 28), ("ts_function", 29, 37), ("ts_function", 38, 47), ("ts_function", 48, 55),
        ("ts_function", 56, 63), ("ts_function", 64, 71), ("ts_function", 72, 79), ("ts_function", 80, 84),
        ("ts_class_full", 9, 37), ("ts_class_full", 38, 71), ("ts_class_full", 72, 84),
        ("ts_function", 85, 86),
    ]
    header = pieces[1]
    member_names = ["constructor", "size", "add", "remove", "applyDiscount", "onStorage", "total", "persist"]
    assert [s.name for s in header.symbols] == ["CartStore", *member_names]
    assert "  get size(): number { … }" in header.skeleton
    assert header.analysis_text.endswith(header.skeleton)
    members = pieces[2:10]
    # every member chunk carries its own symbol, with exact lines
    assert [(m.symbols[0].name, m.symbols[0].kind, m.symbols[0].parent) for m in members] == [
        ("constructor", "constructor", "CartStore"), ("size", "getter", "CartStore"), ("add", "method", "CartStore"),
        ("remove", "method", "CartStore"), ("applyDiscount", "method", "CartStore"),
        ("onStorage", "method", "CartStore"), ("total", "method", "CartStore"), ("persist", "method", "CartStore")]
    assert all(len(m.symbols) == 1 for m in members)
    # TypeScript's default is public; `private persist()` says so (search's private-twin rule reads it).
    assert [m.meta.get("visibility") for m in members] == ["public"] * 7 + ["private"]
    assert all("visibility" not in p.meta for p in pieces if p.chunk_type != "ts_function" or p not in members)
    add = members[2]
    assert (add.symbols[0].start_line, add.symbols[0].end_line) == (38, 46)
    assert add.text.startswith("// CartStore\n  add(product: Product, quantity = 1): void {")
    assert add.analysis_text.startswith("// CartStore\n@Persisted(\"cart\")\nexport class CartStore extends EventEmitter {")
    assert add.analysis_text.endswith(add.body)
    full = pieces[10:13]
    assert [p.meta for p in full] == [{"part": 1, "parts": 3}, {"part": 2, "parts": 3}, {"part": 3, "parts": 3}]
    assert full[1].header == "// CartStore (part 2/3)\n// export class CartStore extends EventEmitter {\n"


def test_member_visibility_reads_modifiers_and_hash_names_and_rides_every_part():
    body = "\n".join(f"    total += {i};" for i in range(40))
    ts = ("export class Meter {\n"
          "  protected reset(): void {\n    this.n = 0;\n  }\n"
          "  public static of(): Meter {\n    return new Meter();\n  }\n"
          f"  private render(): number {{\n    let total = 0;\n{body}\n    return total;\n  }}\n"
          "  draw(): number {\n    return this.render();\n  }\n"
          "}\n")
    pieces = chunk_typescript("meter.ts", ts, ChunkOptions(type_max_chars=600))
    assert_invariants(pieces, ts)
    members = [p for p in pieces if p.chunk_type == "ts_function"]
    seen = [(p.symbols[0].name, p.meta.get("part"), p.meta["visibility"]) for p in members]
    assert [s for s in seen if s[0] != "render"] == [
        ("reset", None, "protected"), ("of", None, "public"), ("draw", None, "public")]
    # `render` is over the cap: every part says private.
    assert [s for s in seen if s[0] == "render"] == [("render", k, "private") for k in (1, 2, 3)]
    js = ("class Meter {\n  #render() {\n    return 1;\n  }\n"
          + "".join(f"  m{i}() {{\n    return {i};\n  }}\n" for i in range(30)) + "}\n")
    pieces = chunk_typescript("meter.js", js, ChunkOptions(type_max_chars=300))
    assert_invariants(pieces, js)
    members = {p.symbols[0].name: p.meta["visibility"] for p in pieces if p.chunk_type == "ts_function"}
    assert members["#render"] == "private" and members["m0"] == "public" and len(members) == 31


def test_large_class_on_the_brace_path_is_cut_into_parts():
    text = read("cart_store.ts")
    pieces = chunk_typescript("cart_store.ts", text, ChunkOptions(type_max_chars=1200, ts_tree_sitter=False))
    assert_invariants(pieces, text)
    parts = [p for p in pieces if p.meta.get("parts")]
    assert [(p.start_line, p.end_line, p.meta["part"]) for p in parts] == [(8, 37, 1), (38, 71, 2), (72, 84, 3)]
    assert all(len(p.body) <= 1200 for p in parts)
    assert all([s.name for s in p.symbols] == ["CartStore"] for p in parts)


def test_the_path_flags_are_per_language():
    text = read("cart_store.ts")
    small = dict(type_max_chars=1200)
    ts_off = chunk_typescript("cart_store.ts", text, ChunkOptions(ts_tree_sitter=False, **small))
    js_off = chunk_typescript("cart_store.ts", text, ChunkOptions(js_tree_sitter=False, **small))
    assert "ts_class" not in {p.chunk_type for p in ts_off}
    assert "ts_class" in {p.chunk_type for p in js_off}


@PATHS
def test_an_over_long_single_line_is_sliced_not_truncated(options):
    text = "export const DATA = [" + ",".join(str(i) for i in range(4000)) + "];\n"
    pieces = chunk_typescript("data.ts", text, options)
    assert_invariants(pieces, text)
    assert "".join(p.body for p in pieces) == text.rstrip("\n")


# ---------------------------------------------------------------- property test

SOURCES = [read(n) for n in ALL]
NOISE = st.sampled_from(["{", "}", "(", ")", "'", '"', "`", "${", "/*", "*/", "//", "/", "\r\n", "\n",
                         "<script>", "x" * 5000, "class A {", "export function f() {", "\\"])


@st.composite
def mutated_source(draw):
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(0, 6))):
        at = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            text = text[:at] + draw(NOISE) + text[at:]
        else:
            text = text[:at]
    return text


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=mutated_source(), tree_sitter=st.booleans(), cap=st.sampled_from([300, 1200, 6000]))
def test_mutated_sources_stay_lossless_and_exact(source, tree_sitter, cap):
    data = source.encode()
    options = ChunkOptions(ts_tree_sitter=tree_sitter, js_tree_sitter=tree_sitter, type_max_chars=cap)
    pieces = chunk_file("m.ts", data, options)
    assert_invariants(pieces, data)
    direct = chunk_typescript("m.js", source.replace("\r\n", "\n"), options)
    if source.strip():
        assert_invariants(direct, source.replace("\r\n", "\n"))
