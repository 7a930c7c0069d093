"""The fixed cost of a run through Dagster (issue 30): a first `ledger ingest` of a small repo, a re-run at the
same HEAD, and `ledger status`, each in a process of its own as a person runs them.

    python benchmarks/fixed_cost.py [REPO] [--home DIR] [--profile lean|pooled|standard|full|joint] [--backend auto|torch|bf16|onnx]
                                    [--status-runs N]

REPO: a git work tree (default: a temporary git repo of five files of this project's `encode/` and
`ingest/`, one commit). It is registered in a fresh LEDGER_HOME (--home: an empty or missing folder, kept;
default a temporary one, removed) with `ledger add-repo`, then ingested twice with `ledger ingest ID
--format json` (the second run at the same HEAD: nothing to do), then `ledger status` runs --status-runs
times (the median is used). Every command is `python -m ledger_assets.cli ...` in a fresh process.

For each ingest: the process's wall seconds, and from the run's Dagster event log each step's seconds
(STEP_START to STEP_SUCCESS or STEP_FAILURE: an asset with its blocking checks, `index_fresh` a step of its
own), "before the first step" (the process's launch to the first STEP_START: interpreter, imports, the
instance, the job, the run record) and "after the last step" (to the process's exit); whether the
`embeddings` asset loaded the model (its `model_loaded` metadata) and why it did or did not.

"Dagster's run start" is measured on its own: a fresh process that imports dagster and materializes one
asset that does nothing, in process, on a fresh instance (`_TRIVIAL` below): what any run pays before and
after its steps. The script prints the re-run's wall seconds ÷ (`ledger status` + that run start): issue 30
asks for at most 2. Figures: benchmarks/ingest_scale.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Five files of this project (32 chunks when this script was written), the repo of the figures.
DEFAULT_FILES = ("ledger_assets/encode/lexical.py", "ledger_assets/encode/quality.py",
                 "ledger_assets/ingest/concepts.py", "ledger_assets/ingest/symbol_texts.py",
                 "ledger_assets/ingest/snapshot.py")

_TRIVIAL = """
import sys, time
t0 = time.perf_counter()
from dagster import DagsterInstance, asset, materialize
@asset
def nothing():
    return None
