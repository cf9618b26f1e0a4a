"""A fast, deterministic fake OpenAI-compatible chat server on 127.0.0.1, with fault injection.

    with FakeOpenAI(fault_rate=0.2, seed=1) as server:
        ... point a client at server.base_url (http://127.0.0.1:PORT/v1) ...
        server.calls            # Counter: requests per distinct message list (one "call")
        server.chat_requests    # all POST /v1/chat/completions

The answer depends only on the request's messages (and the model name), so two runs
against it give identical transcripts. For a decision prompt rendered by simpleaudit
(``Options:`` followed by ``- key: text`` lines) it answers one of the option keys.

Faults are drawn per (messages, attempt number) from a seeded RNG, so a retried call
sees a fresh draw and the whole fault pattern repeats exactly from run to run:
``500`` (HTTP 500; with ``echo_key`` its message repeats the Authorization header), ``429`` (with ``Retry-After``), ``timeout`` (answers after
``stall_s`` seconds), ``reset`` (TCP reset, nothing sent) and ``truncated`` (HTTP 200
with half a JSON body). While ``loading`` is set, every request but ``/health`` gets HTTP 503, as
llama.cpp answers while it loads its model; ``served`` is the ``/v1/models`` entry. ``kill_at`` names chat-request numbers at which the process
``kill_pid`` is sent SIGKILL (before answering, or just after, alternately). With ``hold``
(an Event) set as well, reaching a kill point sets ``holding`` and stalls every chat request
until ``hold`` is set, so a test can act while the doomed process is still alive.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import signal
import socket
import struct
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable

from auditpacks.runner.serving.loopback import LoopbackServer

FAULT_KINDS = ("500", "429", "timeout", "reset", "truncated")
_OPTION = re.compile(r"^- ([A-Za-z0-9_]+):", re.M)


def message_key(messages: list[dict[str, Any]]) -> str:
    """The identity of one call: a hash of its full message list."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:16]


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content or "")


