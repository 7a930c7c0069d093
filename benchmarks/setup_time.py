"""`make setup` on a fresh venv with cold package caches: uv (the default) against pip, alternating.

    python benchmarks/setup_time.py [--runs N] [--tree DIR]

Each run builds a new venv in a temporary folder from the project tree (--tree, default this checkout) with
`make setup VENV=...`, once with `LEDGER_INSTALLER=pip` (pip throughout, the peer) and once with the default
(scripts/install_deps.py: uv fetched into the venv, told pip's settings), in alternating order, each with
empty pip and uv caches (what a fresh machine has). Prints each run's seconds and the load average at its
start, the medians and their ratio, and whether both venvs hold the same distributions (`pip freeze`).
Figures: benchmarks/ingest_scale.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def setup_once(tree: Path, installer: str, work: Path) -> tuple[float, float, list[str]]:
    """Seconds of one cold `make setup`, the 1-minute load average at its start, and the venv's `pip freeze`."""
    venv = work / f"venv-{installer}"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "LEDGER_INSTALLER")}
    env.update(PIP_CACHE_DIR=str(work / "pip-cache"), UV_CACHE_DIR=str(work / "uv-cache"))
    if installer == "pip":
        env["LEDGER_INSTALLER"] = "pip"
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.run(["make", "setup", f"VENV={venv}"], cwd=tree, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode:
        sys.exit(f"make setup ({installer}) failed:\n{proc.stderr[-3000:]}")
    freeze = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "freeze", "--exclude", "uv"],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    return seconds, load, sorted(line for line in freeze if not line.startswith("-e "))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2, help="runs of each installer (default 2)")
    ap.add_argument("--tree", default=str(ROOT), help="the project tree to set up (default: this checkout)")
    args = ap.parse_args(argv)
    times: dict[str, list[float]] = {"uv": [], "pip": []}
    freezes: dict[str, list[str]] = {}
    print("| run | installer | seconds | load average at start |\n| --- | --- | ---: | ---: |")
    for run in range(args.runs):
        for installer in (("pip", "uv") if run % 2 == 0 else ("uv", "pip")):
            work = Path(tempfile.mkdtemp(prefix="ledger-setup-"))
            try:
                seconds, load, freezes[installer] = setup_once(Path(args.tree), installer, work)
            finally:
                shutil.rmtree(work, ignore_errors=True)
            times[installer].append(seconds)
            print(f"| {run + 1} | {installer} | {seconds:.1f} | {load:.2f} |", flush=True)
    uv, pip = statistics.median(times["uv"]), statistics.median(times["pip"])
    print(f"\nmedian: uv {uv:.1f} s, pip {pip:.1f} s: {pip / uv:.2f}x faster")
    same = freezes["uv"] == freezes["pip"]
    print("the same distributions in both venvs" if same else
          "the venvs differ: " + ", ".join(sorted(set(freezes["uv"]) ^ set(freezes["pip"]))))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
