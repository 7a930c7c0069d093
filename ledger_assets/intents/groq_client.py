"""One chunk in, one validated analysis out: the Groq chat-completions call.

request -> (429/5xx/timeout: back off, honour Retry-After, retry) -> parse ->
validate -> (malformed: ask once more) -> `Analysis` or a failure reason.

The real `groq` client does the HTTP; its own retries are switched off
(`max_retries=0`) so that the policy here is the only one: it is the one the
tests drive, and the one whose waits and counts show up in the run summary.
Spend is charged from the token usage each response returns, against a price
table; a `Budget` shared by the worker threads refuses new requests once the
cap is reached.
"""

from __future__ import annotations

import email.utils
import json
import random
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

PROMPT_VERSION = "intent-v1"

LAYERS = ("presentation", "api", "application", "domain", "data", "infrastructure",
          "config", "test", "docs", "build", "other")
# Common answers outside the vocabulary that mean one of its layers.
LAYER_SYNONYMS = {
    "ui": "presentation", "view": "presentation", "frontend": "presentation", "web": "presentation",
    "controller": "api", "endpoint": "api", "http": "api", "service": "application",
    "business": "domain", "model": "domain", "core": "domain", "persistence": "data",
    "database": "data", "repository": "data", "storage": "data", "infra": "infrastructure",
    "configuration": "config", "tests": "test", "testing": "test", "documentation": "docs",
    "doc": "docs", "ci": "build", "tooling": "build",
}
RUBRIC_FIELDS = ("readability", "testability", "error_handling", "single_responsibility", "naming")
MAX_INTENT_CHARS = 300
MAX_PATTERN_CHARS = 60
MAX_RISK_CHARS = 400
MAX_ANSWER_TOKENS = 300

# USD per million tokens (input, output), from console.groq.com/docs/models.
PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "llama-3.1-8b-instant": (0.05, 0.08),
    "llama-3.3-70b-versatile": (0.59, 0.79),
    "openai/gpt-oss-20b": (0.075, 0.30),
    "openai/gpt-oss-120b": (0.15, 0.60),
    "meta-llama/llama-4-scout-17b-16e-instruct": (0.11, 0.34),
    "meta-llama/llama-4-maverick-17b-128e-instruct": (0.20, 0.60),
    "qwen/qwen3-32b": (0.29, 0.59),
    "moonshotai/kimi-k2-instruct": (1.00, 3.00),
}

SYSTEM_PROMPT = f"""You analyse one chunk of a code repository (a member, a type, a config section, a doc section).
Answer with ONE JSON object and nothing else, with exactly these keys:
  "intent": one sentence (at most {MAX_INTENT_CHARS} characters) saying what the code is for, in domain words,
  "layer": one of {", ".join(LAYERS)},
  "pattern": the design pattern or idiom it implements in a few words, or "" when none,
  "readability", "testability", "error_handling", "single_responsibility", "naming": integers 1 (poor) to 5 (excellent),
  "risk_note": one short sentence on the main risk (bugs, security, performance), or "" when none.
Lines starting with "// enclosing type" or a "#" breadcrumb give context only: describe the chunk itself."""


class MalformedAnswer(ValueError):
    """The model's answer is not the JSON object the prompt asks for."""


@dataclass(frozen=True)
class Analysis:
    intent: str
    layer: str
    pattern: str = ""
    rubric: dict[str, int] = field(default_factory=dict)
    risk_note: str = ""


@dataclass
class LLMOutcome:
    """What one chunk's analysis came to: an Analysis, or why not ("budget", "error")."""

    analysis: Analysis | None
    reason: str
    requests: int = 0
    cost_usd: float = 0.0
    error: str = ""


def answer_json(content: str | None):
    """The JSON of a model's answer (a ```json fence around it allowed); MalformedAnswer when empty or not JSON."""
    if not content or not content.strip():
        raise MalformedAnswer("empty answer")
    body = content.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, re.S)
    if fenced:
        body = fenced.group(1)
    try:
        return json.loads(body)
    except json.JSONDecodeError as exc:
        raise MalformedAnswer(f"not JSON: {exc.msg} at char {exc.pos}") from None


