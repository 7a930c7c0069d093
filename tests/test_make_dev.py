"""`make dev PORT=N` serves the UI on that port, on the ledger's instance, without dg's or dagster's warnings
about the venv or an ignored ./dagster.yaml."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from tests.e2e.processes import ROOT, free_port, stop_group

WARNINGS = ("does not match the virtual environment", "will not be used to configure Dagster", "Traceback")


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_dev_serves_on_the_given_port_without_warnings(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "DAGSTER_HOME", "PORT")}
    env.update(LEDGER_HOME=str(tmp_path / "home"), HF_HUB_OFFLINE="1", NO_COLOR="1")
    log = tmp_path / "dev.log"
    with open(log, "w", encoding="utf-8") as fh:
        # -o: the venv counts as installed (a newer pyproject.toml must not start a pip install here).
        proc = subprocess.Popen(["make", "-o", ".venv/.installed", "dev", f"PORT={port}"], cwd=ROOT, env=env,
                                stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while True:
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        time.sleep(2)  # the daemon's first lines
    finally:
        stop_group(proc)
    text = log.read_text(encoding="utf-8", errors="replace")
    assert not [w for w in WARNINGS if w in text], text[-3000:]
    assert (tmp_path / "home" / "dagster" / "dagster.yaml").read_bytes() == (ROOT / "dagster.yaml").read_bytes()
    assert (tmp_path / "home" / "dagster" / "history").is_dir()  # the instance is the ledger's own
