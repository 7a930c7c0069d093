"""The priors on what a hit is: a test sinks below the code it tests, a documentation file below
code, unless the query is about tests or docs. A test file or a docs file by its path is
chunkers/paths.py's; test code by what it holds is here (`is_test_chunk`).
"""

from __future__ import annotations

import re

from chunkers.paths import is_test_path
from ledger_assets.retrieval.hits import Hit
from ledger_assets.retrieval.names import owned_names

# A test file ranks below the code it tests unless the question is about tests: a test that
# repeats the query's words ("test_cancel_booking_refunds") out-scores the one function of the
# source file that does it (measured on commit sets: docs/decisions.md, "Test prior"). A test file
# by its path: chunkers.paths. Test code by what it holds. Python's `def test_x` is read from the symbols a chunk owns, not its
# text: docstrings (pytest's own) show `def test_x():` examples at the start of a line.
_TEST_CONTENT = re.compile(
    r"^func (?:Test|Benchmark|Fuzz)\w*\(\w+ \*testing\.[TBF]\)"
    r"|^[ \t]*\[(?:Fact|Theory|Test|TestMethod|TestCase|TestFixture)\b"
    r"|^[ \t]*(?:describe|it|test)(?:\.\w+)?\(\s*['\"`]", re.MULTILINE)
_ABOUT_TESTS = re.compile(r"\b(?:tests?|testing|tested|unit[- ]?tests?|specs?|pytest|jest|vitest|mocha|xunit|"
                          r"nunit|mstest|fixtures?|mocks?|mocking|coverage|benchmarks?|conftest)\b", re.IGNORECASE)


def is_test_chunk(payload: dict) -> bool:
    """A test by its path, or by what it holds: a symbol it owns named `test_*`, a
    `func TestX(t *testing.T)`, a `[Fact]`/`[Test]` attribute, `describe("..."` / `it("..."`."""
    if is_test_path(payload.get("file_path", "")):
        return True
    if any(name.startswith("test_") for name in owned_names(payload)):
        return True
    return bool(_TEST_CONTENT.search(payload.get("content", "") or ""))


def asks_about_tests(text: str) -> bool:
    return bool(_ABOUT_TESTS.search(text or ""))


def apply_test_prior(hits: list[Hit], text: str, prior: float) -> None:
    """Test chunks' scores times `prior` (< 1 sinks them), unless the query is about tests."""
    if prior == 1.0 or asks_about_tests(text):
        return
    for h in hits:
        if is_test_chunk(h.payload):
            h.score *= prior


# `--group file`: a documentation file (CHANGELOG.md, a guide) names the words of a change request
# without being where the change goes; it ranks below code unless the question is about docs.
_ABOUT_DOCS = re.compile(r"\b(?:docs?|documentation|documented|readme|changelog|release[- ]notes?|guides?|tutorials?|"
                         r"markdown|typos?)\b", re.IGNORECASE)


def asks_about_docs(text: str) -> bool:
    return bool(_ABOUT_DOCS.search(text or ""))
