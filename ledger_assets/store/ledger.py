"""The ledger's handles, bundled: settings, DuckDB, the repo registry, Qdrant."""

from __future__ import annotations

from dataclasses import dataclass, field

from qdrant_client import models

from ledger_assets.store import local_index
from ledger_assets.store.qdrant import QdrantStore, repo_filter
from ledger_assets.store.registry import RepoRegistry, indexed_head_path
from ledger_assets.store.served import forget
from ledger_assets.store.settings import LedgerSettings
from ledger_assets.store.db import LedgerDB


@dataclass
class Ledger:
    settings: LedgerSettings
    db: LedgerDB = field(init=False)
    registry: RepoRegistry = field(init=False)
    qdrant: QdrantStore = field(init=False)

    def __post_init__(self) -> None:
        self.db = LedgerDB(self.settings.duckdb_path, self.settings.lock_timeout_s)
        self.registry = RepoRegistry(self.settings.registry_path)
        self.qdrant = QdrantStore(self.settings)

    @classmethod
    def from_env(cls, **overrides) -> "Ledger":
        return cls(LedgerSettings.from_env(**overrides))

    def purge(self, repo_id: str) -> dict[str, int]:
        """Delete every row of the repo in DuckDB (each table with a repo_id column), its Qdrant points
        and its indexed-head record. Returns what was removed, per table and `points`."""
        removed: dict[str, int] = {}
        with self.db.transaction() as con:
            tables = [r[0] for r in con.execute(
                "SELECT table_name FROM information_schema.columns WHERE column_name = 'repo_id' "
                "AND table_schema = 'main' ORDER BY table_name").fetchall()]
            for table in tables:
                n = con.execute(f'SELECT count(*) FROM "{table}" WHERE repo_id = ?', [repo_id]).fetchone()[0]
                if n:
                    con.execute(f'DELETE FROM "{table}" WHERE repo_id = ?', [repo_id])
                    removed[table] = int(n)
            forget(con, repo_id)  # the served copies of rows counted above
        with self.qdrant.open() as client:
            removed["points"] = 0
            if client.collection_exists(self.qdrant.collection):
                flt = repo_filter(repo_id)
                removed["points"] = client.count(self.qdrant.collection, count_filter=flt, exact=True).count
                client.delete(self.qdrant.collection, points_selector=models.FilterSelector(filter=flt), wait=True)
                folder = local_index.build_served(self.qdrant, client)
                if folder:
                    with self.db.transaction() as con:
                        local_index.set_served_pointer(con, self.qdrant, folder)
                    local_index.prune_served(self.qdrant, folder)
        indexed_head_path(self.settings.home_path, repo_id).unlink(missing_ok=True)
        return removed
