"""`ledger remove-repo`: the registry entry and the partition go; with --purge its rows and points too."""

from __future__ import annotations

import json

import pytest
from dagster import DagsterInstance

from ledger_assets.cli import main
from ledger_assets.store.ledger import Ledger
from ledger_assets.store.qdrant import repo_filter
from ledger_assets.store.settings import LedgerSettings
from tests.conftest import ingest_core


@pytest.fixture
def two_repos(tmp_path, monkeypatch, make_repo, embedder):
    home = tmp_path / "home"
    monkeypatch.setenv("LEDGER_HOME", str(home))
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster"))
    ledger = Ledger(LedgerSettings(home=str(home), lock_timeout_s=60))
    for name, body in (("shop", "def total(a, b):\n    return a + b\n"),
                       ("crm", "def greet(name):\n    return 'hi ' + name\n")):
        repo = make_repo(name)
        repo.write(f"{name}/core.py", body)
        repo.write("README.md", f"# {name}\n\nThe {name} service.\n")
        repo.commit()
        assert main(["add-repo", str(repo.path), "--id", name]) == 0
        ingest_core(ledger, name, embedder)
    return ledger


def _rows(ledger: Ledger, repo_id: str) -> dict[str, int]:
    with ledger.db.connect() as con:
        tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.columns "
                                            "WHERE column_name = 'repo_id'").fetchall()]
        counts = {t: con.execute(f'SELECT count(*) FROM "{t}" WHERE repo_id = ?', [repo_id]).fetchone()[0]
                  for t in tables}
    with ledger.qdrant.open() as client:
        counts["points"] = client.count(ledger.qdrant.collection, count_filter=repo_filter(repo_id), exact=True).count
    return {t: n for t, n in counts.items() if n}


def test_purge_leaves_nothing_of_the_repo_and_touches_no_other(two_repos, capsys):
    ledger = two_repos
    crm_before = _rows(ledger, "crm")
    shop_before = _rows(ledger, "shop")
    assert shop_before["chunks"] > 0 and shop_before["points"] == shop_before["chunks"]
    capsys.readouterr()
    assert main(["remove-repo", "shop", "--purge", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["removed"] == shop_before
    assert _rows(ledger, "shop") == {}
    assert _rows(ledger, "crm") == crm_before
    assert DagsterInstance.get().get_dynamic_partitions("repos") == ["crm"]
    assert sorted(ledger.registry.load()) == ["crm"]
    assert not (ledger.settings.home_path / "heads" / "shop.txt").exists()


def test_remove_without_purge_keeps_the_data_and_says_so(two_repos, capsys):
    ledger = two_repos
    before = _rows(ledger, "crm")
    assert main(["remove-repo", "crm"]) == 0
    assert "its rows and points stay" in capsys.readouterr().out
    assert _rows(ledger, "crm") == before
    assert DagsterInstance.get().get_dynamic_partitions("repos") == ["shop"]
    assert main(["remove-repo", "crm"]) == 2  # no longer registered
    err = capsys.readouterr().err
    assert "unknown repo id 'crm'" in err and "Traceback" not in err
