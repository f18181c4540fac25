"""Test helpers: real HTTP(S) servers on 127.0.0.1 that speak the providers' APIs.

Named uniquely (not ``helpers.py``) because the root pytest run collects the bridge's
tests too, and rootless test directories share one module namespace.
"""

from __future__ import annotations

import json
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


def load_fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


@dataclass
class Call:
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeProvider:
    """An LLM provider on a real socket: answers Anthropic's Messages API at
    ``/v1/messages`` and the OpenAI chat completions API at ``/v1/chat/completions``.

    ``reply`` is what the model says (a dict is sent as JSON text); ``status`` other than
    200 answers an error; ``delay`` sleeps before answering. Every request is recorded.
    """

    reply: Any = None
    status: int = 200
    delay: float = 0.0
    calls: list[Call] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def count(self) -> int:
        return len(self.calls)

    def text(self) -> str:
        return self.reply if isinstance(self.reply, str) else json.dumps(self.reply)

    def respond(self, path: str, body: Any) -> tuple[int, Any]:
        if self.status != 200:
            return self.status, {"type": "error", "error": {"type": "api_error", "message": "boom"}}
        if path == "/v1/messages":
            return 200, {
                "id": "msg_test",
                "type": "message",
                "role": "assistant",
                "model": body.get("model", "test"),
                "content": [{"type": "text", "text": self.text()}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 10},
            }
        if path == "/v1/chat/completions":
            return 200, {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "test"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": self.text()},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
            }
        return 404, {"error": f"no route {path}"}


def _handler(provider: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length) or b"null")
            provider.calls.append(Call(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            if provider.delay:
                time.sleep(provider.delay)
            status, payload = provider.respond(self.path, body)
            self._send(status, json.dumps(payload).encode())

        def _send(self, status: int, data: bytes) -> None:
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and left

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def serve(handler: type[BaseHTTPRequestHandler], tls: ssl.SSLContext | None = None) -> ThreadingHTTPServer:
    """Start a threaded server on a free 127.0.0.1 port; the caller shuts it down."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    return server


def start_provider(provider: FakeProvider) -> FakeProvider:
    provider.server = serve(_handler(provider))
    return provider


def static_handler(routes: dict[str, tuple[int, bytes]], hits: list[str]) -> type[BaseHTTPRequestHandler]:
    """GET handler serving fixed bodies (for the overrides URL); records paths hit."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            status, data = routes.get(self.path, (404, b"not found"))
            self.send_response(status)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


class FakeClock:
    """A settable clock for TTL tests."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
