"""A scripted HTTP server on 127.0.0.1: ``reply(method, path, headers, body) -> (status, payload)``.

For endpoints whose answers a test writes by hand (a System One endpoint that echoes
headers, an upstream without logprobs, a slow one). ``requests`` lists what came in;
``active``/``peak`` count requests being answered at once.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable

from auditpacks.runner.serving.loopback import LoopbackServer, send_json

Reply = Callable[[str, str, dict[str, str], Any], tuple[int, Any]]


class StubHTTP:
    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []
        self.active = self.peak = 0
        self._lock = threading.Lock()
        self._server = LoopbackServer(_Handler, stub=self)
        self.url = ""

    def __enter__(self) -> "StubHTTP":
        self.url = self._server.start().url
        return self

    def __exit__(self, *exc) -> None:
        self._server.stop()

    def answer(self, method: str, path: str, headers: dict[str, str], body: Any) -> tuple[int, Any]:
        with self._lock:
            self.requests.append((method, path, headers, body))
            self.active += 1
            self.peak = max(self.peak, self.active)
        try:
            return self.reply(method, path, headers, body)
        finally:
            with self._lock:
                self.active -= 1


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def _serve(self, method: str) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        status, payload = self.server.stub.answer(method, self.path, dict(self.headers), body)
        send_json(self, status, payload)

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")
