"""One chunk in, one validated analysis out: the intents' prompt, the answer's checks and `GroqAnalyser`.

prompt -> `llm.groq_client.complete` (its retries) -> parse -> validate -> (malformed: ask once more)
-> `Analysis` or a failure reason; a `Budget` shared by the worker threads caps the run's spend.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ledger_assets.llm.groq_client import (Budget, MalformedAnswer, RetryPolicy, answer_json, complete,
                                           prices_for)

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

SYSTEM_PROMPT = f"""You analyse one chunk of a code repository (a member, a type, a config section, a doc section).
Answer with ONE JSON object and nothing else, with exactly these keys:
  "intent": one sentence (at most {MAX_INTENT_CHARS} characters) saying what the code is for, in domain words,
  "layer": one of {", ".join(LAYERS)},
  "pattern": the design pattern or idiom it implements in a few words, or "" when none,
  "readability", "testability", "error_handling", "single_responsibility", "naming": integers 1 (poor) to 5 (excellent),
  "risk_note": one short sentence on the main risk (bugs, security, performance), or "" when none.
Lines starting with "// enclosing type" or a "#" breadcrumb give context only: describe the chunk itself."""


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
