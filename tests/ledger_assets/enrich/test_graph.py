"""The code graph: edges from real files, and per-chunk metrics with known answers."""

import logging
from pathlib import Path

from chunkers import chunk_file_result
from ledger_assets.enrich import stages as enrich
from ledger_assets.ingest import pipeline
from chunkers.languages import language_of
from ledger_assets.enrich.graph import (CENTRALITY_TOLERANCE, GraphChunk, GraphSymbol, blast_radius, build_graph,
                                        chunk_metrics, file_imports, file_references, settle, sql_references)

LOG = logging.getLogger("test-graph")
FIX = Path(__file__).resolve().parents[2] / "fixtures" / "enrich"


def test_pagerank_order_blast_radius_and_degrees_of_a_small_graph():
    # a -> c, b -> c, c -> d: d is referenced by everything upstream.
    pairs = [("a", 0, "c", 0), ("b", 0, "c", 0), ("c", 0, "d", 0)]
    fields, top = chunk_metrics(pairs)
    rank = sorted(fields, key=lambda n: -fields[n]["graph_centrality"])
    assert rank[:2] == [("d", 0), ("c", 0)]
    assert fields[("a", 0)]["graph_centrality"] == fields[("b", 0)]["graph_centrality"] < fields[("c", 0)]["graph_centrality"]
    assert {n[0]: f["blast_radius"] for n, f in fields.items()} == {"a": 0, "b": 0, "c": 2, "d": 3}
    assert (fields[("c", 0)]["graph_in"], fields[("c", 0)]["graph_out"]) == (2, 1)
    assert top[0][0] == "d#0"


def test_blast_radius_through_a_cycle():
    import networkx as nx

    g = nx.DiGraph([("x", "y"), ("y", "x"), ("z", "x"), ("y", "w")])
    assert blast_radius(g) == {"x": 2, "y": 2, "z": 0, "w": 3}


def test_two_dense_groups_get_two_clusters():
    tri = lambda p: [(p + "1", 0, p + "2", 0), (p + "2", 0, p + "3", 0), (p + "3", 0, p + "1", 0),
                     (p + "1", 0, p + "3", 0), (p + "2", 0, p + "1", 0)]
    fields, _ = chunk_metrics(tri("a") + tri("b") + [("a1", 0, "b1", 0)])
    cluster = {n[0]: f["graph_cluster"] for n, f in fields.items()}
    assert cluster["a1"] == cluster["a2"] == cluster["a3"] != cluster["b1"] == cluster["b2"] == cluster["b3"]


def test_a_rerun_settles_against_the_stored_values():
    tri = lambda p: [(p + "1", 0, p + "2", 0), (p + "2", 0, p + "3", 0), (p + "3", 0, p + "1", 0),
                     (p + "1", 0, p + "3", 0), (p + "2", 0, p + "1", 0)]
    first, _ = chunk_metrics(tri("a") + tri("b") + [("a1", 0, "b1", 0)])
    # One more chunk calling into group b: every PageRank moves a little, b's labels may be renumbered.
    second, _ = chunk_metrics(tri("a") + tri("b") + [("a1", 0, "b1", 0), ("c1", 0, "b2", 0)])
    assert any(second[n]["graph_centrality"] != first[n]["graph_centrality"] for n in first)
    settled = settle(second, first)
    for node in first:  # small moves keep the stored value; the fields of the new graph are all there
        a, b = first[node]["graph_centrality"], second[node]["graph_centrality"]
        expected = a if abs(a - b) <= CENTRALITY_TOLERANCE * max(a, b) else b
        assert settled[node]["graph_centrality"] == expected
        assert settled[node]["graph_in"] == second[node]["graph_in"]
    assert {n: f["graph_cluster"] for n, f in settled.items() if n in first} == {
        n: f["graph_cluster"] for n, f in first.items()}  # the same two communities keep their labels
    assert settled[("c1", 0)]["graph_cluster"] == settled[("b2", 0)]["graph_cluster"] or \
        settled[("c1", 0)]["graph_cluster"] not in {f["graph_cluster"] for f in first.values()}
    assert settle(second, {}) == second  # a first run is the graph's own values


def test_settle_keeps_blast_radius_within_tolerance_and_gives_new_communities_new_labels():
    old = {("x", 0): {"graph_centrality": 0.1, "blast_radius": 40, "graph_cluster": 0},
           ("y", 0): {"graph_centrality": 0.1, "blast_radius": 3, "graph_cluster": 1}}
    new = {("x", 0): {"graph_centrality": 0.2, "blast_radius": 43, "graph_cluster": 0},
           ("y", 0): {"graph_centrality": 0.11, "blast_radius": 9, "graph_cluster": 0},
           ("z", 0): {"graph_centrality": 0.3, "blast_radius": 0, "graph_cluster": 1}}
    out = settle(new, old)
    assert out[("x", 0)] == {"graph_centrality": 0.2, "blast_radius": 40, "graph_cluster": 0}  # 0.1 -> 0.2: moved
    assert out[("y", 0)] == {"graph_centrality": 0.1, "blast_radius": 9, "graph_cluster": 0}  # 3 -> 9: moved
    assert out[("z", 0)]["graph_cluster"] == 2  # a community no old one overlaps: a label never used


