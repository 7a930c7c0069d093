"""A repo's own config names no command that ledger runs: an fsmonitor hook, a post-index-change hook, a
signature verifier and a clean filter set in `.git/config` (one through an include) all run under plain
git, and none runs through a whole ingest, `ledger status` and `ledger drift`. A filter from the user's
global config (git-lfs's kind) is the user's own, and still runs."""

from __future__ import annotations

import json
import subprocess

import pytest

from ledger_assets import cli
from tests.conftest import ingest_core


def tool(bin_dir, name: str, marks, tail: str = "") -> str:
    """A script that leaves `marks/name` behind when git runs it (then `tail`)."""
    path = bin_dir / name
    path.write_text(f"#!/bin/sh\ntouch '{marks / name}'\n{tail}")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def hostile(git_repo, tmp_path):
    """A repo with one signed commit on top, then its config and hooks turned hostile."""
    marks, bin_dir = tmp_path / "marks", tmp_path / "bin"
    marks.mkdir()
    bin_dir.mkdir()
    git_repo.write("shop/money.py", "def cents(amount):\n    return round(amount * 100)\n")
    git_repo.write("notes.txt", "plain\n")
    git_repo.write(".gitattributes", "*.py filter=evil\n*.txt filter=mine\n")
    base = git_repo.commit("money")
    signed = git_repo.path.parent / "signed-commit"
    signed.write_text(f"tree {git_repo.git('rev-parse', 'HEAD^{tree}')}\nparent {base}\n"
                      "author Ada <ada@example.com> 1700000000 +0000\n"
                      "committer Ada <ada@example.com> 1700000000 +0000\n"
                      "gpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\nsigned\n")
    git_repo.git("update-ref", "HEAD", git_repo.git("hash-object", "-t", "commit", "-w", "--literally", str(signed)))

    included = tmp_path / "included.cfg"
    included.write_text(f"[filter \"evil\"]\n\tclean = {tool(bin_dir, 'clean', marks, 'cat')}\n\trequired = true\n")
    git_repo.git("config", "include.path", str(included))
    git_repo.git("config", "core.fsmonitor", tool(bin_dir, "fsmonitor", marks, "exit 1"))
    git_repo.git("config", "log.showSignature", "true")
    git_repo.git("config", "gpg.program", tool(bin_dir, "gpg", marks, "exit 1"))
    tool(git_repo.path / ".git" / "hooks", "post-index-change", marks)
    mine = tmp_path / "global.cfg"
    mine.write_text(f"[filter \"mine\"]\n\tclean = {tool(bin_dir, 'mine', marks, 'cat')}\n")
    return git_repo, base, marks, mine


def ran(marks) -> set[str]:
    names = {p.name for p in marks.iterdir()}
    for p in marks.iterdir():
        p.unlink()
    return names


def stat_dirty(repo) -> None:
    """Edit a tracked file of each filter, keeping its size (so status must hash it through the filter), and
    add an untracked one."""
    repo.write("shop/money.py", "def cents(amount):\n    return floor(amount * 100)\n")
    repo.write("notes.txt", "Plain\n")
    repo.write("shop/new.py", "X = 1\n")


def test_plain_git_runs_every_command_the_repos_config_names(hostile, monkeypatch):
    """The attacks are live: without ledger's guard, git runs each of them."""
    repo, _, marks, mine = hostile
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(mine))
    stat_dirty(repo)
    subprocess.run(["git", "-C", str(repo.path), "status", "--porcelain"], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(repo.path), "log", "-1"], check=True, capture_output=True)
    assert ran(marks) == {"fsmonitor", "clean", "post-index-change", "gpg", "mine"}


def test_ingest_status_and_drift_run_none_of_them(hostile, ledger, embedder, monkeypatch, capsys):
    repo, base, marks, mine = hostile
    ledger.registry.add(repo.path, "shop")
    ingest_core(ledger, "shop", embedder)                    # snapshot, history log, freshness
    assert ran(marks) == set()

    monkeypatch.setenv("LEDGER_HOME", ledger.settings.home)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(mine))
    stat_dirty(repo)
    assert cli.main(["status", "--format", "json"]) == 0
    row = {r["repo_id"]: r for r in json.loads(capsys.readouterr().out)}["shop"]
    assert (row["stale_committed"], row["stale_uncommitted"]) == (0, 3), row
    assert cli.main(["drift", "--repo", "shop", "--since", base, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["files_changed"] == 3, report
    assert ran(marks) == {"mine"}                            # the user's own filter, and nothing of the repo's
    assert not (repo.path / ".git" / "index.lock").exists()


def test_status_and_drift_read_the_registered_folder_whatever_core_worktree_says(hostile, ledger, embedder,
                                                                                  tmp_path, monkeypatch, capsys):
    repo, base, _, _ = hostile
    ledger.registry.add(repo.path, "shop")
    ingest_core(ledger, "shop", embedder, with_enrichment=False)
    elsewhere = tmp_path / "elsewhere"
    for i in range(5):
        (elsewhere / f"f{i}").mkdir(parents=True)
        (elsewhere / f"f{i}" / "x.py").write_text("X = 1\n")
    repo.git("config", "core.worktree", str(elsewhere))   # set after add-repo (which reads such a repo as a plain folder)
    monkeypatch.setenv("LEDGER_HOME", ledger.settings.home)
    repo.write("shop/new.py", "X = 1\n")
    assert cli.main(["status", "--format", "json"]) == 0
    row = {r["repo_id"]: r for r in json.loads(capsys.readouterr().out)}["shop"]
    assert (row["stale_committed"], row["stale_uncommitted"]) == (0, 1), row
    assert cli.main(["drift", "--repo", "shop", "--since", base, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["files_changed"] == 1
