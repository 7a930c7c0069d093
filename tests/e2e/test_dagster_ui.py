"""The Dagster UI end to end: a repo ingested by the `ledger` CLI shows in `dagster dev`.

Real processes only: `ledger add-repo` and `ledger ingest` write a run into the
instance under $LEDGER_HOME/dagster, `dagster dev` serves that instance, and
Debian's chromium (driven by Playwright's Python package; nothing downloads a
browser) reads the asset graph and the partition's materialization metadata.
The second UI test leaves the running to `dagster dev`'s daemon: git_head_sensor's
run, promotion, per-partition checks, and the partitions no registered repo backs.
"""

from __future__ import annotations

import json
import os
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


# --------------------------------------------------------------------------------------------------------------
# The sensor's side of the UI: a repo only registered (never ingested by the CLI) is run by git_head_sensor in
# `dagster dev`, promoted, and its checks show under its partition; partitions no registered repo backs go.

LOCATION = {"repositoryLocationName": "ledger_assets.definitions:defs", "repositoryName": "__repository__"}
RUNS_OF_PARTITION = """query ($partition: String!) {
  runsOrError(filter: {tags: [{key: "dagster/partition", value: $partition}]}) {
    ... on Runs { results { runId status jobName tags { key value } } } } }"""
PARTITION_KEYS = """{ assetNodeOrError(assetKey: {path: ["repo_snapshot"]}) { ... on AssetNode { partitionKeys } } }"""
ADD_PARTITION = """mutation ($selector: RepositorySelector!, $key: String!) {
  addDynamicPartition(repositorySelector: $selector, partitionsDefName: "repos", partitionKey: $key) {
    __typename } }"""
DONE = {"SUCCESS", "FAILURE", "CANCELED"}
# One run of the whole graph on a two-file repo took 40-60 s on a loaded 2-core machine (the model loads).
RUN_TIMEOUT_S = 300


def _wait_for(what: str, probe, dev: DagsterDev, timeout_s: float, every_s: float = 2.0):
    t0 = time.monotonic()
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() - t0 > timeout_s:
            raise AssertionError(f"{what}: not within {timeout_s:.0f}s\n--- dagster dev log ---\n{dev.log_tail(60)}")
        time.sleep(every_s)


def _finished_run(dev: DagsterDev, partition: str) -> dict | None:
    runs = dev.graphql(RUNS_OF_PARTITION, {"partition": partition})["runsOrError"]["results"]
    return runs[0] if runs and runs[0]["status"] in DONE else None


def _partition_keys(dev: DagsterDev) -> list[str]:
    return dev.graphql(PARTITION_KEYS)["assetNodeOrError"]["partitionKeys"]


class _Shots:
    """Screenshots into the test's tmp_path, and into $LEDGER_UI_SCREENSHOTS (docs/ui for the README) when set."""

    def __init__(self, tmp_path: Path):
        self.dirs = [tmp_path]
        extra = os.environ.get("LEDGER_UI_SCREENSHOTS")
        if extra:
            target = Path(extra) if Path(extra).is_absolute() else ROOT / extra
            target.mkdir(parents=True, exist_ok=True)
            self.dirs.append(target)

    def __call__(self, page, name: str, docs: bool = True) -> None:
        for d in self.dirs if docs else self.dirs[:1]:
            page.screenshot(path=str(d / name))


