"""`ledger golden` on TypeScript/JavaScript: JSDoc blocks become queries, then vanish from the indexed copy."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from chunkers import chunk_file
from ledger_assets.cli import main
from ledger_assets.evaluation.evaluate import evaluate
from ledger_assets.evaluation.scoring import load_golden
from ledger_assets.evaluation.golden import jsdoc_docs, jsdoc_text
from tests.conftest import ingest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "golden_ts"
TS = "src/rate_limiter.ts"
JS = "src/retry.js"

# (query, start_line, end_line, symbol) of every JSDoc block above a declaration, before the
# uniqueness and length filters.
TS_TARGETS = [
    ("Options accepted by RateLimiter", 7, 12, "RateLimiterOptions"),
    ("Maximum number of tokens the bucket can hold", 9, 9, "RateLimiterOptions.capacity"),
    ("Tokens added back every second, e.g. 5 for five calls a second", 11, 11, "RateLimiterOptions.refillPerSecond"),
    ("Either a number of milliseconds or a point in time", 15, 15, "Deadline"),
    ("Does it", 18, 18, "noop"),
    ("Converts a deadline into the milliseconds left from now", 27, 28, "msUntil"),
    ("A token bucket that delays callers once the budget is spent", 36, 77, "RateLimiter"),  # from @sealed
    ("Creates a full bucket with the given capacity", 41, 44, "RateLimiter.constructor"),
    ("Takes one token, waiting until one is free or the deadline passes", 50, 60, "RateLimiter.acquire"),
    ("Puts unused tokens back, never above the capacity", 63, 66, "RateLimiter.refill"),
    ("Puts unused tokens back, never above the capacity", 69, 71, "RateLimiter.release"),
    ("Parses a Retry-After header value into milliseconds", 80, 80, "parseRetryAfter"),  # first overload
    ("Builds a limiter shared by every client of one host", 102, 104, "limiterForHost"),  # @summary only
]
JS_TARGETS = [
    ("Waits for the given number of milliseconds", 7, 9, "sleep"),
    ("Backoff strategies, keyed by name", 14, 21, "strategies"),
    ("Doubles the delay after every failed attempt", 16, 18, "strategies.exponential"),
    ("Adds the same delay after every failed attempt", 20, 20, "strategies.linear"),
    ("Calls fn until it resolves, sleeping between attempts as the strategy says", 27, 36, "module.exports.retry"),
]


def _targets(rel: str) -> list[tuple]:
    docs = jsdoc_docs(rel, (FIXTURES / rel).read_text(encoding="utf-8"))
    return [(d.item.query, d.item.start_line, d.item.end_line, d.item.symbol) for d in docs if d.target]


def test_jsdoc_targets_are_the_declarations_under_each_block():
    assert _targets(TS) == TS_TARGETS
    assert _targets(JS) == JS_TARGETS
    # Blocks above nothing (file header, stray note, trailing note) and `{@inheritDoc}` are blanked, never asked.
    ts_docs = jsdoc_docs(TS, (FIXTURES / TS).read_text(encoding="utf-8"))
    assert [d.blank for d in ts_docs if not d.target] == [(1, 3), (73, 73), (88, 88)]


def test_jsdoc_targets_use_the_chunker_names_and_lines():
    # A top-level target is the symbol the TS chunker reports (a decorated class from its decorator);
    # members are `Parent.name` inside their parent's lines.
    for rel in (TS, JS):
        text = (FIXTURES / rel).read_text(encoding="utf-8")
        chunked = {(s.name, s.start_line, s.end_line) for p in chunk_file(rel, text.encode()) for s in p.symbols}
        top = {(sym, start, end) for _, start, end, sym in _targets(rel) if "." not in sym}
        assert top and top <= chunked, rel


def _words(comment: str) -> str:
    return " ".join(jsdoc_text(comment).split())


def test_jsdoc_text_drops_tags_and_markup():
    assert _words("/**\n * Reads the {@link Config} file at `path`.\n * @param path - where\n */") == (
        "Reads the Config file at path.")
    assert _words("/** See {@link https://x.test | the spec} and {@linkcode Foo.bar}. */") == (
        "See the spec and Foo.bar.")
    assert _words("/** Uses **bold** and [a link](https://x.test)<br/>. */") == "Uses bold and a link ."
    assert _words("/** Keeps Promise<T> and a < b. */") == "Keeps Promise<T> and a < b."
    assert _words("/** @deprecated */") == ""
    assert _words("/** {@inheritDoc Base.run} */") == ""
    assert _words("/**\n * @license MIT\n * Copyright someone.\n */") == ""
    assert _words("/**\n * ```ts\n * @decorator()\n * ```\n * Text after code.\n */") == "Text after code."
    assert _words("/**\n * @name add\n * @summary Add two numbers.\n * @description Longer.\n */") == (
        "Add two numbers.")
    assert _words("/**\n * @description Add two\n * numbers.\n */") == "Add two numbers."


def _fixture_repo(make_repo):
    repo = make_repo("limits")
    for rel in (TS, JS):
        repo.write(rel, (FIXTURES / rel).read_text(encoding="utf-8"))
    repo.write("dist/bundle.js", "/** Bundled copy of the waiting helper. */\nfunction s(m) { return m; }\n")
    repo.commit("rate limiter and retry")
    return repo


def test_golden_on_typescript_blanks_docs_and_keeps_lines(make_repo, tmp_path, capsys):
    repo = _fixture_repo(make_repo)
    out = tmp_path / "golden"
    assert main(["golden", str(repo.path), str(out), "--format", "json"]) == 0
    made = json.loads(capsys.readouterr().out)
    golden = load_golden(made["golden"])
    # Unique first sentences of three words or more: "Does it" and the repeated "Puts unused tokens
    # back" are left out; dist/ is never ingested, so its docs are no targets.
    dropped = {"Does it", "Puts unused tokens back, never above the capacity"}
    assert [(t.query, t.file, t.start_line, t.end_line) for t in golden] == (
        [(q, TS, s, e) for q, s, e, _ in TS_TARGETS if q not in dropped] + [(q, JS, s, e) for q, s, e, _ in JS_TARGETS])
    symbols = [json.loads(line).get("symbol") for line in Path(made["golden"]).read_text().splitlines()]
    assert symbols[:2] == ["RateLimiterOptions", "RateLimiterOptions.capacity"] and "RateLimiter.acquire" in symbols
    assert made["queries"] == len(golden) == 15 and made["documented"] == 18
    copy = Path(made["repo_copy"])
    for rel in (TS, JS):
        original = (repo.path / rel).read_text(encoding="utf-8").split("\n")
        blanked = (copy / rel).read_text(encoding="utf-8").split("\n")
        assert len(blanked) == len(original), rel  # line numbers preserved
        assert "/**" not in "\n".join(blanked) and "*/" not in "\n".join(blanked), rel
        # Only comment lines changed; code on a line shared with a block stays.
        for a, b in zip(original, blanked):
            assert b == a or b == a.split("/**")[0].rstrip() or (b == "" and a.lstrip().startswith(("/**", "*")))
    assert (copy / JS).read_text().split("\n")[37] == "module.exports.sleep = sleep;"
    for t in golden:
        assert t.query not in (copy / t.file).read_text(encoding="utf-8")
    assert (copy / "dist/bundle.js").read_text() == (repo.path / "dist/bundle.js").read_text()
    assert subprocess.run(["git", "-C", str(copy), "status", "--porcelain"], capture_output=True,
                          text=True).stdout == ""


def test_golden_then_eval_on_typescript(ledger, make_repo, embedder, tmp_path, capsys):
    repo = _fixture_repo(make_repo)
    out = tmp_path / "golden"
    assert main(["golden", str(repo.path), str(out), "--format", "json"]) == 0
    made = json.loads(capsys.readouterr().out)
    ledger.registry.add(Path(made["repo_copy"]), "limits")
    ingest(ledger, "limits", embedder)
    report = evaluate(ledger, embedder, made["golden"], "limits", baselines=False)
    fusion = report["systems"]["fusion"]
    assert fusion["queries"] == made["queries"]
    # Two small files: every target is among the first ten, most at the top.
    assert fusion["recall@10"] == 1.0
    assert fusion["mrr@10"] >= 0.5


def test_jsdoc_text_is_the_first_paragraph():
    assert _words("/**\n * The output format.\n * - basic: few separators\n * - extended: more\n */") == (
        "The output format.")
    assert _words("/**\n * Splits a range\n * into weeks\n *\n * Second paragraph.\n */") == "Splits a range into weeks"
