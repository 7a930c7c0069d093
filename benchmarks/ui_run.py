"""A no-op run started the way the UI starts one, against the same run from `ledger ingest`.

    python benchmarks/ui_run.py [PATH] [--rounds 3]

PATH (default: tests/fixtures/python) is copied into a temp git repo, registered and ingested
once. Then, with nothing changed, each round times (a) `ledger ingest ID` and (b) `dagster asset
materialize --select '*' --partition ID -m ledger_assets.definitions`, which runs the assets as
the UI's Materialize button does (the `__ASSET_JOB`, the code location's executor, a fresh
process, the same DAGSTER_HOME). Printed: the median wall time of each and their ratio (issue 17:
within 2x). Figures: benchmarks/README.md.
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
BIN = Path(sys.executable).parent


def timed(cmd: list[str], env: dict) -> float:
    t0 = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd[:3])} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return time.monotonic() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path", nargs="?", default=str(ROOT / "tests" / "fixtures" / "python"))
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ui-run-"))
    repo = work / "repo"
    shutil.copytree(args.path, repo, ignore=shutil.ignore_patterns(".git"))
    git = ["git", "-C", str(repo), "-c", "user.email=b@b", "-c", "user.name=bench"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "seed"], check=True)
    home = work / "home"
    env = {**os.environ, "LEDGER_HOME": str(home), "DAGSTER_HOME": str(home / "dagster"), "HF_HUB_OFFLINE": "1"}
    env.pop("GROQ_API_KEY", None)
    ledger = [str(BIN / "ledger")]
    timed(ledger + ["add-repo", str(repo), "--id", "bench"], env)
    first = timed(ledger + ["ingest", "bench"], env)
    cli, ui = [], []
    for _ in range(args.rounds):
        cli.append(timed(ledger + ["ingest", "bench"], env))
        ui.append(timed([str(BIN / "dagster"), "asset", "materialize", "--select", "*", "--partition", "bench",
                         "-m", "ledger_assets.definitions"], env))
    c, u = statistics.median(cli), statistics.median(ui)
    print(f"first ingest {first:.1f} s; no-op runs, median of {args.rounds}:")
    print(f"  ledger ingest                 {c:6.1f} s")
    print(f"  dagster asset materialize     {u:6.1f} s   ({u / c:.2f}x the CLI)")
    shutil.rmtree(work, ignore_errors=True)
    return 0 if u <= 2 * c else 1


if __name__ == "__main__":
    sys.exit(main())
