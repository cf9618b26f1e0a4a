"""A scripted tool-calling OpenAI-compatible chat server on 127.0.0.1, for tests of the tool loop.

    with ScriptedToolServer(script) as server:   # script(request, n) -> message dict
        ... server.base_url, server.requests ...

``script`` gets each ``/v1/chat/completions`` request body and its 0-based number and returns the
assistant message: ``{"content": "..."}`` or ``{"tool_calls": [("name", "arguments text"), ...]}``
(or ``{"raw_tool_calls": [...]}``, sent as they are: malformed calls).
Every request is kept (``requests``) so a test can check exactly what the model was shown. With
``embed(text) -> vector`` it also answers ``/v1/embeddings`` (the texts in ``embedded``; each request's model and
``Authorization`` header in ``embed_calls``).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable

from auditpacks.runner.serving.loopback import LoopbackServer


def _message(reply: dict[str, Any], n: int) -> tuple[dict[str, Any], str]:
    if reply.get("raw_tool_calls"):
        return {"role": "assistant", "content": reply.get("content"), "tool_calls": reply["raw_tool_calls"]}, \
            "tool_calls"
    if reply.get("tool_calls"):
        calls = [{"id": f"call_{n}_{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
                 for i, (name, arguments) in enumerate(reply["tool_calls"])]
        return {"role": "assistant", "content": reply.get("content"), "tool_calls": calls}, "tool_calls"
    return {"role": "assistant", "content": reply.get("content", "")}, "stop"


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - the http.server name
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path.endswith("/embeddings"):
            with self.server.lock:
                self.server.embedded.append(body["input"][0])
                self.server.embed_calls.append((body.get("model"), self.headers.get("Authorization")))
            vector = self.server.embed(body["input"][0])
            return self._send({"object": "list", "model": body.get("model"), "usage": {"prompt_tokens": 1,
                               "total_tokens": 1}, "data": [{"object": "embedding", "index": 0, "embedding": vector}]})
        with self.server.lock:
            n = len(self.server.requests)
            self.server.requests.append(body)
        message, finish = _message(self.server.script(body, n), n)
        self._send({"id": f"chat-{n}", "object": "chat.completion", "created": 0, "model": body.get("model"),
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": {"prompt_tokens": 100 + n, "completion_tokens": 10 + n, "total_tokens": 110 + 2 * n}})

    def _send(self, data: dict) -> None:
        payload = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class ScriptedToolServer:
    def __init__(self, script: Callable[[dict, int], dict], embed: Callable[[str], list] | None = None) -> None:
        self.requests: list[dict] = []
        self.embedded: list[str] = []   # the texts sent to /embeddings (answered by ``embed``)
        self.embed_calls: list[tuple] = []   # (model, Authorization header) of each /embeddings request
        self._server = LoopbackServer(_Handler, script=script, requests=self.requests, lock=threading.Lock(),
                                      embed=embed, embedded=self.embedded, embed_calls=self.embed_calls)

    @property
    def base_url(self) -> str:
        return f"{self._server.url}/v1"

    def __enter__(self) -> "ScriptedToolServer":
        self._server.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.stop()
