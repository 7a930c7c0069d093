"""Every setting of the ledger, declared once: a field of LedgerSettings (or ProcessSettings) with its
default, its environment variable, bounds or choices, a one-line doc, whether it is a secret, and which
Dagster resource carries it. `from_env` reads the variables generically from that declaration; the
resources (defs/resources.py) derive their fields from it, so the UI's launchpad overrides them per run;
`python -m ledger_assets.store.settings_table` renders the README's configuration table from it.
No other module reads a LEDGER_* variable (tests/ledger_assets/store/test_settings_declared.py).

Adding a setting: one line in LedgerSettings, `name: type = setting(default, "what it does", ...)`
(type str, bool, int or float; the variable is LEDGER_<NAME> unless `env=` says otherwise; `bounds=`,
`choices=`, `secret=True`, `resource=""` as the ones around it), then regenerate the README table.
A setting read once when a process loads (a sensor's interval) goes into ProcessSettings instead.
"""

from __future__ import annotations

import os
from dataclasses import Field, dataclass, field, fields, replace
from pathlib import Path

from chunkers import ChunkOptions

EMBED_DIM = 384
QUALITY_DIM = 8
EMBED_MODEL = "all-MiniLM-L6-v2"

# Retrieval: fusion defaults chosen by `ledger eval --sweep`; see docs/decisions.md.
RRF_K = 5
DEFAULT_LANE_WEIGHTS = {"code": 0.25, "design": 1.0, "sparse": 1.0, "symbol": 2.0, "name": 0.5}
PLAIN_PRIOR = 0.5
MAX_K = 200  # the most hits one query or similar-call may ask for
# The longest query text (or context task): refused, not cut, above it. An issue's body or a stack trace fits, a
# pasted file does not (a 5.8 MB query took 28 s and 1 GB in the tokenizer and the sparse lane).
MAX_QUERY_CHARS = 32_000
SNIPPET_CHARS = 600
# A resolved symbol outranks any fused hit: the largest possible RRF sum is 4/(k+1).
SYMBOL_BONUS = 1.0
# A bare name matching more members than this is ambiguous: it joins the fusion as a lane, not as a pin.
SYMBOL_PIN_MAX = 3
# A test chunk's or test file's score is multiplied by this unless the query is about tests; see docs/decisions.md.
TEST_PRIOR = 0.3
# `--group file`: a documentation file's score (.md, .rst, .txt, CHANGELOG, ...) is multiplied by this unless
# the question is about docs; see docs/decisions.md.
DOCS_PRIOR = 0.3
# `--group file`: lanes read this deep, and a file scores Σ decay^i · chunk score (RRF k below).
GROUP_DEPTH = 200
GROUP_DEPTH_PER_K = 10  # ... or k times this, when deeper
# A chunk query reads each lane max(k * LANE_DEPTH_PER_K, LANE_DEPTH) deep (`ledger eval` reads LANE_DEPTH).
LANE_DEPTH = 50
LANE_DEPTH_PER_K = 5
FUSE_ALL = 10 ** 9  # the fusion's k that keeps every fused chunk (`--group file` ranks files from all of them)
FILE_CHUNKS = 3  # `--group file`: the best chunks of a file shown, and checked for staleness
SYMBOL_LOOKUP_LIMIT = 20  # members one named symbol of a query is looked up to (SYMBOL_PIN_MAX decides the pin)
# `--group file`'s decay and RRF k; a question about tests (`priors.asks_about_tests`) has its own: see
# docs/decisions.md.
GROUP_DECAY = 0.25
GROUP_RRF_K = 10
GROUP_TESTS_DECAY = 0.5
GROUP_TESTS_RRF_K = 5
# `--group file` fuses its chunks under lane weights of its own (a file collects many chunks' evidence, where
# the symbol lane's pinpoint matters less); see docs/decisions.md.
GROUP_LANE_WEIGHTS = {"code": 0.375, "design": 1.0, "sparse": 1.75, "symbol": 1.0, "name": 0.5}
# The optional LLM rerank (retrieval/rerank.py): "none" (default) or "llm"; a candidate's snippet in the prompt
# is at most RERANK_SNIPPET_CHARS (shorter when LEDGER_RERANK_MAX_CHARS needs it, down to RERANK_MIN_SNIPPET_CHARS,
# below which the last candidates stay out of the prompt); a query waits for at most RERANK_MAX_RETRIES
# retries (of LEDGER_GROQ_MAX_RETRIES): someone is waiting for the answer.
RERANK_MODES = ("none", "llm")
RERANK_SNIPPET_CHARS = 800
RERANK_MIN_SNIPPET_CHARS = 120
RERANK_MAX_RETRIES = 1
# Local mode: how many times the lane depth to fetch unfiltered before filtering client-side.
LOCAL_OVERFETCH = 4
# `ledger similar`: extra neighbours fetched, since the target's own shapes are dropped from the list.
SIMILAR_EXTRA = 8
LANES = ("code", "design", "sparse", "symbol")  # the stored lanes; the name lane reranks them
FORMATS = ("text", "json", "toon", "jsonl")
DETAILS = ("snippet", "skeleton", "full")

