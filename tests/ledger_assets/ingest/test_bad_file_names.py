"""A tracked file whose name is not UTF-8 is a recorded skip of that file, not a
failure of the repo (issue 33)."""

from __future__ import annotations

import os

from ledger_assets.ingest import pipeline
from ledger_assets.ingest.snapshot import BAD_NAME, take_snapshot
from tests.conftest import LOG

BAD = os.fsdecode(b"src/caf\xe9.py")  # Latin-1 bytes: not UTF-8


def _repo(make_repo):
    repo = make_repo("latin1")
    repo.write("src/good.py", "def good():\n    return 1\n")
    repo.write(BAD, "def bad():\n    return 2\n")
    repo.commit("a Latin-1 file name")
    return repo


def test_a_name_that_is_not_utf8_is_a_skip_in_the_manifest(make_repo):
    repo = _repo(make_repo)
    for kind in ("git", "folder"):
        snap = take_snapshot(repo.path, kind, 1_000_000, 1_000_000)
        by_path = {e.file_path: e for e in snap.entries}
        assert by_path["src/good.py"].skip_reason == ""
        [bad] = [e for e in snap.entries if e.skip_reason == BAD_NAME]
        assert bad.file_path == "src/caf\\xe9.py"
        bad.file_path.encode("utf-8")  # storable and printable anywhere


def test_a_repo_with_such_a_name_snapshots_and_chunks(make_repo, ledger):
    repo = _repo(make_repo)
    ledger.registry.add(repo.path, "latin1")
    report = pipeline.snapshot_stage(ledger, "latin1", "run-1", LOG)
    assert report is not None
    chunks = pipeline.chunk_stage(ledger, "latin1", "run-1", LOG)
    assert not [c for c in chunks.checks if not c.passed]
    with ledger.db.connect() as con:
        rows = dict(con.execute("SELECT file_path, skip_reason FROM manifest WHERE repo_id = 'latin1'").fetchall())
        files = {r[0] for r in con.execute("SELECT file_path FROM chunks WHERE repo_id = 'latin1'").fetchall()}
    assert rows["src/caf\\xe9.py"] == BAD_NAME
    assert files == {"src/good.py"}
