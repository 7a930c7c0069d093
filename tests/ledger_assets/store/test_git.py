"""One git helper: `git -C REPO ARGS` on a real repo, and one typed error for every way it fails."""

from __future__ import annotations

import subprocess

import pytest

from ledger_assets.store import git


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    ident = ["-c", "user.email=t@example.com", "-c", "user.name=t"]
    for args in (["init", "-q"], ["add", "-A"], [*ident, "commit", "-qm", "first"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)
    return root


def test_run_answers_with_gits_stdout(repo):
    assert git.run(repo, "ls-files", "-z").stdout == b"a.txt\0"
    proc = git.run(repo, "stream", "--nope", check=False)
    assert proc.returncode != 0


def test_a_failed_call_names_the_command_the_repo_and_gits_words(repo):
    with pytest.raises(git.GitError) as caught:
        git.run(repo, "show", "HEAD:missing.txt")
    err = caught.value
    assert str(err).startswith(f"git show HEAD:missing.txt failed in {repo}: ")
    assert "missing.txt" in err.detail and err.returncode == 128 and isinstance(err, RuntimeError)


def test_a_call_past_its_timeout_is_a_git_error(repo):
    with pytest.raises(git.GitError, match="timed out"):
        git.run(repo, "-c", "alias.wait=!sleep 3", "wait", timeout=0.3)


def test_no_git_to_run_is_a_git_error_for_run_and_stream(repo, monkeypatch):
    monkeypatch.setenv("PATH", str(repo))  # no git executable there
    with pytest.raises(git.GitError, match="No such file"):
        git.run(repo, "status", check=False)
    with pytest.raises(git.GitError):
        git.stream(repo, "log")


def test_stream_pipes_stdout_for_the_caller_to_read(repo):
    proc = git.stream(repo, "cat-file", "--batch", stdin=True)
    try:
        proc.stdin.write(b"HEAD:a.txt\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        assert header[1] == b"blob" and proc.stdout.read(int(header[2])) == b"one\n"
    finally:
        proc.stdin.close()
        proc.stdout.close()
        proc.wait(timeout=30)