def test_sensor_run_promotes_and_partitions_are_pruned(tmp_path, browser):
    """In a real `dagster dev` (daemon included): git_head_sensor runs a repo that was only added, promoted_index
    records its sha, its checks show under its partition; a partition typed into the UI's "Add partition"
    dialog fails its run in the first step with one line and is removed, as is one added through GraphQL
    (by the sensor's tick); `ledger remove-repo` takes a repo's partition out of the UI."""
    from playwright.sync_api import expect

    expect.set_options(timeout=UI_TIMEOUT_MS)  # the UI loads the code location and polls in the background
    shop = GitRepo(tmp_path / "shop")
    shop.write("src/service.py", SERVICE_PY)
    shop.write("docs/guide.md", GUIDE_MD)
    head = shop.commit("seed")
    # A second repo whose folder then moves away: the sensor skips it (no run), `ledger remove-repo` drops it.
    old = GitRepo(tmp_path / "old")
    old.write("docs/guide.md", GUIDE_MD)
    old.commit("seed")
    env = ledger_env(tmp_path / "home")
    for path, rid in ((shop.path, REPO_ID), (old.path, "old")):
        added = run_ledger(env, "add-repo", str(path), "--id", rid)  # registered only: the sensor runs it
        assert added.returncode == 0, added.stderr
    old.path.rename(tmp_path / "old-moved")
    shots = _Shots(tmp_path)
    t0 = time.monotonic()

    with DagsterDev(env, tmp_path / "dagster-dev.log") as dev:
        dev.wait_ready()
        t_ready = time.monotonic()
        # A fresh instance greets the first visitor with "Join the Dagster community" a second after some
        # page loads, over whatever dialog is open; mark it seen, as its Skip button does, before any page.
        assert dev.graphql("mutation SetNuxSeen { setNuxSeen }")["setNuxSeen"] is True
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(UI_TIMEOUT_MS)
        body = page.locator("body")
        try:
            page.goto(f"{dev.url}/assets/repo_snapshot?view=partitions", wait_until="domcontentloaded")
            page.get_by_role("button", name="Hide navigation").click()  # wider pages for the screenshots
            # 4. `ledger remove-repo` takes the partition out of the UI.
            expect(page.locator('[title="old"]').first).to_be_visible()
            removed = run_ledger(env, "remove-repo", "old")
            assert removed.returncode == 0, removed.stderr
            page.reload(wait_until="domcontentloaded")
            expect(page.locator(f'[title="{REPO_ID}"]').first).to_be_visible()
            expect(page.locator('[title="old"]')).to_have_count(0)

            # 3. A partition typed into the "Add a partition" dialog of the Materialize launcher, and its run.
            page.goto(f"{dev.url}/assets/repo_snapshot", wait_until="domcontentloaded")
            page.get_by_role("button", name=re.compile("Materialize")).first.click()
            launcher = page.get_by_role("dialog").filter(has_text="Launch runs to materialize")
            launcher.get_by_role("button", name="Add a partition").click()
            add = page.get_by_role("dialog").filter(has_text="Add a partition for repos")
            add.get_by_role("textbox", name="name").fill("ghost")
            add.get_by_role("button", name="Save").click()
            expect(add).to_have_count(0)
            launcher.get_by_role("button", name="Launch 1 run").click()
            expect(launcher).to_have_count(0)
            # And one added the way the dialog adds it, with no run: only the sensor's tick removes it.
            added = dev.graphql(ADD_PARTITION, {"selector": LOCATION, "key": "ghost2"})
            assert added["addDynamicPartition"]["__typename"] == "AddDynamicPartitionSuccess", added

            # 1. The sensor's run of the registered repo.
            run = _wait_for("the sensor's run of shop", lambda: _finished_run(dev, REPO_ID), dev, RUN_TIMEOUT_S)
            tags = {t["key"]: t["value"] for t in run["tags"]}
            assert tags.get("dagster/sensor_name") == "git_head_sensor", tags
            assert tags.get("dagster/run_key", "").startswith(f"{REPO_ID}@{head}/"), tags  # then the registration
            assert run["jobName"] == "ingest" and run["status"] == "SUCCESS", (run, dev.log_tail(80))
            t_run = time.monotonic()
            ghost_run = _wait_for("the ghost partition's run", lambda: _finished_run(dev, "ghost"), dev, 120)
            assert ghost_run["status"] == "FAILURE", ghost_run
            _wait_for("ghost partitions removed", lambda: _partition_keys(dev) == [REPO_ID], dev, 90)

            page.goto(f"{dev.url}/runs", wait_until="domcontentloaded")
            expect(body).to_contain_text(run["runId"][:8])
            page.goto(f"{dev.url}/runs/{ghost_run['runId']}", wait_until="domcontentloaded")
            expect(body).to_contain_text("unknown repo id 'ghost'")
            expect(body).to_contain_text("The partition 'ghost' was removed.")
            shots(page, "ghost_run_failure.png", docs=False)
            page.goto(f"{dev.url}/assets/repo_snapshot?view=partitions", wait_until="domcontentloaded")
            expect(page.locator(f'[title="{REPO_ID}"]').first).to_be_visible()
            expect(page.locator('[title="ghost"]')).to_have_count(0)
            expect(page.locator('[title="ghost2"]')).to_have_count(0)

            # 1. promoted_index materialized for the partition, with the sha queries now answer from.
            page.goto(f"{dev.url}/assets/promoted_index?view=partitions&partition={REPO_ID}",
                      wait_until="domcontentloaded")
            expect(body).to_contain_text("Materialized")
            expect(page.locator("tr", has_text="promoted_sha")).to_contain_text(head)
            expect(body).to_contain_text(f"Queries now answer from {head[:12]}")
            shots(page, "promoted_index_partition.png")

            # 2. Check results per partition: chunks -> Checks -> line_coverage -> Partitions -> shop.
            page.goto(f"{dev.url}/assets/chunks?view=checks&checkDetail=line_coverage", wait_until="domcontentloaded")
            page.locator("button[role=tab]#partitions").click()
            expect(body).to_contain_text("Select a partition to view details")
            page.locator(f'[title="{REPO_ID}"]').last.click()
            expect(body).to_contain_text("Passed")
            expect(body).to_contain_text("2/2 files fully covered")
            shots(page, "chunks_check_partition.png")
            # index_fresh (on promoted_index) for the same partition: queries answer from HEAD.
            page.goto(f"{dev.url}/assets/promoted_index?view=checks&checkDetail=index_fresh",
                      wait_until="domcontentloaded")
            expect(body).to_contain_text(f"queries answer from HEAD {head[:12]}")

            page.goto(f"{dev.url}/asset-groups", wait_until="domcontentloaded")
            nodes = page.locator("foreignObject")
            for name in (*PIPELINE_ASSETS, "promoted_index"):
                expect(nodes.filter(has_text=re.compile(rf"^{name}$"))).to_have_count(1)
            page.locator("button:has([aria-label=panel_show_right])").last.click()  # hide the asset list
            page.wait_for_timeout(1_000)  # the graph re-fits the wider canvas
            shots(page, "asset_graph.png")
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
            print(f"screenshot of the failure: {tmp_path / 'failure.png'}\n--- dagster dev log ---\n{dev.log_tail()}")
            raise
    print(f"dagster dev ready {t_ready - t0:.1f}s, sensor run done at {t_run - t_ready:.1f}s, "
          f"all {time.monotonic() - t0:.1f}s")
