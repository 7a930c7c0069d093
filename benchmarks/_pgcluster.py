"""A throwaway PostgreSQL cluster for benchmarks: initdb in a folder, started on a free local port, removed after.

    with PgCluster(Path(tmp) / "pg") as pg:
        pg.create_db("dagster")
        url = pg.url("dagster")

The server binaries come from PATH or /usr/lib/postgresql/<version>/bin (Debian's layout). Postgres
refuses to run as root: as root, the cluster is initialised and run as the `postgres` user (Debian's
package creates it), else `nobody`, through `runuser`; its folder is handed to that user. Trust
authentication, TCP on 127.0.0.1 only, the unix socket in the cluster's folder. `stop()` (also on
leaving the `with` block, an error or Ctrl-C included) stops the server (fast shutdown, then
immediate) and deletes the folder.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import time
from pathlib import Path


class PgError(RuntimeError):
    pass


def find_bin(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
                        key=lambda p: [int(x) if x.isdigit() else 0 for x in p.split("/")[4].split(".")])
    if candidates:
        return candidates[-1]
    raise PgError(f"{name} not found on PATH or under /usr/lib/postgresql/*/bin (apt-get install postgresql)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_kb(pid: int, field: str = "VmRSS") -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class PgCluster:
    def __init__(self, root: Path, user: str = "dagster"):
        self.root = Path(root)
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.user = user  # the database superuser
        self.port = 0
        self.started = False
        self._runas: list[str] = []
        self._owner: pwd.struct_passwd | None = None

    # ---------------------------------------------------------------- lifecycle
    def start(self) -> "PgCluster":
        initdb, pg_ctl = find_bin("initdb"), find_bin("pg_ctl")
        self.root.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            for name in ("postgres", "nobody"):
                try:
                    self._owner = pwd.getpwnam(name)
                    break
                except KeyError:
                    continue
            if self._owner is None:
                raise PgError("running as root and no `postgres` or `nobody` user to run the server as")
            runuser = shutil.which("runuser")
            if not runuser:
                raise PgError("running as root and `runuser` is missing (Postgres refuses to run as root)")
            self._runas = [runuser, "-u", self._owner.pw_name, "--"]
            os.chown(self.root, self._owner.pw_uid, self._owner.pw_gid)
            parent = self.root.parent  # the server user must reach its folder
            while parent != parent.parent and parent.stat().st_uid == 0 and (parent.stat().st_mode & 0o001) == 0:
                os.chmod(parent, parent.stat().st_mode | 0o711)
                parent = parent.parent
        self._run([initdb, "-D", str(self.data), "-U", self.user, "-A", "trust", "-E", "UTF8",
                   "--no-sync", "--no-instructions"])
        self.port = free_port()
        opts = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                "-c max_connections=200 -c shared_buffers=64MB")
        self._run([pg_ctl, "-D", str(self.data), "-l", str(self.log), "-o", opts, "-w", "-t", "60", "start"])
        self.started = True
        return self

    def stop(self, remove: bool = True) -> None:
        if self.started:
            pg_ctl = find_bin("pg_ctl")
            for mode in ("fast", "immediate"):
                proc = subprocess.run(self._runas + [pg_ctl, "-D", str(self.data), "-m", mode, "-w", "-t", "30",
                                                     "stop"], capture_output=True, text=True)
                if proc.returncode == 0:
                    break
            self.started = False
        if remove:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> "PgCluster":
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()

    def _run(self, cmd: list[str]) -> None:
        proc = subprocess.run(self._runas + cmd, capture_output=True, text=True, cwd=self.root)
        if proc.returncode != 0:
            tail = ""
            if self.log.exists():
                tail = "\n" + self.log.read_text(errors="replace")[-2000:]
            raise PgError(f"{Path(cmd[0]).name} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}{tail}")

    # ------------------------------------------------------------------- queries
    def url(self, db: str) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{db}"

    def connect(self, db: str = "postgres"):
        import psycopg2

        con = psycopg2.connect(host="127.0.0.1", port=self.port, user=self.user, dbname=db)
        con.autocommit = True
        return con

    def create_db(self, name: str) -> None:
        con = self.connect()
        try:
            with con.cursor() as cur:
                cur.execute(f'CREATE DATABASE "{name}"')
        finally:
            con.close()

    def query(self, db: str, sql: str, params=None) -> list[tuple]:
        con = self.connect(db)
        try:
            with con.cursor() as cur:
                cur.execute(sql, params)
                return cur.fetchall()
        finally:
            con.close()

    def server_pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def server_rss_kb(self) -> int:
        """The postmaster and all its children (backends, checkpointer, ...): summed VmRSS."""
        root = self.server_pid()
        if not root:
            return 0
        total = 0
        for pid in descendants(root) | {root}:
            total += _rss_kb(pid)
        return total


def process_table() -> dict[int, int]:
    """pid -> ppid of every process."""
    table = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
            table[int(entry.name)] = int(stat[stat.rfind(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return table


def descendants(root: int, table: dict[int, int] | None = None) -> set[int]:
    table = table if table is not None else process_table()
    children: dict[int, list[int]] = {}
    for pid, ppid in table.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in out:
                out.add(child)
                todo.append(child)
    return out


if __name__ == "__main__":  # a smoke test: start, create a database, query it, stop
    import tempfile

    t0 = time.monotonic()
    top = Path(tempfile.mkdtemp(prefix="pg-smoke-"))
    try:
        with PgCluster(top / "pg") as pg:
            pg.create_db("smoke")
            print(pg.url("smoke"), pg.query("smoke", "select version()")[0][0],
                  f"up in {time.monotonic() - t0:.1f} s, {pg.server_rss_kb() / 1024:.0f} MB RSS")
    finally:
        shutil.rmtree(top, ignore_errors=True)
