"""A repo's life under the real Dagster daemon, with a reader querying throughout.

`dagster-daemon run` ticks git_head_sensor (every 2 s here) and launches its runs; a reader
process queries the ledger once a second through the whole test, as an MCP server would.
The repo lives through: its first ingest; a commit whose chunks fail line_coverage (a chunker
bug injected into every process by a sitecustomize on PYTHONPATH, the one fault injected here:
files named `*_broken.py` lose a line of coverage), then its fix; a chunk row deleted by hand,
healed by `ledger ingest` at the same HEAD; a commit materialized with `dagster asset
materialize` (what the UI's button runs) beside the sensor; kill -9 of the daemon's run worker
while it stages points, and while it promotes them; `remove-repo --purge` and add-repo again at
the same HEAD. Asserted: no tick failed, every good HEAD was promoted, the broken commit was
never served, every query was answered once the repo had an index, no chunk is missing from
search at the end, and no two runs of the partition overlapped.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import GitRepo
from tests.e2e.processes import ROOT, ledger_env, run_ledger, stop_group

# Injected into every Python process of the test (daemon, code server, run workers, CLI): the chunker
# bug, and a pause the test uses to kill a run worker at an exact point (while a file `pause-staging`
# or `pause-promotion` exists, the first Qdrant write of that phase writes `paused-*` with its pid and
# sleeps).
SITECUSTOMIZE = '''
import os
import time
from pathlib import Path

import chunkers
from qdrant_client import QdrantClient

_PAUSE = Path(os.environ.get("SOAK_PAUSE_DIR", "/nonexistent"))


def _pausing(name, real):
    def wrapper(self, *args, **kwargs):
        if (_PAUSE / f"pause-{name}").exists():
            (_PAUSE / f"paused-{name}").write_text(str(os.getpid()))
            time.sleep(300)
        return real(self, *args, **kwargs)
    return wrapper


QdrantClient.upsert = _pausing("staging", QdrantClient.upsert)
QdrantClient.batch_update_points = _pausing("promotion", QdrantClient.batch_update_points)

_real = chunkers.chunk_file_guarded


def _lossy(path, data, options=None):
    result = _real(path, data, options) if options is not None else _real(path, data)
    if str(path).endswith("_broken.py") and result.pieces:
        last = result.pieces[-1]
        result.pieces[-1] = type(last)(**{**last.__dict__, "end_line": max(last.start_line, last.end_line - 1)})
    return result


chunkers.chunk_file_guarded = _lossy
'''

READER = r'''
import json, sys, time
from ledger_assets.encode.embedder import query_embedder
from ledger_assets.retrieval.search import Searcher, SearchOptions
from ledger_assets.store.ledger import Ledger

out, stop = sys.argv[1], sys.argv[2]
ledger = Ledger.from_env()
searcher = Searcher(ledger, query_embedder(ledger.settings.embed_device, ledger.settings.embed_batch))
import os
with open(out, "a", encoding="utf-8") as fh:
    while not os.path.exists(stop):
        t = time.time()
        try:
            hits = searcher.search("apply a discount to an order total", SearchOptions(repo="life", k=5, check_stale=False))
            broken = searcher.search("broken surcharge for weekends", SearchOptions(repo="life", k=5, check_stale=False))
            keys = [h.key for h in hits]
            row = {"t": t, "ok": True, "hits": len(hits), "doubled": len(keys) - len(set(keys)),
                   "broken_served": any("weekend_surcharge" in h.payload.get("content", "") for h in broken)}
        except Exception as exc:
            row = {"t": t, "ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
        fh.write(json.dumps(row) + "\n")
        fh.flush()
        time.sleep(max(0.0, 1.0 - (time.time() - t)))
'''

ORDERS_PY = '''"""Orders."""


def order_total(lines: list[float]) -> float:
    """Sum the lines of an order."""
    return sum(lines)


def apply_discount(total: float, percent: float) -> float:
    """Apply a discount to an order total."""
    return round(total * (1 - percent / 100), 2)
'''
BROKEN_PY = '''def weekend_surcharge(total: float) -> float:
    """A broken surcharge for weekends."""
    return total * 1.1
'''


class Life:
    def __init__(self, tmp_path: Path):
        self.tmp = tmp_path
        inject = tmp_path / "inject"
        inject.mkdir()
        (inject / "sitecustomize.py").write_text(SITECUSTOMIZE)
        self.home = tmp_path / "home"
        self.pause = tmp_path / "pause"
        self.pause.mkdir()
        self.env = ledger_env(self.home, PYTHONPATH=f"{inject}{os.pathsep}{ROOT}", LEDGER_SENSOR_INTERVAL_S="2",
                              SOAK_PAUSE_DIR=str(self.pause),
                              LEDGER_SENSOR_RETRY_BASE_S="3", LEDGER_LOCK_TIMEOUT_S="120")
        self.repo = GitRepo(tmp_path / "repo")
        self.procs: list[subprocess.Popen] = []
        self.log = tmp_path / "daemon.log"

    def ledger(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return run_ledger(self.env, *args, timeout=timeout)

    def start(self, argv: list[str], log: Path) -> subprocess.Popen:
        proc = subprocess.Popen(argv, cwd=ROOT, env=self.env, stdout=open(log, "w"), stderr=subprocess.STDOUT,
                                start_new_session=True)
        self.procs.append(proc)
        return proc

    def instance(self):
        from dagster import DagsterInstance

        return DagsterInstance.from_config(str(self.home / "dagster"))

    def status(self) -> dict:
        out = self.ledger("status", "--format", "json")
        return json.loads(out.stdout)[0] if out.stdout.strip().startswith("[") else {}

    def wait(self, what: str, ok, timeout: float = 240.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = ok()
            if got:
                return got
            time.sleep(1.0)
        raise AssertionError(f"timed out waiting for {what}; daemon log tail:\n{self.log.read_text()[-4000:]}")

    def wait_promoted(self, sha: str, timeout: float = 240.0) -> None:
        heads = self.home / "heads" / "life.txt"
        self.wait(f"promotion of {sha[:12]}", lambda: heads.exists() and heads.read_text().strip() == sha, timeout)

    def runs(self):
        from dagster import RunsFilter

        return self.instance().get_runs(filters=RunsFilter(tags={"dagster/partition": "life"}))

    def kill_worker_in(self, phase: str, timeout: float = 240.0) -> None:
        """SIGKILL the run worker that paused in `phase` (staging: its first upsert; promotion: its first
        batch update), then let later writers through."""
        (self.pause / f"pause-{phase}").touch()
        paused = self.pause / f"paused-{phase}"
        self.wait(f"a run worker pausing in {phase}", paused.exists, timeout)
        time.sleep(0.2)
        os.kill(int(paused.read_text()), signal.SIGKILL)
        (self.pause / f"pause-{phase}").unlink()
        paused.unlink()

    def stop(self) -> None:
        for proc in self.procs:
            stop_group(proc)


def served_against_index(env: dict) -> dict:
    """Served chunk rows against the served index copy queries read: missing, doubled, orphan."""
    script = r'''
import json
from collections import Counter
from ledger_assets.store import local_index
from ledger_assets.store.ledger import Ledger
ledger = Ledger.from_env()
with ledger.db.connect() as con:
    rows = {(f, i): h for f, i, h in con.execute(
        "SELECT file_path, chunk_index, content_hash FROM served.chunks WHERE repo_id = 'life'").fetchall()}
idx = local_index.current(ledger.qdrant)
live = [(p["file_path"], p["chunk_index"], p["content_hash"]) for p in idx.payloads
        if p.get("repo_id") == "life" and p.get("is_latest") and not p.get("staged")]
slots = Counter((f, i) for f, i, _ in live)
have = {(f, i): h for f, i, h in live}
print(json.dumps({"rows": len(rows), "missing": sum(1 for k, h in rows.items() if have.get(k) != h),
                  "doubled": sum(1 for n in slots.values() if n > 1), "orphans": len(set(have) - set(rows))}))
'''
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_a_repos_life_under_the_daemon(tmp_path):
    life = Life(tmp_path)
    repo = life.repo
    repo.write("shop/orders.py", ORDERS_PY)
    repo.write("README.md", "# Shop\n\nOrders and discounts.\n")
    good = [repo.commit("seed")]
    assert life.ledger("add-repo", str(repo.path), "--id", "life").returncode == 0
    daemon_bin = str(Path(sys.executable).with_name("dagster-daemon"))
    life.start([daemon_bin, "run", "-w", str(ROOT / "workspace.yaml")], life.log)
    stop_reader = tmp_path / "stop-reader"
    reads = tmp_path / "reads.jsonl"
    try:
        life.wait_promoted(good[-1], timeout=300)
        first_served = time.time()
        life.start([sys.executable, "-c", READER, str(reads), str(stop_reader)], tmp_path / "reader.log")

        # A commit whose chunks fail a blocking check: never served; its fix is.
        repo.write("shop/pricing_broken.py", BROKEN_PY)
        repo.commit("weekend surcharge")
        life.wait("the broken commit's checks to fail", lambda: "line_coverage" in life.status().get("promotion_note", ""))
        assert life.status()["promoted_sha"] == good[-1]
        repo.git("rm", "-q", "shop/pricing_broken.py")
        repo.write("shop/orders.py", ORDERS_PY + "\n\ndef order_count(lines: list[float]) -> int:\n    return len(lines)\n")
        good.append(repo.commit("fix: drop the surcharge, count lines"))
        life.wait_promoted(good[-1])

        # A row lost by hand at the same HEAD: status notices nothing the sensor must do; the CLI heals it.
        life.wait("no run in flight", lambda: not [r for r in life.runs() if not r.is_finished])
        import duckdb

        def delete_a_row() -> bool:  # by hand, as a person would: retried while a reader or a tick holds the file
            try:
                with duckdb.connect(str(life.home / "ledger.duckdb")) as con:
                    con.execute("DELETE FROM chunks WHERE repo_id = 'life' AND file_path = 'shop/orders.py' "
                                "AND chunk_index = 1")
                return True
            except duckdb.IOException as exc:
                if "lock" not in str(exc).lower():
                    raise
                return False

        life.wait("the ledger file free for a hand edit", delete_a_row)
        healed = life.ledger("ingest", "life", "--format", "json")
        assert healed.returncode == 0, healed.stderr[-2000:]

        # The UI's Materialize beside the sensor (a run of __ASSET_JOB submitted to the instance's queue, as
        # the button does): one run of the partition at a time.
        repo.write("shop/returns.py", 'def refund(total: float) -> float:\n    """Refund an order."""\n    return total\n')
        good.append(repo.commit("refunds"))
        launched = subprocess.run([str(Path(sys.executable).with_name("dagster")), "job", "launch", "-j", "__ASSET_JOB",
                                   "-w", str(ROOT / "workspace.yaml"), "--tags", json.dumps({"dagster/partition": "life"})],
                                  cwd=ROOT, env=life.env, capture_output=True, text=True, timeout=300)
        assert launched.returncode == 0, launched.stderr[-2000:]
        life.wait_promoted(good[-1])

        # kill -9 of the daemon's run worker while it stages points, then while it promotes them.
        for phase, n in (("staging", 1), ("promotion", 2)):
            repo.write(f"shop/extra_{n}.py", f'def extra_{n}(x: int) -> int:\n    """Extra {n}."""\n    return x + {n}\n')
            good.append(repo.commit(f"extra {n}"))
            life.kill_worker_in(phase)
            life.wait_promoted(good[-1], timeout=300)

        # Remove, purge and add again at the same HEAD: ingested again. (remove-repo refuses while a run of
        # the repo is in flight: the daemon's automatic retry of a killed run may still be queued.)
        life.wait("no run in flight", lambda: not [r for r in life.runs() if not r.is_finished], timeout=300)
        purged_at = time.time()
        assert life.ledger("remove-repo", "life", "--purge").returncode == 0
        (life.home / "heads" / "life.txt").unlink(missing_ok=True)
        assert life.ledger("add-repo", str(repo.path), "--id", "life").returncode == 0
        life.wait_promoted(good[-1], timeout=300)
        readded_at = time.time()
        status = life.status()
        assert status["up_to_date"] and status["index_ok"], status
        assert life.ledger("status").returncode == 0
    finally:
        stop_reader.touch()
        time.sleep(2)
        life.stop()

    # No chunk missing from search, none doubled.
    assert served_against_index(life.env) == {**served_against_index(life.env), "missing": 0, "doubled": 0, "orphans": 0}
    # No tick failed.
    inst = life.instance()
    from dagster._core.scheduler.instigation import TickStatus

    states = [s for s in inst.all_instigator_state() if s.instigator_name == "git_head_sensor"]
    ticks = [t for s in states for t in inst.get_ticks(s.instigator_origin_id, s.selector_id, limit=10_000)]
    assert ticks and not [t.error for t in ticks if t.status == TickStatus.FAILURE]
    # Every query answered with hits while the repo was registered; the broken commit never served.
    rows = [json.loads(line) for line in reads.read_text().splitlines()]
    assert len(rows) > 30 and rows[0]["t"] >= first_served
    unanswered = [r for r in rows if not (r["ok"] and r["hits"]) and not purged_at <= r["t"] <= readded_at]
    assert not unanswered, unanswered[:5]
    assert not any(r.get("broken_served") for r in rows) and not any(r.get("doubled") for r in rows)
    # One run of the partition at a time, whoever launched it.
    spans = sorted((r.start_time, r.end_time) for r in inst.get_run_records() if r.start_time and
                   r.dagster_run.tags.get("dagster/partition") == "life")
    overlaps = [(a, b) for a, b in zip(spans, spans[1:]) if a[1] and b[0] < a[1] - 0.5]
    assert not overlaps, overlaps
