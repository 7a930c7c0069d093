"""The Dagster UI end to end: a repo ingested by the `ledger` CLI shows in `dagster dev`.

Real processes only: `ledger add-repo` and `ledger ingest` write a run into the
instance under $LEDGER_HOME/dagster, `dagster dev` serves that instance, and
Debian's chromium (driven by Playwright's Python package; nothing downloads a
browser) reads the asset graph and the partition's materialization metadata.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, GitRepo
from tests.e2e.processes import ROOT, DagsterDev, ledger_env, run_ledger

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
PIPELINE_ASSETS = ("repo_snapshot", "chunks", "intents", "embeddings", "qdrant_points")
REPO_ID = "shop"
# The code location loads in the background after /server_info answers: allow for it.
UI_TIMEOUT_MS = 60_000

SERVICE_PY = (FIXTURES / "python" / "booking.py").read_text()

GUIDE_MD = """# Guide

## Booking

Call `book` with a room and a guest.
"""


def test_definitions_validate(tmp_path):
    """`dagster definitions validate` loads the code location the workspace names."""
    env = ledger_env(tmp_path / "home")
    (tmp_path / "home" / "dagster").mkdir(parents=True)
    out = subprocess.run([sys.executable, "-m", "dagster", "definitions", "validate", "-w", "workspace.yaml"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "Validation successful for code location ledger_assets.definitions:defs" in out.stdout + out.stderr


@pytest.fixture
def browser():
    if not CHROMIUM.exists():
        pytest.fail("Debian's chromium is missing: run scripts/ensure_chromium.sh (make test does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def test_ingested_partition_shows_in_dagster_dev(tmp_path, browser):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect

    repo = GitRepo(tmp_path / "shop")
    repo.write("src/service.py", SERVICE_PY)
    repo.write("docs/guide.md", GUIDE_MD)
    repo.commit("seed")
    home = tmp_path / "home"
    env = ledger_env(home)
    t0 = time.monotonic()

    added = run_ledger(env, "add-repo", str(repo.path), "--id", REPO_ID)
    assert added.returncode == 0, added.stderr
    ingested = run_ledger(env, "ingest", REPO_ID, "--format", "json")
    assert ingested.returncode == 0, ingested.stderr[-3000:]
    summary = json.loads(ingested.stdout)
    assert summary["success"] and summary["chunks_written"] > 0
    assert (home / "dagster" / "dagster.yaml").exists()  # the CLI put the instance under LEDGER_HOME
    t_ingested = time.monotonic()

    with DagsterDev(env, tmp_path / "dagster-dev.log") as dev:
        dev.wait_ready()
        t_ready = time.monotonic()
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(UI_TIMEOUT_MS)
        try:
            page.goto(f"{dev.url}/asset-groups", wait_until="domcontentloaded")
            nodes = page.locator("foreignObject")  # one per asset node of the graph
            expect(nodes.filter(has_text=re.compile(r"^qdrant_points$"))).to_have_count(1, timeout=UI_TIMEOUT_MS)
            # A fresh instance greets the first visitor with "Join the Dagster community".
            skip = page.get_by_role("button", name="Skip")
            try:
                skip.click(timeout=5_000)
            except PlaywrightTimeout:  # no dialog this time: nothing to dismiss
                pass
            for name in PIPELINE_ASSETS:
                expect(nodes.filter(has_text=re.compile(rf"^{name}$"))).to_have_count(1, timeout=UI_TIMEOUT_MS)
            page.screenshot(path=str(tmp_path / "asset_graph.png"))

            page.goto(f"{dev.url}/assets/chunks?view=partitions&partition={REPO_ID}",
                      wait_until="domcontentloaded")
            body = page.locator("body")
            expect(body).to_contain_text("Materialized", timeout=UI_TIMEOUT_MS)
            expect(body).to_contain_text("total_chunks", timeout=UI_TIMEOUT_MS)
            expect(body).to_contain_text("chunk_types", timeout=UI_TIMEOUT_MS)
            # The chunk-type table of this very partition: the Python functions and the guide.
            expect(body).to_contain_text("py_function", timeout=UI_TIMEOUT_MS)
            expect(body).to_contain_text("md_section", timeout=UI_TIMEOUT_MS)
            total_row = page.locator("tr", has_text="total_chunks")
            expect(total_row).to_contain_text(str(summary["chunks_written"]), timeout=UI_TIMEOUT_MS)
            page.screenshot(path=str(tmp_path / "chunks_partition.png"), full_page=True)
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
            print(f"screenshot of the failure: {tmp_path / 'failure.png'}\n--- dagster dev log ---\n{dev.log_tail()}")
            raise
    print(f"add-repo + ingest {t_ingested - t0:.1f}s, dagster dev ready {t_ready - t_ingested:.1f}s, "
          f"browser {time.monotonic() - t_ready:.1f}s")
