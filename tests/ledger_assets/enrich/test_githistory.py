"""Git history fields from a scripted history: several authors, dated commits, a rename."""

import json
import logging

import pytest

from ledger_assets.enrich import stages as enrich
from ledger_assets.ingest import pipeline
from ledger_assets.enrich.githistory import file_histories

LOG = logging.getLogger("test-git")
BODY = "".join(f"def rate_{i}(x):\n    return x * {i}\n\n" for i in range(8))


def _as(name: str, when: str) -> dict:
    email = f"{name.lower()}@example.com"
    stamp = f"{when}T12:00:00+00:00"
    return {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": email, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}


@pytest.fixture
def scripted(git_repo, ledger):
    r = git_repo
    r.write("src/old_name.py", BODY)
    r.write("other.py", "A = 1\n")
    r.commit("initial import", env=_as("Ada", "2024-01-01"))
    r.write("src/old_name.py", BODY + "def extra(x):\n    return x\n")
    r.commit("add extra", env=_as("Bob", "2024-03-15"))
    r.git("mv", "src/old_name.py", "src/new_name.py")
    r.commit("rename rates module", env=_as("Cy", "2024-05-01"))
    r.write("other.py", "A = 2\n")
    r.commit("bump A", env=_as("Ada", "2024-05-20"))
    r.write("src/new_name.py", BODY + "def extra(x):\n    return x + 1\n")
    r.commit("tune rates", env=_as("Bob", "2024-06-01"))
    ledger.registry.add(r.path, "hist")
    return r


def _git_fields(ledger, repo_id="hist") -> dict:
    with ledger.db.connect() as con:
        return {p: json.loads(f) for p, f in con.execute(
            "SELECT file_path, fields FROM payload_extras WHERE repo_id = ? AND source = 'git' AND chunk_index = -1",
            [repo_id]).fetchall()}


def test_history_follows_rename_and_counts_authors_and_90_day_churn(scripted, ledger):
    pipeline.snapshot_stage(ledger, "hist", "run-1", LOG)
    report = enrich.git_stage(ledger, "hist", "run-1", LOG)
    assert (report.mode, report.commits_read) == ("full", 5)
    fields = _git_fields(ledger)
    assert fields["src/new_name.py"] == {
        "git_last_modified_utc": "2024-06-01T12:00:00Z",
        "git_author_count": 3,                     # Ada (before the rename), Bob, Cy
        "git_churn_90d": 3,                        # 03-15, 05-01, 06-01; 01-01 is before 2024-03-03
        "git_last_sha": scripted.head(),
        "git_last_msg": "tune rates",
    }
    assert fields["other.py"]["git_author_count"] == 1
    assert fields["other.py"]["git_churn_90d"] == 1
    assert fields["other.py"]["git_last_msg"] == "bump A"
    assert "src/old_name.py" not in fields


def test_unchanged_head_skips_the_pass_and_a_new_commit_reads_only_the_new_range(scripted, ledger):
    pipeline.snapshot_stage(ledger, "hist", "run-1", LOG)
    enrich.git_stage(ledger, "hist", "run-1", LOG)
    assert enrich.git_stage(ledger, "hist", "run-2", LOG).mode == "skipped"

    scripted.write("src/new_name.py", BODY + "def extra(x):\n    return x + 2\n")
    scripted.commit("retune", env=_as("Dee", "2024-06-10"))
    pipeline.snapshot_stage(ledger, "hist", "run-3", LOG)
    report = enrich.git_stage(ledger, "hist", "run-3", LOG)
    assert (report.mode, report.commits_read) == ("incremental", 1)
    fields = _git_fields(ledger)
    assert fields["src/new_name.py"]["git_author_count"] == 4
    assert fields["src/new_name.py"]["git_churn_90d"] == 4   # window from 2024-03-12: 03-15, 05-01, 06-01, 06-10
    assert fields["src/new_name.py"]["git_last_msg"] == "retune"
    assert fields["other.py"]["git_churn_90d"] == 1          # untouched file, reused facts

    full = file_histories(scripted.path, scripted.head(), ["src/new_name.py", "other.py"], 90)
    for path, h in full.files.items():
        assert h.to_fields(full.head_ct, 90) == fields[path]


def test_rewritten_history_falls_back_to_a_full_pass(scripted, ledger):
    pipeline.snapshot_stage(ledger, "hist", "run-1", LOG)
    enrich.git_stage(ledger, "hist", "run-1", LOG)
    scripted.git("reset", "-q", "--hard", "HEAD~1")
    scripted.write("other.py", "A = 3\n")
    scripted.commit("rewrite", env=_as("Eve", "2024-06-02"))
    pipeline.snapshot_stage(ledger, "hist", "run-2", LOG)
    report = enrich.git_stage(ledger, "hist", "run-2", LOG)
    assert report.mode == "full"
    fields = _git_fields(ledger)
    assert fields["src/new_name.py"]["git_last_msg"] == "rename rates module"   # "tune rates" was dropped
    assert fields["other.py"]["git_author_count"] == 2


def test_folder_repo_has_no_git_fields(tmp_path, ledger):
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "a.py").write_text("x = 1\n")
    ledger.registry.add(folder, "plain")
    pipeline.snapshot_stage(ledger, "plain", "run-1", LOG)
    assert enrich.git_stage(ledger, "plain", "run-1", LOG).mode == "not-git"
    assert _git_fields(ledger, "plain") == {}
