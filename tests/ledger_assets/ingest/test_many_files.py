"""A repo of many small files ingests at a cost per write call, and a commit that changes one file costs
one file's work (issue 33): the Qdrant writes of a whole run are a few SQLite commits, not one per point;
the snapshot does not read every small blob again to tell Git LFS pointers apart, it reuses the last
snapshot's verdict per blob."""

from __future__ import annotations

from ledger_assets.ingest import pipeline
from ledger_assets.ingest.snapshot import LFS_POINTER, git_blob_hash, take_snapshot
from ledger_assets.store import local_index
from tests.conftest import LOG, ingest_core

POINTER = ("version https://git-lfs.github.com/spec/v1\n"
           "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")
SMALL = "def small():\n    return 'a small file, read once to tell it from an LFS pointer'\n"


def _manifest(ledger, repo_id: str) -> dict[str, str]:
    with ledger.db.connect() as con:
        return dict(con.execute("SELECT file_path, skip_reason FROM manifest WHERE repo_id = ?", [repo_id]).fetchall())


def test_a_known_blob_is_not_read_again(git_repo):
    git_repo.write("small.py", SMALL)
    git_repo.write("model.bin.txt", POINTER)
    git_repo.commit("a small file and an LFS pointer")
    fresh = {e.file_path: e.skip_reason for e in take_snapshot(git_repo.path, "git", 10**6, 10**6).entries}
    assert fresh == {"small.py": "", "model.bin.txt": LFS_POINTER}
    # A verdict given for the small blob is taken as it is: the blob was not read (reading it says "").
    known = {git_blob_hash(SMALL.encode()): LFS_POINTER}
    reused = {e.file_path: e.skip_reason for e in take_snapshot(git_repo.path, "git", 10**6, 10**6, known).entries}
    assert reused == {"small.py": LFS_POINTER, "model.bin.txt": LFS_POINTER}


def test_verdicts_carry_over_and_new_blobs_are_read(git_repo, ledger):
    git_repo.write("small.py", SMALL)
    git_repo.write("weights.txt", POINTER)
    git_repo.commit("first")
    ledger.registry.add(git_repo.path, "lfs")
    pipeline.snapshot_stage(ledger, "lfs", "run-1", LOG)
    assert _manifest(ledger, "lfs") == {"small.py": "", "weights.txt": LFS_POINTER}
    git_repo.write("small.py", SMALL + "# changed\n")  # a new blob: read again
    git_repo.write("more.txt", POINTER.replace("12345", "999"))  # a new pointer: found
    git_repo.write("copy.txt", POINTER)  # a known pointer blob under a new name
    git_repo.commit("second")
    pipeline.snapshot_stage(ledger, "lfs", "run-2", LOG)
    assert _manifest(ledger, "lfs") == {"small.py": "", "weights.txt": LFS_POINTER, "more.txt": LFS_POINTER,
                                        "copy.txt": LFS_POINTER}


def test_qdrant_commits_do_not_grow_with_the_files(git_repo, ledger, embedder):
    n = 60
    for i in range(n):
        git_repo.write(f"pkg/mod_{i}.py", f"def handler_{i}(value):\n    return value * {i}\n")
    git_repo.commit("many small files")
    ledger.registry.add(git_repo.path, "many")
    ingest_core(ledger, "many", embedder, run_id="first")
    first = local_index.storage_marker(ledger.qdrant)[3]  # SQLite's change counter: one per commit
    git_repo.write("pkg/mod_0.py", "def handler_0(value):\n    return value + 1\n")
    git_repo.commit("one file")
    ingest_core(ledger, "many", embedder, run_id="change")
    change = local_index.storage_marker(ledger.qdrant)[3] - first
    assert first <= 10, first  # was one commit per point written, and two per point made live: > 3 * n
    assert change <= 6, change
