"""A small Ollama-API endpoint in front of an OpenAI-compatible llama.cpp server (tests and demos).

    with OllamaAPI("http://127.0.0.1:8080") as api:
        ollama.Client(host=api.url).chat(model="smollm2", messages=[...])

Ollama options become OpenAI ones (``num_predict`` -> ``max_tokens``, ``format`` ->
``response_format``, logprobs). ``num_ctx`` is only recorded, and refused (400) above the
upstream context size. Upstream HTTP errors keep their status code. With ``truncate=True``
a prompt longer than ``num_ctx`` loses its front silently, as Ollama's does
(:mod:`tests.support.ollama_truncation`; tokens counted by the upstream's ``/tokenize``).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Iterator

from auditpacks.core.io import sha256_file
from auditpacks.runner.serving.loopback import LoopbackServer
from tests.support.ollama_truncation import DEFAULT_NUM_CTX, truncate_front

VERSION = "0.6.3-auditpacks"
PASSTHROUGH_OPTIONS = ("temperature", "top_p", "top_k", "seed", "stop", "repeat_penalty", "min_p")
UPSTREAM_TIMEOUT_S = 3600.0


class UpstreamError(Exception):
    def __init__(self, status: int, text: str):
        super().__init__(text)
        self.status, self.text = status, text


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat()


def openai_request(body: dict, messages: list[dict]) -> dict:
    """The OpenAI chat-completions body for an Ollama chat/generate body."""
    options = body.get("options") or {}
    out: dict[str, Any] = {"model": body.get("model", ""), "messages": messages, "stream": body.get("stream", True)}
    if out["stream"]:
        out["stream_options"] = {"include_usage": True}
    out.update({key: options[key] for key in PASSTHROUGH_OPTIONS if key in options})
    if "num_predict" in options:
        out["max_tokens"] = options["num_predict"]
    fmt = body.get("format")
    if fmt == "json":
        out["response_format"] = {"type": "json_object"}
    elif isinstance(fmt, dict):
        out["response_format"] = {"type": "json_schema", "json_schema": {"name": "out", "schema": fmt}}
    for key in ("logprobs", "top_logprobs"):
        if body.get(key) is not None:
            out[key] = body[key]
    return out


def ollama_logprobs(choice: dict) -> list[dict]:
    """Ollama ``logprobs`` entries from an OpenAI choice's ``logprobs.content``."""
    def entry(item: dict) -> dict:
        return {"token": item.get("token", ""), "logprob": item.get("logprob", 0.0), "bytes": item.get("bytes")}

    content = (choice.get("logprobs") or {}).get("content") or []
    return [dict(entry(item), top_logprobs=[entry(alt) for alt in item.get("top_logprobs") or []]) for item in content]


def final_fields(finish_reason: str | None, usage: dict | None, timings: dict | None, started: float) -> dict:
    """The closing fields of an Ollama reply (durations in nanoseconds)."""
    usage, timings = usage or {}, timings or {}
    return {"done": True, "done_reason": finish_reason or "stop",
            "total_duration": int((time.monotonic() - started) * 1e9), "load_duration": 0,
            "prompt_eval_count": usage.get("prompt_tokens", 0),
            "prompt_eval_duration": int(timings.get("prompt_ms", 0) * 1e6),
            "eval_count": usage.get("completion_tokens", 0),
            "eval_duration": int(timings.get("predicted_ms", 0) * 1e6)}


