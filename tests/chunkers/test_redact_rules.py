"""The rule table of secrets known by their form (chunkers/secret_rules.py): every
row has a positive example (a fake secret of its form, redacted) and a negative one
(a near miss, kept) in tests/fixtures/secrets/rules/examples.json, written by
make_examples.py there."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chunkers import chunk_file
from chunkers.redact import REDACTED, _line_changes, redact_text
from chunkers.secret_rules import _RULES, RULES
from chunkers.secret_tokens import _rules_for

EXAMPLES = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "secrets" / "rules" / "examples.json").read_text())
IDS = [rid for rid, _, _ in RULES]


def test_the_table_is_large_and_every_row_has_examples():
    assert len(RULES) >= 100
    assert len(set(IDS)) == len(IDS)
    assert set(EXAMPLES) == set(IDS)


@pytest.mark.parametrize("rid", IDS)
def test_a_rule_redacts_its_positive_and_keeps_its_negative(rid):
    line, secret = EXAMPLES[rid]["positive"]
    negative = EXAMPLES[rid]["negative"]
    index = IDS.index(rid)
    _, _, pattern = _RULES[index]
    assert secret in line
    assert pattern.search(line), "the row's own pattern matches its example"
    assert index in _rules_for(line, line.lower()), "a hint of the row picks the line's rules"
    assert _line_changes(f"a = 1\n{line}\n"), "the whole-text scan visits the line"
    out = redact_text(line)
    assert secret not in out and REDACTED in out
    assert redact_text(out) == out
    assert redact_text(negative) == negative


def test_a_rule_sees_a_line_that_holds_only_its_token():
    # no `=`, `:` or quote on the line: may_hold_secret must still let it through
    line, secret = EXAMPLES["groq"]["positive"]
    bare = line.split('"')[1]
    assert bare == secret and re.fullmatch(r"gsk_\w+", bare)
    assert redact_text(f"the key {bare} works") == f"the key {REDACTED} works"


@pytest.mark.parametrize("text, secret", [
    # a PuTTY key's private lines (the public lines stay)
    ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ci\nPublic-Lines: 2\n"
     "AAAAC3NzaC1lZDI1NTE5AAAAIFakePublicLineOneForTestsOnly00000001\nAAAAFakePublicLineTwo\n"
     "Private-Lines: 1\nAAAAIFakePuttyPrivateLineForTestsOnly0000000000000001\n"
     "Private-MAC: 7a9f3c1e5b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d2f4a\n",
     "AAAAIFakePuttyPrivateLineForTestsOnly0000000000000001"),
    # an SSH2 (RFC 4716) private key
    ("---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"rsa-key\"\n"
     "P2/56wAAAi4AAAA3aWYtbW9kbntzaWdue3JzYS1wa2NzMS1zaGExfSxlbmNyeXB0e3JzYS1w\n"
     "---- END SSH2 ENCRYPTED PRIVATE KEY ----\n",
     "P2/56wAAAi4AAAA3aWYtbW9kbntzaWdue3JzYS1wa2NzMS1zaGExfSxlbmNyeXB0e3JzYS1w"),
    # a PGP private key block
    ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBFakePgpPrivateKeyBlockBodyForTestsOnlyAAAAAAAAAAAAAAAAAAAAAAAAAA\n=a1b2\n"
     "-----END PGP PRIVATE KEY BLOCK-----\n", "lQOYBFakePgpPrivateKeyBlockBodyForTestsOnlyAAAAAAAAAAAAAAAAAAAAAAAAAA"),
])
def test_other_key_file_formats(text, secret):
    out = redact_text(text)
    assert secret not in out and REDACTED in out
    assert out.count("\n") == text.count("\n")


def test_a_putty_key_keeps_its_public_lines():
    text = ("PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 1\nAAAAC3NzaC1lZDI1NTE5AAAAIFakePublicLine00001\n"
            "Private-Lines: 1\nAAAAIFakePuttyPrivateLine0000000000001\n")
    out = redact_text(text)
    assert "AAAAC3NzaC1lZDI1NTE5AAAAIFakePublicLine00001" in out
    assert "AAAAIFakePuttyPrivateLine0000000000001" not in out


def test_every_positive_is_redacted_in_every_field_of_prose_settings_and_scripts():
    """The rule table runs wherever text goes: a Markdown paragraph, a YAML or JSON
    value (the config chunker's parsed path), a shell script, a plain file."""
    leaked = []
    for rid in IDS:
        line, secret = EXAMPLES[rid]["positive"]
        for name, text in [("notes.md", f"# Notes\n\n{line}\n"), ("conf.yaml", f"settings:\n  value: {json.dumps(line)}\n"),
                           ("app.json", json.dumps({"settings": {"value": line}})), ("run.sh", f"#!/bin/sh\n{line}\n"),
                           ("notes.txt", f"{line}\n")]:
            dumped = "\n".join(json.dumps(p.to_dict(), ensure_ascii=False) for p in chunk_file(name, text.encode()))
            if secret in dumped or json.dumps(secret)[1:-1] in dumped:
                leaked.append((rid, name))
    assert leaked == []
