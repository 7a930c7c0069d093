"""Dispatch and decoding: the lowercased extension picks the chunker, never the
content; decoding keeps every line number exact; bad bytes give a reason, not
an exception."""

import importlib
import re
from pathlib import Path

import pytest

from chunkers import registry
from chunkers.registry import chunk_file, chunk_file_result, chunker_name, extension_of
from tests.invariants import assert_invariants

PYTHON_SOURCE = b'import os\n\n\ndef home():\n    return os.environ["HOME"]\n'


@pytest.mark.parametrize("path, chunker", [
    ("README.MD", "markdown"),
    ("docs/Guide.Markdown", "markdown"),
    ("src/Service.CS", "csharp"),
    ("tools/build.PY", "python_code"),
    ("app/.env.local", "config"),
    (".env", "config"),
    ("web/Index.Razor", "razor"),
    ("schema/001_init.SQL", "sql"),
    ("lib/cache.RS", "treesitter"),
    ("notes.txt", "plain"),
    ("Makefile", "plain"),
])
def test_dispatch_is_by_lowercased_extension(path, chunker):
    assert chunker_name(path) == chunker


def test_env_files_share_the_env_extension():
    assert extension_of("deploy/.env.production") == ".env"
    assert extension_of("deploy/app.env") == ".env"
    assert extension_of("archive.tar.GZ") == ".gz"


def test_content_never_changes_the_chunker():
    # Python source in a .txt file is text; a .py file whose content looks like
    # markdown is still parsed as Python.
    pieces = chunk_file("snippet.txt", PYTHON_SOURCE)
    assert [p.chunk_type for p in pieces] == ["plain"]
    result = chunk_file_result("odd.py", b"# Title\n\nSome *markdown* prose.\n")
    assert result.pieces and all(p.chunk_type != "md_section" for p in result.pieces)


def test_unknown_extension_falls_back_to_plain_without_a_note():
    result = chunk_file_result("data/records.xyz", b"alpha\nbeta\ngamma\n")
    assert [(p.chunk_type, p.start_line, p.end_line, p.text) for p in result.pieces] == [
        ("plain", 1, 3, "alpha\nbeta\ngamma")]
    assert result.notes == () and result.skip_reason == ""


def test_bom_is_stripped():
    pieces = chunk_file("tools/home.py", b"\xef\xbb\xbf" + PYTHON_SOURCE)
    assert pieces[0].text.startswith("import os")
    assert all("\ufeff" not in p.text for p in pieces)
    assert_invariants(pieces, b"\xef\xbb\xbf" + PYTHON_SOURCE)


def test_invalid_utf8_survives_with_replacement_characters():
    data = b"caf\xe9 menu\nprice: 4\xff\xfe euro\nend\n"
    pieces = chunk_file("menu.txt", data)
    assert [(p.start_line, p.end_line) for p in pieces] == [(1, 3)]
    assert pieces[0].text == "caf\ufffd menu\nprice: 4\ufffd\ufffd euro\nend"


def test_crlf_keeps_exact_line_numbers():
    data = PYTHON_SOURCE.replace(b"\n", b"\r\n")
    pieces = chunk_file("tools/home.py", data)
    home = [s for p in pieces for s in p.symbols if s.name == "home"]
    assert [(s.start_line, s.end_line) for s in home] == [(4, 5)]
    assert all("\r" not in p.text for p in pieces)
    assert_invariants(pieces, data)


def test_nul_bytes_are_skipped_as_binary():
    result = chunk_file_result("assets/logo.py", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert result.pieces == []
    assert "binary" in result.skip_reason


@pytest.mark.parametrize("data", [b"", b"   \n\n\t \r\n"])
def test_empty_or_blank_files_are_skipped_with_a_reason(data):
    result = chunk_file_result("src/empty.py", data)
    assert result.pieces == []
    assert result.skip_reason.startswith("empty")


def test_every_registered_chunker_resolves_to_a_function():
    # Fails until every format's module lands: the registry must not point at nothing.
    targets = sorted(set(registry.TEXT_CHUNKERS.values()) | set(registry.BYTES_CHUNKERS.values()))
    missing = []
    for target in targets:
        module, func = target.split(":")
        try:
            fn = getattr(importlib.import_module(f"chunkers.{module}"), func)
        except (ImportError, AttributeError) as exc:
            missing.append(f"{target}: {exc}")
            continue
        assert callable(fn), target
    assert not missing, missing


def test_targets_are_module_colon_function():
    for target in list(registry.TEXT_CHUNKERS.values()) + list(registry.BYTES_CHUNKERS.values()):
        assert re.fullmatch(r"[a-z_]+:[a-z_]+", target), target
