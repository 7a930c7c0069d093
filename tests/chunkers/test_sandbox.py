"""A file's chunking in a process of its own, under a CPU limit (chunkers/sandbox.py): what no budget inside the
parse can stop is stopped, and what parses is chunked exactly as in this process."""

from __future__ import annotations

import re
from pathlib import Path

from chunkers import chunk_file_guarded, chunk_file_result
from chunkers import sandbox
from chunkers.sandbox import ISOLATE_MIN_BYTES, cpu_limit_s, memory_limit_mb

from tests.invariants import uncovered_lines

ROOT = Path(__file__).resolve().parents[2]
# Java's grammar takes more than the square of `x =>` repeated with nothing to resync on, all of it inside one step
# of its error recovery that neither of parse_bounded's budgets sees (× 8,000, 39 KB: over 60 CPU s in this process).
HOSTILE = b"x => " * 8_000


def test_a_parse_no_budget_sees_is_stopped_by_the_cpu_limit_and_the_file_kept_in_plain_windows():
    result = chunk_file_guarded("src/Arrow.java", HOSTILE, cpu_s=1)
    # Its memory grows as fast: which limit ends it first is the machine's
    assert result.notes and re.fullmatch(r"(chunking passed its CPU limit \(1 s for 39 KB\)|the chunking process ended"
                                         r" \(signal \w+\) on this file, under its limits of 1 CPU s and \d+ MB).*: "
                                         r"plain windows", result.notes[0]), result.notes
    assert result.pieces and not uncovered_lines(result.pieces, 1)
    assert "".join(p.text[len(p.header):] for p in result.pieces).count("x =>") >= 8_000


def test_what_parses_is_chunked_as_in_this_process_and_the_worker_is_replaced_after_a_kill():
    files = [ROOT / "chunkers" / "units.py", ROOT / "chunkers" / "csharp.py", ROOT / "README.md",
             ROOT / "tests" / "fixtures" / "secrets" / "rules" / "examples.json"]
    assert all(f.stat().st_size >= ISOLATE_MIN_BYTES for f in files)
    chunk_file_guarded("src/Arrow.java", HOSTILE, cpu_s=1)  # the worker killed: the next file starts another
    for f in files:
        rel = f.relative_to(ROOT).as_posix()
        here, guarded = chunk_file_result(rel, f.read_bytes()), chunk_file_guarded(rel, f.read_bytes())
        assert guarded == here and guarded.pieces and not guarded.notes, rel


def test_a_grammar_that_takes_gigabytes_is_stopped_by_the_memory_limit():
    """TypeScript's grammar holds 1.4 GB for `x<y,` × 8,000 (31 KB) and would finish in 2 CPU s: the worker's
    address space is bounded (1 GB plus 512 MB a MB of the file), so the allocation refused ends it."""
    result = chunk_file_guarded("src/list.ts", b"x<y," * 8_000, cpu_s=60)
    assert result.notes and "the chunking process ended" in result.notes[0], result.notes
    assert f"{memory_limit_mb(32_000)} MB" in result.notes[0] and not uncovered_lines(result.pieces, 1)


def test_the_limits_grow_with_the_file_and_leave_real_files_far_inside_them(monkeypatch):
    """The slowest of 4,956 real files chunked at 4 ms a KB (0.27 s for 885 KB), 50,000 one-line C# methods at 6:
    the limit is 2 s plus 20 ms a KB."""
    assert cpu_limit_s(4096) == 3 and cpu_limit_s(2**20) == 22 and cpu_limit_s(2 * 2**20) == 42
    assert memory_limit_mb(2**20) == 1536
    monkeypatch.setattr(sandbox, "CPU_MIN_S", 0.1)
    assert cpu_limit_s(40_000) == 1