def parse_answer(content: str | None) -> Analysis:
    """Strict validation of the model's answer; raises MalformedAnswer saying what is wrong."""
    data = answer_json(content)
    if not isinstance(data, dict):
        raise MalformedAnswer(f"expected a JSON object, got {type(data).__name__}")
    missing = [k for k in ("intent", "layer", "pattern", *RUBRIC_FIELDS, "risk_note") if k not in data]
    if missing:
        raise MalformedAnswer(f"missing keys: {', '.join(missing)}")
    intent = data["intent"]
    if not isinstance(intent, str) or not intent.strip():
        raise MalformedAnswer("intent must be a non-empty string")
    intent = " ".join(intent.split())
    if len(intent) > MAX_INTENT_CHARS:
        raise MalformedAnswer(f"intent longer than {MAX_INTENT_CHARS} characters")
    layer = data["layer"]
    if not isinstance(layer, str):
        raise MalformedAnswer("layer must be a string")
    layer = layer.strip().lower()
    layer = LAYER_SYNONYMS.get(layer, layer)
    if layer not in LAYERS:
        raise MalformedAnswer(f"layer {data['layer']!r} is not one of {', '.join(LAYERS)}")
    pattern, risk = data["pattern"], data["risk_note"]
    if pattern is None:
        pattern = ""
    if risk is None:
        risk = ""
    if not isinstance(pattern, str) or len(pattern) > MAX_PATTERN_CHARS:
        raise MalformedAnswer(f"pattern must be a string of at most {MAX_PATTERN_CHARS} characters")
    if not isinstance(risk, str) or len(risk) > MAX_RISK_CHARS:
        raise MalformedAnswer(f"risk_note must be a string of at most {MAX_RISK_CHARS} characters")
    rubric = {}
    for name in RUBRIC_FIELDS:
        value = data[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
            raise MalformedAnswer(f"{name} must be an integer 1-5, got {value!r}")
        if not 1 <= int(value) <= 5:
            raise MalformedAnswer(f"{name} must be between 1 and 5, got {value}")
        rubric[name] = int(value)
    pattern = pattern.strip()
    if pattern.lower() in {"none", "n/a", "-"}:
        pattern = ""
    return Analysis(intent, layer, pattern, rubric, risk.strip())


def prices_for(model: str, override: str = "") -> tuple[float, float]:
    """(input, output) USD per million tokens. An unknown model is charged the
    dearest listed price, so a typo in the model name cannot overrun the cap."""
    if override.strip():
        try:
            p_in, p_out = (float(x) for x in override.split(","))
        except ValueError as exc:
            raise ValueError(f"LEDGER_GROQ_PRICE must be 'input,output' USD per million tokens, "
                             f"got {override!r}") from exc
        return p_in, p_out
    return PRICES_PER_MTOK.get(model, max(PRICES_PER_MTOK.values()))


class Budget:
    """The run's spend cap, shared by the worker threads.

    A request reserves its estimated cost before it is sent and settles to the
    cost its usage reports; a request is refused when spent + reserved + its
    estimate would pass the cap. The estimate (prompt chars / 3 + the answer
    token limit) is deliberately generous, so the cap holds in the usual case;
    a response that reports more usage than estimated is still paid for.
    """

    def __init__(self, cap_usd: float):
        self.cap_usd = cap_usd
        self.spent = 0.0
        self.reserved = 0.0
        self.exhausted = False
        self._lock = threading.Lock()

    def reserve(self, estimate: float) -> bool:
        with self._lock:
            if self.exhausted or self.spent + self.reserved + estimate > self.cap_usd:
                self.exhausted = True
                return False
            self.reserved += estimate
            return True

    def settle(self, estimate: float, actual: float) -> None:
        with self._lock:
            self.reserved = max(0.0, self.reserved - estimate)
            self.spent += actual


def retry_after_seconds(headers) -> float | None:
    """Seconds the server asked us to wait (retry-after-ms, Retry-After seconds or HTTP date)."""
    if headers is None:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        parsed = email.utils.parsedate_tz(raw)
        return max(0.0, email.utils.mktime_tz(parsed) - time.time()) if parsed else None


@dataclass
class RetryPolicy:
    max_retries: int = 4          # transport retries per request (429, 5xx, timeouts, connection errors)
    base_delay_s: float = 1.0     # first backoff; doubles each retry
    max_delay_s: float = 60.0     # longest single wait, Retry-After included
    sleep: Callable[[float], None] = time.sleep

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_delay_s)
        # "Equal jitter": half fixed, half random, so waits grow but clients desynchronise.
        ceiling = min(self.base_delay_s * (2 ** attempt), self.max_delay_s)
        return ceiling / 2 + random.uniform(0, ceiling / 2)


