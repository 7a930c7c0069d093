"""End to end: enrichment fields in the Qdrant payload, incremental re-runs, freshness and `ledger status`."""

import json
import logging
from pathlib import Path

import pytest

from ledger_assets import cli
from ledger_assets.enrich.order import run_stages
from ledger_assets.store.qdrant import repo_filter

LOG = logging.getLogger("test-freshness")
FIX = Path(__file__).resolve().parents[2] / "fixtures" / "enrich"
FILES = {
    "src/Classify.cs": "metrics/Classify.cs",
    "web/classify.ts": "metrics/classify.ts",
    "db/apply_discount.sql": "metrics/apply_discount.sql",
    "db/orders.sql": "sql/orders.sql",
    "shop/money.py": "graph/money.py",
    "shop/pricing.py": "graph/pricing.py",
}
LCOV = "SF:web/classify.ts\n" + "".join(f"DA:{n},{1 if n <= 6 else 0}\n" for n in range(2, 14)) + "end_of_record\n"


def ingest(ledger, embedder, run_id: str) -> dict:
    """Every stage in asset order, keeping the enrichment reports."""
    ran = run_stages(ledger, "shop", run_id, LOG, embedder)
    assert not ran.failed_checks()
    return {"summary": ledger.db.summary([run_id]), "reports": ran.enrichment(), "points": ran.reports["qdrant_points"]}


def payloads(ledger) -> dict:
    with ledger.qdrant.open() as client:
        return {(p.payload["file_path"], p.payload["chunk_index"]): p.payload
                for p in ledger.qdrant.scroll(client, repo_filter("shop"), True)}


@pytest.fixture
def shop(git_repo, ledger):
    for rel, src in FILES.items():
        git_repo.write(rel, (FIX / src).read_text(encoding="utf-8"))
    git_repo.write("README.md", "# Shop\n\nPricing and orders.\n")
    git_repo.write("coverage/lcov.info", LCOV)
    git_repo.commit("shop")
    ledger.registry.add(git_repo.path, "shop")
    return git_repo


def test_payload_carries_the_fields_and_ledger_status_counts_stale_files(shop, ledger, embedder, monkeypatch, capsys):
    ingest(ledger, embedder, "run-1")
    points = payloads(ledger)
    head = shop.head()
    cs = points[("src/Classify.cs", 0)]
    assert (cs["q_cyclomatic"], cs["q_cognitive"], cs["q_param_count"]) == (8, 12, 3)
    assert cs["git_author_count"] == 1 and cs["git_last_sha"] == head and cs["git_last_msg"] == "shop"
    assert cs["indexed_sha"] == head and cs["indexed_utc"].endswith("Z")
    ts = next(p for k, p in points.items() if k[0] == "web/classify.ts")
    assert ts["q_test_coverage"] == 0.417          # lines 2..13 instrumented, 2..6 hit: 5/12
    close = next(p for p in points.values() if "usp_CloseOrder" in p.get("chunk_symbols", ""))
    assert close["graph_out"] == 2 and "graph_centrality" in close and "graph_cluster" in close
    audit = next(p for p in points.values() if "usp_AuditOrder" in p.get("chunk_symbols", "")
                 and p["chunk_type"] == "sql_proc")
    assert audit["blast_radius"] == 1 and audit["graph_in"] == 1
    money = next(p for k, p in points.items() if k[0] == "shop/money.py")
    assert money["blast_radius"] == 1
    readme = next(p for k, p in points.items() if k[0] == "README.md")
    assert not any(k.startswith(("q_", "graph_")) for k in readme)          # no metrics for prose
    assert readme["git_last_sha"] == head                                     # but it has a history
    assert "q_test_coverage" not in cs and "q_param_count" not in readme      # omitted, not empty
    for p in points.values():
        assert all(v not in (None, "", [], {}) for v in p.values())

    monkeypatch.setenv("LEDGER_HOME", ledger.settings.home)

    def status() -> dict:
        assert cli.main(["status", "--format", "json"]) == 0
        return {r["repo_id"]: r for r in json.loads(capsys.readouterr().out)}["shop"]

    row = status()
    assert row["up_to_date"] and row["stale_files"] == 0 and row["indexed_sha"] == head
    shop.write("db/orders.sql", "-- changed\n")
    shop.write("README.md", "# Shop v2\n")
    shop.commit("two files")
    shop.write("src/Classify.cs", "// edited, not committed\n")
    shop.write("notes.txt", "untracked\n")
    row = status()
    assert not row["up_to_date"]
    assert (row["stale_committed"], row["stale_uncommitted"], row["stale_files"]) == (2, 2, 4)
    assert cli.main(["status"]) == 0
    assert "behind HEAD" in capsys.readouterr().out


def test_unchanged_rerun_recomputes_nothing_and_rewrites_no_payload(shop, ledger, embedder):
    ingest(ledger, embedder, "run-1")
    first_sha = shop.head()
    again = ingest(ledger, embedder, "run-2")
    quality, git, graph = again["reports"]
    assert quality.skipped and quality.metrics_computed == 0
    assert git.mode == "skipped" and git.commits_read == 0
    assert graph.skipped
    assert again["points"].written == 0 and again["summary"]["embeddings_computed"] == 0

    # One file changes: only its chunks' metrics are computed, the rest come from the cache.
    shop.write("shop/pricing.py", (FIX / "graph/pricing.py").read_text() + "\n\ndef discount(p):\n    return p\n")
    shop.commit("discount")
    third = ingest(ledger, embedder, "run-3")
    quality, git, graph = third["reports"]
    assert quality.metrics_computed >= 1 and quality.metrics_cached >= 5
    assert (git.mode, git.commits_read) == ("incremental", 1)
    assert not graph.skipped
    points = payloads(ledger)
    cs = points[("src/Classify.cs", 0)]
    assert cs["indexed_sha"] == first_sha     # an unchanged chunk's point is not written again
    pricing = [p for k, p in points.items() if k[0] == "shop/pricing.py"]
    assert all(p["git_last_msg"] == "discount" for p in pricing)
    assert cs["git_last_msg"] == "shop"
