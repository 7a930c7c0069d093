"""TOON output keeps one row per hit whatever a path or a body holds (issue 33):
a field that would break the row is a JSON string with the delimiters escaped."""

from __future__ import annotations

import json

import pytest

from ledger_assets.retrieval.hits import TOON_LEGEND, Hit, format_hits, toon_field

PATHS = ["src/evil\nname.py", "src/a,b.py", 'src/say "hi".py', "src/pipe|name.py", "src/arrow⟫x.py",
         "src/sep\u2028line.py", "src/back\\slash.py", "src/tab\there.py", " lead.py"]


def hit(path: str, content: str = "def f():\n    return 1\n") -> Hit:
    return Hit(1, 0.5, {"repo_id": "r", "file_path": path, "start_line": 1, "end_line": 2, "content": content,
                        "layer": "domain", "pattern": ""})


@pytest.mark.parametrize("path", PATHS)
def test_a_path_that_would_break_a_row_is_quoted_and_comes_back(path):
    out = format_hits([hit(path)], fmt="toon")
    rows = out.splitlines()
    assert rows[0] == TOON_LEGEND and len(rows) == 2
    fields = rows[1].split("⟫", 1)[0].split("|")
    assert len(fields) == 5
    assert json.loads(fields[3]) == path


def test_a_plain_path_is_left_as_it_is():
    assert toon_field("src/app/main.py") == "src/app/main.py"
    assert format_hits([hit("src/app/main.py")], fmt="toon").splitlines()[1].startswith("r|domain||src/app/main.py|L1-L2⟫")


def test_a_body_with_any_line_break_stays_on_its_row():
    out = format_hits([hit("a.py", "x = 1\r\ny = 2\u2028z = 3\x0cw|v\x85u")], fmt="toon")
    rows = out.splitlines()
    assert len(rows) == 2
    assert rows[1].endswith("x = 1⏎y = 2⏎z = 3⏎w¦v⏎u")