def test_communities_are_carried_forward_and_a_chunk_moves_only_to_more_of_its_neighbours():
    a1, a2, m, b1, b2, n = ("a1", 0), ("a2", 0), ("m", 0), ("b1", 0), ("b2", 0), ("n", 0)
    old = {a1: {"graph_cluster": 0}, a2: {"graph_cluster": 0}, m: {"graph_cluster": 0},
           b1: {"graph_cluster": 1}, b2: {"graph_cluster": 1}}
    # Louvain this run: m thrown in with b, and the labels renumbered; n is new.
    new = {a1: {"graph_cluster": 5}, a2: {"graph_cluster": 5}, m: {"graph_cluster": 6},
           b1: {"graph_cluster": 6}, b2: {"graph_cluster": 6}, n: {"graph_cluster": 6}}
    # m has one neighbour on each side: a tie, its old community stands; n joins b's, where its neighbour is.
    neighbours = {m: {a1, b1}, a1: {a2, m}, a2: {a1}, b1: {b2, m, n}, b2: {b1}, n: {b1}}
    out = settle(new, old, neighbours)
    assert {k[0]: f["graph_cluster"] for k, f in out.items()} == {"a1": 0, "a2": 0, "m": 0, "b1": 1, "b2": 1, "n": 1}
    neighbours[m] = {a1, b1, b2}  # now most of m's neighbours are in b: it moves
    assert settle(new, old, neighbours)[m]["graph_cluster"] == 1


def test_sql_references_by_kind():
    refs = sql_references("EXEC @rc = [dbo].[usp_X] 1;\nSELECT * FROM dbo.A a JOIN B ON 1=1;\n"
                          "INSERT INTO dbo.C (x) VALUES (1);\nUPDATE D SET x = 1;\nMERGE INTO dbo.E AS t USING F s ON 1=1;\n"
                          "DELETE FROM G;\n-- EXEC dbo.commented_out\n")
    assert [(k, n) for k, n, _ in refs] == [
        ("sql_exec", "dbo.usp_x"), ("sql_read", "dbo.a"), ("sql_read", "b"), ("sql_write", "dbo.c"),
        ("sql_write", "d"), ("sql_write", "dbo.e"), ("sql_write", "g")]


def _graph_repo(git_repo, ledger, files: dict[str, Path]):
    for rel, src in files.items():
        git_repo.write(rel, src.read_text(encoding="utf-8"))
    git_repo.commit("graph fixture")
    ledger.registry.add(git_repo.path, "g")
    pipeline.snapshot_stage(ledger, "g", "run-1", LOG)
    pipeline.chunk_stage(ledger, "g", "run-1", LOG)
    report = enrich.graph_stage(ledger, "g", "run-1", LOG)
    with ledger.db.connect() as con:
        edges = con.execute("SELECT src_file, src_chunk, dst_file, dst_chunk, dst_symbol, kind FROM code_graph "
                            "WHERE repo_id = 'g' AND src_chunk >= 0 ORDER BY ALL").fetchall()
        extras = {(p, i): f for p, i, f in con.execute(
            "SELECT file_path, chunk_index, fields::VARCHAR FROM payload_extras WHERE repo_id = 'g' AND source = 'graph'"
        ).fetchall()}
    return report, edges, extras


def test_python_imports_calls_and_type_references(git_repo, ledger):
    import json

    names = ("money", "pricing", "checkout", "receipt")
    report, edges, extras = _graph_repo(git_repo, ledger, {f"shop/{n}.py": FIX / "graph" / f"{n}.py" for n in names})
    assert [(e[0], e[2], e[4], e[5]) for e in edges] == [
        ("shop/checkout.py", "shop/pricing.py", "price_basket", "call"),
        ("shop/pricing.py", "shop/money.py", "Money", "type"),
        ("shop/receipt.py", "shop/money.py", "Money", "type"),
    ]
    fields = {p: json.loads(f) for (p, _), f in extras.items()}
    assert {p.split("/")[1]: f["blast_radius"] for p, f in fields.items()} == {
        "money.py": 3, "pricing.py": 1, "checkout.py": 0, "receipt.py": 0}
    order = sorted(fields, key=lambda p: -fields[p]["graph_centrality"])
    assert order[:2] == ["shop/money.py", "shop/pricing.py"]
    assert fields["shop/money.py"]["graph_in"] == 2 and fields["shop/money.py"]["graph_out"] == 0
    with ledger.db.connect() as con:
        imports = con.execute("SELECT src_file, dst_file FROM code_graph WHERE kind = 'import' ORDER BY ALL").fetchall()
    assert imports == [("shop/checkout.py", "shop/pricing.py"), ("shop/pricing.py", "shop/money.py"),
                       ("shop/receipt.py", "shop/money.py")]
    assert report.edges == 6 and not report.skipped
    assert enrich.graph_stage(ledger, "g", "run-2", LOG).skipped    # no chunk changed: nothing recomputed


