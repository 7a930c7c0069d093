"""The two checks every round's redaction cases go through (tests/chunkers/test_redact_round*.py)."""

from __future__ import annotations

from chunkers.redact import REDACTED, redact_text


def assert_kept(line: str) -> None:
    """A look-alike comes back unchanged, alone and as a file's last line."""
    assert redact_text(line) == line
    assert redact_text(line + "\n") == line + "\n"


def assert_redacted(line: str, secret: str) -> None:
    """The secret is gone, a marker stands in its place, and a second pass changes nothing."""
    out = redact_text(line)
    assert secret not in out and REDACTED in out, out
    assert redact_text(out) == out
