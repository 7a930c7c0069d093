"""Decoding: UTF-16/32 with a byte-order mark are text (not binary), with the right line numbers."""

from __future__ import annotations

import pytest

from chunkers import chunk_file_result
from chunkers.text import BinaryContent, bom_encoding, decode, looks_binary, split_lines

SOURCE = "using System;\r\n\r\nnamespace Enc\r\n{\r\n    // Grüße ✓ 𝄞\r\n    public class Wide\r\n    {\r\n" \
         "        public int One() => 1;\r\n    }\r\n}\r\n"
EXPECTED = SOURCE.replace("\r\n", "\n")


@pytest.mark.parametrize("codec, bom", [
    ("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"),
    ("utf-32-le", b"\xff\xfe\x00\x00"), ("utf-32-be", b"\x00\x00\xfe\xff"),
])
def test_bom_selects_the_encoding_and_line_numbers_hold(codec, bom):
    data = bom + SOURCE.encode(codec)
    assert bom_encoding(data) == codec and not looks_binary(data)
    assert decode(data) == EXPECTED
    result = chunk_file_result("Wide.cs", data)
    assert not result.skip_reason and result.pieces
    lines = split_lines(EXPECTED)
    for piece in result.pieces:
        body = "\n".join(lines[piece.start_line - 1:piece.end_line])
        assert body.strip() and body.split("\n")[-1] in piece.text  # exact coordinates
        assert "\x00" not in piece.text
    cls = next(p for p in result.pieces if any(s.name == "Wide" for s in p.symbols))
    assert cls.start_line <= 6 <= cls.end_line and lines[5].strip() == "public class Wide"


def test_utf8_bom_invalid_bytes_and_plain_binary_are_unchanged():
    assert decode(b"\xef\xbb\xbfx = 1\r\n") == "x = 1\n"
    assert decode(b"caf\xe9\n") == "caf\ufffd\n"  # invalid UTF-8 is replaced, not refused
    with pytest.raises(BinaryContent):
        decode(b"GIF89a\x00\x01\x02")
    with pytest.raises(BinaryContent):
        decode(b"text with a \x00 NUL\n")


def test_broken_utf16_never_raises_anything_but_a_skip():
    # Odd byte count (a cut file) decodes with a replacement character.
    assert decode(b"\xff\xfe" + "ab\n".encode("utf-16-le") + b"\x41").startswith("ab\n")
    # UTF-16 whose text holds NUL characters is binary data behind a BOM.
    with pytest.raises(BinaryContent, match="UTF-16"):
        decode(b"\xff\xfe" + "a\x00b".encode("utf-16-le"))
    result = chunk_file_result("blob.txt", b"\xff\xfe" + b"\x00\x00" * 10)
    assert not result.pieces and "binary" in result.skip_reason