def test_procedure_exec_of_another_procedure_is_an_edge(git_repo, ledger):
    _, edges, extras = _graph_repo(git_repo, ledger, {"db/orders.sql": FIX / "sql" / "orders.sql"})
    assert [(e[1], e[3], e[4], e[5]) for e in edges] == [
        (2, 0, "dbo.Orders", "sql_write"),          # usp_CloseOrder UPDATEs dbo.Orders
        (2, 1, "dbo.usp_AuditOrder", "sql_exec"),   # usp_CloseOrder EXECs usp_AuditOrder
    ]
    assert '"blast_radius": 1' in extras[("db/orders.sql", 1)]


def _named(refs, *names):
    return sorted(n for n in refs.names if n[1] in names)


def test_python_query_reads_every_import_and_only_code():
    src = '''"""Prices a basket: Money, price_basket() named in a docstring are no reference."""
from __future__ import annotations

import os
from shop.money import Money  # Money in a comment is none either
from shop import tax


def price_basket(lines) -> Money:
    return Money(sum(line.cents for line in lines))


def label(lines):
    return f"{price_basket(lines)} (price_basket in text)"
'''
    refs = file_references("python", src)
    # (0-based line, name, called): a definition is no call; a call inside an f-string's braces is one.
    assert _named(refs, "Money", "price_basket") == [
        (4, "Money", False), (8, "Money", False), (8, "price_basket", False), (9, "Money", True),
        (13, "price_basket", True)]
    # The imports after `from __future__ import annotations` count (a regex once read them as its names).
    files = {"shop/money.py", "shop/tax.py", "shop/__init__.py", "os.py"}
    assert file_imports("python", "shop/checkout.py", src, files) == (
        ["os.py", "shop/__init__.py", "shop/money.py", "shop/tax.py"], [])


def test_csharp_query_reads_usings_namespaces_generic_arguments_and_calls():
    src = '''\ufeffusing System;
global using static System.Math;
using Alias = Shop.Pricing;
using Generic = System.Collections.Generic.List<int>;
namespace Shop.Checkout;

// Quote() and Money in a comment are no reference
public class Till
{
    public Money Quote(IServiceProvider services) => services.GetService<Pricer>().Price(new Money(1));
    public string Label(Money m) => $"{Format(m)} Quote()";
}
'''
    refs = file_references("csharp", src)
    assert _named(refs, "Money", "Quote", "Pricer", "Price", "Format") == [
        (9, "Money", False), (9, "Money", True), (9, "Price", True), (9, "Pricer", False), (9, "Quote", False),
        (10, "Format", True), (10, "Money", False)]
    assert (refs.usings, refs.namespaces) == (["System", "System.Math", "Shop.Pricing"], ["Shop.Checkout"])


def test_typescript_query_reads_module_specifiers_and_skips_jsx_text():
    src = '''import type { Cart } from "./cart";
import { total } from "./total";
export * from "./money";
const legacy = require("./legacy");
// import "./commented";
const label = "from './in-a-string'";

export class Basket {
  price(cart: Cart): number { return total<Cart>(cart); }
  async load() { return (await import("./lazy")).default; }
  title() { return `${this.price(cart)} items`; }
}
'''
    files = {"src/cart.ts", "src/total.ts", "src/money/index.ts", "src/legacy.js", "src/lazy.ts", "src/commented.ts",
             "src/in-a-string.ts"}
    assert file_imports("typescript", "src/basket.ts", src, files) == (
        ["src/cart.ts", "src/lazy.ts", "src/legacy.js", "src/money/index.ts", "src/total.ts"], [])
    assert _named(file_references("typescript", src), "Cart", "total", "price") == [
        (0, "Cart", False), (1, "total", False), (8, "Cart", False), (8, "Cart", False), (8, "price", False),
        (8, "total", True), (10, "price", True)]
    tsx = '''import { Money } from "./money";
export function Price({ amount }: { amount: Money }) {
  return <span title="Money">Money: <Money value={amount} /></span>;
}
'''
    assert _named(file_references("tsx", tsx), "Money") == [(0, "Money", False), (1, "Money", False), (2, "Money", False)]


def test_a_definition_is_no_call_of_its_namesakes():
    src = '''class Header:
    def render(self):
        return "<h1>"


class Footer:
    def render(self):
        return "<footer>"


def page():
    return Header().render()
'''
    chunks, symbols = [], []
    for idx, piece in enumerate(chunk_file_result("site/page.py", src.encode()).pieces):
        chunks.append(GraphChunk("site/page.py", idx, language_of("site/page.py"), piece.start_line, piece.end_line,
                                 piece.body))
        symbols += [GraphSymbol("site/page.py", idx, s.name, s.kind, s.parent, s.start_line) for s in piece.symbols]
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 3), (4, 8), (9, 12)]
    # page() calls a render (of either class, by name); Header's render does not call Footer's, nor back.
    assert [(e.src_chunk, e.dst_chunk, e.dst_symbol, e.kind) for e in build_graph(chunks, symbols).edges] == [
        (2, 0, "render", "call"), (2, 0, "Header", "type"), (2, 1, "render", "call")]