# Writing points: Qdrant batches (points per upsert, operations per batch_update, ids per payload refresh).
UPSERT_BATCH = 128
UPDATE_OPS_BATCH = 256
REFRESH_BATCH = 1024
# Operations (defs/): a HEAD whose run failed is requested again by git_head_sensor after
# SENSOR_RETRY_BASE_S, then twice, four times that, up to SENSOR_MAX_TRIES runs in all; a step whose
# lock wait ran out is retried LOCK_RETRIES times, LOCK_RETRY_DELAY_S apart, doubling.
SENSOR_MAX_TRIES = 4
LOCK_RETRIES = 3
LOCK_RETRY_DELAY_S = 10

# Embedding batches below 16 pay the per-call overhead; 16, not 64, holds ~400 MB less at the same CPU speed.
# See docs/decisions.md.
EMBED_BATCH = 16
# A fixed glibc mmap threshold returns the embedding batches' attention buffers on free instead of
# fragmenting the heap (0 leaves malloc as it is; Linux/glibc only); see docs/decisions.md.
MALLOC_MMAP_THRESHOLD = 4 << 20
# oneDNN keeps a compiled bf16 kernel per input shape (1,024 by default): on this repository that was +300 MB at
# the peak for no speed (ingest_scale.py: embeddings 93.0 s / 1,324 MB against 90.1 s / 1,130 MB at 64). Set for
# the bf16 backend unless ONEDNN_PRIMITIVE_CACHE_CAPACITY is in the environment; see docs/decisions.md.
BF16_KERNEL_CACHE = 64
# Embedding backends (encode/embedder.py): "auto" (the default: "bf16" on a CPU with bfloat16 units, AMX or
# AVX512-BF16, else "torch"), "torch" (fp32 on CPU, fp16 on CUDA), "bf16" (CPU: the weights in bfloat16) or "onnx"
# (opt-in: int8 MiniLM on onnxruntime, built once from the bundled weights, CPU only; on a GPU it is torch's fp16);
# see docs/decisions.md.
EMBED_BACKEND = "auto"
EMBED_BACKENDS = ("auto", "torch", "bf16", "onnx")
# What an ingest embeds (ingest/pipeline.py embedding_stage): "pooled" (the default) embeds one sentence per symbol a
# chunk owns (the symbol lane; a markdown section's own text stands for its one heading's; none for config sections or
# for a member its type's sentence quotes whole), a design text for an LLM intent only, and each chunk's code text
# except where its symbol sentences quote at least half its code lines: there the code vector is their mean (prose,
# settings and long bodies keep their text), and a type's whole copy, whose code vector is its member chunks' mean;
# "standard" (opt-in, the default before issue 30's sixth round) embeds every chunk's code text; "full" (opt-in) adds
# a design vector for every chunk (a keyless intent's too: the index before issue 30's fifth round); "lean" (opt-in)
# embeds the code text, and a design text only for an LLM intent: about a third of the texts, at a cost to chunk-level
# answers; "joint" (opt-in) reads a chunk's code and its symbols' heads in one model input, a vector each
# (encode/joint.py), and a design text only for an LLM intent (see docs/decisions.md for the figures).
EMBED_PROFILE = "pooled"
EMBED_PROFILES = ("lean", "pooled", "standard", "full", "joint")


class SettingsError(ValueError):
    """A setting read from the environment is malformed or out of range (bad input: exit 2)."""


@dataclass(frozen=True)
class Setting:
    """How one setting is read and shown: the declaration's metadata (see `setting`)."""
    doc: str
    env: str = ""  # "" = LEDGER_<NAME>
    bounds: tuple[float, float] | None = None  # (lowest, highest), checked when read from the environment
    choices: tuple[str, ...] = ()  # the value is stripped and lower-cased, then must be one of these
    secret: bool = False  # environment only: never a resource field (Dagster shows and stores run config)
    resource: str = "ledger"  # "ledger" (a LedgerResource field of the same name), "embedder.<field>", "" = none
    unset: str = ""  # the docs' words for an empty default ("auto", "Groq's", ...)


