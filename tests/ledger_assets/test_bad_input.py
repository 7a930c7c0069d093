"""Bad input, end to end: a real ingest over tests/fixtures/bad/, read-span confined to what was
indexed, and every bad repo state or bad path answered by `ledger` with exit 2 and one line.

The corpus is committed byte for byte (its .gitattributes turns off end-of-line conversion);
what should not sit in the project's history (a huge one-line file, key material, secrets
beside the repo) is generated here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from chunkers.text import decode, split_lines
from ledger_assets.ingest import pipeline
from ledger_assets.ingest.snapshot import KEY_MATERIAL, LFS_POINTER
from ledger_assets.retrieval.symbols import ToolInputError
from ledger_assets.retrieval.tools import normalize_rel_path, read_span
from tests.conftest import FIXTURES, LOG, ingest_core, serve_rows

ROOT = Path(__file__).resolve().parents[2]
BAD = FIXTURES / "bad"
LEDGER = [sys.executable, "-m", "ledger_assets.cli"]
FAKE_KEY = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz\n"
            "-----END OPENSSH PRIVATE KEY-----\n")


def cli(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "LEDGER_HOME": str(home), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    env.pop("LEDGER_DEBUG", None)
    return subprocess.run([*LEDGER, *args], capture_output=True, text=True, env=env, cwd=cwd or ROOT, timeout=120)


def one_line_error(proc: subprocess.CompletedProcess, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    err = proc.stderr.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err[:2000]
    assert len(err) < 600, err[:600]
    return err


# ------------------------------------------------------------- the corpus ---
def test_ingest_of_the_bad_corpus_chunks_or_skips_every_file_with_a_reason(ledger, git_repo, embedder):
    shutil.copytree(BAD, git_repo.path, dirs_exist_ok=True)
    # A minified-style line of 150 KB (split by characters, never truncated), key material by name.
    git_repo.write("huge_line.js", "var a=" + "[" + ",".join(str(i % 997) for i in range(40_000)) + "];\n")
    git_repo.write("certs/server.pem", FAKE_KEY)
    git_repo.write("deploy/id_ed25519", FAKE_KEY)
    git_repo.write("deploy/id_ed25519.pub", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE0 ada@example.com\n")
    git_repo.commit("bad input")
    ledger.registry.add(git_repo.path, "bad")

    summary = ingest_core(ledger, "bad", embedder, run_id="bad-run", with_enrichment=False)

    with ledger.db.connect() as con:
        manifest = dict(con.execute("SELECT file_path, skip_reason FROM manifest WHERE repo_id = 'bad'").fetchall())
        files = {r[0]: r[1:] for r in con.execute(
            "SELECT file_path, skip_reason, n_lines FROM files WHERE repo_id = 'bad'").fetchall()}
        chunks = con.execute("SELECT file_path, start_line, end_line, text FROM chunks WHERE repo_id = 'bad' "
                             "ORDER BY file_path, chunk_index").fetchall()
    on_disk = {p.relative_to(git_repo.path).as_posix() for p in git_repo.path.rglob("*")
               if p.is_file() and ".git" not in p.relative_to(git_repo.path).parts}
    assert set(manifest) == on_disk and summary["files_scanned"] == len(on_disk)

    covered: dict[str, set[int]] = {}
    for path, start, end, _ in chunks:
        covered.setdefault(path, set()).update(range(start, end + 1))
    outcome = {}
    for path, static_reason in manifest.items():
        if static_reason:
            outcome[path] = f"skipped: {static_reason}"
            continue
        chunker_reason, n_lines = files[path]
        if chunker_reason:
            outcome[path] = f"skipped: {chunker_reason}"
            continue
        data = (git_repo.path / path).read_bytes()
        lines = split_lines(decode(data))
        assert n_lines == len(lines) > 0, path
        missing = set(range(1, n_lines + 1)) - covered.get(path, set())
        assert not missing, (path, sorted(missing)[:10])
        outcome[path] = "chunked"

    assert outcome["assets/model.onnx"] == f"skipped: {LFS_POINTER}"
    assert outcome["certs/server.pem"] == outcome["deploy/id_ed25519"] == f"skipped: {KEY_MATERIAL}"
    assert outcome["deploy/id_ed25519.pub"] == "chunked"
    assert outcome["binary_payload.txt"].startswith("skipped: binary content")
    assert outcome["nul_in_text.md"].startswith("skipped: binary content")
    assert outcome["empty.py"].startswith("skipped: empty") and outcome["blank.md"].startswith("skipped: empty")
    for path in ("utf16le_bom.cs", "utf16be_bom.py", "utf32le_bom.md", "latin1_not_utf8.py", "crlf.cs",
                 "mixed_endings.ts", "cr_only.txt", "syntax_error.cs", "syntax_error.py", "syntax_error.ts",
                 "huge_line.js", "dir with spaces/naïve ünïcödé.py", "dir with spaces/名前 ファイル.md"):
        assert outcome[path] == "chunked", (path, outcome[path])

    # UTF-16/32 with a BOM: decoded, and the chunk's line numbers point at the right lines.
    by_file = {}
    for path, start, end, text in chunks:
        by_file.setdefault(path, []).append((start, end, text))
    cs_lines = (git_repo.path / "utf16le_bom.cs").read_bytes()[2:].decode("utf-16-le").split("\r\n")
    assert cs_lines[5].strip() == "public class Utf16Greeter"
    owner = [t for s, e, t in by_file["utf16le_bom.cs"] if s <= 6 <= e]
    assert owner and "public class Utf16Greeter" in owner[0] and "\x00" not in owner[0]
    assert any("def utf16_be_total(values):" in t for _, _, t in by_file["utf16be_bom.py"])
    assert any(s == 5 and "## Second section" in t for s, _, t in by_file["utf32le_bom.md"])
    # The huge line is split into windows, none truncated: together they hold all of it.
    huge = sorted(by_file["huge_line.js"])
    assert len(huge) > 1 and all((s, e) == (1, 1) for s, e, _ in huge)
    assert not any(t.strip().endswith(("…", "[truncated]")) for _, _, t in huge)


# -------------------------------------------------------------- read-span ---
@pytest.fixture
def secret_repo(ledger, git_repo):
    """A repo holding secrets the ledger must never serve, and one file it indexed."""
    git_repo.write(".gitignore", "secrets.local.json\n.env\n")
    git_repo.write("app/settings.py", 'import os\n\nAPI_KEY = "sk_live_51HqXyZabcdefghijklmnop"\n'
                                      'DEBUG = True\nDB_URL = "postgres://admin:hunter2@db.internal/app"\n')
    git_repo.write("app/appsettings.json", '{\n  "Smtp": {\n    "Host": "mail.example.com",\n'
                                           '    "Key": "k3y-v4lue-1234567"\n  }\n}\n')
    git_repo.write("certs/server.pem", FAKE_KEY)
    git_repo.commit("app")
    git_repo.write("secrets.local.json", '{"password": "ignored-but-present"}\n')
    git_repo.write(".env", "DB_PASSWORD=untracked-secret\n")
    git_repo.write("notes.txt", "untracked note\n")
    git_repo.git("remote", "add", "origin", "https://ada:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/x/y.git")
    ledger.registry.add(git_repo.path, "vault")
    pipeline.snapshot_stage(ledger, "vault", "r1", LOG)
    pipeline.chunk_stage(ledger, "vault", "r1", LOG)
    serve_rows(ledger, "vault")  # read-span serves the promoted snapshot only
    return git_repo


def test_read_span_serves_only_indexed_files_and_redacts_them(ledger, secret_repo, monkeypatch, capsys):
    from ledger_assets.cli import main

    span = read_span(ledger, "app/settings.py", 1, 10, repo="vault")
    lines = span["text"].split("\n")
    assert span["total_lines"] == 5 and len(lines) == 5  # redaction moves no line
    assert lines[2] == 'API_KEY = "[REDACTED]"' and "hunter2" not in span["text"]
    assert lines[3] == "DEBUG = True"
    cfg = read_span(ledger, "app/appsettings.json", 1, 7)["text"]
    assert "k3y-v4lue" not in cfg and '"Host": "mail.example.com",' in cfg and len(cfg.split("\n")) == 6

    refused = {
        "secrets.local.json": "not indexed", ".env": "not indexed", "notes.txt": "not indexed",
        ".git/config": ".git/ is never indexed", "./.git/config": ".git/ is never indexed",
        "app/.GIT/../x": "'..'", "certs/server.pem": KEY_MATERIAL, "app/nope.py": "not indexed",
    }
    for path, why in refused.items():
        with pytest.raises(ToolInputError, match="not indexed|'..'") as info:
            read_span(ledger, path, 1, 5)
        assert why in str(info.value), (path, str(info.value))
    # The same refusals from the command line: exit 2, one line, nothing of the file on stdout.
    home = ledger.settings.home_path
    proc = cli(home, "read-span", "secrets.local.json", "1", "5", "--repo", "vault")
    assert "not indexed" in one_line_error(proc) and proc.stdout == ""
    monkeypatch.setenv("LEDGER_HOME", str(home))
    for path in (".git/config", "certs/server.pem", ".env"):
        assert main(["read-span", path, "1", "5", "--repo", "vault"]) == 2
        out, err = capsys.readouterr()
        assert out == "" and "not indexed" in err and len(err.strip().splitlines()) == 1, err
    shown = cli(home, "read-span", "app/settings.py", "3", "3")
    assert shown.returncode == 0 and "[REDACTED]" in shown.stdout and "sk_live" not in shown.stdout


def test_read_span_refuses_a_file_deleted_from_the_next_snapshot(ledger, secret_repo):
    assert read_span(ledger, "app/settings.py", 1, 1)["text"] == "import os"
    secret_repo.write(".gitignore", "secrets.local.json\n.env\napp/settings.py\n")
    secret_repo.git("rm", "-q", "--cached", "app/settings.py")  # ignored now, still on disk
    secret_repo.commit("untrack")
    pipeline.snapshot_stage(ledger, "vault", "r2", LOG)
    serve_rows(ledger, "vault")
    with pytest.raises(ToolInputError, match="not indexed"):
        read_span(ledger, "app/settings.py", 1, 1)


def test_paths_are_checked_in_linear_time_with_a_cap(ledger, secret_repo):
    for size in (10**6, 2 * 10**6):
        t0 = time.monotonic()
        with pytest.raises(ToolInputError, match="path too long"):
            read_span(ledger, "a/" * (size // 2), 1, 1)
        assert time.monotonic() - t0 < 0.5
    t0 = time.monotonic()
    with pytest.raises(ToolInputError, match="longer than 255 bytes"):
        normalize_rel_path("b" * 300 + "/x.py")
    with pytest.raises(ToolInputError, match="not indexed"):  # 1,000 components under the cap
        read_span(ledger, "/".join(["d"] * 1000) + "/x.py", 1, 1)
    assert time.monotonic() - t0 < 1.0


async def _mcp_call(home: Path, calls: list[dict], tool: str = "read_span") -> list[tuple[bool, str, float]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ledger_assets.cli", "mcp"], cwd=str(ROOT),
        env={**os.environ, "LEDGER_HOME": str(home), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)})
    out = []
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for args in calls:
                    t0 = time.monotonic()
                    res = await session.call_tool(tool, args)
                    out.append((res.is_error, "\n".join(c.text for c in res.content if hasattr(c, "text")),
                                time.monotonic() - t0))
    return out


def test_mcp_read_span_refuses_secrets_and_a_1mb_path_quickly(ledger, secret_repo):
    calls = [{"file": "a/" * 500_000, "start": 1, "end": 2},
             {"file": ".git/config", "start": 1, "end": 20},
             {"file": "secrets.local.json", "start": 1, "end": 2},
             {"file": "app/settings.py", "start": 3, "end": 3}]
    (long_err, long_text, long_s), (git_err, git_text, _), (ign_err, ign_text, _), (ok_err, ok_text, _) = \
        anyio.run(_mcp_call, ledger.settings.home_path, calls)
    assert long_err and "path too long" in long_text and long_s < 5 and len(long_text) < 600
    assert git_err and ".git/ is never indexed" in git_text and "ghp_" not in git_text
    assert ign_err and "not indexed" in ign_text and "ignored-but-present" not in ign_text
    assert not ok_err and '3  API_KEY = "[REDACTED]"' in ok_text


def test_a_query_longer_than_a_query_may_hold_is_refused_by_name(ledger, secret_repo, monkeypatch, capsys):
    """A pasted file as a query (5.8 MB took 28 s and 1 GB) is refused on the command line and over MCP."""
    from ledger_assets.cli import main
    from ledger_assets.store.settings import MAX_QUERY_CHARS

    monkeypatch.setenv("LEDGER_HOME", ledger.settings.home)
    long = "password token " * (MAX_QUERY_CHARS // 15 + 1)
    assert main(["query", long]) == 2
    assert f"over the {MAX_QUERY_CHARS:,} a query may hold" in capsys.readouterr().err
    assert main(["context", long]) == 2
    assert f"over the {MAX_QUERY_CHARS:,} a query may hold" in capsys.readouterr().err
    batch = ledger.settings.home_path / "batch.txt"
    batch.write_text("password\n" + long + "\n")
    assert main(["query", "--batch", str(batch), "--format", "jsonl"]) == 2
    assert f"over the {MAX_QUERY_CHARS:,} a query may hold" in capsys.readouterr().err
    (q_err, q_text, q_s), = anyio.run(_mcp_call, ledger.settings.home_path, [{"query": long}], "query_ledger")
    (c_err, c_text, _), = anyio.run(_mcp_call, ledger.settings.home_path, [{"task": long}], "context_pack")
    assert q_err and c_err and f"at most {MAX_QUERY_CHARS} characters" in q_text + c_text and q_s < 5
    assert main(["query", "x" * MAX_QUERY_CHARS]) in (0, 1)   # at the cap: read (no hits, or an index to build)


def test_an_error_that_echoes_a_huge_input_stays_one_short_line(ledger, secret_repo, monkeypatch, capsys):
    """A 120,000-character symbol name or repo id used to come back whole in the error, to a terminal or an
    agent's context; it is cut in the middle, with its length."""
    from ledger_assets.cli import main

    monkeypatch.setenv("LEDGER_HOME", ledger.settings.home)
    huge = "A." * 60_000
    for argv in (["symbol", huge], ["query", "x", "--repo", huge], ["read-span", "a.py", "1", "2", "--repo", huge]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert re.search(r"\(120,\d{3} characters\) …", err) and len(err) < 2_200 and err.count("\n") == 1, err[:300]
    (s_err, s_text, _), = anyio.run(_mcp_call, ledger.settings.home_path, [{"name": huge}], "symbol_lookup")
    assert s_err and re.search(r"\(120,\d{3} characters\) …", s_text) and len(s_text) < 2_200
    from ledger_assets.store.printable import error_line, show_path

    bidi = error_line("\u202e" * 60_000)   # escaped before the cut: 360,000 characters shown as 2,000 and a count
    assert "(360,000 characters)" in bidi and len(bidi) < 2_100 and "\u202e" not in bidi.replace("\\u202e", "")
    deep = "src/" + "deep/" * 60 + "Gateway.cs"  # a path in a message: the same cut, to 120, its file name kept
    assert show_path(deep) == f"{deep[:60]}… (314 characters) …{deep[-40:]}"


# ------------------------------------------------- bad repo states, bad paths ---
def test_bad_repo_states_and_paths_exit_2_in_one_line(ledger, make_repo, tmp_path, capsys, monkeypatch):
    from ledger_assets.cli import main

    home = ledger.settings.home_path
    empty = make_repo("empty")  # git init, no commit
    ledger.registry.add(empty.path, "empty")
    gone = make_repo("gone")
    gone.write("a.py", "x = 1\n")
    gone.commit()
    ledger.registry.add(gone.path, "gone")
    shutil.rmtree(gone.path)

    # As a user runs them: a process, its exit code, its stderr.
    assert "no commits yet" in one_line_error(cli(home, "ingest", "empty"))
    assert "directory not found" in one_line_error(cli(home, "ingest", "gone"))
    assert "too long" in one_line_error(cli(home, "add-repo", str(tmp_path / ("x" * 5000))))
    # The rest in this process (the same main()).
    monkeypatch.setenv("LEDGER_HOME", str(home))
    afile = tmp_path / "plain.txt"
    afile.write_text("x\n")
    # --all names no repo: each unusable one is a line of its own, the healthy ones still run, exit 1.
    assert main(["ingest", "--all"]) == 1
    err = capsys.readouterr().err
    assert [line.split(": not ingested: ")[0] for line in err.strip().splitlines()] == \
        ["ledger ingest: empty", "ledger ingest: gone"] and "Traceback" not in err, err
    for argv, why in ((["chunk", "/".join(["ab"] * 2500)], "too long"),
                      (["read-span", "y" * 5000, "1", "2"], "path too long"),
                      (["add-repo", str(afile)], "not a directory"),
                      (["add-repo", str(tmp_path / "nowhere")], "no such directory")):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert why in err and "Traceback" not in err and len(err.strip().splitlines()) == 1 and len(err) < 600, err


def test_tools_on_a_deleted_or_empty_repo_exit_2(ledger, make_repo, capsys, monkeypatch):
    from ledger_assets.cli import main

    monkeypatch.setenv("LEDGER_HOME", str(ledger.settings.home_path))
    gone = make_repo("gone")
    gone.write("a.py", "def a():\n    return 1\n")
    base = gone.commit()
    ledger.registry.add(gone.path, "gone")
    pipeline.snapshot_stage(ledger, "gone", "r1", LOG)
    serve_rows(ledger, "gone")
    empty = make_repo("empty")
    ledger.registry.add(empty.path, "empty")
    shutil.rmtree(gone.path)
    for argv, why in ((["drift", "--repo", "gone", "--since", base], "directory not found"),
                      (["drift", "--repo", "empty", "--since", "HEAD"], "no commits yet"),
                      (["read-span", "a.py", "1", "1", "--repo", "gone"], "no longer in its work tree")):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert why in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert main(["status", "--format", "json"]) == 0
    rows = {r["repo_id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["gone"]["head"].startswith("unavailable") and not rows["gone"]["up_to_date"]
    assert "no commits yet" in rows["empty"]["head"]


def test_broken_pipe_on_stdout_is_quiet(ledger, git_repo):
    git_repo.write("wide.py", "".join(f"x{i} = '{'y' * 300}'\n" for i in range(400)))  # ~130 KB of span
    git_repo.commit()
    ledger.registry.add(git_repo.path, "wide")
    pipeline.snapshot_stage(ledger, "wide", "r1", LOG)
    serve_rows(ledger, "wide")
    env = {**os.environ, "LEDGER_HOME": str(ledger.settings.home_path), "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": str(ROOT)}
    # `ledger read-span ... | head -1`, in the shell, as a user types it
    proc = subprocess.run(["bash", "-c", f"set -o pipefail; {' '.join(LEDGER)} read-span wide.py 1 400 | head -c 100"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert proc.returncode in (0, 141) and len(proc.stdout) == 100, (proc.returncode, proc.stderr)
    assert proc.stderr == "", proc.stderr


# ------------------------------------------------------------ plain folder ---
def test_plain_folder_indexed_at_its_head_is_not_requested_again(ledger, tmp_path, embedder, capsys, monkeypatch):
    from dagster import DagsterInstance

    from ledger_assets.cli import main
    from ledger_assets.ingest.snapshot import read_head
    from tests.ledger_assets.store.test_concurrency import sensor_tick

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.py").write_text("def a():\n    return 1\n")
    (folder / "b.md").write_text("# B\n\nText.\n")
    ledger.registry.add(folder, "notes")
    ingest_core(ledger, "notes", embedder, with_enrichment=False)
    with ledger.db.connect() as con:
        stored = con.execute("SELECT head_sha FROM snapshots WHERE repo_id = 'notes'").fetchone()[0]
    assert stored == read_head(folder, "folder")  # one head id for the snapshot, the sensor and status

    instance = DagsterInstance.ephemeral()
    first = sensor_tick(ledger.settings, instance)
    assert first.run_requests == []
    monkeypatch.setenv("LEDGER_HOME", str(ledger.settings.home_path))
    assert main(["status", "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["up_to_date"] and row["stale_files"] == 0, row

    (folder / "a.py").write_text("def a():\n    return 2\n")
    moved = sensor_tick(ledger.settings, instance, first.cursor)
    assert [r.partition_key for r in moved.run_requests] == ["notes"]
    again = sensor_tick(ledger.settings, instance, moved.cursor)
    assert again.run_requests == []
