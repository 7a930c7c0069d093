"""The optional LLM rerank of a query's top fused candidates (`--rerank llm`, LEDGER_RERANK=llm).

fused hits -> the top LEDGER_RERANK_TOP -> one prompt (the question, then per candidate its path,
line range, type, symbols and a snippet of its indexed text, all within LEDGER_RERANK_MAX_CHARS) ->
the `reranks` cache (by the hash of model, prompt version and the text sent) or the daily budget ->
one Groq request -> the order validated -> the candidates it names first, in its order, the rest
in their fused order after them.

It refines and never fails a query: a malformed answer, an id that is not a candidate, an HTTP error
after retries, a spent budget or an unreachable DuckDB file keeps the fused order, and the report
says why (`note`). Without GROQ_API_KEY it does not run at all: asking for it is bad usage
(`QueryError`, exit 2), whether by `--rerank llm` or by LEDGER_RERANK=llm.

What is sent is the chunk text the index holds (the chunkers redacted it before it was stored),
passed through `redact_text` once more, as the intents do: nothing else leaves the machine. A
snippet can hold words that read like instructions; the model's answer is only used as an
ordering of the ids sent, so at worst it orders badly.

Budget, as the intents' (llm/groq_client.py): a request is refused when its estimate (prompt
characters / 3 + the answer's token limit, at the model's price) would take the UTC day's spend past
LEDGER_RERANK_DAILY_USD, or when LEDGER_RERANK_DAILY_REQUESTS requests were sent today; the day's
spend is charged from the usage each response reports, in DuckDB (`rerank_spend`), so every
process (`ledger query`, `ledger mcp`) counts against one budget. Two processes checking at the
same instant may both pass: the cap can be overrun by the requests in flight, not more.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone

from chunkers.redact import redact_text

from ledger_assets.store.printable import printable
from ledger_assets.llm.groq_client import (MalformedAnswer, RetryPolicy, answer_json, complete, one_line,
                                           prices_for)
from ledger_assets.retrieval.fusion import QueryError
from ledger_assets.retrieval.hits import Hit, format_hits
from ledger_assets.store.settings import (RERANK_MAX_RETRIES, RERANK_MIN_SNIPPET_CHARS, RERANK_MODES,
                                          RERANK_SNIPPET_CHARS, LedgerSettings)

PROMPT_VERSION = "rerank-v1"
LLM_LANE = "llm"  # a reranked hit's place in the model's order, beside its lane ranks
ANSWER_TOKENS = 400  # {"order": [...]} of 50 ids is about 250 tokens
MAX_QUESTION_CHARS = 1_000
MAX_SYMBOLS = 5

SYSTEM_PROMPT = """You rank the results of a code search. The user message holds a question about a code \
repository, then numbered candidate chunks of that repository (id in brackets, path, line range, chunk type, \
symbols, then the start of its text).
Order the candidates by how well each answers the question: the code a developer would open to read or change \
for it comes first. Answer with ONE JSON object and nothing else: {"order": ["c3", "c1", ...]}, the ids of the \
relevant candidates, best first. Leave out candidates that do not help. Use only the ids given."""


@dataclass
class RerankReport:
    """What the rerank of one query did and cost (JSON `rerank`, MCP `rerank`, one stderr line)."""

    mode: str = "llm"
    status: str = "fused"  # "reranked" (the model's order), "cached" (its order, from the cache), "fused" (kept)
    note: str = ""  # why the fused order was kept (or that a paid answer could not be recorded)
    model: str = ""
    candidates: int = 0  # how many were sent (or looked up)
    ranked: int = 0  # how many the model's order placed first
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0
    cache_hit: bool = False
    prompt_chars: int = 0

    def to_dict(self) -> dict:
        return {**asdict(self), "cost_usd": round(self.cost_usd, 8)}

    def line(self) -> str:
        """The one stderr line of a text-mode query."""
        cost = (f"{self.requests} request{'s' if self.requests != 1 else ''}, {self.prompt_tokens} prompt + "
                f"{self.completion_tokens} completion tokens, ${self.cost_usd:.6f}, {self.seconds:.2f}s")
        if self.status == "reranked":
            note = f" ({self.note})" if self.note else ""
            return f"rerank llm: {self.ranked} of {self.candidates} candidates placed by {self.model}: {cost}{note}"
        if self.status == "cached":
            return (f"rerank llm: {self.ranked} of {self.candidates} candidates placed from the cache "
                    f"(no request), {self.seconds:.2f}s")
        return f"rerank llm: fused order kept ({self.note}): {cost}"


def requested_mode(settings: LedgerSettings, opts) -> str:
    """The query's rerank: its own (`--rerank`, MCP `rerank`) else LEDGER_RERANK; the default never
    applies to `--group file`, which ranks files."""
    mode = (opts.rerank or "").strip().lower()
    if mode and mode not in RERANK_MODES:
        raise QueryError(f"unknown rerank {opts.rerank!r}: use {' or '.join(RERANK_MODES)}")
    if not mode:
        mode = "none" if opts.group else settings.rerank
    return mode


def plan(settings: LedgerSettings, opts) -> int:
    """How many fused hits the query needs: k, or LEDGER_RERANK_TOP when the rerank looks deeper.
    Raises QueryError when the rerank is asked for and cannot run (checked before any lane runs)."""
    if requested_mode(settings, opts) != "llm":
        return opts.k
    asked = "--rerank llm" if (opts.rerank or "").strip().lower() == "llm" else "LEDGER_RERANK=llm"
    if opts.group:
        raise QueryError(f"{asked} reorders chunk hits, not files: leave it out with --group file")
    if not settings.groq_api_key.strip():
        raise QueryError(f"{asked} needs GROQ_API_KEY (the rerank asks Groq): set it, or query without the rerank")
    try:
        prices_for(settings.groq_model, settings.groq_price)
    except ValueError as exc:
        raise QueryError(str(exc)) from None
    return max(opts.k, settings.rerank_top)


def apply(ledger, question: str, hits: list[Hit], opts) -> tuple[list[Hit], RerankReport | None]:
    """The top k, reordered by the model when the query asks for the rerank (else the report is None)."""
    s = ledger.settings
    report = None
    if requested_mode(s, opts) == "llm":
        t0 = time.monotonic()
        report = RerankReport(model=s.groq_model)
        try:
            hits = _rerank(ledger, question, hits, report)
        except Exception as exc:  # a refinement: whatever goes wrong here, the fused order answers
            report.status, report.note = "fused", f"failed: {type(exc).__name__}: {one_line(str(exc))}"
        report.seconds = round(time.monotonic() - t0, 3)
    hits = hits[:opts.k]
    for i, hit in enumerate(hits, 1):
        hit.rank = i
    return hits, report


def format_result(question: str, hits: list[Hit], report: RerankReport | None, fmt: str = "text",
                  detail: str = "snippet") -> str:
    """`format_hits`, except that a reranked query's `--format json` is an object carrying the report:
    {"query", "hits", "rerank"} (the other formats print the report as a line on stderr)."""
    if report is None or fmt != "json":
        return format_hits(hits, fmt, detail)
    return json.dumps({"query": question, "hits": [h.to_dict(detail) for h in hits], "rerank": report.to_dict()},
                      indent=2, ensure_ascii=False)


# ---- the prompt -------------------------------------------------------------------
def _symbols(payload: dict) -> list[str]:
    try:
        rows = json.loads(payload.get("chunk_symbols") or "[]")
    except (TypeError, ValueError):
        return []
    names = []
    for row in rows:
        if isinstance(row, list) and row and isinstance(row[0], str):
            parent = row[2] if len(row) > 2 and isinstance(row[2], str) else ""
            names.append(f"{parent}.{row[0]}" if parent else row[0])
    return list(dict.fromkeys(names))[:MAX_SYMBOLS]


def candidate_header(i: int, payload: dict) -> str:
    symbols = ", ".join(_symbols(payload))
    path = printable(str(payload.get("file_path")))
    return (f"[c{i}] {path} L{payload.get('start_line')}-L{payload.get('end_line')} "
            f"{payload.get('chunk_type') or ''}" + (f" {symbols}" if symbols else "")).rstrip()


def build_prompt(question: str, hits: list[Hit], max_chars: int) -> tuple[str, int]:
    """The user message and how many candidates it holds: the system prompt and it stay within
    `max_chars`; snippets shrink evenly to fit (RERANK_SNIPPET_CHARS at most), and when they would
    fall below RERANK_MIN_SNIPPET_CHARS the last candidates stay out instead."""
    asked = " ".join(redact_text(question).split())[:MAX_QUESTION_CHARS]
    head = f"Question: {asked}\n\nCandidates:\n"
    tail = '\nAnswer with {"order": [ids, best first]}.'
    headers = [candidate_header(i, h.payload) for i, h in enumerate(hits, 1)]
    texts = [redact_text(h.payload.get("content") or "").strip() for h in hits]
    fixed = len(SYSTEM_PROMPT) + len(head) + len(tail)
    n, per = len(hits), 0
    while n > 0:
        room = max_chars - fixed - sum(len(hd) + 3 for hd in headers[:n])  # "\n", "\n" and a blank line
        per = min(RERANK_SNIPPET_CHARS, room // n) if room > 0 else -1
        if per >= RERANK_MIN_SNIPPET_CHARS or (per >= 0 and all(len(t) <= per for t in texts[:n])):
            break
        n -= 1
    blocks = []
    for hd, text in zip(headers[:n], texts[:n]):
        snippet = text if len(text) <= per else text[:max(per - 1, 0)] + "…"
        blocks.append(f"{hd}\n{snippet}\n")
    return head + "\n".join(blocks) + tail, n


def rerank_key(model: str, system: str, user: str) -> str:
    return hashlib.sha256(f"{model}\0{PROMPT_VERSION}\0{system}\0{user}".encode("utf-8")).hexdigest()


def parse_order(content: str | None, n: int) -> list[int]:
    """The model's order as candidate numbers (1..n), repeats dropped; MalformedAnswer says what is wrong."""
    data = answer_json(content)
    if isinstance(data, dict):
        if "order" not in data:
            raise MalformedAnswer('no "order" key')
        data = data["order"]
    if not isinstance(data, list):
        raise MalformedAnswer(f'"order" must be a list of ids, got {type(data).__name__}')
    order: list[int] = []
    for item in data:
        m = re.fullmatch(r"\s*c?(\d+)\s*", item, re.I) if isinstance(item, str) else None
        number = int(m.group(1)) if m else item if isinstance(item, int) and not isinstance(item, bool) else None
        if number is None or not 1 <= number <= n:
            raise MalformedAnswer(f"{one_line(repr(item), 40)} is not one of the candidates c1-c{n}")
        if number not in order:
            order.append(number)
    if not order:
        raise MalformedAnswer("the order names no candidate")
    return order