instance = DagsterInstance.local_temp(sys.argv[1])
result = materialize([nothing], instance=instance)
assert result.success
"""


def _env(home: Path, profile: str, backend: str) -> dict:
    env = dict(os.environ, LEDGER_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("DAGSTER_HOME", None)
    if profile:
        env["LEDGER_EMBED_PROFILE"] = profile
    if backend:
        env["LEDGER_EMBED_BACKEND"] = backend
    return env


def ledger(env: dict, *args: str) -> tuple[float, float, str]:
    """(launch wall-clock time, seconds, stdout) of `ledger ARGS` in a fresh process; exits on failure."""
    launched = time.time()
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "ledger_assets.cli", *args], env=env, cwd=ROOT,
                         capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if out.returncode != 0:
        sys.exit(f"`ledger {' '.join(args)}` failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
    return launched, seconds, out.stdout


def trivial_run(env: dict) -> float:
    """Seconds of a fresh process that materializes one do-nothing asset through Dagster."""
    with tempfile.TemporaryDirectory(prefix="dagster-trivial-") as tmp:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", _TRIVIAL, tmp], env=env, check=True, capture_output=True)
        return time.perf_counter() - t0


def make_repo(dest: Path) -> Path:
    dest.mkdir(parents=True)
    for rel in DEFAULT_FILES:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, target)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "-C", str(dest)]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "five files"], check=True)
    return dest


def run_steps(home: Path, run_id: str) -> tuple[dict[str, float], float, float, dict]:
    """(step -> seconds, first STEP_START, last step end, the embeddings materialization's metadata)."""
    from dagster import DagsterInstance

    os.environ["DAGSTER_HOME"] = str(home / "dagster")
    instance = DagsterInstance.get()
    starts, seconds, ends, meta = {}, {}, [], {}
    for rec in instance.all_logs(run_id):
        ev = rec.dagster_event
        if ev is None or not rec.step_key:
            continue
        kind = ev.event_type_value
        if kind == "STEP_START":
            starts[rec.step_key] = rec.timestamp
        elif kind in ("STEP_SUCCESS", "STEP_FAILURE") and rec.step_key in starts:
            seconds[rec.step_key] = rec.timestamp - starts[rec.step_key]
            ends.append(rec.timestamp)
        elif kind == "ASSET_MATERIALIZATION" and rec.step_key == "embeddings":
            meta = {k: getattr(v, "value", v) for k, v in ev.event_specific_data.materialization.metadata.items()}
    instance.dispose()
    return seconds, min(starts.values()), max(ends), meta


def ingest(env: dict, home: Path, repo_id: str) -> dict:
    launched, wall, stdout = ledger(env, "ingest", repo_id, "--format", "json")
    out = json.loads(stdout)
    steps, first, last, meta = run_steps(home, out["runs"][0])
    return {"wall": wall, "steps": steps, "before": first - launched, "after": launched + wall - last,
            "embeddings": meta, "summary": out}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", nargs="?", help="a git work tree (default: five files of this project, committed)")
    ap.add_argument("--home", help="a fresh LEDGER_HOME (empty or missing; kept). Default: a temp folder, removed")
    ap.add_argument("--id", default="fixed", help="repo id (default: fixed)")
    ap.add_argument("--profile", default="", help="LEDGER_EMBED_PROFILE for the runs (default: the environment's)")
    ap.add_argument("--backend", default="", help="LEDGER_EMBED_BACKEND for the runs (default: the environment's)")
    ap.add_argument("--status-runs", type=int, default=3, help="`ledger status` runs, the median used (default 3)")
    args = ap.parse_args(argv)
    if args.home and Path(args.home).exists() and any(Path(args.home).iterdir()):
        print(f"error: --home {args.home}: not empty (the benchmark needs a fresh ledger home)", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="ledger-fixed-"))
    home = Path(args.home) if args.home else tmp / "home"
    repo = Path(args.repo).resolve() if args.repo else make_repo(tmp / "repo")
    env = _env(home, args.profile, args.backend)
    try:
        _, add_s, _ = ledger(env, "add-repo", str(repo), "--id", args.id)
        first = ingest(env, home, args.id)
        again = ingest(env, home, args.id)
        status = [ledger(env, "status")[1] for _ in range(max(1, args.status_runs))]
        _, _, status_out = ledger(env, "status", "--format", "json")
        trivial = statistics.median(trivial_run(env) for _ in range(3))
    finally:
        if not args.home:
            shutil.rmtree(tmp, ignore_errors=True)
    status_s = statistics.median(status)
    row = json.loads(status_out)[0]
    load = os.getloadavg()
    print(f"repo {repo} ({row['served_chunks']} chunks served, up to date: {row['up_to_date']}); "
          f"profile={env.get('LEDGER_EMBED_PROFILE', 'default')} backend={env.get('LEDGER_EMBED_BACKEND', 'default')}; "
          f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; cpus {os.cpu_count()}")
    print(f"`ledger add-repo`: {add_s:.2f} s")
    print()
    keys = list(dict.fromkeys([*first["steps"], *again["steps"]]))
    print("| step | first run, s | same-HEAD re-run, s |")
    print("| --- | ---: | ---: |")
    print(f"| before the first step (process start, imports, run start) | {first['before']:.2f} | {again['before']:.2f} |")
    for k in keys:
        a, b = first["steps"].get(k), again["steps"].get(k)
        print(f"| {k} | {'' if a is None else f'{a:.2f}'} | {'' if b is None else f'{b:.2f}'} |")
    print(f"| after the last step (to the process's exit) | {first['after']:.2f} | {again['after']:.2f} |")
    print(f"| **`ledger ingest`, wall** | **{first['wall']:.2f}** | **{again['wall']:.2f}** |")
    print()
    for name, r in (("first run", first), ("re-run", again)):
        m = r["embeddings"]
        print(f"{name}: embeddings model_loaded={m.get('model_loaded')} embeddings_computed="
              f"{m.get('embeddings_computed')} {('(' + str(m['model_note']) + ')') if m.get('model_note') else ''}"
              f"; chunks_written={r['summary']['chunks_written']}")
    print()
    print(f"`ledger status`: {status_s:.2f} s (median of {len(status)}: {', '.join(f'{s:.2f}' for s in status)})")
    print(f"Dagster's run start (a fresh process materializing one do-nothing asset): {trivial:.2f} s (median of 3)")
    ratio = again["wall"] / (status_s + trivial)
    print(f"same-HEAD re-run ÷ (status + run start) = {again['wall']:.2f} ÷ ({status_s:.2f} + {trivial:.2f}) = "
          f"**{ratio:.2f}x** (issue 30: at most 2x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
