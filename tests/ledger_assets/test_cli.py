"""The `ledger` command line: exit codes, messages, the ingest summary, chunk output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ledger_assets.cli import main

FIXTURES = Path(__file__).parent.parent / "fixtures"


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("LEDGER_HOME", str(home))
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster"))
    return home


def test_add_repo_registers_a_partition_and_refuses_bad_input(home, git_repo, tmp_path, capsys):
    git_repo.write("a.py", "def a():\n    return 1\n")
    git_repo.commit()
    assert main(["add-repo", str(git_repo.path), "--id", "shop"]) == 0
    assert "registered shop (git)" in capsys.readouterr().out
    from dagster import DagsterInstance

    assert DagsterInstance.get().get_dynamic_partitions("repos") == ["shop"]

    assert main(["add-repo", str(git_repo.path), "--id", "shop"]) == 2
    assert "already registered" in capsys.readouterr().err
    assert main(["add-repo", str(git_repo.path), "--id", "shop", "--exist-ok"]) == 0
    assert main(["add-repo", str(tmp_path / "missing")]) == 2
    assert "no such directory" in capsys.readouterr().err
    assert main(["add-repo", str(git_repo.path), "--id", "Bad Id!"]) == 2
    assert "invalid repo id 'Bad Id!'" in capsys.readouterr().err
    plain = tmp_path / "Notes Folder"
    plain.mkdir()
    (plain / "n.md").write_text("# Notes\n")
    assert main(["add-repo", str(plain)]) == 0
    assert "registered notes-folder (folder)" in capsys.readouterr().out


def test_ingest_refuses_unknown_ids_with_exit_2(home, capsys):
    assert main(["ingest", "nope"]) == 2
    assert "unknown repo id(s): nope" in capsys.readouterr().err
    assert main(["ingest"]) == 2
    assert main(["ingest", "--all"]) == 2


def test_ingest_json_prints_one_object_and_query_finds_the_function(home, git_repo, embedder):
    git_repo.write("billing/invoice.py",
                   'def total_with_vat(amount: float, rate: float = 0.2) -> float:\n'
                   '    """Invoice total including value added tax."""\n'
                   '    return round(amount * (1 + rate), 2)\n')
    git_repo.write("README.md", "# Billing\n\nInvoices and VAT.\n")
    git_repo.commit("billing")
    env = {**__import__("os").environ}
    cli = [sys.executable, "-m", "ledger_assets.cli"]
    assert subprocess.run([*cli, "add-repo", str(git_repo.path), "--id", "billing"], env=env).returncode == 0
    out = subprocess.run([*cli, "ingest", "billing", "--format", "json"], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)  # exactly one JSON object on stdout
    for key in ("files_scanned", "chunks_written", "chunks_skipped", "chunks_deleted",
                "embeddings_computed", "intent_skipped", "llm_requests", "elapsed_s"):
        assert key in summary
    assert summary["files_scanned"] == 2 and summary["chunks_written"] >= 2
    again = json.loads(subprocess.run([*cli, "ingest", "--all", "--format", "json"], capture_output=True,
                                      text=True, env=env).stdout)
    assert again["chunks_written"] == 0 and again["embeddings_computed"] == 0
    q = subprocess.run([*cli, "query", "invoice total with VAT", "--repo", "billing", "--format", "json", "--k", "3"],
                       capture_output=True, text=True, env=env)
    assert q.returncode == 0, q.stderr
    hits = json.loads(q.stdout)
    assert hits[0]["file_path"] == "billing/invoice.py" and hits[0]["start_line"] == 1


def test_chunk_withholds_key_material_and_lfs_pointers_as_the_ingest_does(tmp_path, capsys):
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n"
    (tmp_path / "id_ed25519").write_text(key)
    (tmp_path / "model.bin.txt").write_text("version https://git-lfs.github.com/spec/v1\n"
                                            "oid sha256:" + "a" * 64 + "\nsize 123456\n")
    (tmp_path / "ok.py").write_text("def ok():\n    return 1\n")
    assert main(["chunk", str(tmp_path), "--format", "jsonl"]) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line)["file_path"] for line in out.splitlines()] == ["ok.py"]
    assert "b3BlbnNzaC1rZXkt" not in out + err
    assert "id_ed25519: skipped: private key material" in err and "model.bin.txt: skipped: git-lfs pointer" in err
    assert main(["chunk", str(tmp_path), "--format", "table"]) == 0
    table = capsys.readouterr().out
    assert "skipped: private key material" in table and "b3BlbnNzaC1rZXkt" not in table


def test_chunk_shows_why_a_file_was_read_otherwise(tmp_path, capsys):
    """A chunker's notes (a fallback, a cap) reach the person running `ledger chunk`, as the chunks asset's
    `chunker_notes` carry them to the UI: a changelog over `md_max_sections`, XML nested past its depth cap."""
    (tmp_path / "CHANGES.md").write_text("".join(f"## 1.{i}\n\n- fix {i}\n\n" for i in range(2_500)))
    (tmp_path / "deep.xml").write_text("<a>" * 300 + "x" + "</a>" * 300 + "\n")
    assert main(["chunk", str(tmp_path), "--format", "table"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[1:]}
    packed = int(rows["CHANGES.md"].split("md_section×")[1].split(";")[0])
    assert 1_000 <= packed < 2_500 and "; note: 2,500 sections, over md_max_sections=2,000" in rows["CHANGES.md"]
    assert "; note: " in rows["deep.xml"] and "256" in rows["deep.xml"]
    assert main(["chunk", str(tmp_path / "CHANGES.md"), "--format", "jsonl"]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == packed
    assert err.startswith("ledger chunk: CHANGES.md: note: 2,500 sections, over md_max_sections=2,000")


def test_chunk_jsonl_and_table(capsys):
    path = FIXTURES / "sql"
    sql_file = next(p for p in sorted(path.glob("*.sql")))
    assert main(["chunk", str(sql_file), "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows and [r["chunk_index"] for r in rows] == list(range(len(rows)))
    for key in ("file_path", "chunk_type", "start_line", "end_line", "text", "analysis_text", "symbols",
                "skeleton", "content_hash"):
        assert key in rows[0]
    assert main(["chunk", str(path), "--format", "table"]) == 0
    table = capsys.readouterr().out
    assert "100.0%" in table and "sql_" in table
    assert main(["chunk", "/nonexistent/file.cs"]) == 2
