"""Chunker switches as settings: ChunkOptions.parse (LEDGER_CHUNK_OPTIONS) and the re-chunk key.

The key must name every option that can change a file's chunks (else a changed setting would leave
stale chunks), and only those (else a change would re-chunk files it cannot affect). The property is
checked on every small fixture file: each option perturbed, the chunks compared with the defaults'.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import pytest

from chunkers import CHUNKER_VERSION, DEFAULT_OPTIONS, ChunkOptions, chunk_file_result, options_key, rechunk_key

FIXTURES = Path(__file__).parent.parent / "fixtures"
FILES = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.stat().st_size < 60_000
               and not {"secrets", "bad"} & set(p.relative_to(FIXTURES).parts))
# A value for each option far enough from the default to change a chunker that reads it.
PERTURBED = {"type_max_chars": 300, "chunk_max_symbols": 2, "skeleton_max_chars": 80,
             "member_context_chars": 40, "md_section_max_chars": 120, "md_max_sections": 2, "config_max_chars": 150,
             "code_max_chunks": 3,
             "plain_max_chars": 250, "plain_overlap_chars": 40, "pdf_group_chars": 300,
             "split_sql_tables": False, "ts_tree_sitter": False, "js_tree_sitter": False}


def shape(path: Path, options: ChunkOptions) -> list[tuple]:
    if options == DEFAULT_OPTIONS:
        return default_shape(path)
    rel = path.relative_to(FIXTURES).as_posix()
    return [(p.start_line, p.end_line, p.chunk_type, p.text, p.analysis_text, p.skeleton,
             tuple(s.name for s in p.symbols)) for p in chunk_file_result(rel, path.read_bytes(), options).pieces]


@lru_cache(maxsize=None)
def default_shape(path: Path) -> list[tuple]:
    rel = path.relative_to(FIXTURES).as_posix()
    return [(p.start_line, p.end_line, p.chunk_type, p.text, p.analysis_text, p.skeleton,
             tuple(s.name for s in p.symbols)) for p in chunk_file_result(rel, path.read_bytes()).pieces]


def test_every_option_is_perturbed():
    assert set(PERTURBED) | {"pdf_timeout_s"} == {f for f in DEFAULT_OPTIONS.__dataclass_fields__}


# Options read only for types over type_max_chars: perturbed over a small type_max_chars.
SMALL_TYPES = {"member_context_chars"}


@pytest.mark.parametrize("option", sorted(PERTURBED))
def test_an_option_that_changes_a_files_chunks_changes_its_key(option):
    base = replace(DEFAULT_OPTIONS, type_max_chars=300) if option in SMALL_TYPES else DEFAULT_OPTIONS
    options = replace(base, **{option: PERTURBED[option]})
    changed, keyed = [], []
    for path in FILES:
        rel = path.relative_to(FIXTURES).as_posix()
        if options_key(rel, options) != options_key(rel, base):
            keyed.append(rel)
        if shape(path, options) != shape(path, base):
            changed.append(rel)
    missed = sorted(set(changed) - set(keyed))
    assert not missed, f"{option} changes the chunks of {missed} but not their re-chunk key"
    # Not vacuous: each perturbation changes some fixture (pdf_group_chars: no small PDF here).
    assert changed or option == "pdf_group_chars", f"{option}={PERTURBED[option]} changed no fixture's chunks"


def test_defaults_keep_the_chunker_version_and_a_change_keys_only_its_readers():
    assert rechunk_key("src/a.cs") == CHUNKER_VERSION
    no_split = ChunkOptions.parse("split_sql_tables=false")
    assert rechunk_key("db/a.sql", no_split).startswith(CHUNKER_VERSION + "+")
    assert rechunk_key("src/a.cs", no_split) == rechunk_key("docs/a.md", no_split) == CHUNKER_VERSION
    ts_off = ChunkOptions.parse("ts_tree_sitter=off")
    assert rechunk_key("a.ts", ts_off) != CHUNKER_VERSION and rechunk_key("a.js", ts_off) == CHUNKER_VERSION


@pytest.mark.parametrize("text, message", [
    ("split_sql_tables=maybe", "not a bool"),
    ("type_max_chars=big", "not a int"),
    ("type_max_chars=0", "must be positive"),
    ("nope=1", "expected name=value"),
    ("type_max_chars", "expected name=value"),
])
def test_parse_names_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        ChunkOptions.parse(text)


def test_parse_reads_types_and_ignores_blanks():
    o = ChunkOptions.parse(" type_max_chars=8000, split_sql_tables=no ,, pdf_timeout_s=5")
    assert (o.type_max_chars, o.split_sql_tables, o.pdf_timeout_s) == (8000, False, 5.0)
    assert o.changed() == {"type_max_chars": 8000, "split_sql_tables": False, "pdf_timeout_s": 5.0}
    assert ChunkOptions.parse("") == DEFAULT_OPTIONS
