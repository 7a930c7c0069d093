"""Structural quality metrics on real snippets, against hand-computed answers."""

from pathlib import Path

import pytest

from ledger_assets.enrich.stages import map_report_paths, parse_coverage
from ledger_assets.enrich.metrics import chunk_body, metrics_for

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "enrich"


def _m(name: str, language: str) -> dict:
    return metrics_for(language, (FIX / name).read_text(encoding="utf-8"))


# Classify (same logic in three languages):
#   cyclomatic = 1 + if + && + for + if + || + else-if + ternary = 8
#   cognitive  = if 1 + && 1 + for (1+1) + if (1+2) + || 1 + else-if 1 + else 1 + ternary (1+1) = 12
@pytest.mark.parametrize("name, language, loc, density", [
    ("metrics/Classify.cs", "csharp", 22, 0.0),
    ("metrics/classify.ts", "typescript", 14, 0.0),
    ("metrics/classify.py", "python", 10, 0.091),   # the docstring is the one comment line of 11
])
def test_classify_has_hand_computed_complexity(name, language, loc, density):
    m = _m(name, language)
    assert (m["q_cyclomatic"], m["q_cognitive"]) == (8, 12)
    assert m["q_max_nesting"] == 3           # if > for > if
    assert m["q_param_count"] == 3
    assert m["q_error_emission"] == 1        # one throw/raise
    assert m["q_loc"] == loc
    assert m["q_comment_density"] == density


def test_csharp_switch_lambda_and_catch_from_a_member_cut_out_of_its_class():
    # cyclomatic = 1 + 2 case labels + ternary + && + catch = 6
    # cognitive  = switch 1 + ternary (1+1, inside the switch) + && 1 (in a lambda: no nesting for operators)
    #              + catch 1 = 5
    m = _m("metrics/Describe.cs", "csharp")
    assert (m["q_cyclomatic"], m["q_cognitive"]) == (6, 5)
    assert m["q_max_nesting"] == 2           # try > switch, try > catch
    assert m["q_error_emission"] == 2        # _logger.LogError + throw
    assert m["q_param_count"] == 1
    assert m["q_loc"] == 20 and m["q_comment_density"] == 0.048


def test_sql_procedure_from_tokens():
    # cyclomatic = 1 + IF + ELSE IF + WHILE + IF + WHEN = 6
    # cognitive  = IF 1 + ELSE IF 1 + WHILE 1 + IF inside WHILE's BEGIN..END (1+1) + CASE 1 = 6
    m = _m("metrics/apply_discount.sql", "sql")
    assert (m["q_cyclomatic"], m["q_cognitive"]) == (6, 6)
    assert m["q_param_count"] == 2           # @OrderId, @Percent
    assert m["q_error_emission"] == 1        # RAISERROR
    assert m["q_max_nesting"] == 1
    assert m["q_loc"] == 25


def test_clones_share_dup_hash_and_a_near_miss_does_not():
    a, b, near = (_m(f"clones/{n}.py", "python") for n in ("rates_a", "rates_b", "rates_near"))
    assert a["q_dup_hash"] == b["q_dup_hash"]     # renamed identifiers, other literals, a comment
    assert near["q_dup_hash"] != a["q_dup_hash"]  # `>=` instead of `>`
    assert a["dup_tokens"] >= 24


def test_csharp_clone_with_other_names_and_indentation():
    src = (FIX / "metrics/Classify.cs").read_text()
    renamed = src.replace("Classify", "Bucket").replace("strict", "exact").replace('"negative"', '"below zero"')
    indented = "\n".join("        " + line for line in renamed.split("\n"))
    assert metrics_for("csharp", indented)["q_dup_hash"] == metrics_for("csharp", src)["q_dup_hash"]


def test_no_metrics_for_unknown_language_or_empty_text_and_no_param_count_without_function():
    assert metrics_for("markdown", "# Title\n") is None
    assert metrics_for("python", "   \n") is None
    m = metrics_for("python", "RATE = 3\nNAMES = ['a', 'b']\n")
    assert "q_param_count" not in m and m["q_cyclomatic"] == 1


def test_broken_code_still_gets_metrics():
    m = metrics_for("typescript", "export function f(a) { if (a) { return ; \n")
    assert m["q_cyclomatic"] >= 2


def test_chunk_body_drops_the_context_header():
    assert chunk_body("// Ns.Type\n    void F() {}", "// Ns.Type\n") == "    void F() {}"
    assert chunk_body("void F() {}", "") == "void F() {}"


def test_coverage_reports_map_to_repo_paths():
    cobertura = b"""<?xml version="1.0"?>
<coverage line-rate="0.5"><sources><source>/build/agent/src</source></sources><packages><package name="p"><classes>
<class name="Shop.Cart" filename="Shop\\Cart.cs"><lines><line number="3" hits="2"/><line number="4" hits="0"/></lines></class>
</classes></package></packages></coverage>"""
    lcov = b"SF:/home/ci/repo/web/cart.ts\nDA:1,1\nDA:2,0\nDA:9,3\nend_of_record\n"
    files = {"src/Shop/Cart.cs", "web/cart.ts", "other/Cart.cs.txt"}
    cob = map_report_paths(parse_coverage("coverage.cobertura.xml", cobertura), files)
    assert cob == {"src/Shop/Cart.cs": {3: 2, 4: 0}}
    assert map_report_paths(parse_coverage("lcov.info", lcov), files) == {"web/cart.ts": {1: 1, 2: 0, 9: 3}}
    assert parse_coverage("coverage.xml", b"<not-coverage/>") == {}
    assert parse_coverage("coverage.xml", b"<<garbage") == {}