def test_a_hostile_file_in_a_repo_is_chunked_in_plain_windows_and_passes_every_check(ledger, git_repo, monkeypatch):
    from ledger_assets.ingest import pipeline
    from tests.conftest import LOG

    monkeypatch.setattr(sandbox, "CPU_MIN_S", 0.1)  # 1 s for the hostile file, twice: chunked and re-chunked
    git_repo.write("src/Arrow.java", HOSTILE.decode())
    git_repo.write("src/Price.java", "class Price {\n    int cents() { return 1; }\n}\n")
    git_repo.commit("a file no grammar should take hours on")
    rid = ledger.registry.add(git_repo.path, "arrow").repo_id
    pipeline.snapshot_stage(ledger, rid, "r1", LOG)
    report = pipeline.chunk_stage(ledger, rid, "r1", LOG)
    assert all(c.passed for c in report.checks), [(c.name, c.description) for c in report.checks if not c.passed]
    assert "plain windows" in report.notes["src/Arrow.java"] and "src/Price.java" not in report.notes
    with ledger.db.connect() as con:
        kinds = dict(con.execute("SELECT file_path, list(DISTINCT chunk_type) FROM chunks WHERE repo_id = ? "
                                 "GROUP BY 1", [rid]).fetchall())
    assert kinds == {"src/Arrow.java": ["plain"], "src/Price.java": ["code_block"]}


def test_a_file_whose_plain_windows_pass_the_limits_too_is_a_skip_with_both_reasons(monkeypatch):
    """The plain windows are cut in a worker as well, so no file's work is ever done unbounded in the run's process:
    under a memory limit below what the worker starts with, both tries end and the file is a recorded skip."""
    monkeypatch.setattr(sandbox, "MEMORY_MIN_MB", 1)
    monkeypatch.setattr(sandbox, "MEMORY_MB_PER_MB", 0)
    data = b"class Price {}\n" * 70_000  # 1 MB: not even the request fits in what is left
    result = chunk_file_guarded("src/Price.java", data)
    assert not result.pieces and result.skip_reason.startswith("the chunking process ended"), result
    assert "; its plain windows too: the chunking process ended" in result.skip_reason
    monkeypatch.undo()
    assert chunk_file_guarded("src/Price.java", data).pieces  # the next worker has room again


def test_a_worker_grown_past_half_the_least_memory_limit_is_replaced_before_the_next_file(monkeypatch):
    """Memory a file's chunking took may stay mapped in the worker; the next file's limit must not be spent before it
    starts, so a worker past half of MEMORY_MIN_MB retires after its reply (here: every file, at 64 MB)."""
    data = (ROOT / "chunkers" / "units.py").read_bytes()
    chunk_file_guarded("chunkers/units.py", data)
    kept = sandbox._worker.proc.pid
    assert chunk_file_guarded("chunkers/units.py", data) == chunk_file_result("chunkers/units.py", data)
    assert sandbox._worker.proc.pid == kept  # under 512 MB: the same worker
    monkeypatch.setattr(sandbox, "MEMORY_MIN_MB", 64)
    pids = []
    for _ in range(2):
        assert chunk_file_guarded("chunkers/units.py", data) == chunk_file_result("chunkers/units.py", data)
        assert not sandbox._worker.alive()  # retired once it had replied
        pids.append(sandbox._worker.proc.pid)
    assert pids[0] == kept and pids[1] != kept


def test_a_worker_whose_chunker_left_a_thread_running_is_replaced_before_the_next_file():
    """A PDF's reader past its deadline runs on in its thread (up to its work budget); in the worker it would spend
    the next file's CPU limit, so the worker retires once it has replied."""
    from chunkers import ChunkOptions
    from tests.chunkers.test_pdf import TEXT_OPS, make_pdf, page_text

    data = make_pdf([page_text(1, 3), ("FORM", TEXT_OPS * 2000, 400), page_text(3, 3)])
    result = chunk_file_guarded("forms.pdf", data, ChunkOptions(pdf_timeout_s=0.3), cpu_s=30)
    assert [p.meta.get("placeholder") for p in result.pieces] == [None, "timeout"], result
    assert not sandbox._worker.alive()
