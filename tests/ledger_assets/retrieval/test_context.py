"""`ledger context`: the context pack on a small repo ingested end to end (test_search's `indexed`)."""

from __future__ import annotations

import json

import pytest

from ledger_assets.cli import main
from ledger_assets.retrieval.context import ContextError, build_pack, count_tokens, pack_files, render_pack
from ledger_assets.retrieval.groups import FileHit
from ledger_assets.retrieval.hits import Hit
from tests.ledger_assets.retrieval.test_search import indexed  # noqa: F401 - the module fixture

TASK = "cancel a booking and refund the deposit"
BUDGETS = (120, 250, 500, 1000, 2000, 4000)


def _chunks(ledger) -> dict[tuple[str, int], tuple[int, int, str]]:
    with ledger.db.connect() as con:
        return {(f, i): (s, e, t) for f, i, s, e, t in con.execute(
            "SELECT file_path, chunk_index, start_line, end_line, text FROM served.chunks "
            "WHERE repo_id = 'travel'").fetchall()}


def test_pack_is_whole_chunks_within_budget_and_grows_with_it(indexed):
    chunks = _chunks(indexed.ledger)
    packs = [build_pack(indexed.searcher, TASK, "travel", b) for b in BUDGETS]
    previous: set[str] = set()
    for budget, pack in zip(BUDGETS, packs):
        text = render_pack(pack)
        assert pack.tokens <= budget and sum(s.tokens for s in pack.spans) == pack.tokens
        assert count_tokens([text])[0] <= budget  # the rendered text itself, by the model's tokenizer
        for s in pack.spans:
            start, end, body = chunks[(s.file_path, s.chunk_index)]
            assert (s.repo_id, s.start_line, s.end_line) == ("travel", start, end)
            assert f"### travel:{s.file_path}:L{s.start_line}-L{s.end_line} [" in text
            if s.kind == "chunk":
                assert s.text == body  # whole chunks only
            else:
                assert s.kind == "skeleton" and len(s.text) < len(body)
        files = {s.file_path for s in pack.spans if s.kind == "chunk"}
        assert previous <= files, (budget, previous, files)  # a bigger budget holds a superset of files
        assert {f.file_path for f in pack.files if f.packed} == files
        previous = files
    assert packs[-1].spans and packs[-1].spans[0].file_path == "src/Bookings/BookingService.cs"
    assert len(previous) > len({s.file_path for s in packs[0].spans if s.kind == "chunk"})


def _hit(path: str, idx: int, text: str, score: float, skeleton: str = "") -> Hit:
    return Hit(0, score, {"repo_id": "r", "file_path": path, "chunk_index": idx, "start_line": idx * 10 + 1,
                          "end_line": idx * 10 + 9, "chunk_type": "py_function", "content": text,
                          "skeleton": skeleton})


def test_pack_order_then_fill_then_skeletons():
    big = "def big():\n" + "    x = compute(x)\n" * 60
    small = "def small():\n    return 1\n"
    files = [FileHit(1, 1.0, "r", "a.py", [_hit("a.py", 0, small, 0.6), _hit("a.py", 1, big, 0.3)]),
             FileHit(2, 0.8, "r", "b.py", [_hit("b.py", 0, big, 0.8)]),
             FileHit(3, 0.2, "r", "c.py", [_hit("c.py", 0, small, 0.2)])]
    other = {"repo_id": "r", "file_path": "a.py", "chunk_index": 5, "start_line": 51, "end_line": 80,
             "chunk_type": "py_class", "content": "class Other:\n" + "    def m(self):\n        pass\n" * 9,
             "skeleton": "class Other:\n    def m(self): ..."}
    pack = pack_files(files, 100, lambda keys: {k: [other] for k in keys})
    # a.py's small chunk; b.py's big chunk does not fit and blocks new files (c.py), so a smaller
    # budget never holds a file a bigger one lacks; then a.py's neighbour as a skeleton
    assert [(s.file_path, s.chunk_index, s.kind) for s in pack.spans] == [("a.py", 0, "chunk"), ("a.py", 5, "skeleton")]
    assert pack.tokens <= 100 and [f.packed for f in pack.files] == [True, False, False]
    with pytest.raises(ContextError, match="budget"):
        pack_files(files, 10)


def test_context_on_the_command_line(indexed, monkeypatch, capsys):
    monkeypatch.setenv("LEDGER_HOME", str(indexed.home))
    assert main(["context", *TASK.split(), "--repo", "travel", "--budget", "600", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["budget"] == 600 and 0 < out["tokens"] <= 600 and out["tokenizer"].startswith("all-MiniLM-L6-v2")
    assert all({"file_path", "start_line", "end_line", "kind", "text"} <= set(s) for s in out["spans"])
    assert main(["context", TASK, "--repo", "travel", "--budget", "600"]) == 0
    assert capsys.readouterr().out.startswith("### travel:")
    assert main(["context", TASK, "--repo", "nope"]) == 2
    assert "unknown repo 'nope' (registered: travel)" in capsys.readouterr().err
    assert main(["context", TASK, "--repo", "travel", "--budget", "5"]) == 2
    assert "budget must be between" in capsys.readouterr().err
