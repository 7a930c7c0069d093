"""read-span, symbol, drift and similar on real git repos and a real ledger."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ledger_assets.cli import main
from ledger_assets.retrieval.symbols import ToolInputError, symbol_lookup
from ledger_assets.retrieval.tools import drift, read_span, signature_of, similar
from ledger_assets.ingest.pipeline import snapshot_stage
from tests.conftest import LOG, RETRIEVAL_FIXTURES as FIXTURES, ingest, serve_rows


@pytest.fixture
def registered(ledger, git_repo):
    git_repo.write("src/BookingService.cs", (FIXTURES / "BookingService.cs").read_text())
    git_repo.write("billing/invoices.py", (FIXTURES / "invoices.py").read_text())
    git_repo.commit("first")
    ledger.registry.add(git_repo.path, "travel")
    snapshot_stage(ledger, "travel", "fixture", LOG)  # read-span serves the served snapshot only
    serve_rows(ledger, "travel")
    return git_repo


@pytest.fixture
def cli_home(ledger, monkeypatch):
    monkeypatch.setenv("LEDGER_HOME", str(ledger.settings.home_path))


# ---------------------------------------------------------------- read-span ---
def test_read_span_reads_exact_lines_clamps_and_caps(ledger, registered):
    span = read_span(ledger, "billing/invoices.py", 6, 8)
    assert span["text"] == (FIXTURES / "invoices.py").read_text().split("\n")[5]  + "\n" + \
        "\n".join((FIXTURES / "invoices.py").read_text().split("\n")[6:8])
    assert (span["repo_id"], span["start_line"], span["end_line"], span["truncated"]) == ("travel", 6, 8, False)
    clamped = read_span(ledger, "billing/invoices.py", 30, 500)
    assert (clamped["end_line"], clamped["total_lines"], clamped["clamped"]) == (31, 31, True)
    capped = read_span(ledger, "src/BookingService.cs", 1, 66, max_lines=10)
    assert (capped["end_line"], capped["truncated"]) == (10, True)
    assert capped["text"].split("\n")[0] == "using System;"


def test_read_span_refuses_paths_leaving_the_repo(ledger, registered, tmp_path, cli_home, capsys):
    secret = tmp_path / "secret.txt"
    secret.write_text("password\n")
    os.symlink(secret, registered.path / "link.txt")
    os.symlink(tmp_path, registered.path / "up")
    for bad, why in ((str(secret), "absolute"), ("../secret.txt", "'..'"), ("src/../../secret.txt", "'..'"),
                     ("link.txt", "outside the repo root"), ("up/secret.txt", "outside the repo root")):
        with pytest.raises(ToolInputError, match=why):
            read_span(ledger, bad, 1, 1, repo="travel")
        assert main(["read-span", bad, "1", "1", "--repo", "travel"]) == 2
        err = capsys.readouterr().err
        assert why in err and "Traceback" not in err
    assert main(["read-span", "billing/invoices.py", "9", "3"]) == 2
    assert "before START" in capsys.readouterr().err
    assert main(["read-span", "billing/invoices.py", "99", "100"]) == 2
    assert "past the end" in capsys.readouterr().err
    assert main(["read-span", "nope.py", "1", "2"]) == 2
    assert main(["read-span", "billing/invoices.py", "6", "7", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["text"].startswith("def vat_amount")


# ------------------------------------------------------------------- drift ---
def test_drift_across_two_commits(ledger, registered):
    base = registered.head()
    cs = (FIXTURES / "BookingService.cs").read_text()
    # Signature change, a removal, an addition, a trivial shift (2 lines) and a real move (to another file).
    cs = cs.replace("public bool Cancel(string reservationId)", "public bool Cancel(string reservationId, string reason)")
    start = cs.index("        public IReadOnlyList<Reservation> ForGuest")
    end = cs.index("    public sealed record Reservation")
    cs = cs[:start].rstrip() + "\n    }\n\n" + cs[end:]
    cs = cs.replace("using System.Collections.Generic;\n", "using System.Collections.Generic;\n// one\n// two\n")
    cs = cs.replace("    public interface IClock\n    {\n        DateTime UtcNow { get; }\n    }\n", "")
    registered.write("src/BookingService.cs", cs)
    registered.write("src/Clock.cs", "namespace Travel.Bookings\n{\n" + "\n" * 30 +
                     "    public interface IClock\n    {\n        DateTime UtcNow { get; }\n    }\n}\n")
    py = (FIXTURES / "invoices.py").read_text() + "\n\ndef void_invoice(number: str) -> None:\n    raise NotImplementedError\n"
    registered.write("billing/invoices.py", py)
    registered.commit("second")
    report = drift(ledger, "travel", base)
    names = {cat: {(s["kind"], s["name"]) for s in report[cat]}
             for cat in ("added", "removed", "signature_changed", "moved")}
    assert names["added"] == {("function", "void_invoice")}
    assert names["removed"] == {("method", "Travel.Bookings.BookingService.ForGuest")}
    assert names["signature_changed"] == {("method", "Travel.Bookings.BookingService.Cancel")}
    assert ("interface", "Travel.Bookings.IClock") in names["moved"]
    assert ("property", "Travel.Bookings.IClock.UtcNow") in names["moved"]
    # Book shifted by two lines only: not a move.
    assert not any("Book" == n.rsplit(".", 1)[-1] for _, n in names["moved"])
    sig = report["signature_changed"][0]
    assert sig["old_signature"] == "public bool Cancel(string reservationId)"
    assert sig["new_signature"] == "public bool Cancel(string reservationId, string reason)"
    moved = next(s for s in report["moved"] if s["name"] == "Travel.Bookings.IClock")
    assert (moved["from_file"], moved["file_path"], moved["start_line"]) == ("src/BookingService.cs", "src/Clock.cs", 33)
    assert drift(ledger, "travel", registered.head())["files_changed"] == 0


def test_drift_cli_and_bad_input(ledger, registered, cli_home, capsys):
    base = registered.head()
    registered.write("billing/invoices.py", (FIXTURES / "invoices.py").read_text() + "\n\ndef refund(x):\n    return x\n")
    assert main(["drift", "--repo", "travel", "--since", base]) == 0
    out = capsys.readouterr().out
    assert "1 added" in out and "+ function refund  billing/invoices.py:34-35" in out
    assert main(["drift", "--repo", "travel", "--since", "deadbeef"]) == 2
    assert "not a commit" in capsys.readouterr().err
    assert main(["drift", "--repo", "travel", "--since=--output=/tmp/x"]) == 2
    assert main(["drift", "--repo", "ghost", "--since", base]) == 2
    assert "unknown repo id" in capsys.readouterr().err


def test_signature_of_stops_at_the_body():
    lines = ["    /// <summary>x</summary>", "    [Obsolete]", "    public Task<int> RunAsync(", "        int a)",
             "    {", "    }"]
    assert signature_of(lines, 1, 6) == "public Task<int> RunAsync( int a)"
    assert signature_of(["def f(a, b):", "    return a"], 1, 2) == "def f(a, b)"


# ------------------------------------------------------- symbol + similar ---
def test_symbol_lookup_exact_case_insensitive_and_qualified(ledger, registered, embedder, cli_home, capsys):
    ingest(ledger, "travel", embedder)
    [cancel] = symbol_lookup(ledger, "BookingService.Cancel")
    assert (cancel.file_path, cancel.kind, cancel.start_line, cancel.end_line) == ("src/BookingService.cs", "method", 31, 40)
    assert cancel.qualified_name == "Travel.Bookings.BookingService.Cancel"
    assert symbol_lookup(ledger, "bookingservice.CANCEL") == [cancel]
    assert symbol_lookup(ledger, "Travel.Bookings.BookingService.Cancel") == [cancel]
    assert symbol_lookup(ledger, "Cancel") == [cancel]
    assert symbol_lookup(ledger, "Cance") == []  # exact, not prefix
    assert symbol_lookup(ledger, "Other.Cancel") == []
    [inst] = symbol_lookup(ledger, "PaymentSchedule.instalment", repo="travel")
    assert (inst.file_path, inst.start_line, inst.end_line) == ("billing/invoices.py", 26, 31)
    with pytest.raises(ToolInputError):
        symbol_lookup(ledger, "drop table; --")
    assert main(["symbol", "bookingservice.cancel", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["start_line"] == 31
    assert main(["symbol", "a b"]) == 2

    hits = similar(ledger, "billing/invoices.py:7", "code", k=3)
    assert hits and all(h.payload["start_line"] != 1 or h.payload["file_path"] != "billing/invoices.py" for h in hits)
    assert [h.rank for h in similar(ledger, "billing/invoices.py:7", "quality", k=2)] == [1, 2]
    # The default profile embeds a design text for an LLM intent only; these intents are keyless.
    with pytest.raises(ToolInputError, match="no design vector .*LEDGER_EMBED_PROFILE=full"):
        similar(ledger, "billing/invoices.py:7", "design", k=2)
    with pytest.raises(ToolInputError, match="FILE:LINE"):
        similar(ledger, "billing/invoices.py", "code")
    with pytest.raises(ToolInputError, match="no indexed chunk"):
        similar(ledger, "billing/invoices.py:900", "code")
    assert main(["similar", "src/BookingService.cs:31", "--mode", "quality", "--format", "toon", "--k", "2"]) == 0
    assert len(capsys.readouterr().out.strip().split("\n")) == 3
