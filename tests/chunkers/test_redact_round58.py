"""Fifty-eighth round: a parsed settings file's `pass` names (found running `ledger chunk` on a `.env` after the
fifty-fifth round). Free text redacted `SMTP_PASS=…` since the eighteenth round, but a parsed `.env`, YAML or XML
stored it whole, a generated value too: its key path was judged by `_name_tier`, which knew `password` and not
`pass`. An account's `pass` (`DB_PASS`, `smtp.pass`) is a password's name there now, any other `pass` a weak name
(its value redacted when it looks generated), a step's pass no secret's. Values are made up here."""

import pytest

from chunkers import chunk_file_result
from chunkers.redact import REDACTED, redact_value

GENERATED = "Zq8vK2pLm9Xc4Rt7"


@pytest.mark.parametrize("path, value", [
    (("SMTP_PASS",), GENERATED), (("DB_PASS",), "Wint3rIsHere"), (("db_pass",), "postgres"),
    (("smtp", "dbPass"), "hunter22"), (("test_pass",), GENERATED),
])
def test_a_pass_names_value_is_redacted(path, value):
    assert redact_value(path, value) == REDACTED


@pytest.mark.parametrize("path, value", [
    (("test_pass",), "Wint3rIsHere"),  # no account's word before `pass`: only a generated value goes
    (("first_pass",), GENERATED), (("render_pass",), GENERATED),  # a step's pass
    (("bypass",), GENERATED), (("pass_count",), "12"),  # `pass` glued in a word, or not the last word
    (("DB_PASS",), "${DB_PASS}"), (("SMTP_PASS",), "true"),  # a reference, a flag's word
])
def test_a_pass_name_keeps_what_is_no_password(path, value):
    assert redact_value(path, value) == value


@pytest.mark.parametrize("name, data", [
    ("app.env", b"SMTP_PASS=" + GENERATED.encode() + b"\nDB_PASS=Wint3rIsHere\nAPP_NAME=shop\n"),
    ("config.yaml", b"smtp:\n  host: mail.example.com\n  pass: Wint3rIsHere\ndb_pass: " + GENERATED.encode() + b"\n"),
])
def test_a_settings_file_stores_no_pass(name, data):
    body = "\n".join(piece.body for piece in chunk_file_result(name, data).pieces)
    assert GENERATED not in body and "Wint3rIsHere" not in body and REDACTED in body
    assert ("APP_NAME = shop" in body) or ("mail.example.com" in body)
