"""Queries while an ingest writes: does every read answer, and how long does it take?

    python benchmarks/reads_during_ingest.py [--queries 8] [--home DIR]

Two git repos are made from this project's own folders: `served` (chunkers/) and `busy`
(ledger_assets/). `served` is ingested first. Then, through the real command line, `ledger
ingest busy` (a first ingest: chunking, embedding, staging, promotion) and, right after it,
`ledger ingest served` of a new commit (an incremental run that promotes) run while QUERIES
`ledger query ... --repo served` processes start one after another. Printed: how many queries
answered (exit 0 with hits), each one's wall time (model load included), and the ingests' wall
time. Exit 1 when any query failed.
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
LEDGER = str(Path(sys.executable).with_name("ledger"))
QUESTIONS = ["split a C# file into member chunks", "redact secrets in config values", "chunk markdown by section",
             "pdf page groups", "detect the language of a file by extension", "sql stored procedure chunks",
             "tree-sitter outline of a class", "razor markup and code blocks"]


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "b@example.com"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def make_repo(dest: Path, source: Path) -> Path:
    shutil.copytree(source, dest / source.name, ignore=shutil.ignore_patterns("__pycache__", "queries"))
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "seed")
    return dest


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=8)
    ap.add_argument("--home", default="")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="reads-during-ingest-"))
    home = Path(args.home) if args.home else work / "home"
    env = {**os.environ, "LEDGER_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    env.pop("GROQ_API_KEY", None)
    served = make_repo(work / "served", ROOT / "chunkers")
    busy = make_repo(work / "busy", ROOT / "ledger_assets")

    def ledger(*argv: str, **kw) -> subprocess.CompletedProcess:
        return subprocess.run([LEDGER, *argv], env=env, capture_output=True, text=True, **kw)

    for rid, path in (("served", served), ("busy", busy)):
        ledger("add-repo", str(path), "--id", rid)
    t = time.monotonic()
    first = ledger("ingest", "served")
    print(f"first ingest of served: {time.monotonic() - t:.1f} s (exit {first.returncode})")
    if first.returncode:
        print(first.stderr[-2000:])
        return 1
    (served / "chunkers" / "NOTES.md").write_text("# Notes\n\nA new section written while queries run.\n")
    git(served, "add", "-A")
    git(served, "commit", "-q", "-m", "notes")

    t0 = time.monotonic()
    writer = subprocess.Popen(f"{LEDGER} ingest busy && {LEDGER} ingest served", shell=True, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    readers = []
    for i in range(args.queries):
        time.sleep(2.0)
        readers.append((time.monotonic(), subprocess.Popen(
            [LEDGER, "query", QUESTIONS[i % len(QUESTIONS)], "--repo", "served", "--k", "3", "--format", "json"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    results = []
    for started, proc in readers:
        out, err = proc.communicate()
        results.append((proc.returncode, time.monotonic() - started, out.strip().startswith("[") and out.strip() != "[]",
                        err.strip().splitlines()[-1:] if proc.returncode else []))
    writer_err = writer.communicate()[1]
    wall = time.monotonic() - t0
    answered = sum(1 for rc, _, hits, _ in results if rc == 0 and hits)
    times = [s for _, s, _, _ in results]
    print(f"ingests (busy first, then served incremental): {wall:.1f} s, exit {writer.returncode}")
    print(f"queries answered: {answered}/{len(results)}; wall s min / median / max: "
          f"{min(times):.1f} / {statistics.median(times):.1f} / {max(times):.1f}")
    for rc, secs, hits, err in results:
        if rc or not hits:
            print(f"  failed: exit {rc} after {secs:.1f} s {err}")
    if writer.returncode:
        print(writer_err[-2000:])
    if not args.home:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if answered == len(results) and writer.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
