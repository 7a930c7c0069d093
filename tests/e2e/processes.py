"""Subprocess helpers for the end-to-end tests: the `ledger` CLI and `dagster dev`
run as real processes against one temp LEDGER_HOME, exactly as a user runs them."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The console script's entry point, run by this interpreter (the venv's).
LEDGER_ARGV = [sys.executable, "-m", "ledger_assets.cli"]

# Settings a developer may have exported that would send a test run to a real
# service: the e2e tests use the embedded defaults only.
_SERVICE_VARS = ("QDRANT_URL", "QDRANT_API_KEY", "GROQ_API_KEY", "GROQ_BASE_URL", "DAGSTER_HOME")


def ledger_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SERVICE_VARS}
    env.update(LEDGER_HOME=str(home), DAGSTER_HOME=str(home / "dagster"), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", PYTHONUNBUFFERED="1", **extra)
    return env


def run_ledger(env: dict[str, str], *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    """`ledger ARGS` through the same entry point as the console script."""
    return subprocess.run([*LEDGER_ARGV, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def start_ledger(env: dict[str, str], *args: str, log: Path) -> subprocess.Popen:
    fh = open(log, "w", encoding="utf-8")  # noqa: SIM115 - closed by the child's exit
    try:
        return subprocess.Popen([*LEDGER_ARGV, *args], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=fh, text=True)
    finally:
        fh.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_group(proc: subprocess.Popen, grace_s: float = 15.0) -> None:
    """SIGINT to the process group, then SIGKILL: `dagster dev`'s children ignore SIGTERM."""
    try:
        os.killpg(proc.pid, signal.SIGINT)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass
    # Grandchildren (code server, daemon) may outlive the parent: end the whole group.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=10)


class DagsterDev:
    """`dagster dev -w workspace.yaml` on a free port, as its own process group."""

    def __init__(self, env: dict[str, str], log: Path):
        self.env = env
        self.log = log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> "DagsterDev":
        dagster_home = Path(self.env["DAGSTER_HOME"])
        dagster_home.mkdir(parents=True, exist_ok=True)
        if not (dagster_home / "dagster.yaml").exists():
            shutil.copyfile(ROOT / "dagster.yaml", dagster_home / "dagster.yaml")
        with open(self.log, "w", encoding="utf-8") as fh:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "dagster", "dev", "-w", "workspace.yaml",
                 "--host", "127.0.0.1", "--port", str(self.port)],
                cwd=ROOT, env=self.env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def __exit__(self, *exc) -> None:
        if self.proc is not None:
            stop_group(self.proc)

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(encoding="utf-8", errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def wait_ready(self, timeout_s: float = 120.0) -> float:
        """Seconds until /server_info answers; fails early when the server died."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout_s:
            if self.proc.poll() is not None:
                raise AssertionError(f"dagster dev exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/server_info", timeout=2) as resp:
                    if resp.status == 200:
                        return time.monotonic() - t0
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.5)
        raise AssertionError(f"dagster dev did not answer within {timeout_s:.0f}s:\n{self.log_tail()}")

    def graphql(self, query: str, variables: dict | None = None) -> dict:
        """POST to the webserver's GraphQL endpoint (what the UI itself calls); the `data` object."""
        req = urllib.request.Request(f"{self.url}/graphql", headers={"Content-Type": "application/json"},
                                     data=json.dumps({"query": query, "variables": variables or {}}).encode())
        with urllib.request.urlopen(req, timeout=30) as resp:
            body = json.loads(resp.read())
        if body.get("errors"):
            raise AssertionError(f"GraphQL errors: {body['errors']}")
        return body["data"]
