"""What git holds but ledger cannot read as a repo is refused by name, not registered as a plain folder: a bare
repository, a folder inside a `.git`, a repo git refuses because another user owns it (issue 33). A linked work
tree and a shallow clone are git repos like any other."""

from __future__ import annotations

import subprocess

import pytest

from ledger_assets.cli import main
from ledger_assets.ingest.snapshot import take_snapshot
from tests.ledger_assets.test_cli import home  # noqa: F401 - the LEDGER_HOME/DAGSTER_HOME fixture

pytestmark = pytest.mark.usefixtures("home")


@pytest.fixture
def committed(git_repo):
    git_repo.write("shop/money.py", "def cents(amount):\n    return round(amount * 100)\n")
    git_repo.commit("money")
    return git_repo


def git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, capture_output=True)


def test_a_bare_repository_is_refused_with_the_way_to_index_it(committed, tmp_path, capsys):
    bare = tmp_path / "bare.git"
    git("clone", "-q", "--bare", str(committed.path), str(bare))
    assert main(["add-repo", str(bare)]) == 2
    err = capsys.readouterr().err
    assert "is a bare git repository" in err and f"git clone {bare} DIR" in err and "Traceback" not in err


def test_a_folder_inside_dot_git_is_refused(committed, capsys):
    for inside in (committed.path / ".git", committed.path / ".git" / "refs"):
        assert main(["add-repo", str(inside), "--id", "inside"]) == 2
        assert "inside a repository's .git folder" in capsys.readouterr().err
    assert main(["status"]) == 0 and capsys.readouterr().out.strip() == "no repos registered"


def test_a_repo_another_user_owns_is_refused_with_gits_fix(committed, monkeypatch, capsys):
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")  # git's own switch for its ownership check
    assert main(["add-repo", str(committed.path), "--id", "theirs"]) == 2
    err = capsys.readouterr().err
    assert "another user owns it" in err and f"safe.directory {committed.path}" in err
    monkeypatch.delenv("GIT_TEST_ASSUME_DIFFERENT_OWNER")
    assert main(["add-repo", str(committed.path), "--id", "theirs"]) == 0
    assert "registered theirs (git)" in capsys.readouterr().out

    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")  # owned by someone else after it was added
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "head=unavailable" in out and f"safe.directory {committed.path}" in out
    assert main(["ingest", "theirs"]) == 2
    assert "another user owns it" in capsys.readouterr().err


def test_a_linked_work_tree_and_a_shallow_clone_are_git_repos(committed, tmp_path, capsys):
    linked, shallow = tmp_path / "linked", tmp_path / "shallow"
    git("-C", str(committed.path), "worktree", "add", "-q", str(linked))
    git("clone", "-q", "--depth", "1", f"file://{committed.path}", str(shallow))
    for rid, path in (("linked", linked), ("shallow", shallow)):
        assert main(["add-repo", str(path), "--id", rid]) == 0
        assert f"registered {rid} (git)" in capsys.readouterr().out
        snap = take_snapshot(path, "git", 1_000_000, 1_000_000)
        assert snap.head_sha == committed.head()
        assert [e.file_path for e in snap.entries] == ["shop/money.py"]
