"""A local chat-completions server on 127.0.0.1 for the analyser tests.

It speaks the part of the OpenAI/Groq protocol the `groq` client uses
(POST /openai/v1/chat/completions), records every request body, and answers
from a per-test script: a list of `Reply`s consumed in order, then
`default` (a Reply, or a function of the request body returning one).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Union

GOOD_ANALYSIS = {
    "intent": "Books a customer order and returns its priced total.",
    "layer": "application",
    "pattern": "service",
    "readability": 4,
    "testability": 3,
    "error_handling": 2,
    "single_responsibility": 4,
    "naming": 5,
    "risk_note": "",
}


@dataclass
class Reply:
    status: int = 200
    content: str | None = None          # the assistant message content (200 only)
    body: str | None = None             # a raw body, overriding everything else
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    prompt_tokens: int = 120
    completion_tokens: int = 40


def ok(analysis: dict | None = None, **kw) -> Reply:
    return Reply(content=json.dumps(analysis or GOOD_ANALYSIS), **kw)


def malformed(text: str = '{"intent": "half an answer"', **kw) -> Reply:
    return Reply(content=text, **kw)


def status(code: int, retry_after: str | None = None, **kw) -> Reply:
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return Reply(status=code, headers=headers, **kw)


Responder = Union[Reply, Callable[[dict], Reply]]


class GroqTestServer:
    def __init__(self, default: Responder | None = None):
        self.default: Responder = default or ok()
        self.script: list[Reply] = []
        self.requests: list[dict] = []
        self.raw_bodies: list[str] = []
        self.times: list[float] = []
        self.auth_headers: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest output clean
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length") or 0)).decode("utf-8")
                with server._lock:
                    server.raw_bodies.append(raw)
                    server.times.append(time.monotonic())
                    server.auth_headers.append(self.headers.get("authorization", ""))
                    body = json.loads(raw)
                    server.requests.append(body)
                    reply = server.script.pop(0) if server.script else server.default
                if callable(reply):
                    reply = reply(body)
                if self.path != "/openai/v1/chat/completions":
                    reply = Reply(status=404, body=json.dumps({"error": {"message": f"no route {self.path}"}}))
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.body is not None:
                    payload = reply.body
                elif reply.status == 200:
                    payload = json.dumps({
                        "id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion",
                        "created": int(time.time()), "model": body.get("model", ""),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": reply.content}}],
                        "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                                  "total_tokens": reply.prompt_tokens + reply.completion_tokens},
                    })
                else:
                    payload = json.dumps({"error": {"message": f"scripted {reply.status}", "type": "test"}})
                data = payload.encode("utf-8")
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and went away: that is what a slow reply tests

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "GroqTestServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def user_texts(self) -> list[str]:
        """The chunk text of each request (the first user message)."""
        return [next(m["content"] for m in r["messages"] if m["role"] == "user") for r in self.requests]