class GroqAnalyser:
    """Thread-safe: one instance serves the whole worker pool of a run."""

    def __init__(self, api_key: str, model: str, base_url: str = "", timeout_s: float = 30.0,
                 budget: Budget | None = None, retry: RetryPolicy | None = None, price_override: str = ""):
        import groq

        self.model = model
        self.client = groq.Groq(api_key=api_key, base_url=base_url or None, timeout=timeout_s, max_retries=0)
        self.budget = budget or Budget(float("inf"))
        self.retry = retry or RetryPolicy()
        self.price_in, self.price_out = prices_for(model, price_override)
        # Set on an error no retry can fix (bad key, unknown model): the rest of the run stops asking.
        self.fatal_error = ""

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.price_in + completion_tokens * self.price_out) / 1e6

    def estimate(self, text: str) -> float:
        return self.cost((len(SYSTEM_PROMPT) + len(text)) // 3 + 16, MAX_ANSWER_TOKENS)

    def analyse(self, text: str) -> LLMOutcome:
        outcome = LLMOutcome(None, "error")
        messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": text}]
        for answer_try in range(2):
            if self.fatal_error:
                outcome.error = self.fatal_error
                return outcome
            estimate = self.estimate("".join(m["content"] for m in messages))
            if not self.budget.reserve(estimate):
                outcome.reason, outcome.error = "budget", "budget cap reached"
                return outcome
            actual = 0.0
            try:
                response, sent, error = self._complete(messages)
                outcome.requests += sent
                usage = getattr(response, "usage", None) if response is not None else None
                if usage is not None:
                    actual = self.cost(usage.prompt_tokens or 0, usage.completion_tokens or 0)
            finally:
                self.budget.settle(estimate, actual)
            outcome.cost_usd += actual
            if response is None:
                outcome.error = error
                return outcome
            content = response.choices[0].message.content if response.choices else None
            try:
                outcome.analysis = parse_answer(content)
                outcome.reason, outcome.error = "llm", ""
                return outcome
            except MalformedAnswer as exc:
                outcome.error = f"malformed answer: {exc}"
                if answer_try == 0:
                    messages = messages[:2] + [
                        {"role": "assistant", "content": (content or "")[:2000]},
                        {"role": "user", "content": f"That answer is invalid ({exc}). "
                                                    "Reply with only the JSON object described above."},
                    ]
        return outcome

    def _complete(self, messages: list[dict]):
        """One completion with transport retries: (response or None, requests sent, last error).
        401/403/404 stop the whole run (`fatal_error`): no retry and no other chunk can mend them."""
        response, sent, error, status = complete(self.client, self.retry, self.model, messages, MAX_ANSWER_TOKENS)
        if status in (401, 403, 404):
            detail = error.partition(": ")[2]  # error is "HTTP {status}: {detail}"
            self.fatal_error = f"HTTP {status} from Groq ({detail}): check GROQ_API_KEY and LEDGER_GROQ_MODEL"
            return None, sent, self.fatal_error
        return response, sent, error


def complete(client, retry: RetryPolicy, model: str, messages: list[dict], max_tokens: int):
    """One JSON-mode chat completion through the `groq` client, retried on timeouts, connection
    errors, 408, 429 and 5xx (honouring Retry-After): (response or None, requests sent, the last
    error in one line, its HTTP status or 0). Another 4xx is not retried: a bad key or model, or a
    bad request, no retry mends; nor is a 200 whose body is not a chat completion (`bad response`:
    a proxy's HTML page, JSON of another shape), which the client would otherwise raise or return.
    Shared by the intents (GroqAnalyser) and the rerank (retrieval/rerank.py)."""
    import groq

    sent, error, status = 0, "", 0
    for attempt in range(retry.max_retries + 1):
        sent += 1
        retry_after = None
        try:
            response = client.chat.completions.create(
                model=model, messages=messages, temperature=0, max_tokens=max_tokens,
                response_format={"type": "json_object"})
            if not isinstance(getattr(response, "choices", None), list):
                return None, sent, f"bad response: not a chat completion ({type(response).__name__})", 0
            return response, sent, "", 0
        except groq.APITimeoutError:
            error, status = "timed out", 0
        except groq.APIConnectionError as exc:
            error, status = f"connection failed: {one_line(str(exc))}", 0
        except groq.APIStatusError as exc:
            status = exc.status_code
            error = f"HTTP {status}: {one_line(str(exc))}"
            if status not in (408, 429) and status < 500:
                return None, sent, error, status
            retry_after = retry_after_seconds(exc.response.headers)
        except (groq.APIError, ValueError) as exc:  # a 200 whose body is not a completion (or not JSON)
            return None, sent, f"bad response: {type(exc).__name__}: {one_line(str(exc))}", 0
        if attempt < retry.max_retries:
            retry.sleep(retry.delay(attempt, retry_after))
    return None, sent, f"{error} (after {sent} attempts)", status


def one_line(text: str, limit: int = 200) -> str:
    """An error's text on one line (whitespace collapsed), at most `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"