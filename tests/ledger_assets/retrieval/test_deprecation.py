"""`ledger deprecate` on a real ingested repo: queries leave a marked symbol out, the include flag brings it
back with its reason, a re-ingest after an edit elsewhere keeps the mark, and --undo clears it."""

from __future__ import annotations

import json

from ledger_assets.cli import main
from ledger_assets.retrieval.search import Searcher, SearchOptions
from tests.conftest import RETRIEVAL_FIXTURES as FIXTURES, ingest

REASON = "use billing.tax.vat() instead"


def _vat(hits) -> list:
    return [h for h in hits if "vat_amount" in h.to_dict()["symbols"]]


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_a_deprecated_symbol_leaves_queries_until_undone(ledger, git_repo, embedder, capsys, monkeypatch):
    git_repo.write("billing/invoices.py", (FIXTURES / "invoices.py").read_text())
    git_repo.write("billing/refunds.py", "def refund(amount):\n    return -amount\n")
    git_repo.commit("billing")
    ledger.registry.add(git_repo.path, "billing")
    ingest(ledger, "billing", embedder)
    monkeypatch.setenv("LEDGER_HOME", str(ledger.settings.home_path))
    searcher = Searcher(ledger, embedder)
    sentence = SearchOptions(k=10, check_stale=False)
    assert _vat(searcher.search("vat_amount", sentence))  # named: the symbol lane pins it first
    assert _vat(searcher.search("value added tax owed on a net amount", sentence))

    rc, out, err = _cli(capsys, "deprecate", "billing", "vat_amount", "--reason", REASON, "--format", "json")
    assert rc == 0, err
    report = json.loads(out)
    assert report["target_kind"] == "symbol" and report["points_updated"] == 1
    assert [(c["file_path"], c["chunk_index"]) for c in report["chunks"]] == [("billing/invoices.py", 0)]

    for query in ("vat_amount", "value added tax owed on a net amount"):
        assert _vat(searcher.search(query, sentence)) == [], query  # the in-process index
        assert _vat(Searcher(ledger, embedder, use_local_index=False).search(query, sentence)) == [], query
    files = searcher.search_files("value added tax owed on a net amount", SearchOptions(k=5, check_stale=False))
    assert all("vat_amount" not in h.to_dict()["symbols"] for f in files for h in f.chunks)

    back = _vat(searcher.search("vat_amount", SearchOptions(k=10, check_stale=False, include_deprecated=True)))
    assert back and back[0].to_dict()["deprecated"]["reason"] == REASON
    assert back[0].payload["deprecated"]["utc"].endswith("Z")
    rc, out, _ = _cli(capsys, "query", "vat_amount", "--include-deprecated", "--k", "3")
    assert rc == 0 and f"DEPRECATED" in out and REASON in out
    rc, out, _ = _cli(capsys, "query", "vat_amount", "--include-deprecated", "--k", "3", "--format", "toon")
    assert f"!deprecated({REASON})" in out

    # An edit elsewhere and a re-ingest: the mark is carried by the ingest (fingerprint included).
    git_repo.write("billing/refunds.py", "def refund(amount):\n    return -abs(amount)\n")
    git_repo.commit("refunds")
    ingest(ledger, "billing", embedder)
    assert _vat(searcher.search("vat_amount", sentence)) == []
    back = _vat(searcher.search("vat_amount", SearchOptions(k=10, check_stale=False, include_deprecated=True)))
    assert back[0].payload["deprecated"]["reason"] == REASON

    rc, out, err = _cli(capsys, "deprecate", "billing", "vat_amount", "--undo")
    assert rc == 0, err
    assert "1 mark(s) removed" in out
    hits = _vat(searcher.search("vat_amount", sentence))
    assert hits and "deprecated" not in hits[0].payload
    ingest(ledger, "billing", embedder)
    assert "deprecated" not in _vat(searcher.search("vat_amount", sentence))[0].payload


def test_the_local_index_and_the_payload_check_leave_out_what_qdrant_leaves_out():
    import numpy as np
    from qdrant_client import models
    from qdrant_client.local.payload_filters import check_filter

    from ledger_assets.store.local_index import LocalIndex
    from ledger_assets.store.qdrant import latest_filter, matches_filter

    marks = [None, {"reason": "old", "utc": "2026-12-01T10:00:00Z"}, "a plain string", [], None]
    payloads = [{"repo_id": "r", "is_latest": True, **({} if m is None and i == 0 else {"deprecated": m})}
                for i, m in enumerate(marks)]
    dense = {"code_vector": (np.ones((5, 2), dtype=np.float32), np.ones(5, dtype=bool))}
    index = LocalIndex(("m",), [f"p{i}" for i in range(5)], payloads, dense, [None] * 5)
    flt = latest_filter("r", include_deprecated=False)
    qdrant = [check_filter(models.Filter(must=flt.must), p, i, has_vector={}) for i, p in enumerate(payloads)]
    assert qdrant == [True, False, False, True, True]
    assert index.mask(flt).tolist() == qdrant
    assert [matches_filter(p, flt) for p in payloads] == qdrant
    assert index.mask(latest_filter("r")).all()


def test_deprecate_names_what_it_cannot_mark(ledger, git_repo, embedder, capsys, monkeypatch):
    git_repo.write("billing/invoices.py", (FIXTURES / "invoices.py").read_text())
    git_repo.commit("billing")
    ledger.registry.add(git_repo.path, "billing")
    ingest(ledger, "billing", embedder)
    monkeypatch.setenv("LEDGER_HOME", str(ledger.settings.home_path))
    # A method inside a one-chunk class has no chunk of its own: the class chunk would say too much.
    rc, _, err = _cli(capsys, "deprecate", "billing", "instalment", "--reason", "gone")
    assert rc == 2 and "has no chunk of its own" in err and "billing/invoices.py#2" in err
    rc, _, err = _cli(capsys, "deprecate", "billing", "vat_amount")
    assert rc == 2 and "--reason is required" in err
    rc, _, err = _cli(capsys, "deprecate", "billing", "no_such_thing", "--reason", "x")
    assert rc == 2 and "no chunk (path#index), ledger_id, file or symbol" in err
    rc, _, err = _cli(capsys, "deprecate", "billing", "a/" * 500_000 + "x#3", "--reason", "x")
    assert rc == 2 and "no such chunk" in err and len(err) < 400
    # A file and a chunk by path#index.
    rc, out, _ = _cli(capsys, "deprecate", "billing", "billing/invoices.py", "--reason", "moved", "--format", "json")
    assert rc == 0 and len(json.loads(out)["chunks"]) == 3
    rc, out, _ = _cli(capsys, "deprecate", "billing", "billing/invoices.py#1", "--undo", "--format", "json")
    assert rc == 0 and json.loads(out)["marks_removed"] == 1
    hits = Searcher(ledger, embedder).search("invoice number", SearchOptions(k=5, check_stale=False))
    assert [h.payload["chunk_index"] for h in hits] == [1]
