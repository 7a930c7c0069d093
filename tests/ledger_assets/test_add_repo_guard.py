"""`ledger add-repo` of a filesystem root, or of a tree of more than --max-files
files, is refused (exit 2, the message says --force) unless --force (issue 33)."""

from __future__ import annotations

import pytest

from ledger_assets.cli import main
from tests.ledger_assets.test_cli import home  # noqa: F401 - the LEDGER_HOME/DAGSTER_HOME fixture

pytestmark = pytest.mark.usefixtures("home")


def test_a_filesystem_root_asks_for_force(capsys):
    assert main(["add-repo", "/"]) == 2
    err = capsys.readouterr().err
    assert "filesystem root" in err and "--force" in err and "Traceback" not in err


def test_a_folder_of_many_files_asks_for_force(tmp_path, capsys):
    big = tmp_path / "big"
    (big / "sub").mkdir(parents=True)
    for i in range(30):
        (big / "sub" / f"f{i}.txt").write_text("x\n")
    assert main(["add-repo", str(big), "--max-files", "20"]) == 2
    assert "more than 20 files" in capsys.readouterr().err
    assert main(["add-repo", str(big), "--max-files", "40"]) == 0
    assert main(["add-repo", str(big), "--id", "big2", "--max-files", "20"]) == 2  # same path: refused anyway
    capsys.readouterr()


def test_force_registers_a_large_git_repo(git_repo, capsys):
    for i in range(6):
        git_repo.write(f"src/m{i}.py", f"X = {i}\n")
    git_repo.commit()
    assert main(["add-repo", str(git_repo.path), "--id", "many", "--max-files", "5"]) == 2
    assert "more than 5 files" in capsys.readouterr().err
    assert main(["add-repo", str(git_repo.path), "--id", "many", "--max-files", "5", "--force"]) == 0
    assert "registered many (git)" in capsys.readouterr().out


def test_max_files_must_be_positive(tmp_path, capsys):
    assert main(["add-repo", str(tmp_path), "--max-files", "0"]) == 2
    assert "--max-files 0" in capsys.readouterr().err
