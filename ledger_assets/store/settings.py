"""Every setting of the ledger, read once from the environment into one typed object.

The Dagster resources (resources.py) carry the same fields, so the UI's
launchpad can override them per run; the CLI and the core read this.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from chunkers import ChunkOptions

EMBED_DIM = 384
QUALITY_DIM = 8
EMBED_MODEL = "all-MiniLM-L6-v2"

# Retrieval: fusion defaults chosen by `ledger eval --sweep` (the figures are in retrieval/search.py).
RRF_K = 5
DEFAULT_LANE_WEIGHTS = {"code": 0.25, "design": 1.0, "sparse": 1.0, "symbol": 2.0, "name": 0.5}
PLAIN_PRIOR = 0.5
MAX_K = 200  # the most hits one query or similar-call may ask for
SNIPPET_CHARS = 600
# A resolved symbol outranks any fused hit: the largest possible RRF sum is 4/(k+1).
SYMBOL_BONUS = 1.0
# A bare name matching more members than this is ambiguous: it joins the fusion as a lane, not as a pin.
SYMBOL_PIN_MAX = 3
# Chosen on commit sets by leave-one-repo-out (retrieval/search.py has the figures):
# a test chunk's or test file's score is multiplied by this unless the query is about tests;
TEST_PRIOR = 0.3
# `--group file`: a documentation file's score (.md, .rst, .txt, CHANGELOG, ...) is multiplied by this unless
# the question is about docs (chosen the same way: every fold chose 0.3 of 1 / 0.5 / 0.3).
DOCS_PRIOR = 0.3
# `--group file`: lanes read this deep, and a file scores Σ decay^i · chunk score (RRF k below).
GROUP_DEPTH = 200
GROUP_DECAY = 0.5
GROUP_RRF_K = 5
# `--group file` fuses its chunks under lane weights of its own: a file collects the evidence of many chunks,
# where the symbol lane's pinpoint matters less than for one chunk. On the four commit sets (grid code
# 0.25 / 0.5, sparse 1 / 1.5, symbol 0.5 / 1 / 1.5 / 2), every leave-one-repo-out fold chose these; held
# out, Acc@1 / Acc@5 against DEFAULT_LANE_WEIGHTS: starlette 0.660 / 0.947 -> 0.733 / 0.940, chi 0.607 /
# 0.853 -> 0.647 / 0.847, MediatR 0.327 / 0.667 -> 0.360 / 0.680, jotai 0.433 / 0.627 -> 0.480 / 0.680.
GROUP_LANE_WEIGHTS = {"code": 0.5, "design": 1.0, "sparse": 1.5, "symbol": 1.0, "name": 0.5}
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


# Bounds of the numeric settings a person sets: (lowest, highest), checked when read from the environment.
# Embedding batches below 16 pay the per-call overhead: 180 texts on a busy 2-core machine embedded at
# 7.5 texts/s with batch 4, 10 with 8, 14 with 16 and 12.5-37 with 64 (two runs).
# The default is 16, not 64: on CPU the throughput is the same within noise (504 texts of 1,500
# characters, quiet machine, two runs each: 24.1 / 18.5 texts/s at 16, 21.3 / 20.4 at 64) while the
# attention buffers of a 64-text batch of long texts add ~700 MB to the process (peak RSS 792-823 MB
# at 16, 1,165-1,214 MB at 64, the model itself 460 MB): what kept `ledger ingest` above 1 GB.
EMBED_BATCH = 16
# glibc's malloc raises its mmap threshold after each large free (up to 32 MB), so the attention
# buffers of later batches come from the heap and stay there, fragmented: embedding 800 texts of
# 1,600 characters took the process from 469 to 829 MB. A fixed threshold (mallopt M_MMAP_THRESHOLD,
# which also turns the raising off) returns them on free: 638 MB; 4 MB kept the speed within noise
# (240 texts, three interleaved runs: 51.6 / 36.2 / 34.4 s against 54.6 / 32.7 / 36.5 s), 16 MB
# bounded less (685-702 MB). `ledger ingest` of one minified JS line (benchmarks/memory.py --ingest):
# 0.25 MB 985 -> 860 MB, 1 MB 1,079 -> 889 MB peak RSS. Set once, where the model loads; 0 leaves
# malloc as it is. Linux/glibc only.
MALLOC_MMAP_THRESHOLD = 4 << 20
# Embedding backends (encode/embedder.py): "torch" (fp32 on CPU, fp16 on CUDA) or "bf16" (CPU: weights in
# bfloat16; pays only on CPUs with AMX / AVX512-BF16). Figures: benchmarks/embed_throughput.py --backend.
EMBED_BACKEND = "torch"
EMBED_BACKENDS = ("torch", "bf16")
BOUNDS = {"embed_batch": (16, 4096), "max_file_bytes": (1, 1 << 32),
          "lock_timeout_s": (0, 86_400), "groq_concurrency": (1, 64), "rrf_k": (1, 1000),
          "read_span_max_lines": (1, 100_000), "analysis_file_cap": (0, 1_000_000),
          "test_prior": (0, 1), "docs_prior": (0, 1), "plain_prior": (0, 1), "freshness_max_lag_s": (0, 365 * 86_400),
          "rerank_top": (2, 50), "rerank_max_chars": (2_000, 400_000), "rerank_daily_requests": (0, 10_000_000),
          "rerank_daily_usd": (0, 10_000)}


# The environment variable of each setting (LedgerSettings.from_env reads these names).
_ENV_NAMES = {"qdrant_url": "QDRANT_URL", "qdrant_api_key": "QDRANT_API_KEY", "groq_api_key": "GROQ_API_KEY",
              "groq_base_url": "GROQ_BASE_URL", "source_url": "LEDGER_SOURCE_URL"}


def env_name(setting: str) -> str:
    return _ENV_NAMES.get(setting, "LEDGER_" + setting.upper())


class SettingsError(ValueError):
    """A setting read from the environment is malformed or out of range (bad input: exit 2)."""


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


# How often git_head_sensor ticks, and its first retry's backoff (seconds; read when the code location loads).
SENSOR_INTERVAL_S = max(1, int(_env_float("LEDGER_SENSOR_INTERVAL_S", 30)))
SENSOR_RETRY_BASE_S = max(0.0, _env_float("LEDGER_SENSOR_RETRY_BASE_S", 60.0))
# How long an MCP query waits for the model at the server's start before answering from the lexical lane.
MCP_WARM_WAIT_S = max(0.0, _env_float("LEDGER_MCP_WARM_WAIT_S", 0.5))


@dataclass(frozen=True)
class LedgerSettings:
    home: str = "./.ledger"
    collection: str = "ledger_chunks"
    qdrant_url: str = ""
    qdrant_api_key: str = field(default="", repr=False)
    versioning: bool = False
    max_file_bytes: int = 2_000_000
    max_pdf_bytes: int = 50_000_000
    embed_batch: int = EMBED_BATCH
    embed_device: str = ""  # "" = CUDA when present, else CPU
    embed_backend: str = EMBED_BACKEND  # LEDGER_EMBED_BACKEND: one of EMBED_BACKENDS
    lock_timeout_s: float = 120.0
    upsert_batch: int = UPSERT_BATCH
    # Analysis (Groq); see intents/analysis.py.
    groq_api_key: str = field(default="", repr=False)
    groq_base_url: str = ""
    groq_model: str = "llama-3.1-8b-instant"
    groq_budget_usd: float = 1.0
    groq_concurrency: int = 4
    groq_timeout_s: float = 30.0
    analysis_file_cap: int = 200
    keyless_analyser: str = "heuristic"
    # Retrieval (retrieval/search.py, retrieval/tools.py); defaults chosen by measurement, see search.py.
    rrf_k: int = RRF_K
    lane_weights: str = ""  # "code=1,design=0.5,sparse=1,symbol=2"; "" = DEFAULT_LANE_WEIGHTS
    group_lane_weights: str = ""  # the same for `--group file`; "" = GROUP_LANE_WEIGHTS
    plain_prior: float = PLAIN_PRIOR
    test_prior: float = TEST_PRIOR
    docs_prior: float = DOCS_PRIOR
    check_stale: bool = True
    # The LLM rerank of the top fused candidates (retrieval/rerank.py): off unless "llm"; the budget is per UTC day.
    rerank: str = "none"
    rerank_top: int = 20
    rerank_max_chars: int = 12_000
    rerank_daily_requests: int = 500
    rerank_daily_usd: float = 0.25
    read_span_max_lines: int = 400
    drift_move_threshold: int = 10
    groq_max_retries: int = 4
    groq_backoff_s: float = 1.0
    groq_price: str = ""  # "input,output" USD per million tokens; "" = the table in groq_client.py
    # q_dup_hash only for chunks of at least this many tokens: tiny bodies (getters) are all "clones".
    dup_min_tokens: int = 24
    # Operations (defs/): the index_fresh check fails when the promoted sha lags HEAD for longer than this.
    freshness_max_lag_s: float = 3600.0
    # Chunker switches and sizes over ChunkOptions' defaults: "split_sql_tables=false,ts_tree_sitter=false";
    # a change re-chunks exactly the files whose chunker reads a changed option (chunkers.rechunk_key).
    chunk_options: str = ""
    # The git web URL of this project's source (e.g. https://github.com/org/code-ledger/blob/main), for the
    # catalog's code references; "" = links to the local files.
    source_url: str = ""

    @classmethod
    def from_env(cls, **overrides) -> "LedgerSettings":
        d = cls()
        values = dict(
            home=os.environ.get("LEDGER_HOME") or d.home,
            collection=os.environ.get("LEDGER_COLLECTION") or d.collection,
            qdrant_url=os.environ.get("QDRANT_URL", ""),
            qdrant_api_key=os.environ.get("QDRANT_API_KEY", ""),
            versioning=_env_bool("LEDGER_VERSIONING", d.versioning),
            max_file_bytes=_env_int("LEDGER_MAX_FILE_BYTES", d.max_file_bytes),
            embed_batch=_env_int("LEDGER_EMBED_BATCH", d.embed_batch),
            embed_device=os.environ.get("LEDGER_EMBED_DEVICE", ""),
            embed_backend=(os.environ.get("LEDGER_EMBED_BACKEND") or d.embed_backend).strip().lower(),
            lock_timeout_s=_env_float("LEDGER_LOCK_TIMEOUT_S", d.lock_timeout_s),
            groq_api_key=os.environ.get("GROQ_API_KEY", ""),
            groq_base_url=os.environ.get("GROQ_BASE_URL", ""),
            groq_model=os.environ.get("LEDGER_GROQ_MODEL") or d.groq_model,
            groq_budget_usd=_env_float("LEDGER_GROQ_BUDGET_USD", d.groq_budget_usd),
            groq_concurrency=_env_int("LEDGER_GROQ_CONCURRENCY", d.groq_concurrency),
            groq_timeout_s=_env_float("LEDGER_GROQ_TIMEOUT_S", d.groq_timeout_s),
            groq_max_retries=_env_int("LEDGER_GROQ_MAX_RETRIES", d.groq_max_retries),
            groq_backoff_s=_env_float("LEDGER_GROQ_BACKOFF_S", d.groq_backoff_s),
            groq_price=os.environ.get("LEDGER_GROQ_PRICE", ""),
            analysis_file_cap=_env_int("LEDGER_ANALYSIS_FILE_CAP", d.analysis_file_cap),
            keyless_analyser=os.environ.get("LEDGER_KEYLESS_ANALYSER") or d.keyless_analyser,
            rrf_k=_env_int("LEDGER_RRF_K", d.rrf_k),
            lane_weights=os.environ.get("LEDGER_LANE_WEIGHTS", ""),
            group_lane_weights=os.environ.get("LEDGER_GROUP_LANE_WEIGHTS", ""),
            plain_prior=_env_float("LEDGER_PLAIN_PRIOR", d.plain_prior),
            test_prior=_env_float("LEDGER_TEST_PRIOR", d.test_prior),
            docs_prior=_env_float("LEDGER_DOCS_PRIOR", d.docs_prior),
            check_stale=_env_bool("LEDGER_CHECK_STALE", d.check_stale),
            rerank=(os.environ.get("LEDGER_RERANK") or d.rerank).strip().lower(),
            rerank_top=_env_int("LEDGER_RERANK_TOP", d.rerank_top),
            rerank_max_chars=_env_int("LEDGER_RERANK_MAX_CHARS", d.rerank_max_chars),
            rerank_daily_requests=_env_int("LEDGER_RERANK_DAILY_REQUESTS", d.rerank_daily_requests),
            rerank_daily_usd=_env_float("LEDGER_RERANK_DAILY_USD", d.rerank_daily_usd),
            read_span_max_lines=_env_int("LEDGER_READ_SPAN_MAX_LINES", d.read_span_max_lines),
            drift_move_threshold=_env_int("LEDGER_DRIFT_MOVE_THRESHOLD", d.drift_move_threshold),
            dup_min_tokens=_env_int("LEDGER_DUP_MIN_TOKENS", d.dup_min_tokens),
            freshness_max_lag_s=_env_float("LEDGER_FRESHNESS_MAX_LAG_S", d.freshness_max_lag_s),
            chunk_options=os.environ.get("LEDGER_CHUNK_OPTIONS", ""),
            source_url=os.environ.get("LEDGER_SOURCE_URL", ""),
        )
        for name, (low, high) in BOUNDS.items():
            if not low <= values[name] <= high:
                env = "LEDGER_" + name.upper()
                raise SettingsError(f"{env} must be between {low} and {high}, got {values[name]}")
        if values["embed_backend"] not in EMBED_BACKENDS:
            raise SettingsError(f"LEDGER_EMBED_BACKEND must be one of {', '.join(EMBED_BACKENDS)}, "
                                f"got {values['embed_backend']!r}")
        if values["rerank"] not in RERANK_MODES:
            raise SettingsError(f"LEDGER_RERANK must be one of {', '.join(RERANK_MODES)}, got {values['rerank']!r}")
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
