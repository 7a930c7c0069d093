""".vue / .svelte: scripts chunked as TS/JS with lines mapped back to the
component file; template and style chunked too, so coverage stays 100%."""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest

from chunkers import ChunkOptions, chunk_file_result, chunker_name
from chunkers.components import _find_blocks, chunk_component
from chunkers.text import split_lines
from tests.invariants import assert_invariants

FIXTURES = Path(__file__).parent.parent / "fixtures" / "components"
ALL = sorted(p.name for p in FIXTURES.iterdir())


def read(name: str) -> str:
    return (FIXTURES / name).read_text()


def layout(pieces):
    return [(p.chunk_type, p.start_line, p.end_line, [s.name for s in p.symbols]) for p in pieces]


@pytest.mark.parametrize("name", ALL)
def test_every_fixture_keeps_the_invariants_directly_and_through_the_registry(name):
    text = read(name)
    pieces = chunk_component(name, text)
    assert pieces
    assert_invariants(pieces, text)
    result = chunk_file_result(name, text.encode())
    assert result.notes == ()
    assert_invariants(result.pieces, text)


def test_vue_setup_script_lines_map_back_to_the_component():
    text = read("TodoList.vue")
    lines = split_lines(text)
    pieces = chunk_component("TodoList.vue", text)
    assert layout(pieces) == [
        ("component_template", 1, 12, []),
        ("ts_function", 13, 20, ["Todo"]),
        ("ts_function", 21, 25, ["props", "items", "remaining"]),
        ("ts_function", 26, 31, ["toggle"]),  # the blank line after </script> rides it
        ("component_style", 32, 39, []),
    ]
    # the <script> tag line rides the first script chunk, </script> the last
    assert pieces[1].text.startswith('<script setup lang="ts">\nimport { computed, ref } from "vue";')
    assert pieces[3].text.endswith("}\n</script>\n")
    toggle = pieces[3].symbols[0]
    assert (toggle.start_line, toggle.end_line) == (27, 29)
    assert lines[toggle.start_line - 1] == "function toggle(item: Todo): void {"
    assert pieces[1].meta == {"block": "script", "lang": "typescript", "setup": True}


def test_vue_options_api_script_in_javascript():
    pieces = chunk_component("UserCard.vue", read("UserCard.vue"))
    assert layout(pieces) == [
        ("component_template", 1, 7, []),
        ("ts_function", 8, 23, ["default"]),
    ]
    assert pieces[1].meta["lang"] == "javascript"
    assert (pieces[1].symbols[0].start_line, pieces[1].symbols[0].end_line) == (11, 22)


def test_svelte_module_and_instance_scripts_markup_and_style():
    text = read("Counter.svelte")
    lines = split_lines(text)
    pieces = chunk_component("Counter.svelte", text)
    assert layout(pieces) == [
        ("ts_function", 1, 4, ["prerender"]),
        ("ts_function", 5, 10, ["start", "count", "dispatch"]),
        ("ts_function", 11, 16, ["increment"]),
        ("component_template", 17, 21, []),
        ("component_style", 22, 26, []),
    ]
    increment = pieces[2].symbols[0]
    assert lines[increment.start_line - 1].strip() == "function increment(step = 1) {"
    assert lines[increment.end_line - 1].strip() == "}"


@pytest.mark.parametrize("tree_sitter", [True, False])
def test_both_script_paths_map_the_same_lines(tree_sitter):
    options = ChunkOptions(ts_tree_sitter=tree_sitter, js_tree_sitter=tree_sitter)
    text = read("TodoList.vue")
    pieces = chunk_component("TodoList.vue", text, options)
    assert_invariants(pieces, text)
    assert [(p.start_line, p.end_line) for p in pieces] == [(1, 12), (13, 20), (21, 25), (26, 31), (32, 39)]


def test_a_src_only_script_falls_back_to_the_raw_component():
    text = read("ExternalWidget.vue")
    pieces = chunk_component("ExternalWidget.vue", text)
    assert [(p.chunk_type, p.start_line, p.end_line) for p in pieces] == [("plain", 1, 9)]
    assert pieces[0].text == text.rstrip("\n")


@pytest.mark.parametrize("text", ["", "\n\n", "   \n\t\n"])
def test_an_empty_component_yields_nothing(text):
    assert chunk_component("Empty.vue", text) == []
    assert chunk_file_result("Empty.vue", text.encode()).pieces == []


def test_a_large_template_is_cut_at_element_lines():
    rows = "\n".join(f'    <li class="row">Row {i} with some descriptive text</li>' for i in range(120))
    text = f"<template>\n  <ul>\n{rows}\n  </ul>\n</template>\n\n<script>\nexport const rows = 120;\n</script>\n"
    pieces = chunk_component("Rows.vue", text, ChunkOptions(type_max_chars=1500))
    assert_invariants(pieces, text)
    templates = [p for p in pieces if p.chunk_type == "component_template"]
    assert len(templates) > 3 and all(len(p.text) <= 1500 for p in templates)
    assert templates[0].meta["parts"] == len(templates)
    assert all(split_lines(text)[p.start_line - 1].lstrip().startswith("<") for p in templates)


def test_dispatch_is_by_extension():
    assert chunker_name("src/App.vue") == "components"
    assert chunker_name("src/routes/+page.svelte") == "components"


# The pattern blocks were found with before: a lazy scan from each opening tag to its closing one. It is the
# specification on small inputs; on a file of unclosed tags it cost the square of the file.
_SPEC = re.compile(r"""<(script|style)\b((?:"[^"]*"|'[^']*'|[^>"'])*)>(.*?)</\1\s*>""", re.S | re.I)
_SPEC_COMMENT = re.compile(r"<!--.*?-->", re.S)
_FRAGMENTS = ["<script", "<style", "<SCRIPT", ">", '"', "'", " ", "x", "setup", "</script>", "</style >", "</SCRIPT\n>",
              "</styles>", "<scripts", "<!--", "-->", "\n", "<", "lang=\"ts\"", "</script", "-"]


def test_blocks_are_the_ones_the_lazy_pattern_finds_on_any_mix_of_tags_quotes_and_comments():
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice(_FRAGMENTS) for _ in range(rng.randint(0, 40)))
        searchable = _SPEC_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
        want = [(m.group(1).lower(), m.start(), m.group(2), m.start(3), m.end(3), m.end())
                for m in _SPEC.finditer(searchable)]
        assert _find_blocks(text) == want, text


@pytest.mark.parametrize("unit", ["<script>", "<style>", "<!--", '<script "'])
def test_a_file_of_unclosed_tags_is_read_in_linear_time(unit):
    # 160 KB of `x <script>`: 11 CPU s before (each tag's lazy scan ran to the end of the file), 0.03 s now; the
    # bound is generous, as the redactor's worst cases' are.
    text = ("x " + unit) * 16_000
    start = time.process_time()
    pieces = chunk_file_result("App.vue", text.encode()).pieces
    assert time.process_time() - start < 1.5
    assert pieces and {p.chunk_type for p in pieces} == {"component_template"}