class OllamaAPI:
    """Context manager serving the Ollama API on ``.url``; ``.requests`` holds every POSTed JSON body."""

    def __init__(self, upstream_root_url: str, model_name: str = "smollm2", port: int = 0, *,
                 model_path: str | Path | None = None, digest_text: str | None = None, family: str = "llama",
                 upstream_timeout: float = UPSTREAM_TIMEOUT_S, truncate: bool = False):
        self.upstream, self.truncate = upstream_root_url.rstrip("/"), truncate
        self.model_name, self.port, self.family, self.timeout = model_name, port, family, upstream_timeout
        self.model_path = Path(model_path) if model_path else None
        self.digest_text = digest_text or model_name
        self.requests: list[dict] = []
        self.requested_num_ctx: list[int | None] = []
        self.url: str | None = None
        self._server = LoopbackServer(_Handler, port, api=self)
        self._info: dict | None = None

    def __enter__(self) -> "OllamaAPI":
        self.url = self._server.start().url
        return self

    def __exit__(self, *exc) -> None:
        self._server.stop()

    # -- upstream ---------------------------------------------------------------------------
    def open_upstream(self, path: str, body: dict | None = None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.upstream + path, data=data, headers={"Content-Type": "application/json"})
        try:
            return urllib.request.urlopen(req, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            raise UpstreamError(exc.code, exc.read().decode("utf-8", "replace")) from None
        except (urllib.error.URLError, OSError) as exc:
            raise UpstreamError(502, f"upstream {self.upstream} unreachable: {exc}") from None

    def upstream_json(self, path: str, body: dict | None = None) -> dict:
        with self.open_upstream(path, body) as resp:
            return json.loads(resp.read().decode("utf-8"))

    def count_tokens(self, text: str) -> int:
        return len(self.upstream_json("/tokenize", {"content": text})["tokens"]) if text else 0

    def info(self) -> dict:
        """Model facts from upstream ``/props`` and ``/v1/models`` plus the digest (fetched once)."""
        if self._info is None:
            props = self.upstream_json("/props")
            meta = (self.upstream_json("/v1/models").get("data") or [{}])[0].get("meta") or {}
            if self.model_path:
                digest, size = sha256_file(self.model_path), self.model_path.stat().st_size
                modified = _dt.datetime.fromtimestamp(self.model_path.stat().st_mtime, _dt.timezone.utc).isoformat()
            else:
                digest = hashlib.sha256(self.digest_text.encode()).hexdigest()
                size, modified = meta.get("size", 0), _now()
            n_params = meta.get("n_params", 0)
            params = f"{n_params / 1e9:.1f}B" if n_params >= 1e9 else f"{n_params / 1e6:.0f}M"
            n_ctx = (props.get("default_generation_settings") or {}).get("n_ctx")
            if not isinstance(n_ctx, int):
                raise UpstreamError(502, f"upstream {self.upstream}/props gives no default_generation_settings.n_ctx")
            self._info = {
                "n_ctx": n_ctx, "template": props.get("chat_template", ""),
                "digest": digest, "size": size, "modified_at": modified, "n_params": n_params,
                "details": {"parent_model": "", "format": "gguf", "family": self.family, "families": [self.family],
                            "parameter_size": params,
                            "quantization_level": meta.get("ftype") or props.get("model_ftype", "")}}
        return self._info

    def model_entry(self, running: bool = False) -> dict:
        """An ``/api/tags`` entry, or with ``running`` an ``/api/ps`` one."""
        info = self.info()
        entry = {"name": self.model_name, "model": self.model_name, "modified_at": info["modified_at"],
                 "size": info["size"], "digest": info["digest"], "details": info["details"]}
        if running:
            entry.update(expires_at="2999-01-01T00:00:00+00:00", size_vram=0, context_length=info["n_ctx"])
        return entry

    def show(self) -> dict:
        info = self.info()
        return {"modelfile": f"FROM sha256-{info['digest']}\n", "parameters": f"num_ctx {info['n_ctx']}",
                "template": info["template"], "details": info["details"], "modified_at": info["modified_at"],
                "digest": info["digest"], "capabilities": ["completion"],
                "model_info": {"general.architecture": self.family, "general.parameter_count": info["n_params"],
                               f"{self.family}.context_length": info["n_ctx"]}}


def ollama_messages(body: dict, chat: bool) -> list[dict]:
    """OpenAI messages for an Ollama chat body, or for a generate body's ``system`` and ``prompt``."""
    if chat:
        return [{"role": m.get("role", "user"), "content": m.get("content", "")} for m in body.get("messages") or []]
    system = [{"role": "system", "content": body["system"]}] if body.get("system") else []
    return system + ([{"role": "user", "content": body["prompt"]}] if body.get("prompt") else [])


def _content(text: str, chat: bool) -> dict:
    return {"message": {"role": "assistant", "content": text}} if chat else {"response": text}


def _sse_chunks(resp) -> Iterator[dict]:
    for raw in resp:
        line = raw.decode("utf-8").strip()
        if line.startswith("data:") and line[5:].strip() != "[DONE]":
            yield json.loads(line[5:])


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "auditpacks-ollama"

    def log_message(self, *args) -> None:  # quiet
        pass

    @property
    def api(self) -> OllamaAPI:
        return self.server.api

    def _send(self, status: int, payload: Any, content_type: str = "application/json", head: bool = False) -> None:
        data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if not head:
            self.wfile.write(data)

    def do_HEAD(self) -> None:
        self._send(200 if self.path == "/" else 404, "", "text/plain", head=True)

    def do_GET(self) -> None:
        self._route({"/": lambda: self._send(200, "Ollama is running", "text/plain; charset=utf-8"),
                     "/api/version": lambda: self._send(200, {"version": VERSION}),
                     "/api/tags": lambda: self._send(200, {"models": [self.api.model_entry()]}),
                     "/api/ps": lambda: self._send(200, {"models": [self.api.model_entry(running=True)]})})

    def do_POST(self) -> None:
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            if not isinstance(body, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            return self._send(400, {"error": f"invalid JSON body: {exc}"})
        self.api.requests.append(body)
        self._route({"/api/show": lambda: self._send(200, self.api.show()),
                     "/api/chat": lambda: self._complete(body, chat=True),
                     "/api/generate": lambda: self._complete(body, chat=False)})

    def _route(self, routes: dict) -> None:
        try:
            routes.get(self.path, lambda: self._send(404, {"error": "not found"}))()
        except UpstreamError as exc:
            self._send(exc.status, {"error": exc.text})

    def _complete(self, body: dict, chat: bool) -> None:
        num_ctx = (body.get("options") or {}).get("num_ctx")
        self.api.requested_num_ctx.append(num_ctx)
        n_ctx = self.api.info()["n_ctx"]
        if num_ctx is not None and num_ctx > n_ctx:
            return self._send(400, {"error": f"num_ctx {num_ctx} exceeds the server context size {n_ctx}"})
        messages = ollama_messages(body, chat)
        if self.api.truncate:
            messages = truncate_front(messages, num_ctx or DEFAULT_NUM_CTX, self.api.count_tokens)
        head = {"model": body.get("model") or self.api.model_name, "created_at": _now()}
        if not messages:  # Ollama answers an empty request by loading the model
            return self._send(200, dict(head, done=True, done_reason="load", **_content("", chat)))
        started, request = time.monotonic(), openai_request(body, messages)
        with self.api.open_upstream("/v1/chat/completions", request) as resp:
            if request["stream"]:
                return self._stream(resp, head, body, chat, started)
            reply = json.loads(resp.read().decode("utf-8"))
        choice = (reply.get("choices") or [{}])[0]
        closing = final_fields(choice.get("finish_reason"), reply.get("usage"), reply.get("timings"), started)
        out = dict(head, **closing,
                   **_content((choice.get("message") or {}).get("content") or "", chat))
        if body.get("logprobs"):
            out["logprobs"] = ollama_logprobs(choice)
        self._send(200, out)

    def _stream(self, resp, head: dict, body: dict, chat: bool, started: float) -> None:
        """Relay upstream SSE deltas as chunked NDJSON lines, then a closing line with the usage."""
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        finish = usage = timings = None
        try:
            for chunk in _sse_chunks(resp):
                usage, timings = chunk.get("usage") or usage, chunk.get("timings") or timings
                for choice in chunk.get("choices") or []:
                    finish = choice.get("finish_reason") or finish
                    text = (choice.get("delta") or {}).get("content")
                    if text:
                        line = dict(head, created_at=_now(), done=False, **_content(text, chat))
                        if body.get("logprobs"):
                            line["logprobs"] = ollama_logprobs(choice)
                        self._chunk(line)
            closing = final_fields(finish, usage, timings, started)
            self._chunk(dict(head, created_at=_now(), **closing, **_content("", chat)))
        except ValueError as exc:
            self._chunk({"error": f"upstream sent a bad stream chunk: {exc}"})
        except OSError:  # client or upstream went away mid-stream
            self.close_connection = True
            return
        self.wfile.write(b"0\r\n\r\n")

    def _chunk(self, obj: dict) -> None:
        data = json.dumps(obj).encode() + b"\n"
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()
