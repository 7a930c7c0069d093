"""kill -9 at random points of many ingests, then one clean run: is every chunk still found?

    python benchmarks/kill_soak.py [--runs 20] [--seed 7] [--files 12]

A git repo of FILES small Python modules is ingested once through `ledger ingest`. Then RUNS
times: one commit edits two modules, adds one and deletes one, `ledger ingest` starts and is
killed with SIGKILL after a random delay (uniform over the run's measured length, so the kill
lands in any stage: snapshot, chunking, embedding, staging, promotion). After each kill a
reader process checks what queries serve: one live point per served chunk row, no doubles.
Finally one `ledger ingest` runs to the end. Printed: kills per stage reached, reads that saw a
mix or a gap, and after the last run the chunks missing from search (served rows without their
live point, or with a point of other content), doubled points and `ledger status`. Exit 1 when
anything is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
LEDGER = [sys.executable, "-m", "ledger_assets.cli"]
CHECK = r'''
import json, sys
from collections import Counter
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.qdrant import repo_filter
ledger = Ledger.from_env()
with ledger.db.connect() as con:
    rows = {(f, i): h for f, i, h in con.execute(
        "SELECT file_path, chunk_index, content_hash FROM served.chunks WHERE repo_id = 'soak'").fetchall()}
with ledger.qdrant.open() as client:
    live = [(p.payload["file_path"], p.payload["chunk_index"], p.payload["content_hash"])
            for p in ledger.qdrant.scroll(client, repo_filter("soak", latest_only=True),
                                          ["file_path", "chunk_index", "content_hash"])]
slots = Counter((f, i) for f, i, _ in live)
have = {(f, i): h for f, i, h in live}
missing = [k for k, h in rows.items() if have.get(k) != h]
print(json.dumps({"rows": len(rows), "live": len(live), "missing": len(missing),
                  "doubled": sum(1 for n in slots.values() if n > 1), "orphans": len(set(have) - set(rows))}))
'''


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Soak", "GIT_AUTHOR_EMAIL": "s@example.com",
           "GIT_COMMITTER_NAME": "Soak", "GIT_COMMITTER_EMAIL": "s@example.com"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def instance(home: Path):
    from dagster import DagsterInstance

    return DagsterInstance.from_config(str(home / "dagster"))


def last_step(home: Path) -> str:
    """The last step the newest run of the instance started (where the kill landed)."""
    from dagster import DagsterEventType

    runs = instance(home).get_runs(limit=1)
    if not runs:
        return "(no run recorded)"
    steps = [e.step_key for e in instance(home).all_logs(runs[0].run_id, of_type=DagsterEventType.STEP_START)]
    return steps[-1] if steps else "(before the first step)"


def module(name: str, version: int) -> str:
    funcs = "\n\n".join(f'def {name}_step_{j}(x):\n    """Step {j} of {name}, revision {version}."""\n'
                        f"    return x * {j} + {version}\n" for j in range(5))
    return f'"""Module {name}."""\n\n\n{funcs}'


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--files", type=int, default=12)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="kill-soak-"))
    repo, home = work / "repo", work / "home"
    repo.mkdir()
    env = {**os.environ, "LEDGER_HOME": str(home), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    env.pop("GROQ_API_KEY", None)
    env.pop("DAGSTER_HOME", None)
    names = [f"mod_{i}" for i in range(args.files)]
    version = {n: 0 for n in names}
    git(repo, "init", "-q", "-b", "main")
    for n in names:
        (repo / f"{n}.py").write_text(module(n, 0))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "seed")

    def ledger(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([*LEDGER, *argv], env=env, capture_output=True, text=True, cwd=ROOT)

    def check() -> dict:
        out = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, cwd=ROOT)
        return json.loads(out.stdout) if out.returncode == 0 else {"error": out.stderr.strip().splitlines()[-1:]}

    ledger("add-repo", str(repo), "--id", "soak")
    t = time.monotonic()
    first = ledger("ingest", "soak")
    print(f"first ingest: {time.monotonic() - t:.1f} s, exit {first.returncode}")
    (repo / f"{names[0]}.py").write_text(module(names[0], 99))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "warm-up")
    t = time.monotonic()
    ledger("ingest", "soak")
    run_s = time.monotonic() - t  # an incremental run: the kills fall anywhere in one
    print(f"an incremental ingest: {run_s:.1f} s")
    stages, bad_reads = Counter(), []
    for k in range(args.runs):
        for n in rng.sample(names, 2):
            version[n] += 1
            (repo / f"{n}.py").write_text(module(n, version[n]))
        gone = rng.choice(names)
        names.remove(gone)
        (repo / f"{gone}.py").unlink()
        new = f"mod_{args.files + k}"
        names.append(new)
        version[new] = 0
        (repo / f"{new}.py").write_text(module(new, 0))
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"change {k}")
        delay = rng.uniform(0.5, run_s)
        proc = subprocess.Popen([*LEDGER, "ingest", "soak"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        stages[last_step(home)] += 1
        seen = check()
        if seen.get("missing") or seen.get("doubled") or seen.get("orphans") or "error" in seen:
            bad_reads.append((k, round(delay, 1), seen))
    print("kills by the last step started:", dict(stages))
    print(f"reads after a kill that saw a gap, a double or an orphan: {len(bad_reads)}")
    for k, delay, seen in bad_reads[:10]:
        print(f"  run {k} killed at {delay} s: {seen}")
    final = ledger("ingest", "soak")
    if final.returncode:
        print("final ingest stderr:", final.stderr.strip().splitlines()[-3:])
    after = check()
    status = ledger("status", "--format", "json")
    print(f"final ingest exit {final.returncode}; served {after}")
    print(f"ledger status exit {status.returncode}: "
          + ", ".join(f"{k}={v}" for k, v in json.loads(status.stdout or '[{}]')[0].items()
                      if k in ("up_to_date", "index_ok", "served_chunks", "live_points", "promotion_note")))
    print("runs by status:", dict(Counter(r.status.value for r in instance(home).get_runs())))
    shutil.rmtree(work, ignore_errors=True)
    ok = final.returncode == 0 and status.returncode == 0 and not (after.get("missing") or after.get("doubled")
                                                                   or after.get("orphans") or "error" in after)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