def default_answer(model: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """An option key picked by hashing the prompt (or a fixed sentence when there are no options)."""
    prompt = _text(messages[-1].get("content"))
    digest = int(hashlib.sha256((model + prompt).encode()).hexdigest(), 16)
    options = _OPTION.findall(prompt)
    if options:
        return {"content": f"{options[digest % len(options)]}\nThe documents point that way."}
    return {"content": f"Answer {digest % 1000}."}


class FakeOpenAI:
    """Context manager serving ``/v1/models`` and ``/v1/chat/completions`` on a free port."""

    def __init__(self, *, answer: Callable[[str, list], dict] = default_answer, fault_rate: float = 0.0,
                 faults: tuple[str, ...] = FAULT_KINDS, seed: int = 0, stall_s: float = 2.0,
                 retry_after: str = "0", kill_at: set[int] | None = None, kill_pid: int | None = None,
                 echo_key: bool = False, n_ctx: int = 8192):
        self.answer, self.fault_rate, self.faults, self.seed = answer, fault_rate, faults, seed
        self.stall_s, self.retry_after = stall_s, retry_after
        self.kill_at, self.kill_pid = set(kill_at or ()), kill_pid
        self.echo_key, self.n_ctx = echo_key, n_ctx
        self.loading = False
        self.served: dict[str, Any] = {"id": "fake", "object": "model", "created": 0,
                                       "meta": {"n_params": 1000, "size": 10}}
        self.hold: threading.Event | None = None
        self.holding = threading.Event()
        self.calls: Counter[str] = Counter()
        self.faults_sent: Counter[str] = Counter()
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.chat_requests = 0
        self.other_requests = 0
        self.kills = 0
        self.dead = False
        self._lock = threading.Lock()
        self._server = LoopbackServer(_Handler, fake=self)
        self.url = self.base_url = ""

    def __enter__(self) -> "FakeOpenAI":
        self.url = self._server.start().url
        self.base_url = self.url + "/v1"
        return self

    def __exit__(self, *exc) -> None:
        self._server.stop()

    def go_down(self) -> None:
        """Die as a crashed server does: refuse new connections and reset every open one."""
        self.dead = True
        self._server.stop()

    def reset_counts(self) -> None:
        with self._lock:
            self.calls.clear()
            self.faults_sent.clear()
            self.bodies.clear()
            self.headers.clear()
            self.chat_requests = self.other_requests = 0

    def plan(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, str | None, str | None]:
        """Count the request; return (request number, fault kind or None, kill mode or None)."""
        key = message_key(body.get("messages") or [])
        with self._lock:
            self.chat_requests += 1
            number = self.chat_requests
            self.calls[key] += 1
            attempt = self.calls[key]
            self.bodies.append(body)
            self.headers.append(headers)
            fault = None
            rng = random.Random(f"{self.seed}:{key}:{attempt}")
            if self.fault_rate and rng.random() < self.fault_rate:
                fault = rng.choice(self.faults)
                self.faults_sent[fault] += 1
            kill = None
            if self.kill_pid and number in self.kill_at:
                self.kills += 1
                kill = "before" if self.kills % 2 else "after"
        return number, fault, kill

    def kill(self, delay: float = 0.0) -> None:
        def go() -> None:
            try:
                os.kill(self.kill_pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if delay:
            threading.Timer(delay, go).start()
        else:
            go()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # headers and body go out in two writes: without this, Nagle's algorithm and the client's
        # delayed ACK hold every answer back by about 40 ms
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *args) -> None:
        pass

    @property
    def fake(self) -> FakeOpenAI:
        return self.server.fake

    def _json(self, status: int, payload: Any, extra: dict[str, str] | None = None, cut: bool = False) -> None:
        data = json.dumps(payload).encode()
        if cut:
            data = data[: len(data) // 2]
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _reset(self) -> None:
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def do_GET(self) -> None:
        if self.fake.dead:
            return self._reset()
        with self.fake._lock:
            self.fake.other_requests += 1
        if self.fake.loading:
            return self._json(503, {"error": {"message": "Loading model", "type": "unavailable_error"}})
        if self.path.rstrip("/") == "/v1/models":
            served = {**self.fake.served, "created": int(time.time())}  # as vLLM and llama.cpp: the request's time
            return self._json(200, {"object": "list", "data": [served]})
        if self.path == "/props":  # llama.cpp's, so an Ollama-API adapter can sit in front
            return self._json(200, {"default_generation_settings": {"n_ctx": self.fake.n_ctx}, "chat_template": ""})
        self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if self.fake.dead:
            return self._reset()
        if self.fake.loading:
            return self._json(503, {"error": {"message": "Loading model", "type": "unavailable_error"}})
        if self.path.rstrip("/") != "/v1/chat/completions":
            with self.fake._lock:
                self.fake.other_requests += 1
            if self.path == "/tokenize":  # llama.cpp's; here a token is a whitespace-separated word
                return self._json(200, {"tokens": [0] * len(str(body.get("content") or "").split())})
            return self._json(404, {"error": {"message": "not found"}})
        number, fault, kill = self.fake.plan(body, {k.lower(): v for k, v in self.headers.items()})
        if kill:
            self.fake.holding.set()
        if self.fake.hold is not None and self.fake.holding.is_set():
            self.fake.hold.wait(120)
        if kill == "before":
            self.fake.kill()
            time.sleep(0.05)
        if fault == "reset":
            return self._reset()
        if fault == "500":
            echo = f" (you sent {self.headers.get('Authorization')})" if self.fake.echo_key else ""
            return self._json(500, {"error": {"message": "injected failure" + echo, "type": "server_error"}})
        if fault == "429":
            return self._json(429, {"error": {"message": "slow down"}}, {"Retry-After": self.fake.retry_after})
        if fault == "timeout":
            time.sleep(self.fake.stall_s)
        reply = self.fake.answer(body.get("model", ""), body.get("messages") or [])
        message = {"role": "assistant", "content": reply.get("content")}
        if reply.get("reasoning_content") is not None:
            message["reasoning_content"] = reply["reasoning_content"]
        prompt_tokens = sum(len(_text(m.get("content")).split()) for m in body.get("messages") or []) + 5
        payload = {
            "id": f"chatcmpl-{number}", "object": "chat.completion", "created": 0, "model": body.get("model", ""),
            "choices": [{"index": 0, "message": message, "finish_reason": reply.get("finish_reason", "stop")}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(str(reply.get("content")).split()),
                      "total_tokens": 0},
        }
        try:
            self._json(200, payload, cut=fault == "truncated")
        except OSError:
            return
        if kill == "after":
            self.fake.kill(delay=0.002 * (number % 7))
