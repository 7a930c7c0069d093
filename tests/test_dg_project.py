"""The root is a dg project: `dg check defs` loads the code location; the instance follows dagster.yaml."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from ledger_assets.defs.runs import dagster_instance
from ledger_assets.store.settings import LedgerSettings

ROOT = Path(__file__).resolve().parents[1]


def test_dg_check_and_list_defs_from_the_root(tmp_path):
    dg = Path(sys.executable).with_name("dg")
    env = {**os.environ, "LEDGER_HOME": str(tmp_path / "home"), "DAGSTER_HOME": str(tmp_path / "home" / "dagster"),
           "HF_HUB_OFFLINE": "1", "NO_COLOR": "1"}
    (tmp_path / "home" / "dagster").mkdir(parents=True)
    shutil.copyfile(ROOT / "dagster.yaml", tmp_path / "home" / "dagster" / "dagster.yaml")
    check = subprocess.run([str(dg), "check", "defs"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert check.returncode == 0, check.stderr[-2000:]
    assert "All definitions loaded successfully" in check.stdout + check.stderr
    listed = subprocess.run([str(dg), "list", "defs", "--json"], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=180)
    assert listed.returncode == 0, listed.stderr[-2000:]
    for name in ("repo_snapshot", "qdrant_points", "git_head_sensor", "ingest"):
        assert name in listed.stdout


def test_the_ledgers_own_instance_follows_the_projects_dagster_yaml(tmp_path, monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    settings = LedgerSettings(home=str(tmp_path / "home"))
    config = settings.dagster_home / "dagster.yaml"
    dagster_instance(settings)
    assert config.read_bytes() == (ROOT / "dagster.yaml").read_bytes()
    config.write_text("telemetry:\n  enabled: false\n")  # an old copy, as `cp -n` left it
    dagster_instance(settings)
    assert config.read_bytes() == (ROOT / "dagster.yaml").read_bytes()


def test_a_dagster_home_the_user_set_is_only_seeded(tmp_path, monkeypatch):
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    monkeypatch.setenv("DAGSTER_HOME", str(theirs))
    dagster_instance(LedgerSettings(home=str(tmp_path / "home")))
    assert (theirs / "dagster.yaml").read_text() == "telemetry:\n  enabled: false\n"
