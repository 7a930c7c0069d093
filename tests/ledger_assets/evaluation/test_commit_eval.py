"""`ledger golden --commits` and file-level `ledger eval` (change requests -> files)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledger_assets.cli import main
from chunkers.paths import is_source_path
from ledger_assets.evaluation.baselines import rrf_lists
from ledger_assets.evaluation.commit_golden import build_commit_golden, commit_query
from ledger_assets.evaluation.scoring import (EvalError, Target, distinct_files, first_relevant_file, load_golden,
                                              metrics)

SHOP = Path(__file__).resolve().parents[2] / "fixtures" / "retrieval" / "shop"


@pytest.fixture
def shop_history(git_repo):
    """A small repo with the commits a commit set must keep and skip."""
    r = git_repo
    r.write("src/shop/pricing.py", (SHOP / "pricing.py").read_text())
    r.write("src/shop/__init__.py", "__version__ = '1.0.0'\n")
    r.write("README.md", "# shop\n")
    r.commit("Import the shop package")
    r.write("src/shop/cart.py", (SHOP / "cart.py").read_text())
    r.write("tests/test_pricing.py", (SHOP / "test_pricing.py").read_text())
    r.commit("Add a cart that totals prices with discount codes (#12)")
    r.write("README.md", "# shop\n\nA shop.\n")
    r.commit("Fix typo in README")
    r.write("src/shop/__init__.py", "__version__ = '1.1.0'\n")
    r.commit("Bump version to 1.1.0")
    r.write("tests/test_pricing.py", (SHOP / "test_pricing.py").read_text() + "\n# more\n")
    r.commit("Cover rounding of negative amounts")  # tests only: no source target
    r.write("src/shop/pricing.py", (SHOP / "pricing.py").read_text() + "\n# half-even\n")
    r.write("tests/test_pricing.py", (SHOP / "test_pricing.py").read_text())
    r.commit("fix(pricing): round half-even when converting currency")
    for i in range(6):
        r.write(f"src/shop/m{i}.py", f"X = {i}\n")
    r.commit("Split the shop into six modules")  # over five source files
    r.write("src/shop/legacy.py", "OLD = 1\n")
    r.commit("Add legacy coupon module")
    (r.path / "src/shop/legacy.py").unlink()
    r.commit("Remove legacy coupon module")  # its file is gone at HEAD: the earlier commit goes too
    r.git("checkout", "-q", "-b", "topic")
    r.write("src/shop/cart.py", (SHOP / "cart.py").read_text() + "\n# empty carts\n")
    r.commit("Let an empty cart total zero")
    r.git("checkout", "-q", "main")
    r.git("merge", "-q", "--no-ff", "topic", "-m", "Merge branch 'topic'")
    return r


def test_commit_subjects_become_change_requests(shop_history, tmp_path, capsys):
    out = tmp_path / "golden"
    assert main(["golden", str(shop_history.path), str(out), "--commits", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    lines = [json.loads(x) for x in (out / "golden.jsonl").read_text().splitlines()]
    assert [(x["query"], x["files"]) for x in lines] == [
        ("Let an empty cart total zero", ["src/shop/cart.py"]),
        ("pricing: round half-even when converting currency", ["src/shop/pricing.py"]),
        ("Add a cart that totals prices with discount codes", ["src/shop/cart.py"]),
        ("Import the shop package", ["src/shop/__init__.py", "src/shop/pricing.py"]),
    ]
    assert all(len(x["commit"]) == 40 for x in lines)
    assert report["queries"] == 4
    assert report["skipped"]["chore subject"] == 2  # typo, version bump (the merge is never read)
    assert report["skipped"]["no source file"] == 1  # tests only
    assert report["skipped"]["over 5 source files"] == 1
    assert report["skipped"]["files gone at HEAD"] == 2  # the legacy module, added then removed
    golden = load_golden(out / "golden.jsonl")
    assert golden[1].files == ("src/shop/pricing.py",)


def test_a_commit_set_of_questions_about_tests(shop_history, tmp_path):
    """`tests=True` (commit_eval.py --tests): "tests for" and the subject -> the test files the commit changed;
    a subject naming tests already stays as it is, and a commit that changed no test is left out."""
    shop_history.write("tests/test_cart.py", "def test_empty_cart_totals_zero():\n    assert True\n")
    shop_history.commit("test: add tests for an empty cart")
    made = build_commit_golden(shop_history.path, tmp_path / "golden", tests=True)
    lines = [json.loads(x) for x in (tmp_path / "golden" / "golden.jsonl").read_text().splitlines()]
    assert [(x["query"], x["files"]) for x in lines] == [
        ("add tests for an empty cart", ["tests/test_cart.py"]),
        ("tests for pricing: round half-even when converting currency", ["tests/test_pricing.py"]),
        ("tests for Cover rounding of negative amounts", ["tests/test_pricing.py"]),
        ("tests for Add a cart that totals prices with discount codes", ["tests/test_pricing.py"]),
    ]
    assert made["queries"] == 4 and made["skipped"]["no source file"] == 5  # the commits that changed no test
    assert main(["golden", str(shop_history.path), str(tmp_path / "cli"), "--commits", "--tests"]) == 0
    assert (tmp_path / "cli" / "golden.jsonl").read_text() == (tmp_path / "golden" / "golden.jsonl").read_text()
    assert main(["golden", str(shop_history.path), str(tmp_path / "bad"), "--tests"]) == 2  # --tests is for --commits


def test_commit_golden_max_and_bad_input(shop_history, tmp_path, capsys):
    assert main(["golden", str(shop_history.path), str(tmp_path / "one"), "--commits", "--max", "1"]) == 0
    assert "1 commit queries" in capsys.readouterr().out
    assert len((tmp_path / "one" / "golden.jsonl").read_text().splitlines()) == 1
    assert main(["golden", str(shop_history.path), str(tmp_path / "two"), "--max", "1"]) == 2
    assert main(["golden", str(tmp_path / "nowhere"), str(tmp_path / "three"), "--commits"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_commit_query_and_source_paths():
    assert commit_query("feat(vanilla): add x to the store (#2451)") == "vanilla: add x to the store"
    assert commit_query("Fix: handle empty body") == "handle empty body"
    assert commit_query("Support Debug extension (#1991)") == "Support Debug extension"
    assert is_source_path("src/MediatR/Mediator.cs") and is_source_path("middleware/logger.go")
    for path in ("test/MediatR.Tests/SendTests.cs", "middleware/logger_test.go", "src/a.test.ts", "tests/test_x.py",
                 "src/__tests__/store.tsx", "README.md", "types/index.d.ts"):
        assert not is_source_path(path), path


def test_file_level_metrics_on_a_hand_made_case(tmp_path):
    t = Target("q", "a.py", 0, 0, ("a.py", "b.py"))
    # a file counts once, where it first appears: c, d, a -> a is the third file
    assert distinct_files(["c.py", "c.py", "d.py", "c.py", "a.py", "b.py"]) == ["c.py", "d.py", "a.py", "b.py"]
    assert first_relevant_file(["c.py", "c.py", "d.py", "c.py", "a.py", "b.py"], t) == 3
    assert first_relevant_file(["b.py", "a.py"], t) == 1  # any target file
    assert first_relevant_file([f"x{i}.py" for i in range(10)] + ["a.py"], t) is None  # the 11th file
    assert first_relevant_file(["x.py"] * 30 + ["a.py"], t) == 2  # 30 chunks of one file are one file
    ranks = [first_relevant_file(r, t) for r in (["a.py"], ["c.py", "b.py"], ["c.py"] + [f"x{i}" for i in range(5)] + ["a.py"], ["z"])]
    assert ranks == [1, 2, 7, None]
    assert metrics(ranks, "acc") == {"acc@1": 0.25, "acc@5": 0.5, "acc@10": 0.75,
                                     "mrr@10": round((1 + 1 / 2 + 1 / 7) / 4, 4), "queries": 4}
    assert rrf_lists([[1, 2, 3], [3, 1]]) == [1, 3, 2]
    g = tmp_path / "g.jsonl"
    g.write_text(json.dumps({"query": "q", "files": ["a.py"], "commit": "0" * 40}) + "\n")
    assert load_golden(g)[0].files == ("a.py",)
    g.write_text(json.dumps({"query": "q", "files": []}) + "\n")
    with pytest.raises(EvalError):
        load_golden(g)
    g.write_text(json.dumps({"query": "q", "files": ["a.py"]}) + "\n"
                 + json.dumps({"query": "r", "file": "a.py", "start_line": 1, "end_line": 2}) + "\n")
    with pytest.raises(EvalError, match="mixes"):
        load_golden(g)
