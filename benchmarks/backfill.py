"""A backfill of the ingest job over N repos, as a data team runs one, on Dagster's Postgres storage (issue 19).

    python benchmarks/backfill.py [--repos 20] [--concurrency 2] [--max-files 5] [--storage postgres|sqlite]
                                  [--keep] [--timeout 1800]

All in one temporary folder (removed at the end, on an error or Ctrl-C too, unless --keep):
1. a throwaway Postgres cluster (benchmarks/_pgcluster.py) and a DAGSTER_HOME with the project's
   dagster.yaml plus `storage: postgres` and `max_concurrent_runs` = --concurrency (--storage
   sqlite keeps Dagster's default storage);
2. N small git repos sampled from packages installed in this venv (at most --max-files files each,
   sizes varying from repo to repo), registered and added as dynamic partitions;
3. `git_head_sensor` stopped (only the backfill launches runs) and `dagster-daemon run` started;
4. `dagster job backfill -j ingest --partitions <all N>` (the UI's "Launch backfill"), waiting for
   every run; 5. the same backfill again over the unchanged repos: it must write nothing.

Printed per backfill: wall time, run durations (min / median / p90 / max), queue and start times,
chunks, points written, embeddings computed, failed runs, repos promoted at HEAD; peak RSS of the
run processes, the daemon and Postgres; the storage Dagster wrote. Exit 1 when a run failed, a repo
is not promoted at HEAD, or the second backfill wrote anything. Figures: benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pgcluster import PgCluster, PgError, descendants, process_table  # noqa: E402

EXTENSIONS = {".py", ".pyi", ".pyx", ".pxd", ".c", ".h", ".cc", ".cpp", ".hpp", ".js", ".css", ".md", ".rst",
              ".json", ".yaml", ".yml", ".graphql", ".mako", ".jinja", ".f90", ".sql", ".toml", ".html"}
# Packages tried first, for their languages (C/C++ headers, Cython, JS/CSS, GraphQL, JSON, Mako, ...);
# the rest are filled from the other installed packages, in name order.
PREFERRED = ["greenlet", "uvloop", "playwright", "dagster_rest_resources", "jsonschema_specifications", "alembic",
             "markupsafe", "sklearn", "dagster_webserver", "torchgen", "numpy", "dagster_dg_cli", "rich",
             "jinja2", "click", "starlette", "yaml", "attr", "idna", "certifi"]
MIN_BYTES, MAX_BYTES = 300, 12_000
TERMINAL = {"SUCCESS", "FAILURE", "CANCELED"}


# ----------------------------------------------------------------------------------------------- repos ---
def site_packages() -> Path:
    import sysconfig

    return Path(sysconfig.get_paths()["purelib"])


def eligible_files(pkg: Path) -> list[Path]:
    out = []
    for path in sorted(pkg.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file() or path.is_symlink():
            continue
        if path.suffix.lower() in EXTENSIONS and MIN_BYTES <= path.stat().st_size <= MAX_BYTES:
            out.append(path)
    return out


def sample(files: list[Path], cap: int) -> list[Path]:
    """Up to cap files, round robin over the extensions (rarest first), evenly spread inside each."""
    groups: dict[str, list[Path]] = {}
    for f in files:
        groups.setdefault(f.suffix.lower(), []).append(f)
    spread = {}
    for ext, items in groups.items():
        step = max(1, len(items) // cap)
        spread[ext] = items[::step]
    order = sorted(spread, key=lambda e: (len(groups[e]), e))
    picked: list[Path] = []
    while len(picked) < cap and any(spread.values()):
        for ext in order:
            if spread[ext] and len(picked) < cap:
                picked.append(spread[ext].pop(0))
    return picked


def make_repos(dest: Path, n: int, max_files: int) -> list[tuple[str, Path, list[str]]]:
    """n git repos under dest: (repo id, path, the languages' extensions)."""
    sp = site_packages()
    names = [p for p in PREFERRED if (sp / p).is_dir()]
    names += sorted(p.name for p in sp.iterdir() if p.is_dir() and p.name not in names and p.name.isidentifier()
                    and not p.name.startswith("_"))
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
    repos = []
    for name in names:
        if len(repos) == n:
            break
        files = eligible_files(sp / name)
        if len(files) < 2:
            continue
        i = len(repos)
        cap = max(2, round(max_files * (0.4 + 0.2 * (i % 4))))
        picked = sample(files, cap)
        rid = f"r{i:02d}-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40]
        root = dest / rid
        for f in picked:
            target = root / name / f.relative_to(sp / name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, target)
        for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", f"{name} sample"]):
            subprocess.run(["git", "-C", str(root), *cmd], check=True, env=env, capture_output=True)
        repos.append((rid, root, sorted({f.suffix.lower() for f in picked})))
    if len(repos) < n:
        raise SystemExit(f"error: only {len(repos)} installed packages have files to sample (--repos {n})")
    return repos


# -------------------------------------------------------------------------------------------- dagster ---
def write_instance_config(dagster_home: Path, concurrency: int, postgres: bool) -> None:
    import yaml

    config = yaml.safe_load((ROOT / "dagster.yaml").read_text(encoding="utf-8")) or {}
    config.setdefault("concurrency", {}).setdefault("runs", {})["max_concurrent_runs"] = concurrency
    if postgres:  # the README's snippet, the port through a variable too
        # scheme: SQLAlchemy 2.1 maps a bare postgresql:// to psycopg 3, while dagster-postgres installs psycopg2.
        config["storage"] = {"postgres": {"postgres_db": {
            "username": {"env": "DAGSTER_PG_USER"}, "password": {"env": "DAGSTER_PG_PASSWORD"},
            "hostname": {"env": "DAGSTER_PG_HOST"}, "db_name": {"env": "DAGSTER_PG_DB"},
            "port": {"env": "DAGSTER_PG_PORT"}, "scheme": "postgresql+psycopg2"}}}
    dagster_home.mkdir(parents=True, exist_ok=True)
    (dagster_home / "dagster.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def run_cli(cmd: list[str], env: dict, log: Path, timeout: float = 600) -> str:
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(f"\n$ {' '.join(cmd)}\n")
        proc = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        fh.write(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise SystemExit(f"error: {' '.join(cmd[:3])} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc.stdout


class Daemon:
    """`dagster-daemon run` in its own process group; stopped by SIGINT to the group, then SIGKILL."""

    def __init__(self, env: dict, log: Path):
        self.env, self.log = env, log
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        fh = open(self.log, "a", encoding="utf-8")
        self.proc = subprocess.Popen([str(BIN / "dagster-daemon"), "run", "-w", str(ROOT / "workspace.yaml")],
                                     env=self.env, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        fh.close()

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        pgid = os.getpgid(self.proc.pid)
        for sig, wait in ((signal.SIGINT, 30), (signal.SIGKILL, 10)):
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                return
            try:
                self.proc.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
        try:  # the run workers and the code server are in the group too
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# ----------------------------------------------------------------------------------------------- memory ---
def _status(pid: int) -> tuple[int, int]:
    rss = hwm = 0
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except OSError:
        pass
    return rss, hwm


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@dataclass
class MemoryWatch:
    """Polls the daemon's process tree (and the CLI's, and Postgres') every `every` seconds."""

    roots: list[int]
    pg: PgCluster | None
    every: float = 0.5
    hwm_kb: dict[int, int] = field(default_factory=dict)      # pid -> VmHWM, largest seen
    kind: dict[int, str] = field(default_factory=dict)        # pid -> run / code server / daemon / cli
    tree_peak_kb: int = 0
    pg_peak_kb: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(5)

    def add_root(self, pid: int) -> None:
        self.roots.append(pid)

    def _loop(self) -> None:
        while not self._stop.is_set():
            table = process_table()
            pids = set()
            for root in list(self.roots):
                if root in table:
                    pids |= {root} | descendants(root, table)
            total = 0
            for pid in pids:
                rss, hwm = _status(pid)
                total += rss
                if self.kind.get(pid) != "run":  # read again: a child forked but not yet exec'd shows its parent's
                    cmd = _cmdline(pid)
                    # The code server starts each run worker with multiprocessing's spawn (`spawn_main`).
                    self.kind[pid] = ("run" if "execute_run" in cmd or "spawn_main" in cmd
                                      else "code server" if "grpc" in cmd
                                      else "daemon" if "dagster-daemon" in cmd or "dagster_daemon" in cmd
                                      else "cli" if "backfill" in cmd or "sensor" in cmd else "other")
                self.hwm_kb[pid] = max(self.hwm_kb.get(pid, 0), hwm)
            self.tree_peak_kb = max(self.tree_peak_kb, total)
            if self.pg:
                self.pg_peak_kb = max(self.pg_peak_kb, self.pg.server_rss_kb())
            self._stop.wait(self.every)

    def peaks_mb(self, kind: str) -> list[float]:
        return sorted(self.hwm_kb[p] / 1024 for p, k in self.kind.items() if k == kind and self.hwm_kb.get(p))


# ---------------------------------------------------------------------------------------------- backfill ---
@dataclass
class Result:
    name: str
    backfill_id: str
    submit_s: float
    wall_s: float
    durations: list[float]
    queued: list[float]
    startup: list[float]
    statuses: dict[str, int]
    summary: dict
    chunks_total: int
    promoted: int
    failures: list[str]


def backfill(name: str, ids: list[str], env: dict, log: Path, timeout: float, ledger_home: Path) -> Result:
    from dagster import DagsterInstance, RunsFilter

    t0 = time.time()
    out = run_cli([str(BIN / "dagster"), "job", "backfill", "-w", str(ROOT / "workspace.yaml"), "-j", "ingest",
                   "--partitions", ",".join(ids), "--noprompt"], env, log)
    submit_s = time.time() - t0
    m = re.search(r"Launched backfill job `([^`]+)`", out)
    if not m:
        raise SystemExit(f"error: no backfill id in the CLI's output:\n{out[-2000:]}")
    bid = m.group(1)
    print(f"{name}: backfill {bid} submitted in {submit_s:.1f} s; waiting for {len(ids)} runs", file=sys.stderr)
    instance = DagsterInstance.get()
    flt = RunsFilter(tags={"dagster/backfill": bid})
    last_note = 0.0
    while True:
        records = instance.get_run_records(filters=flt)
        statuses: dict[str, int] = {}
        for r in records:
            statuses[r.dagster_run.status.value] = statuses.get(r.dagster_run.status.value, 0) + 1
        done = sum(n for s, n in statuses.items() if s in TERMINAL)
        if len(records) >= len(ids) and done == len(records):
            break
        if time.time() - t0 > timeout:
            print(f"{name}: timed out after {timeout:.0f} s: {statuses}", file=sys.stderr)
            break
        if time.time() - last_note > 30:
            print(f"  {time.time() - t0:6.0f} s  {json.dumps(statuses, sort_keys=True)}", file=sys.stderr)
            last_note = time.time()
        time.sleep(2)
    ends = [r.end_time for r in records if r.end_time]
    wall_s = (max(ends) if ends else time.time()) - t0
    durations = sorted(r.end_time - r.start_time for r in records if r.start_time and r.end_time)
    # Per run: queued (created -> the coordinator launched it, RUN_STARTING) and process start
    # (RUN_STARTING -> RUN_START, the first event of the run worker: spawn, imports, loading the definitions).
    queued, startup = [], []
    for r in records:
        stamps = {}
        for e in instance.all_logs(r.dagster_run.run_id):
            if e.dagster_event and e.dagster_event.event_type_value in ("PIPELINE_STARTING", "PIPELINE_START"):
                stamps.setdefault(e.dagster_event.event_type_value, e.timestamp)
        if "PIPELINE_STARTING" in stamps:
            queued.append(stamps["PIPELINE_STARTING"] - r.create_timestamp.timestamp())
            if "PIPELINE_START" in stamps:
                startup.append(stamps["PIPELINE_START"] - stamps["PIPELINE_STARTING"])
    run_ids = [r.dagster_run.run_id for r in records]
    failures = []
    for r in records:
        if r.dagster_run.status.value != "SUCCESS":
            part = r.dagster_run.tags.get("dagster/partition", "?")
            msgs = [e.message for e in instance.all_logs(r.dagster_run.run_id)
                    if e.dagster_event and e.dagster_event.event_type_value in ("STEP_FAILURE", "RUN_FAILURE")]
            failures.append(f"{part} ({r.dagster_run.run_id[:8]}, {r.dagster_run.status.value}): "
                            + (msgs[0][:300] if msgs else "no failure event"))
    summary, chunks_total, promoted = ledger_figures(ledger_home, run_ids, ids)
    return Result(name, bid, submit_s, wall_s, durations, sorted(queued), sorted(startup), statuses, summary,
                  chunks_total, promoted, failures)


def ledger_figures(ledger_home: Path, run_ids: list[str], ids: list[str]) -> tuple[dict, int, int]:
    from ledger_assets.store.db import LedgerDB
    from ledger_assets.store.registry import RepoRegistry, read_indexed_head

    db = LedgerDB(ledger_home / "ledger.duckdb", 120)
    summary = db.summary(run_ids)
    with db.connect() as con:
        chunks_total = con.execute("SELECT count(*) FROM chunks").fetchone()[0]
    repos = RepoRegistry(ledger_home / "repos.json").load()
    promoted = 0
    for rid in ids:
        head = subprocess.run(["git", "-C", repos[rid].path, "rev-parse", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
        promoted += read_indexed_head(ledger_home, rid) == head
    return summary, int(chunks_total), promoted


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    k = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return sorted(values)[k]


def storage_figures(pg: PgCluster | None, dagster_home: Path) -> list[tuple[str, str]]:
    rows = []
    if pg:
        size = pg.query("dagster", "select pg_database_size('dagster')")[0][0]
        rows.append(("Postgres database `dagster`", f"{size / 2**20:.1f} MB"))
        for table in ("event_logs", "runs", "run_tags", "asset_keys", "asset_event_tags", "asset_check_executions",
                      "dynamic_partitions", "jobs", "job_ticks"):
            try:
                n = pg.query("dagster", f'select count(*) from "{table}"')[0][0]
                rows.append((f"rows in {table}", f"{n:,}"))
            except Exception:  # a table this Dagster version does not have
                continue
        try:
            size = pg.query("dagster", "select pg_total_relation_size('event_logs')")[0][0]
            rows.append(("event_logs with indexes", f"{size / 2**20:.1f} MB"))
        except Exception:
            pass
    else:
        import sqlite3

        storage = dagster_home / "storage"
        dbs = list(dagster_home.rglob("*.db"))
        size = sum(p.stat().st_size for p in dbs)
        events = 0
        for p in dbs:
            try:
                con = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
                events += con.execute("select count(*) from event_logs").fetchone()[0]
                con.close()
            except sqlite3.Error:
                continue
        rows.append((f"SQLite files under {storage.name}/", f"{len(dbs)} files, {size / 2**20:.1f} MB"))
        rows.append(("rows in event_logs (all files)", f"{events:,}"))
    return rows


def print_result(r: Result, n_repos: int) -> None:
    s = r.summary
    d = r.durations
    rate = s["chunks_written"] / r.wall_s if r.wall_s else 0
    print(f"\n### {r.name} (backfill {r.backfill_id})\n")
    print("| figure | value |")
    print("| --- | ---: |")
    print(f"| wall time, submission to last run's end | {r.wall_s:.1f} s |")
    print(f"| `dagster job backfill` (creating and queueing the runs) | {r.submit_s:.1f} s |")
    print(f"| runs | {sum(r.statuses.values())} of {n_repos}: {', '.join(f'{k} {v}' for k, v in sorted(r.statuses.items()))} |")
    if d:
        print(f"| run duration min / median / p90 / max | {d[0]:.1f} / {statistics.median(d):.1f} / "
              f"{pct(d, 0.9):.1f} / {d[-1]:.1f} s |")
        print(f"| run durations summed (run-seconds) | {sum(d):.0f} s |")
    if r.queued:
        print(f"| queued (created to launched) median / max | {statistics.median(r.queued):.1f} / "
              f"{r.queued[-1]:.1f} s |")
    if r.startup:
        print(f"| run process start (launched to RUN_START) min / median / max | {r.startup[0]:.1f} / "
              f"{statistics.median(r.startup):.1f} / {r.startup[-1]:.1f} s |")
    print(f"| files scanned / changed | {s['files_scanned']:,} / {s['files_changed']:,} |")
    print(f"| chunks in the ledger | {r.chunks_total:,} |")
    print(f"| points written / skipped | {s['chunks_written']:,} / {s['chunks_skipped']:,} |")
    print(f"| embeddings computed | {s['embeddings_computed']:,} |")
    print(f"| chunks (points written) per second of wall time | {rate:.2f} |")
    print(f"| ingest time inside the runs (summed `elapsed_s`) | {s['elapsed_s']:.0f} s |")
    print(f"| failed runs | {len(r.failures)} |")
    print(f"| repos promoted at HEAD | {r.promoted} of {n_repos} |")
    for f in r.failures:
        print(f"failed: {f}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--repos", type=int, default=20, help="repos, one partition each (default 20)")
    ap.add_argument("--concurrency", type=int, default=2, help="max concurrent runs (default 2)")
    ap.add_argument("--max-files", type=int, default=5, help="files of the largest repos (default 5)")
    ap.add_argument("--storage", choices=("postgres", "sqlite"), default="postgres",
                    help="Dagster's storage (default postgres: a throwaway cluster)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds each backfill may take (default 1800)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (and stop Postgres)")
    args = ap.parse_args(argv)
    if args.repos < 1 or args.concurrency < 1 or args.max_files < 1:
        ap.error("--repos, --concurrency and --max-files must be at least 1")

    work = Path(tempfile.mkdtemp(prefix="ledger-backfill-"))
    ledger_home, dagster_home, log = work / "ledger", work / "dagster_home", work / "backfill.log"
    pg: PgCluster | None = None
    daemon: Daemon | None = None
    watch: MemoryWatch | None = None

    def on_term(signum, frame):  # a SIGTERM cleans up like Ctrl-C
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    t_all = time.time()
    load_start = os.getloadavg()[0]
    try:
        env = {**os.environ, "LEDGER_HOME": str(ledger_home), "DAGSTER_HOME": str(dagster_home),
               "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
        env.pop("GROQ_API_KEY", None)  # the keyless analyser: no network, as in the other benchmarks
        if args.storage == "postgres":
            pg = PgCluster(work / "pg")
            try:
                pg.start()
            except PgError as exc:
                raise SystemExit(f"error: Postgres did not start: {exc}\n(--storage sqlite runs without it)")
            pg.create_db("dagster")
            env.update(DAGSTER_PG_USER=pg.user, DAGSTER_PG_PASSWORD="", DAGSTER_PG_HOST="127.0.0.1",
                       DAGSTER_PG_DB="dagster", DAGSTER_PG_PORT=str(pg.port))
            try:
                import dagster_postgres  # noqa: F401
            except ImportError:
                raise SystemExit("error: dagster-postgres is not installed: pip install -e '.[postgres]'")
        os.environ.update({k: v for k, v in env.items() if k.startswith(("DAGSTER", "LEDGER", "HF_", "TRANSF"))})
        write_instance_config(dagster_home, args.concurrency, args.storage == "postgres")

        repos = make_repos(work / "repos", args.repos, args.max_files)
        ids = [rid for rid, _, _ in repos]
        from dagster import DagsterInstance

        from ledger_assets.defs.partitions import REPOS_PARTITION
        from ledger_assets.store.registry import RepoRegistry

        registry = RepoRegistry(ledger_home / "repos.json")
        for rid, path, _ in repos:
            registry.add(path, rid)
        instance = DagsterInstance.get()
        instance.add_dynamic_partitions(REPOS_PARTITION, ids)
        langs = sorted({e for _, _, exts in repos for e in exts})
        files = sum(1 for _, p, _ in repos for f in p.rglob("*") if f.is_file() and ".git" not in f.parts)
        print(f"{len(ids)} repos, {files} files ({', '.join(langs)}), storage {args.storage}, "
              f"max concurrent runs {args.concurrency}, {os.cpu_count()} CPUs, folder {work}", file=sys.stderr)

        run_cli([str(BIN / "dagster"), "sensor", "stop", "-w", str(ROOT / "workspace.yaml"), "git_head_sensor"],
                env, log)
        daemon = Daemon(env, log)
        daemon.start()
        watch = MemoryWatch([daemon.proc.pid], pg)
        watch.start()
        time.sleep(5)
        first = backfill("first backfill (every repo new)", ids, env, log, args.timeout, ledger_home)
        first_pids = {p for p, k in watch.kind.items() if k == "run"}
        runs_first = watch.peaks_mb("run")
        second = backfill("second backfill (nothing changed)", ids, env, log, args.timeout, ledger_home)
        watch.stop()
        runs_second = sorted(watch.hwm_kb[p] / 1024 for p, k in watch.kind.items()
                             if k == "run" and p not in first_pids and watch.hwm_kb.get(p))
        storage = storage_figures(pg, dagster_home)
        load_end = os.getloadavg()[0]

        print(f"\n{len(ids)} repos ({files} files: {', '.join(langs)}), Dagster storage {args.storage}"
              f"{' (PostgreSQL ' + pg.query('dagster', 'show server_version')[0][0] + ')' if pg else ''}, "
              f"max_concurrent_runs {args.concurrency}, {os.cpu_count()} CPUs, load average (1 min) "
              f"{load_start:.1f} at the start, {load_end:.1f} at the end, keyless intents")
        print_result(first, len(ids))
        print_result(second, len(ids))
        others = {k: max((watch.hwm_kb[p] for p, kk in watch.kind.items() if kk == k), default=0) / 1024
                  for k in ("daemon", "code server", "cli")}
        print("\n### memory (peak RSS, VmHWM per process, polled every 0.5 s)\n")
        print("| process | MB |")
        print("| --- | ---: |")
        if runs_first:
            print(f"| run process, first backfill: largest / median | {runs_first[-1]:,.0f} / "
                  f"{statistics.median(runs_first):,.0f} |")
        if runs_second:
            print(f"| run process, second backfill: largest / median | {runs_second[-1]:,.0f} / "
                  f"{statistics.median(runs_second):,.0f} |")
        print(f"| dagster-daemon / its code server | {others['daemon']:,.0f} / {others['code server']:,.0f} |")
        print(f"| all Dagster processes at once (summed VmRSS, peak) | {watch.tree_peak_kb / 1024:,.0f} |")
        if pg:
            print(f"| Postgres server, all its processes (summed VmRSS, peak) | {watch.pg_peak_kb / 1024:,.0f} |")
        print("\n### Dagster storage after both backfills\n")
        print("| what | value |")
        print("| --- | ---: |")
        for k, v in storage:
            print(f"| {k} | {v} |")
        print(f"\ntotal benchmark time {time.time() - t_all:.0f} s (setup included)")
        bad = first.failures or second.failures or first.promoted < len(ids) or second.promoted < len(ids) \
            or second.summary["chunks_written"] or second.summary["embeddings_computed"]
        if bad:
            print("FAILED: a run failed, a repo is not promoted at HEAD, or the second backfill wrote points",
                  file=sys.stderr)
        return 1 if bad else 0
    except KeyboardInterrupt:
        print("interrupted: cleaning up", file=sys.stderr)
        return 130
    finally:
        if watch:
            watch.stop()
        if daemon:
            daemon.stop()
        if pg:
            pg.stop(remove=False)
        if args.keep:
            print(f"kept {work} (log: {log})", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
