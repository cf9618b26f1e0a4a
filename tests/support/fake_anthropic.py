"""A fake Anthropic Messages API on 127.0.0.1: ``POST /v1/messages`` and ``GET /v1/models``.

    with FakeAnthropic(key="sk-ant-test") as server:
        ... any-llm's anthropic provider with api_base=server.url ...
        server.requests      # the JSON bodies of every POST /v1/messages

A request whose ``x-api-key`` is not ``key`` gets Anthropic's 401 ``authentication_error``.
``usage`` (JSON text, sent as it is: ``NaN`` allowed) replaces the reply's token counts.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

from auditpacks.runner.serving.loopback import LoopbackServer, send_json


class _Handler(BaseHTTPRequestHandler):
    def _send(self, status: int, body: dict[str, Any]) -> None:
        send_json(self, status, body)

    def _authorised(self) -> bool:
        if self.headers.get("x-api-key") == self.server.key:
            return True
        self._send(401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})
        return False

    def do_GET(self):  # noqa: N802
        self.server.paths.append(self.path)
        if self._authorised():
            self._send(200, {"data": [{"type": "model", "id": "claude-test", "display_name": "Claude test",
                                       "created_at": "2025-01-01T00:00:00Z"}],
                             "has_more": False, "first_id": "claude-test", "last_id": "claude-test"})

    def do_POST(self):  # noqa: N802
        self.server.paths.append(self.path)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if not self._authorised():
            return
        self.server.requests.append(body)
        reply = {"id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model"),
                 "content": [{"type": "text", "text": "民法第709条"}], "stop_reason": "end_turn",
                 "stop_sequence": None, "usage": {"input_tokens": 7, "output_tokens": 3}}
        if self.server.usage is None:
            return self._send(200, reply)
        text = json.dumps({**reply, "usage": None}, ensure_ascii=False).replace('"usage": null', '"usage": '
                                                                                 + self.server.usage)
        self._send(200, text.encode("utf-8"))

    def log_message(self, *args):
        pass


class FakeAnthropic(LoopbackServer):
    def __init__(self, key: str = "sk-ant-test", usage: str | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        super().__init__(_Handler, key=key, requests=self.requests, paths=self.paths, usage=usage)
