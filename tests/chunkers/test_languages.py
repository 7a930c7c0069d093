"""The language table is the one answer to "what is this file": the registry, the snapshot's language,
the path classification and read-span's settings rule all read it."""

from __future__ import annotations

import pytest

from chunkers import registry
from chunkers.languages import (BY_EXTENSION, LANGUAGE_TABLE, SETTINGS_EXTENSIONS, SOURCE_EXTENSIONS,
                                extensions_of, language_of)
from chunkers.paths import has_test_mark, is_docs_path, is_source_path, is_test_path
from chunkers.redact import REDACTED, redact_lines
from ledger_assets.retrieval.tools import redact_span_text


def test_each_extension_is_in_one_row_lowercased_with_its_dot():
    exts = [ext for row in LANGUAGE_TABLE for ext in row.extensions]
    assert len(exts) == len(set(exts)) == len(BY_EXTENSION)
    assert all(ext.startswith(".") and ext == ext.lower() for ext in exts)
    assert len({row.name for row in LANGUAGE_TABLE}) == len(LANGUAGE_TABLE)


def test_the_registry_dispatches_by_the_table():
    for row in LANGUAGE_TABLE:
        for ext in row.extensions:
            want = row.chunker.split(":")[0] if row.chunker else "plain"
            assert registry.chunker_name(f"src/a{ext.upper()}") == want, ext
            assert (ext in registry.BYTES_CHUNKERS) == row.reads_bytes, ext


@pytest.mark.parametrize("path, language", [
    ("src/Cart.cs", "csharp"), ("web/App.TSX", "typescript"), ("lib/x.mjs", "javascript"), ("stubs/a.pyi", "python"),
    ("deploy/.env.production", "dotenv"), ("app/Web.config", "xml"), ("build.gradle.kts", "kotlin"),
    ("notes.txt", "text"), ("Makefile", "text"),
    # known to the table but not parsed: indexed as plain text, labelled "text"
    ("scripts/run.sh", "text"), ("lib/x.lua", "text"), ("docs/index.rst", "text"), ("nginx.conf", "text"),
])
def test_language_of(path, language):
    assert language_of(path) == language


def test_source_settings_and_family_sets_come_from_the_rows():
    assert {".py", ".cs", ".ts", ".sh", ".kts", ".hh"} <= SOURCE_EXTENSIONS
    assert not {".md", ".json", ".txt", ".pdf"} & SOURCE_EXTENSIONS
    assert {".env", ".json", ".yaml", ".xml", ".fsproj", ".nuspec", ".conf"} <= SETTINGS_EXTENSIONS
    assert extensions_of("typescript", "javascript") == (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def test_path_kinds():
    assert is_test_path("src/store.test.mts") and is_test_path("Shop/CartFixture.kt") and is_test_path("x_test.exs")
    assert not is_test_path("src/store.mts") and not is_test_path("Shop/Cart.kt")
    assert is_docs_path("docs/Guide.MDX") and is_docs_path("CHANGES.txt") and not is_docs_path("docs/conf.py")
    assert is_source_path("src/Mediator.cs") and is_source_path("tools/deploy.sh")
    for path in ("tests/test_cart.py", "types/index.d.ts", "dist/app.min.js", "README.md", "app.json"):
        assert not is_source_path(path), path
    # the intents' layer mark is looser than is_test_path (its output is embedded: kept as measured)
    assert has_test_mark("contest_test.yaml") and not is_test_path("contest_test.yaml")


def test_read_span_hides_values_in_every_settings_file_of_the_table():
    """.fsproj, .vbproj and .nuspec are settings (the config chunker reads them); read-span hid values
    under secret-shaped keys only in its own, shorter list before the table."""
    text = "<Project>\n  <Password>Sup3r-S3cret-Value!</Password>\n  <Name>Shop</Name>\n</Project>\n"
    for ext in (".fsproj", ".vbproj", ".nuspec", ".csproj"):
        lines = redact_span_text(f"src/Shop{ext}", text)
        assert lines[1] == f"  <Password>{REDACTED}</Password>" and lines[2] == "  <Name>Shop</Name>", ext
    # plain text is read line by line: since the fifth round an XML element's text under a secret's name too
    assert redact_span_text("src/Shop.txt", text)[1] == f"  <Password>{REDACTED}</Password>"
    assert redact_lines(text, settings=False) == redact_span_text("src/Shop.txt", text)
