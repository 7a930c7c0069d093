"""`ledger golden` + `ledger eval` on code we did not write: the `packaging` package's own sources."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import packaging
import pytest

from ledger_assets.cli import main
from ledger_assets.evaluation.evaluate import evaluate
from ledger_assets.evaluation.scoring import EvalError, Target, first_relevant, lines_read, load_golden, metrics
from ledger_assets.evaluation.golden import build_golden, first_sentence
from tests.conftest import ingest

SOURCES = ("utils.py", "_tokenizer.py", "errors.py")


@pytest.fixture
def packaging_repo(make_repo):
    repo = make_repo("packaging-src")
    src = Path(packaging.__file__).parent
    for name in SOURCES:
        repo.write(f"packaging/{name}", (src / name).read_text(encoding="utf-8"))
    repo.commit("packaging sources, copied from site-packages")
    return repo


def test_first_sentence():
    assert first_sentence("Return the thing.  More words here.") == "Return the thing"
    assert first_sentence("Parse a ``version`` (e.g. 1.0) string. Then more.") == "Parse a ``version`` (e.g. 1.0) string"
    assert first_sentence("  multi\n  line   doc  ") == "multi line doc"


def test_metrics_count_overlaps_within_ten():
    t = Target("q", "a.py", 10, 20)
    assert first_relevant([("b.py", 10, 20), ("a.py", 1, 9), ("a.py", 18, 40)], t) == 3
    assert first_relevant([("a.py", 21, 30)] * 12, t) is None
    # Lines read in order up to the first hit; a miss reads all ten results.
    ranked = [("b.py", 10, 20), ("a.py", 1, 9), ("a.py", 18, 40)]
    assert lines_read(ranked, first_relevant(ranked, t)) == 11 + 9 + 23
    assert lines_read([("a.py", 21, 30)] * 12, None) == 100
    assert metrics([1, 3, None, 7]) == {"recall@1": 0.25, "recall@5": 0.5, "recall@10": 0.75,
                                        "mrr@10": round((1 + 1 / 3 + 1 / 7) / 4, 4), "queries": 4}


def test_golden_then_eval_on_a_repo_we_did_not_write(ledger, packaging_repo, embedder, tmp_path, monkeypatch, capsys):
    out = tmp_path / "golden"
    assert main(["golden", str(packaging_repo.path), str(out), "--format", "json"]) == 0
    made = json.loads(capsys.readouterr().out)
    golden = load_golden(made["golden"])
    assert len(golden) == made["queries"] >= 15
    copy = Path(made["repo_copy"])
    for name in SOURCES:
        original = (packaging_repo.path / "packaging" / name).read_text().split("\n")
        blanked = (copy / "packaging" / name).read_text().split("\n")
        assert len(blanked) == len(original), name  # line numbers preserved
        compile("\n".join(blanked), name, "exec")  # still valid Python
    for t in golden:
        src = (copy / t.file).read_text()
        assert t.query not in src, t.query  # the answer is not in the indexed text
        assert t.query.lower() not in {o.query.lower() for o in golden if o is not t}
        lines = src.split("\n")
        assert lines[t.start_line - 1].lstrip().startswith(("def ", "class ", "async def ", "@"))
    assert subprocess.run(["git", "-C", str(copy), "status", "--porcelain"], capture_output=True,
                          text=True).stdout == ""

    ledger.registry.add(copy, "pkg")
    ingest(ledger, "pkg", embedder)
    report = evaluate(ledger, embedder, made["golden"], "pkg")
    systems = report["systems"]
    assert set(systems) == {"lane:code", "lane:design", "lane:sparse", "lane:symbol", "lane:name", "fusion",
                            "baseline:minilm_windows",
                            "baseline:bm25_windows", "baseline:bm25_ident_windows"}
    for name, m in systems.items():
        assert m["queries"] == len(golden)
        assert 0 <= m["recall@1"] <= m["recall@5"] <= m["recall@10"] <= 1, name
        assert m["recall@1"] <= m["mrr@10"] <= m["recall@10"], name
    # Real signal, not noise: most targets are found in the top ten.
    assert systems["fusion"]["recall@10"] >= 0.6
    assert systems["fusion"]["mrr@10"] >= 0.3
    # Lines read to the first hit: for the fusion and each baseline, at least one result's worth.
    assert set(report["lines_read"]) == {"fusion", "baseline:minilm_windows", "baseline:bm25_windows",
                                         "baseline:bm25_ident_windows"}
    assert all(v >= 1 for v in report["lines_read"].values())
    assert report["windows"]["count"] >= len(SOURCES)
    ratios = report["fusion_vs_baseline_r1"]
    assert set(ratios) == {"minilm_windows", "bm25_windows", "bm25_ident_windows"}
    assert report["fusion_vs_best_baseline_r1"] == min(r for r in ratios.values() if r is not None)

    monkeypatch.setenv("LEDGER_HOME", str(ledger.settings.home_path))
    assert main(["eval", made["golden"], "--repo", "pkg", "--no-baselines"]) == 0
    text = capsys.readouterr().out
    assert "fusion" in text and "R@5" in text and "baseline" not in text.split("R@1 / best")[0].split("MRR@10")[1]


def test_eval_and_golden_bad_input_exit_2(ledger, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LEDGER_HOME", str(ledger.settings.home_path))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "x", "file": "a.py"}\n')
    assert main(["eval", str(bad), "--repo", "pkg"]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err
    with pytest.raises(EvalError, match="no such file|No such file"):
        load_golden(tmp_path / "missing.jsonl")
    assert main(["golden", str(tmp_path / "nope"), str(tmp_path / "out")]) == 2
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    assert main(["golden", str(tmp_path), str(tmp_path / "full")]) == 2
    assert "not empty" in capsys.readouterr().err
