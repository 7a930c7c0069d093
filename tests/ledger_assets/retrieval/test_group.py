"""`ledger query --group file` and source before tests."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from ledger_assets.cli import main
from ledger_assets.evaluation.evaluate import evaluate, format_report
from ledger_assets.evaluation.commit_golden import build_commit_golden
from chunkers.paths import is_docs_path, is_test_path
from ledger_assets.retrieval.groups import group_files
from ledger_assets.retrieval.priors import apply_test_prior, asks_about_docs, asks_about_tests, is_test_chunk
from ledger_assets.retrieval.hits import Hit
from ledger_assets.retrieval.search import Searcher, SearchOptions, symbol_lane_for_tests
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.settings import LedgerSettings
from tests.conftest import GitRepo, ingest

SHOP = Path(__file__).resolve().parents[2] / "fixtures" / "retrieval" / "shop"
QUESTION = "round half-even when converting currency"


def test_test_files_by_path_convention():
    for path in ("tests/test_cart.py", "pkg/test_cart.py", "pkg/cart_test.py", "conftest.py", "mux_test.go",
                 "src/store.test.ts", "src/store.spec.tsx", "src/__tests__/store.ts", "test/MediatR.Tests/SendTests.cs",
                 "src/Shop.UnitTests/Cart.cs", "src/CartTests.cs", "spec/cart_spec.rb", "testdata/x.go"):
        assert is_test_path(path), path
    for path in ("src/shop/cart.py", "latest/cart.py", "contest.py", "src/attest.go",
                 "mux.go", "src/MediatR/Mediator.cs", "src/protest/x.ts"):
        assert not is_test_path(path), path
    assert is_test_chunk({"file_path": "src/helpers.py", "content": "def test_rounding():\n    assert 1\n",
                          "chunk_type": "py_function", "start_line": 1, "end_line": 2,
                          "chunk_symbols": '[["test_rounding", "function", "", 1, 2]]'})
    # a docstring's example is not a test (pytest documents itself so)
    assert not is_test_chunk({"file_path": "src/fixtures_doc.py", "chunk_type": "py_function", "start_line": 1,
                              "end_line": 5, "chunk_symbols": '[["fixture", "function", "", 1, 5]]',
                              "content": 'def fixture():\n    """Use it so:\n\n    def test_foo(tmp):\n    """\n'})
    assert is_test_chunk({"file_path": "x.go", "content": "func TestRoute(t *testing.T) {\n}"})
    assert is_test_chunk({"file_path": "x.cs", "content": "    [Fact]\n    public void Sends() {}"})
    assert is_test_chunk({"file_path": "x.ts", "content": "describe('store', () => {\n  it('works', () => {})\n})"})
    assert not is_test_chunk({"file_path": "x.py", "content": "def tested(x):\n    return x\n"})
    assert asks_about_tests("add tests for the router") and asks_about_tests("fix flaky TestClient fixture")
    assert not asks_about_tests("round half-even when converting currency")


def _hit(path: str, score: float, i: int = 0, content: str = "") -> Hit:
    return Hit(0, score, {"repo_id": "r", "file_path": path, "chunk_index": i, "content": content,
                          "start_line": i * 10 + 1, "end_line": i * 10 + 9})


def test_group_files_sums_decayed_chunk_evidence_and_sinks_tests():
    hits = [_hit("tests/test_pricing.py", 0.30), _hit("src/pricing.py", 0.20, 1), _hit("src/pricing.py", 0.12, 2),
            _hit("src/pricing.py", 0.10, 3), _hit("src/cart.py", 0.25, 4)]
    best_only = group_files(hits, 0.0)
    assert [f.file_path for f in best_only] == ["tests/test_pricing.py", "src/cart.py", "src/pricing.py"]
    decayed = group_files(hits, 0.5)  # pricing: 0.2 + 0.06 + 0.025 = 0.285
    assert [f.file_path for f in decayed][:2] == ["tests/test_pricing.py", "src/pricing.py"]
    assert decayed[1].score == pytest.approx(0.285)
    sunk = group_files(hits, 0.5, QUESTION, test_prior=0.5)
    assert [f.file_path for f in sunk] == ["src/pricing.py", "src/cart.py", "tests/test_pricing.py"]
    assert sunk[2].test and not sunk[0].test and [f.rank for f in sunk] == [1, 2, 3]
    about = group_files(hits, 0.5, "add tests for rounding", test_prior=0.5)  # a question about tests
    assert about[0].file_path == "tests/test_pricing.py"
    chunk_hits = [_hit("tests/test_pricing.py", 0.3), _hit("src/pricing.py", 0.2, 1)]
    apply_test_prior(chunk_hits, QUESTION, 0.5)
    assert [h.score for h in chunk_hits] == [0.15, 0.2]


@pytest.fixture(scope="module")
def shop(tmp_path_factory, embedder):
    base = tmp_path_factory.mktemp("group")
    repo = GitRepo(base / "shop")
    repo.write("src/shop/pricing.py", (SHOP / "pricing.py").read_text())
    repo.write("src/shop/cart.py", (SHOP / "cart.py").read_text())
    repo.commit("Add a cart with prices and discount codes")
    repo.write("tests/test_pricing.py", (SHOP / "test_pricing.py").read_text())
    repo.write("src/shop/pricing.py", (SHOP / "pricing.py").read_text() + "\n# banker's rounding\n")
    repo.commit("Round half-even when converting currency")
    ledger = Ledger(LedgerSettings(home=str(base / "home"), lock_timeout_s=60))
    ledger.registry.add(repo.path, "shop")
    ingest(ledger, "shop", embedder)
    return SimpleNamespace(ledger=ledger, repo=repo, searcher=Searcher(ledger, embedder), base=base)


def test_group_file_ranks_the_source_above_its_test_for_a_non_test_question(shop):
    files = shop.searcher.search_files(QUESTION, SearchOptions(repo="shop", k=5, group="file"))
    paths = [f.file_path for f in files]
    assert paths.index("src/shop/pricing.py") < paths.index("tests/test_pricing.py")
    assert paths[0] == "src/shop/pricing.py"
    top = files[0]
    assert top.chunks and all(h.payload["file_path"] == top.file_path for h in top.chunks)
    assert files[paths.index("tests/test_pricing.py")].test
    about = shop.searcher.search_files("tests for rounding half-even currency conversion",
                                       SearchOptions(repo="shop", k=5, group="file"))
    assert about[0].file_path == "tests/test_pricing.py"


def test_a_question_about_tests_takes_test_chunks_into_the_symbol_lane_from_the_code_lane(shop):
    """A test file's symbols get no sentences by default (`embed_test_symbols`); for a question about tests the
    symbol lane takes its chunks at their code lane score, best score first, each once, never a source's from there."""
    def pt(pid, path, score):
        return SimpleNamespace(id=pid, score=score, payload={"file_path": path})

    symbol = [pt("a", "src/shop/pricing.py", 0.6), pt("t1", "tests/test_pricing.py", 0.3)]
    code = [pt("b", "src/shop/cart.py", 0.9), pt("t1", "tests/test_pricing.py", 0.5), pt("t2", "tests/test_cart.py", 0.4)]
    merged = symbol_lane_for_tests(symbol, code, 3)
    assert [(p.id, p.score) for p in merged] == [("a", 0.6), ("t1", 0.5), ("t2", 0.4)]  # no cart.py: not a test
    assert not shop.ledger.settings.embed_test_symbols
    with shop.ledger.db.connect() as con:
        lanes = con.execute("select file_path, symbol_hashes from chunks where file_path like 'tests/%'").fetchall()
    assert lanes and all(not h for _, h in lanes)  # no sentence for a test: the code lane is what finds it
    searcher = shop.searcher
    about = searcher.search_files("tests for rounding half-even currency conversion",
                                  SearchOptions(repo="shop", k=5, group="file"))
    plain = searcher.search_files("rounding half-even currency conversion", SearchOptions(repo="shop", k=5, group="file"))
    assert about[0].file_path == "tests/test_pricing.py" and plain[0].file_path == "src/shop/pricing.py"