def setting(default, doc: str, **spec) -> Field:
    """A LedgerSettings / ProcessSettings field: its default and how it is read (the keywords of Setting)."""
    meta = Setting(doc, **spec)
    return field(default=default, repr=not meta.secret, metadata={"setting": meta})


_KINDS = {"str": str, "bool": bool, "int": int, "float": float}


def _weights(weights: dict[str, float]) -> str:
    return "`" + ",".join(f"{lane}={w:g}" for lane, w in weights.items()) + "`"


def declared(cls: type | None = None) -> list[tuple[Field, Setting, type]]:
    """(field, its Setting, its type) of every declared setting of `cls` (default LedgerSettings), in order."""
    return [(f, f.metadata["setting"], _KINDS[f.type if isinstance(f.type, str) else f.type.__name__])
            for f in fields(cls or LedgerSettings) if "setting" in f.metadata]


def env_name(name: str, cls: type | None = None) -> str:
    """The environment variable of setting `name`."""
    spec = next(s for f, s, _ in declared(cls) if f.name == name)
    return spec.env or "LEDGER_" + name.upper()


def env_is_set(name: str) -> bool:
    """Whether setting `name`'s variable is set to something (the resources bind those through EnvVar)."""
    return bool(os.environ.get(env_name(name)))


def resource_fields(resource: str) -> dict[str, str]:
    """{field of the Dagster resource `resource` ("ledger" or "embedder"): the setting it overrides}."""
    out = {}
    for f, spec, _ in declared():
        owner, _, name = spec.resource.partition(".")
        if owner == resource and not spec.secret:
            out[name or f.name] = f.name
    return out


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    try:
        return int(raw) if raw.strip() else default
    except ValueError as exc:
        raise SettingsError(f"{name} must be an integer, got {raw!r}") from exc


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name, "")
    try:
        return float(raw) if raw.strip() else default
    except ValueError as exc:
        raise SettingsError(f"{name} must be a number, got {raw!r}") from exc


def _env_str(name: str, default: str) -> str:
    return os.environ.get(name) or default


_READERS = {str: _env_str, bool: _env_bool, int: _env_int, float: _env_float}


def read_env(cls: type, only: str | None = None) -> dict:
    """The declared settings of `cls` (or just `only`) read from the environment: unset or empty takes the
    default; a malformed number, a value out of its bounds or not among its choices is a SettingsError."""
    specs = [(f, s, kind) for f, s, kind in declared(cls) if only in (None, f.name)]
    values = {}
    for f, spec, kind in specs:
        value = _READERS[kind](env_name(f.name, cls), f.default)
        values[f.name] = value.strip().lower() if spec.choices else value
    for f, spec, _ in specs:
        env, value = env_name(f.name, cls), values[f.name]
        if spec.bounds is not None and not spec.bounds[0] <= value <= spec.bounds[1]:
            raise SettingsError(f"{env} must be between {spec.bounds[0]} and {spec.bounds[1]}, got {value}")
        if spec.choices and value not in spec.choices:
            raise SettingsError(f"{env} must be one of {', '.join(spec.choices)}, got {value!r}")
    return values


@dataclass(frozen=True)
class ProcessSettings:
    """Read when a process loads the code (a sensor's interval is fixed at definition), not per run."""
    sensor_interval_s: float = setting(30.0, "how often `git_head_sensor` ticks (at least 1 s; read when the "
                                             "code location loads)", resource="")
    sensor_retry_base_s: float = setting(60.0, "the first backoff before a failed HEAD is requested again "
                                               "(then 2x, 4x)", resource="")
    mcp_warm_wait_s: float = setting(0.5, "how long an MCP query waits for the model at the server's start "
                                          "before answering from the lexical lane", resource="")
    debug: bool = setting(False, "a failing `ledger` command raises its traceback instead of one line",
                          resource="")


def process_setting(name: str):
    """One ProcessSettings value, read from the environment now."""
    return read_env(ProcessSettings, only=name)[name]


SENSOR_INTERVAL_S = max(1, int(process_setting("sensor_interval_s")))
SENSOR_RETRY_BASE_S = max(0.0, process_setting("sensor_retry_base_s"))
MCP_WARM_WAIT_S = max(0.0, process_setting("mcp_warm_wait_s"))


