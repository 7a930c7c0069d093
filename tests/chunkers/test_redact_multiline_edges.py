"""The cross-line passes of rounds 27-29 on the inputs a review found them wrong on: a wrapped base64 key with
`\\r\\n` line ends or trailing blanks (its later lines were left), a Secret's block scalar (its last line judged a
second time as a line of its own, a `\\r` dropped), a call whose quotes stay open over many lines (read to the end of
the text instead of stopping after _SPLIT_CALL_LINES), and values with long runs of blanks (the lazy value
patterns' backtracking; here their results, which the greedy forms must keep)."""

from __future__ import annotations

import pytest

from chunkers import secret_blocks
from chunkers.redact import REDACTED, redact_text
from tests.chunkers.test_redact_round29 import B64, KEY_B64, _secret, _wrapped


@pytest.mark.parametrize("end,first_tail", [("\r\n", ""), ("\n", "  "), ("\r\n", " \t")])
def test_a_wrapped_key_goes_whatever_its_line_ends(end, first_tail):
    lines = _wrapped(KEY_B64).split("\n")
    text = "key: |" + end + end.join("  " + ln + (first_tail if i == 0 else "") for i, ln in enumerate(lines)) + end
    out = redact_text(text)
    assert out.count("\n") == text.count("\n") and out.count("\r") == text.count("\r")
    assert all(ln.strip() in ("", "key: |", REDACTED) for ln in out.split(end)), out


def test_a_block_scalar_is_one_value_to_its_last_line_and_keeps_its_line_ends():
    body = "dXNlcjpaazlQcTJ4TG1SN3ZUNHdC\r\n    password: Zk9Pq2xLmR7vT4wB"
    text = "apiVersion: v1\r\nkind: Secret\r\ndata:\r\n  .dockercfg: |\r\n    " + body + "\r\n  other: x\r\n"
    out = redact_text(text).split("\n")
    assert out[4:6] == ["    " + REDACTED + "\r", "    " + REDACTED + "\r"], out
    assert out[6] == "  other: x\r" and len(out) == len(text.split("\n"))


def test_a_call_with_quotes_left_open_stops_at_its_line_limit():
    text = "conn = mysqli_connect(host,\n" + "  'it,\n" * 50 + ")"  # its `)` 51 lines down: not a call of a few lines
    assert secret_blocks._call_end(text, text.find("(")) == -1
    text = 'c = connect("a\\\nb", "u",\n "p")'  # a backslash before a line break skips no line break
    assert secret_blocks._call_end(text, text.find("(")) == len(text) - 1


SECRET = "Zk9Pq2xLmR7vT4wB"


@pytest.mark.parametrize("text", [
    "Parameters:\n  DBPassword:\n    Default: " + SECRET + " " * 3000 + "\n",
    "passwords:\n- " + SECRET + " " * 3000 + "\r\n",
    "- key: db_password\n  value: " + SECRET + " \t" * 1500 + "\n",
    "- name: db_password\n  value: " + SECRET + " " * 3000 + "\r\n",
])
def test_a_value_before_trailing_blanks_is_the_value_alone(text):
    out = redact_text(text)
    assert SECRET not in out and out.count("\n") == text.count("\n") and out.count("\r") == text.count("\r")


@pytest.mark.parametrize("pattern,line", [
    (secret_blocks._YAML_ITEM, "- a{}b \r"),
    (secret_blocks._CFN_DEFAULT, "    Default: a{}b ,"),
    (secret_blocks._PARENT_VALUE_LINE, "    value: a{}b\t"),
])
def test_a_value_with_a_long_blank_run_inside_is_read_whole(pattern, line):
    m = pattern.fullmatch(line.format(" " * 3000))
    assert m is not None and m.group("value") == "a" + " " * 3000 + "b"


def test_an_escaped_pair_after_a_long_run_of_backslashes():
    text = 'cfg = "' + "\\" * 5000 + '\\"password\\": \\"' + B64 + '\\""\n'
    assert B64 not in redact_text(text)


def test_the_secret_helpers_still_build_the_round29_secret():
    assert B64 in _secret("Secret", "k", "|\n    " + B64)
