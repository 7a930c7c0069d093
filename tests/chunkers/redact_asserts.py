"""The two checks every round's redaction cases go through (tests/chunkers/test_redact_round*.py)."""

from __future__ import annotations

import pytest

from chunkers import chunk_file_result
from chunkers.redact import REDACTED, redact_text

# A generated secret's value, shared by the rounds' cases: long, mixed, no word in it.
GENERATED = "Zq8vN3xL0pR7tY2wK5mB4cD"


def bodies(name: str, text: str) -> str:
    """The bodies of a file's chunks as an ingest stores them (a settings file's parsed values, a code file's text)."""
    return "\n".join(piece.body for piece in chunk_file_result(name, text.encode()).pieces)


def assert_kept(line: str) -> None:
    """A look-alike comes back unchanged, alone and as a file's last line."""
    assert redact_text(line) == line
    assert redact_text(line + "\n") == line + "\n"


def assert_redacted(line: str, secret: str) -> None:
    """The secret is gone, a marker stands in its place, and a second pass changes nothing."""
    out = redact_text(line)
    assert secret not in out and REDACTED in out, out
    assert redact_text(out) == out


def round_tests(kept: list[str], redacted: list[tuple[str, str]]):
    """A round's two parametrized tests over its cases, for its module to bind as `test_a_look_alike_is_kept,
    test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)`."""

    @pytest.mark.parametrize("line", kept)
    def test_a_look_alike_is_kept(line):
        assert_kept(line)

    @pytest.mark.parametrize("line,secret", redacted)
    def test_a_secret_is_redacted(line, secret):
        assert_redacted(line, secret)

    return test_a_look_alike_is_kept, test_a_secret_is_redacted


def pair_test(pairs: list[tuple[str, str, str]]):
    """A round's test of (look-alike, twin, secret) cases: the look-alike kept, its twin with a secret in the value's
    place redacted, for its module to bind as `test_a_look_alike_is_kept_and_its_twin_redacted`."""

    @pytest.mark.parametrize("kept,twin,secret", pairs)
    def test_a_look_alike_is_kept_and_its_twin_redacted(kept, twin, secret):
        assert_kept(kept)
        assert_redacted(twin, secret)

    return test_a_look_alike_is_kept_and_its_twin_redacted


def lines_test(cases: list[tuple[str, str]]):
    """A round's test that redacting a multi-line text changes the lines holding the secret and no other (a value is
    replaced, a line never joined or dropped), for its module to bind as `test_only_the_values_line_changes`."""

    @pytest.mark.parametrize("text,secret", cases)
    def test_only_the_values_line_changes(text, secret):
        old, new = text.split("\n"), redact_text(text).split("\n")
        assert len(old) == len(new)
        assert [i for i, (a, b) in enumerate(zip(old, new)) if a != b] == [i for i, a in enumerate(old) if secret in a]

    return test_only_the_values_line_changes