def test_group_file_on_the_command_line(shop, monkeypatch, capsys):
    monkeypatch.setenv("LEDGER_HOME", str(shop.base / "home"))
    assert main(["query", QUESTION, "--repo", "shop", "--group", "file", "--format", "json", "--k", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out[0]["file_path"] == "src/shop/pricing.py" and out[0]["rank"] == 1
    assert out[0]["lines"] and out[0]["chunks"][0]["file_path"] == "src/shop/pricing.py"
    assert main(["query", QUESTION, "--repo", "shop", "--group", "file", "--format", "toon"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[1].startswith("shop|src/shop/pricing.py|")
    assert main(["query", QUESTION, "--repo", "shop", "--group", "file"]) == 0
    assert " 1. shop:src/shop/pricing.py" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["query", QUESTION, "--group", "dir"])
    assert exc.value.code == 2


def test_file_level_eval_on_a_commit_set(shop, tmp_path):
    made = build_commit_golden(shop.repo.path, tmp_path / "golden")
    assert made["queries"] == 2
    report = evaluate(shop.ledger, shop.searcher.embedder, made["golden"], "shop", sweep_grid=True)
    assert report["level"] == "file"
    systems = report["systems"]
    for name in ("fusion", "fusion:group_file", "baseline:bm25_windows", "baseline:bm25_files",
                 "baseline:minilm_windows", "baseline:rrf_bm25_minilm_windows"):
        assert set(systems[name]) == {"acc@1", "acc@5", "acc@10", "mrr@10", "queries"}, name
    assert systems["fusion:group_file"]["acc@5"] == 1.0  # two source files in the whole repo
    assert any(r["system"] == "fusion:group_file" for r in report["sweep"])
    per_query = report["per_query"]  # each query's rank, so two runs can be compared query by query
    assert len(per_query["queries"]) == 2 and set(per_query["ranks"]) >= {"fusion", "fusion:group_file", "lane:code"}
    assert all(r is not None and 1 <= r <= 5 for r in per_query["ranks"]["fusion:group_file"])
    assert "Acc@1" in format_report(report)


def test_mcp_query_tool_groups_by_file(shop):
    import anyio

    from ledger_assets.mcp_server import build_server

    server = build_server(shop.ledger, shop.searcher.embedder)

    async def call():
        return await server.call_tool("query_ledger", {"query": QUESTION, "repo": "shop", "group": "file",
                                                       "format": "json", "k": 2})

    result = anyio.run(call)
    blocks = result[0] if isinstance(result, tuple) else result
    blocks = getattr(blocks, "content", blocks)
    rows = json.loads("".join(b.text for b in blocks if hasattr(b, "text")))
    assert [r["file_path"] for r in rows][0] == "src/shop/pricing.py" and len(rows) == 2


def test_docs_files_sink_in_group_file_unless_the_question_is_about_docs():
    for path in ("CHANGELOG.md", "docs/routing.rst", "README", "notes/setup.txt", "HISTORY", "guide.adoc", "LICENSE"):
        assert is_docs_path(path), path
    for path in ("src/docs.py", "docs/conf.py", "starlette/routing.py", "src/readme_parser.ts"):
        assert not is_docs_path(path), path
    assert asks_about_docs("fix a typo in the routing docs") and asks_about_docs("CORS options in the README")
    assert not asks_about_docs(QUESTION)
    hits = [_hit("docs/middleware.md", 0.30), _hit("CHANGELOG.md", 0.28, 1), _hit("src/middleware.py", 0.20, 2),
            _hit("src/routing.py", 0.12, 3)]
    assert [f.file_path for f in group_files(hits, 0.5)][:2] == ["docs/middleware.md", "CHANGELOG.md"]
    sunk = group_files(hits, 0.5, "allow credentials in CORS middleware", docs_prior=0.3)
    assert [f.file_path for f in sunk] == ["src/middleware.py", "src/routing.py", "docs/middleware.md", "CHANGELOG.md"]
    assert sunk[2].score == pytest.approx(0.09)
    about = group_files(hits, 0.5, "allow credentials in the CORS middleware guide", docs_prior=0.3)
    assert about[0].file_path == "docs/middleware.md"


def test_the_docs_prior_is_a_setting_the_searcher_reads(shop, monkeypatch):
    assert Searcher(shop.ledger, shop.searcher.embedder).group_docs_prior == 0.3
    monkeypatch.setenv("LEDGER_DOCS_PRIOR", "0.8")
    assert LedgerSettings.from_env().docs_prior == 0.8
    monkeypatch.setenv("LEDGER_DOCS_PRIOR", "3")
    with pytest.raises(Exception, match="LEDGER_DOCS_PRIOR"):
        LedgerSettings.from_env()


def test_group_file_fuses_under_lane_weights_of_its_own(shop, monkeypatch):
    from ledger_assets.retrieval.fusion import QueryError
    from ledger_assets.store.settings import DEFAULT_LANE_WEIGHTS, GROUP_LANE_WEIGHTS

    searcher = Searcher(shop.ledger, shop.searcher.embedder)
    assert searcher.group_weights == GROUP_LANE_WEIGHTS and searcher.weights == DEFAULT_LANE_WEIGHTS
    opts = SearchOptions(repo="shop", k=5, group="file")
    before = {f.file_path: f.score for f in searcher.search_files(QUESTION, opts)}
    searcher.group_weights = {lane: 2 * w for lane, w in GROUP_LANE_WEIGHTS.items()}
    after = {f.file_path: f.score for f in searcher.search_files(QUESTION, opts)}
    assert after.keys() == before.keys() and all(after[p] == pytest.approx(2 * s) for p, s in before.items())
    monkeypatch.setenv("LEDGER_HOME", str(shop.base / "home"))
    monkeypatch.setenv("LEDGER_GROUP_LANE_WEIGHTS", "symbol=3")
    s = Searcher(Ledger(LedgerSettings.from_env()), shop.searcher.embedder)
    assert s.group_weights == {**GROUP_LANE_WEIGHTS, "symbol": 3.0} and s.weights == DEFAULT_LANE_WEIGHTS
    monkeypatch.setenv("LEDGER_GROUP_LANE_WEIGHTS", "symbol")
    with pytest.raises(QueryError, match="lane=weight"):
        Searcher(Ledger(LedgerSettings.from_env()), shop.searcher.embedder)


def test_a_question_about_tests_reads_its_files_with_a_decay_and_rrf_k_of_its_own(shop):
    """Change requests read a file by its best chunk more (decay 0.25, RRF k 10: EFCore/Storage's set 1.13x -> 1.23x
    its best baseline); a question about tests keeps 0.5 / 5, which chi's questions about tests need (0.25 / 10
    lost them 0.027 Acc@1). docs/decisions.md, `--group file`."""
    from ledger_assets.store.settings import GROUP_DECAY, GROUP_RRF_K, GROUP_TESTS_DECAY, GROUP_TESTS_RRF_K

    searcher = Searcher(shop.ledger, shop.searcher.embedder)
    assert (GROUP_DECAY, GROUP_RRF_K) != (GROUP_TESTS_DECAY, GROUP_TESTS_RRF_K)
    tests_question = "tests for rounding half-even currency conversion"
    assert searcher.group_shape(QUESTION) == (GROUP_DECAY, GROUP_RRF_K)
    assert searcher.group_shape(tests_question) == (GROUP_TESTS_DECAY, GROUP_TESTS_RRF_K)
    opts = SearchOptions(repo="shop", k=5, group="file")
    shapes = [(GROUP_DECAY, GROUP_RRF_K), (GROUP_TESTS_DECAY, GROUP_TESTS_RRF_K)]
    with searcher.session():
        for text, shape, other in ((QUESTION, *shapes), (tests_question, *shapes[::-1])):
            found = searcher.gather(text, opts, 200, None)

            def files(*shape):
                return [(f.file_path, round(f.score, 9)) for f in searcher.group(text, *found, 5, *shape)]
            ranked = [(f.file_path, round(f.score, 9)) for f in searcher.search_files(text, opts)]
            assert ranked == files(*shape) and ranked != files(*other)
