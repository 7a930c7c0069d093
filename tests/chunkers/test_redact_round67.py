"""Sixty-seventh round: what xvwa, django.nV and iGoat-Swift, read held out after the sixty-sixth round, showed
(figures: benchmarks/secrets_recall.md, round 67). Values made up where a secret is meant."""

import pytest

from chunkers.redact import redact_text


@pytest.mark.parametrize("line", [
    # an enum's case by its leading dot under an object named for a password (iGoat-Swift)
    "        passwordTxtField.rightViewMode = .always",
    # Swift's interpolation in a URL's query and in a string
    '        return "http://localhost:8080/igoat/token?username=\\(name)&password=\\(password)"',
    'let header = "\\(token)"',
    # a numbered step's words after a label
    "1. Set the key: run make",
])
def test_a_look_alike_is_kept(line):
    assert redact_text(line) == line


@pytest.mark.parametrize("line, secret", [
    # a numbered list item's label before a generated value (iGoat-Swift's hint has its form)
    ("1. api key: Zq8fK2pQx7Lm9NbVw3Rt", "Zq8fK2pQx7Lm9NbVw3Rt"),
    ("2) the secret: Zq8fK2pQx7Lm9NbVw3Rt", "Zq8fK2pQx7Lm9NbVw3Rt"),
    # a value after a dot that is no enum's case, a query's value that is no interpolation
    ("password = .Zq8fK2pQx7", "Zq8fK2pQx7"),
    ("https://x.example/token?username=a&password=Zq8fK2pQx7Lm", "Zq8fK2pQx7Lm"),
])
def test_a_secret_is_redacted(line, secret):
    out = redact_text(line)
    assert secret not in out and "[REDACTED]" in out, out