# ---- the rerank -------------------------------------------------------------------
def _rerank(ledger, question: str, hits: list[Hit], report: RerankReport) -> list[Hit]:
    s = ledger.settings
    top = hits[:s.rerank_top]
    if len(top) < 2:
        report.note = f"{len(top)} candidate{'s' if len(top) != 1 else ''}: nothing to reorder"
        return hits
    user, n = build_prompt(question, top, s.rerank_max_chars)
    report.candidates, report.prompt_chars = n, len(SYSTEM_PROMPT) + len(user)
    if n < 2:
        report.note = f"LEDGER_RERANK_MAX_CHARS={s.rerank_max_chars} leaves no room for two candidates"
        return hits
    key = rerank_key(s.groq_model, SYSTEM_PROMPT, user)
    cached, requests_today, spent_today = _lookup(ledger, key, n)
    if cached is not None:
        report.status, report.cache_hit = "cached", True
        return _reorder(hits, cached, report)

    price_in, price_out = prices_for(s.groq_model, s.groq_price)
    estimate = ((report.prompt_chars // 3 + 16) * price_in + ANSWER_TOKENS * price_out) / 1e6
    if requests_today + 1 > s.rerank_daily_requests:
        report.note = (f"budget: {requests_today} requests today (UTC), "
                       f"LEDGER_RERANK_DAILY_REQUESTS={s.rerank_daily_requests}")
        return hits
    if spent_today + estimate > s.rerank_daily_usd:
        report.note = (f"budget: ${spent_today:.6f} spent today (UTC) and this request may cost ${estimate:.6f}, "
                       f"LEDGER_RERANK_DAILY_USD={s.rerank_daily_usd}")
        return hits

    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
    response, report.requests, error = _ask(s, messages)
    usage = getattr(response, "usage", None) if response is not None else None
    if usage is not None:
        report.prompt_tokens, report.completion_tokens = usage.prompt_tokens or 0, usage.completion_tokens or 0
        report.cost_usd = (report.prompt_tokens * price_in + report.completion_tokens * price_out) / 1e6
    order = None
    if response is None:
        report.note = error
    else:
        choices = getattr(response, "choices", None) or []
        try:
            order = parse_order(choices[0].message.content if choices else None, n)
        except MalformedAnswer as exc:
            report.note = f"malformed reply: {exc}"
    try:
        _record(ledger, key, order, n, report)
    except Exception as exc:  # the answer is paid for: use it even when DuckDB cannot keep it
        report.note = "; ".join(x for x in (report.note, f"not recorded: {type(exc).__name__}: "
                                                         f"{one_line(str(exc))}") if x)
    if order is None:
        return hits
    report.status = "reranked"
    return _reorder(hits, order, report)


def _reorder(hits: list[Hit], order: list[int], report: RerankReport) -> list[Hit]:
    first = [hits[i - 1] for i in order]
    for place, hit in enumerate(first, 1):
        hit.lane_ranks[LLM_LANE] = place
    chosen = set(order)
    report.ranked = len(first)
    return first + [h for i, h in enumerate(hits, 1) if i not in chosen]


def _today():
    return datetime.now(timezone.utc).date()


def _lookup(ledger, key: str, n: int) -> tuple[list[int] | None, int, float]:
    """(the cached order of this prompt or None, requests sent today, USD spent today)."""
    with ledger.db.connect() as con:
        row = con.execute("SELECT ranked FROM reranks WHERE rerank_key = ?", [key]).fetchone()
        spend = con.execute("SELECT requests, cost_usd FROM rerank_spend WHERE utc_day = ?", [_today()]).fetchone()
    cached = None
    if row is not None:
        try:
            order = json.loads(row[0])
        except (TypeError, ValueError):
            order = None
        if isinstance(order, list) and order and all(isinstance(i, int) and 1 <= i <= n for i in order):
            cached = list(dict.fromkeys(order))
    return cached, int(spend[0] or 0) if spend else 0, float(spend[1] or 0.0) if spend else 0.0


def _record(ledger, key: str, order: list[int] | None, n: int, report: RerankReport) -> None:
    """The day's spend (every request sent counts), and the order when the answer was valid."""
    with ledger.db.transaction() as con:
        con.execute(
            "INSERT INTO rerank_spend VALUES (?, ?, ?, ?, ?) ON CONFLICT (utc_day) DO UPDATE SET "
            "requests = rerank_spend.requests + excluded.requests, "
            "prompt_tokens = rerank_spend.prompt_tokens + excluded.prompt_tokens, "
            "completion_tokens = rerank_spend.completion_tokens + excluded.completion_tokens, "
            "cost_usd = rerank_spend.cost_usd + excluded.cost_usd",
            [_today(), report.requests, report.prompt_tokens, report.completion_tokens, report.cost_usd])
        if order is not None:
            con.execute("INSERT INTO reranks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                        [key, report.model, PROMPT_VERSION, json.dumps(order), n, report.prompt_tokens,
                         report.completion_tokens, report.cost_usd,
                         datetime.now(timezone.utc).replace(tzinfo=None)])


def _ask(s: LedgerSettings, messages: list[dict]):
    """One completion, through the real `groq` client, with the intents' retry policy cut to
    RERANK_MAX_RETRIES: (response or None, requests sent, the last error in one line)."""
    import groq

    client = groq.Groq(api_key=s.groq_api_key, base_url=s.groq_base_url or None, timeout=s.groq_timeout_s,
                       max_retries=0)
    retry = RetryPolicy(max_retries=min(RERANK_MAX_RETRIES, s.groq_max_retries), base_delay_s=s.groq_backoff_s)
    response, sent, error, _status = complete(client, retry, s.groq_model, messages, ANSWER_TOKENS)
    return response, sent, error
