"""The ledger's handles, bundled: settings, DuckDB, the repo registry, Qdrant."""

from __future__ import annotations

from dataclasses import dataclass, field

from ledger_assets.store.qdrant import QdrantStore
from ledger_assets.store.registry import RepoRegistry
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
