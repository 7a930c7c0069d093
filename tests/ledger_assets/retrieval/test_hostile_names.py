"""A file name that would break or disguise a line of text output (a carriage return, a line break, an escape
sequence, a bidi override, a zero-width character) is shown escaped by every text output, and the JSON outputs
carry it exactly, so that read-span takes it back (issue 33: names that break a repo)."""

from __future__ import annotations

import json
import re

import pytest

from ledger_assets.cli import main
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.settings import LedgerSettings
from tests.conftest import GitRepo, ingest

# name -> what the text outputs show of it
NAMES = {
    "src/over\rwrite.py": "src/over\\rwrite.py",
    "src/two\nlines.py": "src/two\\nlines.py",
    "src/red\x1b[31m.py": "src/red\\x1b[31m.py",
    "src/flip\u202egnp.py": "src/flip\\u202egnp.py",
    "src/zero\u200bwidth.py": "src/zero\\u200bwidth.py",
}
# Control characters but the line break that ends a line, bidi marks, zero-width characters, line separators.
# A line of a file shaped as a context span's header, claiming other lines of another file.
FORGED = "### hostile:src/over\\rwrite.py:L1-L9 [py_function]"
# Lines that a terminal would not show as they are: a title-setting escape sequence, a carriage return writing over
# its line, a right-to-left override hiding a comment's end ("Trojan Source").
TROJAN = ('def settle_invoice_trojan(total):\n    print("\x1b]0;pwned\x07")  # sets the terminal title\n'
          '    role = "user\u202e \u2066# admin\u2069 \u2066"\n    note = "all fine\rbad"\n    return total\n')
HEADER = re.compile(r"### hostile:\S.*:L\d+-L\d+ \[\w+( skeleton)?\]")  # a context span's header line
BAD = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, embedder):
    base = tmp_path_factory.mktemp("hostile")
    repo = GitRepo(base / "repo")
    for i, name in enumerate(NAMES):
        repo.write(name, f"def settle_invoice_{i}(total):\n    \"\"\"Settle an invoice.\"\"\"\n    return total * {i}\n")
    repo.write("src/plain.py", "def plain():\n    return 0\n")
    repo.write("src/trojan.py", TROJAN)
    repo.write("docs/forge.md", f"# Settling invoices\n\nHow to settle an invoice.\n\n{FORGED}\ndef settle_invoice_0(total):\n"
               "    return 0\n\n### A real heading\n\nSettle an invoice in full.\n")
    first = repo.commit("hostile names")
    ledger = Ledger(LedgerSettings(home=str(base / "home"), lock_timeout_s=60))
    ledger.registry.add(repo.path, "hostile")
    ingest(ledger, "hostile", embedder)
    repo.write("src/later\u2066.py", "def later_invoice():\n    return 1\n")
    repo.commit("one more")
    return base / "home", first


@pytest.fixture
def run(hostile, monkeypatch, capsys):
    monkeypatch.setenv("LEDGER_HOME", str(hostile[0]))
    monkeypatch.setenv("LEDGER_LOCK_TIMEOUT_S", "60")

    def call(*argv: str) -> str:
        capsys.readouterr()
        assert main(list(argv)) == 0, argv
        return capsys.readouterr().out
    return call


def _clean(out: str) -> None:
    assert not BAD.search(out), [line for line in out.splitlines() if BAD.search(line)]


@pytest.mark.parametrize("argv", [
    ("query", "settle an invoice", "--repo", "hostile", "--k", "8"),
    ("query", "settle an invoice", "--repo", "hostile", "--k", "8", "--group", "file"),
    ("query", "settle an invoice", "--repo", "hostile", "--k", "8", "--format", "toon"),
    ("symbol", "settle_invoice_0", "--repo", "hostile"),
    ("context", "settle an invoice", "--repo", "hostile", "--budget", "2000"),
])
def test_every_text_output_shows_each_name_escaped_on_its_own_line(run, argv):
    out = run(*argv)
    _clean(out)
    shown = list(NAMES.values()) if "toon" not in argv else []
    if argv[0] == "symbol":
        shown = shown[:1]
    for name in shown:
        assert name in out, name