@dataclass(frozen=True)
class LedgerSettings:
    """Every per-run setting: defaults here, values from the environment (`from_env`) or a run's config."""
    home: str = setting("./.ledger", "DuckDB file (`ledger.duckdb`), Qdrant local folder (`qdrant/`), repo "
                                     "registry (`repos.json`), Dagster home (`dagster/`)")
    collection: str = setting("ledger_chunks", "Qdrant collection name")
    qdrant_url: str = setting("", "use a Qdrant server instead of local mode (same code, another client)",
                              env="QDRANT_URL")
    qdrant_api_key: str = setting("", "the Qdrant server's API key", env="QDRANT_API_KEY", secret=True)
    versioning: bool = setting(False, "keep old versions of changed chunks (`is_latest` false) instead of "
                                      "deleting them")
    max_file_bytes: int = setting(2_000_000, "larger files are skipped with a reason (PDFs up to 50 MB)",
                                   bounds=(1, 1 << 32))
    max_pdf_bytes: int = 50_000_000  # larger PDFs are skipped with a reason (not a variable)
    embed_batch: int = setting(EMBED_BATCH, "embedding batch size (a GPU wants more)", bounds=(16, 4096),
                               resource="embedder.batch_size")
    embed_device: str = setting("", "`cuda` when present, else `cpu`",
                                resource="embedder.device", unset="auto")
    embed_backend: str = setting(EMBED_BACKEND, "`auto` (bf16 on a CPU with bfloat16 units, AMX or AVX512-BF16: "
                                                "about 1.4x fp32's speed; else torch), `torch` (fp32 on CPU, fp16 "
                                                "on CUDA), `bf16` or `onnx` (opt-in: int8 on CPU, about 3x torch's "
                                                "speed; torch fp16 on CUDA)",
                                 choices=EMBED_BACKENDS, resource="")
    embed_profile: str = setting(EMBED_PROFILE, "`pooled`: one sentence per owned symbol (the symbol lane; a "
                                                "markdown section's own vector stands for its heading's; none for "
                                                "config sections or members their type's sentence quotes "
                                                "whole), a chunk's code text, or its symbol vectors' mean "
                                                "where their sentences quote half its code lines or more (a type's "
                                                "whole copy: its members' mean), a design text for an LLM intent "
                                                "only; `standard` (opt-in): every chunk's code text; "
                                                "`full` (opt-in): also a design vector for a keyless intent, 3-5 "
                                                "texts a chunk; `joint` (opt-in): one input a chunk, its code and "
                                                "its symbols' heads read together; `lean` (opt-in): the code text, "
                                                "design only for an LLM intent, 1 a chunk",
                                 choices=EMBED_PROFILES, resource="")
    embed_test_symbols: bool = setting(False, "on (opt-in): a test file's symbols get sentences of their own, as "
                                              "any file's do; off: none (fewer texts), its symbols still reach the "
                                              "name and sparse lanes, and a question about tests takes test chunks "
                                              "into the symbol lane from the code lane",
                                       resource="")
    lock_timeout_s: float = setting(120.0, "how long a process waits for the DuckDB file or the Qdrant folder",
                                    bounds=(0, 86_400))
    upsert_batch: int = UPSERT_BATCH  # points per Qdrant upsert (not a variable)
    # Analysis (Groq); see intents/analysis.py.
    groq_api_key: str = setting("", "enables LLM intents and the rerank; without it the keyless analyser runs "
                                    "and `intent_source` says so", env="GROQ_API_KEY", secret=True)
    groq_base_url: str = setting("", "another endpoint speaking Groq's protocol",
                                 env="GROQ_BASE_URL", unset="Groq's")
    groq_model: str = setting("llama-3.1-8b-instant", "the LLM of the intents and the rerank")
    groq_budget_usd: float = setting(1.0, "LLM spend cap per run; past it chunks get the keyless fallback")
    groq_concurrency: int = setting(4, "concurrent LLM requests", bounds=(1, 64))
    groq_timeout_s: float = setting(30.0, "LLM request timeout, per request")
    groq_max_retries: int = setting(4, "LLM retries on 429/5xx/timeouts (exponential backoff with jitter, "
                                          "`Retry-After` honoured)")
    groq_backoff_s: float = setting(1.0, "the LLM's first backoff")
    groq_price: str = setting("", "`input,output` USD per million tokens",
                          unset="the table in `llm/groq_client.py`")
    analysis_file_cap: int = setting(200, "chunks analysed per file by the LLM (generated files are capped)",
                                     bounds=(0, 1_000_000))
    keyless_analyser: str = setting("heuristic", "`heuristic` or `none`: what writes intents without a key")
    # Retrieval (retrieval/search.py, retrieval/tools.py); defaults: see docs/decisions.md.
    rrf_k: int = setting(RRF_K, "reciprocal rank fusion constant", bounds=(1, 1000))
    lane_weights: str = setting("", "fusion weights, `lane=weight,...` (a heuristic intent's design rank is "
                                    "not counted beside the symbol lane)", unset=_weights(DEFAULT_LANE_WEIGHTS))
    group_lane_weights: str = setting("", "the fusion weights of `--group file` (lanes not named keep these)",
                                      unset=_weights(GROUP_LANE_WEIGHTS))
    plain_prior: float = setting(PLAIN_PRIOR, "score multiplier for blind `plain` windows", bounds=(0, 1))
    test_prior: float = setting(TEST_PRIOR, "score multiplier for test files and test chunks unless the "
                                            "question is about tests", bounds=(0, 1))
    docs_prior: float = setting(DOCS_PRIOR, "`--group file`: score multiplier for a documentation file (`.md`, "
                                            "`.rst`, CHANGELOG, README ...) unless the question is about docs",
                                bounds=(0, 1))
    check_stale: bool = setting(True, "compare each hit with the live file before serving it")
    # The LLM rerank of the top fused candidates (retrieval/rerank.py): off unless "llm"; the budget is per UTC day.
    rerank: str = setting("none", "`llm`: every chunk query (not `--group file`) is reranked by Groq, as "
                                  "with `--rerank llm`; needs `GROQ_API_KEY`",
                          choices=RERANK_MODES, resource="")
    rerank_top: int = setting(20, "fused candidates the rerank sends", bounds=(2, 50), resource="")
    rerank_max_chars: int = setting(12_000, "cap of one rerank prompt, system prompt included; snippets shrink, "
                                            "then the last candidates stay out", bounds=(2_000, 400_000), resource="")
    rerank_daily_requests: int = setting(500, "rerank requests per UTC day, all processes of this "
                                              "`LEDGER_HOME` together; past it the fused order is served",
                                         bounds=(0, 10_000_000), resource="")
    rerank_daily_usd: float = setting(0.25, "rerank spend per UTC day", bounds=(0, 10_000), resource="")
    read_span_max_lines: int = setting(400, "cap of `ledger read-span`", bounds=(1, 100_000))
    drift_move_threshold: int = setting(10, "lines a symbol must shift to count as Moved")
    # q_dup_hash only for chunks of at least this many tokens: tiny bodies (getters) are all "clones".
    dup_min_tokens: int = setting(24, "`q_dup_hash` only for chunks of at least this many tokens")
    # Operations (defs/): the index_fresh check fails when the promoted sha lags HEAD for longer than this.
    freshness_max_lag_s: float = setting(3600.0, "`index_fresh` fails when the promoted sha lags HEAD for longer",
                                         bounds=(0, 365 * 86_400))
    # A change re-chunks exactly the files whose chunker reads a changed option (chunkers.rechunk_key).
    chunk_options: str = setting("", "chunker switches and sizes over `ChunkOptions`' defaults "
                                     "(`chunkers/model.py`), e.g. `split_sql_tables=false,type_max_chars=8000`; "
                                     "a change re-chunks exactly the files whose chunker reads a changed option")
    source_url: str = setting("", "this project's git web URL (`https://host/org/code-ledger/tree/main`): the "
                                  "catalog's code references link there (read when the code location loads)",
                              resource="")

    @classmethod
    def from_env(cls, **overrides) -> "LedgerSettings":
        """The environment's values, then `overrides` that are not None (a run's config, the CLI's flags)."""
        values = read_env(cls)
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            ChunkOptions.parse(values["chunk_options"])
        except ValueError as exc:
            raise SettingsError(f"LEDGER_CHUNK_OPTIONS: {exc}") from None
        return cls(**values)

    def chunking(self) -> ChunkOptions:
        """`chunk_options` as the ChunkOptions the chunkers take."""
        return ChunkOptions.parse(self.chunk_options)

    def with_(self, **changes) -> "LedgerSettings":
        return replace(self, **changes)

    @property
    def home_path(self) -> Path:
        return Path(self.home).expanduser().resolve()

    @property
    def duckdb_path(self) -> Path:
        return self.home_path / "ledger.duckdb"

    @property
    def qdrant_path(self) -> Path:
        return self.home_path / "qdrant"

    @property
    def registry_path(self) -> Path:
        return self.home_path / "repos.json"

    @property
    def dagster_home(self) -> Path:
        return self.home_path / "dagster"

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}
