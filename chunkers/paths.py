"""What kind of file a path names, by convention only (never the content): test, docs, source, vendored.

Derived from the language table's conventions (`chunkers.languages`): per-language test file names,
test folders, docs extensions and names. Read by the ranking (fusion's test and docs priors), the
intents' layer, the golden sets and the eval's checks, so each answers the same question the same way.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from .languages import DOCS_EXTENSIONS, DOCS_NAMES, LANGUAGE_TABLE, SOURCE_EXTENSIONS, TEST_DIR_PATTERN

_TEST_DIR = re.compile(TEST_DIR_PATTERN)
_TEST_NAME = re.compile("^(?:" + "|".join(p for row in LANGUAGE_TABLE for p in row.test_names) + ")$")
_DOCS_NAME = re.compile(r"^(?:" + "|".join(DOCS_NAMES) + r")(?:\.\w+)?$", re.IGNORECASE)
# The intents' layer reads a looser mark: any test_/_test./.test./.spec. in the name. It is embedded
# in the design lane's text, so it stays as it was measured rather than follow `is_test_path`.
_TEST_MARK = re.compile(r"(^test_|_test\.|\.test\.|\.spec\.|tests?\.cs$)")
# Vendored or generated: never ingested (the snapshot's skip reasons), never a golden target.
VENDORED_DIRS = frozenset({
    "node_modules", "vendor", "third_party", "third-party", "bower_components",
    ".venv", "venv", "site-packages", "dist", "obj", "__pycache__", ".git",
})
VENDORED_SUFFIXES = (".min.js", ".min.css", ".map", "-lock.json", ".lock")
VENDORED_NAMES = frozenset({"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "Cargo.lock"})
# Emitted by a build, not written: type declarations and minified bundles are never a change's target.
GENERATED_SUFFIXES = (".d.ts", ".min.js")


def _parts(path: str) -> list[str]:
    return (path or "").replace("\\", "/").split("/")


def is_test_path(path: str) -> bool:
    """By path convention: a tests/ (spec/, __tests__/, Foo.Tests/ ...) folder, test_x.py, x_test.go,
    x.test.ts, x.spec.js, FooTests.cs ..."""
    parts = _parts(path)
    if any(_TEST_DIR.match(d.lower()) for d in parts[:-1]):
        return True
    return bool(_TEST_NAME.match(parts[-1]))


def has_test_mark(lowercase_name: str) -> bool:
    """A lowercased file name with a test mark anywhere in it (the intents' layer rule)."""
    return bool(_TEST_MARK.search(lowercase_name))


def is_docs_path(path: str) -> bool:
    """Prose by its name: .md/.rst/.txt/.adoc files, CHANGELOG, HISTORY, LICENSE, README ..."""
    name = _parts(path)[-1]
    return name.lower().endswith(DOCS_EXTENSIONS) or bool(_DOCS_NAME.match(name))


def _written_source(path: str) -> bool:
    """A source language's file, not generated."""
    return PurePosixPath(path).suffix.lower() in SOURCE_EXTENSIONS and not path.endswith(GENERATED_SUFFIXES)


def is_source_path(path: str) -> bool:
    """Program source a change lands in: a source language's file, not a test, not generated."""
    return _written_source(path) and not is_test_path(path)


def is_test_source_path(path: str) -> bool:
    """A test in a source language, not generated: what a question about tests is answered with."""
    return _written_source(path) and is_test_path(path)