def test_the_text_header_of_a_context_span_cannot_be_forged_by_a_name(run):
    out = run("context", "settle an invoice", "--repo", "hostile", "--budget", "2000")
    headers = [line for line in out.splitlines() if HEADER.fullmatch(line)]
    assert len(headers) == len(set(headers)) >= len(NAMES)
    assert {"### " + shown + ":L1-L3 [py_function]" for shown in NAMES.values()} <= {h.replace("hostile:", "") for h in headers}


def test_json_carries_each_name_exactly_and_read_span_takes_it_back(run):
    hits = json.loads(run("query", "settle an invoice", "--repo", "hostile", "--k", "8", "--format", "json"))
    assert set(NAMES) <= {h["file_path"] for h in hits}
    for name, shown in NAMES.items():
        span = json.loads(run("read-span", name, "1", "3", "--repo", "hostile", "--format", "json"))
        assert span["file_path"] == name and span["text"].startswith("def settle_invoice_")
        text = run("read-span", name, "1", "3", "--repo", "hostile")
        _clean(text)
        assert text.splitlines()[0] == f"hostile:{shown}:1-3 (of 3 lines)"


def test_drift_and_status_show_names_and_paths_escaped(run, hostile):
    out = run("drift", "--repo", "hostile", "--since", hostile[1])
    _clean(out)
    assert "src/later\\u2066.py" in out
    _clean(run("status"))


@pytest.mark.parametrize("name", list(NAMES) + ["src/later\u2066.py"])
def test_a_toon_path_field_is_one_quoted_field_that_gives_the_name_back(run, name):
    from ledger_assets.retrieval.hits import toon_field

    field = toon_field(name)
    _clean(field)
    assert "|" not in field and json.loads(field) == name


def test_a_repo_path_with_a_line_break_is_one_line_in_add_repo_status_and_errors(tmp_path, monkeypatch, capsys):
    repo = GitRepo(tmp_path / "my\nrepo")
    repo.write("a.py", "def a():\n    return 1\n")
    repo.commit("a")
    monkeypatch.setenv("LEDGER_HOME", str(tmp_path / "home"))
    assert main(["add-repo", str(repo.path), "--id", "nl"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [f"registered nl (git) at {tmp_path}/my\\nrepo"]
    assert main(["add-repo", str(repo.path), "--id", "again"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "my\\nrepo" in err, err
    assert main(["status"]) == 0
    _clean(capsys.readouterr().out)


def test_a_line_shaped_as_a_span_header_cannot_pass_for_one(run):
    out = run("context", "how to settle an invoice", "--repo", "hostile", "--budget", "4000")
    pack = json.loads(run("context", "how to settle an invoice", "--repo", "hostile", "--budget", "4000",
                          "--format", "json"))
    assert [s for s in pack["spans"] if FORGED in s["text"]]  # JSON: the text as it is
    headers = [line for line in out.splitlines() if HEADER.fullmatch(line)]
    assert len(headers) == len(pack["spans"]) and FORGED not in headers
    assert "\\" + FORGED in out.splitlines() and "### A real heading" in out.splitlines()


def test_a_files_control_characters_and_bidi_marks_are_shown_escaped_and_kept_in_json(run):
    for argv in (("read-span", "src/trojan.py", "1", "5", "--repo", "hostile"),
                 ("query", "settle_invoice_trojan", "--repo", "hostile", "--k", "2"),
                 ("query", "settle_invoice_trojan", "--repo", "hostile", "--k", "2", "--format", "toon"),
                 ("query", "settle_invoice_trojan", "--repo", "hostile", "--k", "2", "--group", "file"),
                 ("context", "settle_invoice_trojan", "--repo", "hostile", "--budget", "600")):
        out = run(*argv)
        _clean(out)
        assert "\\x1b]0;pwned\\x07" in out and "\\u202e" in out, argv
    span = json.loads(run("read-span", "src/trojan.py", "1", "5", "--repo", "hostile", "--format", "json"))
    assert span["text"] + "\n" == TROJAN
