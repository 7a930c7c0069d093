"""The plain fallback: one chunk up to 3,000 characters, else 3,000-character
windows with 200 characters of overlap on line boundaries."""

from pathlib import Path

from chunkers.plain import chunk_plain
from chunkers.registry import chunk_file
from chunkers.text import split_lines
from tests.invariants import assert_invariants

FIXTURES = Path(__file__).parent.parent / "fixtures" / "plain"


def test_short_text_is_one_plain_chunk_with_its_line_range():
    data = (FIXTURES / "release_notes.txt").read_bytes()
    pieces = chunk_file("docs/release_notes.txt", data)
    assert [(p.chunk_type, p.start_line, p.end_line) for p in pieces] == [("plain", 1, 14)]
    assert pieces[0].text == data.decode().rstrip("\n")
    assert pieces[0].meta == {}
    assert_invariants(pieces, data)


def test_long_text_becomes_3000_char_windows_overlapping_by_whole_lines():
    data = (FIXTURES / "worker.log").read_bytes()
    text = data.decode()
    lines = split_lines(text)
    pieces = chunk_plain("logs/worker.log", text)
    assert [(p.start_line, p.end_line, p.meta) for p in pieces] == [
        (1, 41, {"part": 1, "parts": 4}),
        (40, 78, {"part": 2, "parts": 4}),
        (77, 116, {"part": 3, "parts": 4}),
        (115, 140, {"part": 4, "parts": 4}),
    ]
    for prev, nxt in zip(pieces, pieces[1:]):
        overlap = "\n".join(lines[nxt.start_line - 1:prev.end_line])
        assert 0 < len(overlap) <= 200
    assert all(len(p.text) <= 3000 and p.chunk_type == "plain" for p in pieces)
    assert chunk_file("logs/worker.log", data) == pieces
    assert_invariants(pieces, data)


def test_one_10000_char_line_is_sliced_keeping_its_line_number_and_every_character():
    line = "".join(f"{i:05d}," for i in range(1667))[:10_000]
    text = f"header\n{line}\nfooter\n"
    pieces = chunk_plain("dump.txt", text)
    sliced = [p for p in pieces if p.start_line == p.end_line == 2]
    assert [len(p.text) for p in sliced] == [3000, 3000, 3000, 1000]
    assert "".join(p.text for p in sliced) == line
    assert (pieces[0].start_line, pieces[-1].end_line) == (1, 3)
    assert_invariants(pieces, text)


def test_blank_text_yields_no_chunks():
    assert chunk_plain("empty.txt", "") == []
    assert chunk_plain("blank.txt", "\n  \n\t\n") == []
