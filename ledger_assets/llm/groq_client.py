"""The LLM client both its users reach (the intents' analyser, the rerank): one Groq chat completion.

request -> (429/5xx/timeout: back off, honour Retry-After, retry) -> the response, or why not.
The real `groq` client does the HTTP; its own retries are switched off (`max_retries=0`) so that
the policy here is the only one: it is the one the tests drive, and the one whose waits and counts
show up in the run summary. Spend is charged from the token usage each response returns, against a
price table; a `Budget` shared by the worker threads refuses new requests once the cap is reached.
"""

from __future__ import annotations

import email.utils
import json
import random
import re
import threading
import time
from dataclasses import dataclass
from typing import Callable

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

class MalformedAnswer(ValueError):
    """The model's answer is not the JSON object the prompt asks for."""


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


def complete(client, retry: RetryPolicy, model: str, messages: list[dict], max_tokens: int):
    """One JSON-mode chat completion through the `groq` client, retried on timeouts, connection
    errors, 408, 429 and 5xx (honouring Retry-After): (response or None, requests sent, the last
    error in one line, its HTTP status or 0). Another 4xx is not retried: a bad key or model, or a
    bad request, no retry mends; nor is a 200 whose body is not a chat completion (`bad response`:
    a proxy's HTML page, JSON of another shape), which the client would otherwise raise or return.
    Shared by the intents (intents/groq_analyser.py) and the rerank (retrieval/rerank.py)."""
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