"""concept_id on a real ingested repo: one per unit across its shapes and parts, kept across an edit (old
and new versions share it under versioning) and across a rename of the file; `ledger similar --mode concept`."""

from __future__ import annotations

import json
from collections import defaultdict

from ledger_assets.cli import main
from ledger_assets.ingest.concepts import subject
from ledger_assets.retrieval.deprecation import deprecate
from ledger_assets.retrieval.tools import concept_chunks
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.qdrant import repo_filter
from ledger_assets.store.settings import LedgerSettings
from tests.conftest import RETRIEVAL_FIXTURES as FIXTURES, ingest

STOCK = (FIXTURES.parent / "csharp" / "StockLedger.cs").read_text()
TYPE = "Warehouse.Inventory.StockLedger"
BIG = "def big(x):\n    total = 0\n" + "\n".join(f"    total += step_{i}(x) * {i}" for i in range(400)) + \
      "\n    return total\n"


def rows(ledger: Ledger, repo_id: str) -> list[dict]:
    with ledger.db.connect() as con:
        got = con.execute(
            "SELECT c.file_path, c.chunk_index, c.chunk_type, c.ledger_id, k.concept_id, c.symbols FROM chunks c "
            "LEFT JOIN chunk_concepts k USING (repo_id, ledger_id) WHERE c.repo_id = ? "
            "ORDER BY c.file_path, c.chunk_index", [repo_id]).fetchall()
    return [{"file_path": f, "chunk_index": i, "chunk_type": t, "ledger_id": lid, "concept_id": cid,
             "subject": subject(s)} for f, i, t, lid, cid, s in got]


def by_subject(ledger: Ledger, repo_id: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for r in rows(ledger, repo_id):
        assert r["concept_id"], r
        if r["subject"]:
            out[r["subject"]].add(r["concept_id"])
    return dict(out)


def test_one_concept_per_unit_across_shapes_parts_edits_and_versions(tmp_path, git_repo, embedder, capsys,
                                                                      monkeypatch):
    ledger = Ledger(LedgerSettings(home=str(tmp_path / "home"), lock_timeout_s=60, versioning=True))
    git_repo.write("src/StockLedger.cs", STOCK)
    git_repo.write("jobs/big.py", BIG)
    git_repo.commit("stock")
    ledger.registry.add(git_repo.path, "wh")
    ingest(ledger, "wh", embedder)

    before = by_subject(ledger, "wh")
    assert all(len(ids) == 1 for ids in before.values()), before  # one concept per unit
    got = rows(ledger, "wh")
    type_shapes = sorted(r["chunk_type"] for r in got if r["concept_id"] in before[TYPE])
    assert type_shapes == ["cs_class", "cs_class_full", "cs_class_full"]  # the header and the whole type's parts
    assert [r["chunk_index"] for r in got if r["concept_id"] in before["big"]] == [0, 1, 2]  # a split function
    assert before[f"{TYPE}.Pick"] != before[TYPE]  # a member is a concept of its own
    with ledger.qdrant.open() as client:
        points = {(p.payload["file_path"], p.payload["chunk_index"]): p.payload["concept_id"]
                  for p in ledger.qdrant.scroll(client, repo_filter("wh", latest_only=True))}
    assert points == {(r["file_path"], r["chunk_index"]): r["concept_id"] for r in got}

    pick_id = next(r["ledger_id"] for r in got if r["subject"] == f"{TYPE}.Pick")
    git_repo.write("src/StockLedger.cs", STOCK.replace("-quantity, MovementKind.Pick", "-Math.Abs(quantity), MovementKind.Pick"))
    git_repo.write("jobs/big.py", BIG.replace("    return total\n", "    return round(total, 2)\n"))
    git_repo.commit("edits")
    ingest(ledger, "wh", embedder)

    assert by_subject(ledger, "wh") == before
    assert next(r["ledger_id"] for r in rows(ledger, "wh") if r["subject"] == f"{TYPE}.Pick") != pick_id
    pick = concept_chunks(ledger, "src/StockLedger.cs:85")
    assert [(h.payload["chunk_type"], h.payload["is_latest"]) for h in pick] == [("cs_member", True), ("cs_member", False)]
    assert {h.payload["concept_id"] for h in pick} == before[f"{TYPE}.Pick"]
    assert "Math.Abs" in pick[0].payload["content"] and "Math.Abs" not in pick[1].payload["content"]

    monkeypatch.setenv("LEDGER_HOME", str(ledger.settings.home_path))
    capsys.readouterr()
    assert main(["similar", "src/StockLedger.cs:20", "--mode", "concept", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    latest = [(h["chunk_type"], h["start_line"]) for h in listed if h["payload"]["is_latest"]]
    assert latest == [("cs_class", 1), ("cs_class_full", 1), ("cs_class_full", 153)]
    assert [h["chunk_type"] for h in listed if not h["payload"]["is_latest"]] == ["cs_class_full"]  # held Pick


def test_concepts_survive_a_rename_with_an_edit(ledger, git_repo, embedder):
    git_repo.write("src/StockLedger.cs", STOCK)
    git_repo.commit("stock")
    ledger.registry.add(git_repo.path, "wh")
    ingest(ledger, "wh", embedder)
    before = by_subject(ledger, "wh")
    receive = next(r["ledger_id"] for r in rows(ledger, "wh") if r["subject"] == f"{TYPE}.Receive")

    (git_repo.path / "src" / "StockLedger.cs").unlink()
    git_repo.write("src/Stock/Ledger.cs", STOCK.replace("quantity, MovementKind.Receipt", "Math.Max(quantity, 0), MovementKind.Receipt"))
    git_repo.commit("move and clamp receipts")
    ingest(ledger, "wh", embedder)

    after = rows(ledger, "wh")
    assert {r["file_path"] for r in after} == {"src/Stock/Ledger.cs"}
    assert by_subject(ledger, "wh") == before
    assert next(r["ledger_id"] for r in after if r["subject"] == f"{TYPE}.Receive") != receive

    # Deprecating the type (its bare name also names its constructor) marks its header, whole copy and members.
    report = deprecate(ledger, "wh", "StockLedger", "split into StockBook and StockJournal")
    assert report["target_kind"] == "symbol" and len(report["chunks"]) == len(after) == report["points_updated"]


def test_the_subject_of_a_chunk_is_the_symbol_holding_all_the_others():
    def sym(name, parent, start, end):
        return {"name": name, "kind": "method", "parent": parent, "start_line": start, "end_line": end}

    assert subject([sym("Shop", "Ns", 3, 40), sym("Buy", "Ns.Shop", 5, 9)]) == "Ns.Shop"
    assert subject(json.dumps([sym("part", "A::B", 1, 300)])) == "A.B.part"
    assert subject([sym("a", "", 1, 5), sym("b", "", 7, 9)]) is None  # siblings: a file or window chunk
    assert subject([]) is None
