"""A fake hosted provider on 127.0.0.1: OpenAI chat and Anthropic messages with prompt caching, OpenAI Batch and
Anthropic Message Batches.

    with FakeHosted() as server:
        server.base_url          # http://127.0.0.1:PORT/v1 (OpenAI SDK), server.url for the Anthropic SDK
        server.bill              # normalised tokens billed so far: input, cached_input, cache_write, output
        server.submitted         # batches created (OpenAI and Anthropic)
        server.chat_requests     # the bodies of every live chat (/v1/chat/completions) and message (/v1/messages)

Tokens are real (:mod:`tests.support.fake_tokens`: tiktoken's ``o200k_base`` for OpenAI, the
Claude tokenizer for Anthropic) plus 4 per message, and replies follow the prompt's answer format.
Prompt caching is simulated as the providers describe it: OpenAI reads the longest token prefix
that an earlier prompt with the same ``prompt_cache_key`` shared, when it is at least
``min_cache`` tokens, in 128-token steps past it, and reports it in
``usage.prompt_tokens_details.cached_tokens`` (inside ``prompt_tokens``); Anthropic caches the
prefix up to the block marked ``cache_control`` (writing it once, reading it after) and reports
``input_tokens`` without cache reads and writes. Batches
stay ``in_progress`` while ``hold`` is set and end at the next poll after; the first ``fail_first``
requests of each batch error, ``expire`` makes the next batch to end expire with no results.
``results_mode`` makes every results file hostile: ``endless`` (one line that never ends),
``endless_lines`` (the first request's result line repeated forever), ``garbage`` (the first line not
JSON, the second request's line JSON but not a result); an endless file stops by itself after
``endless_s`` seconds or 8 GiB.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from auditpacks.runner.serving.loopback import LoopbackServer, send_json
from tests.support.fake_tokens import TEMPLATE as MESSAGE_TOKENS, claude_tokens as tokens, openai_ids, reply
from tests.support.fake_tokens import text_of as _text

STEP = 128   # OpenAI's cache hits grow in 128-token increments past the minimum


def _common(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class FakeHosted:
    def __init__(self, *, min_cache: int = 1024) -> None:
        self.min_cache = min_cache
        self.bill = {"input": 0, "cached_input": 0, "cache_write": 0, "output": 0}
        self.seen: dict[str, list[list[int]]] = {}
        self.anthropic_cache: set[str] = set()
        self.files: dict[str, str] = {}
        self.results: dict[str, list[dict[str, Any]]] = {}   # output file id → its result lines
        self.batches: dict[str, dict[str, Any]] = {}
        self.submitted: list[str] = []
        self.chat_requests: list[dict[str, Any]] = []
        self.hold = threading.Event()
        self.fail_first = 0
        self.expire = False
        self.results_mode: str | None = None
        self.endless_s = 120.0
        self.lock = threading.Lock()
        self._server = LoopbackServer(_Handler, fake=self)
        self.url = self.base_url = ""

    def __enter__(self) -> "FakeHosted":
        self.url = self._server.start().url
        self.base_url = self.url + "/v1"
        return self

    def __exit__(self, *exc) -> None:
        self._server.stop()

    def _charge(self, **usage: int) -> None:
        for key, value in usage.items():
            self.bill[key] += value

    # -- OpenAI chat, prompt caching -------------------------------------------------------------------------

    def openai_chat(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        ids = [t for m in messages for t in (-1, -2, -3, *openai_ids(_text(m.get("content"))), -4)]
        prompt = len(ids)
        with self.lock:
            earlier = self.seen.setdefault(body.get("prompt_cache_key") or "", [])
            shared = max((_common(ids, e) for e in earlier), default=0)
            cached = self.min_cache + (shared - self.min_cache) // STEP * STEP if shared >= self.min_cache else 0
            earlier.append(ids)
            answer = reply(body.get("model", ""), messages)
            out = len(openai_ids(answer))
            self._charge(input=prompt, cached_input=cached, output=out)
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body.get("model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out,
                          "prompt_tokens_details": {"cached_tokens": cached}}}

    # -- Anthropic messages, cache_control -------------------------------------------------------------------

    def anthropic_message(self, params: dict[str, Any]) -> dict[str, Any]:
        system = params.get("system") or ""
        blocks = [b for m in params["messages"] for b in (m["content"] if isinstance(m["content"], list)
                                                          else [{"type": "text", "text": m["content"]}])]
        total = (MESSAGE_TOKENS + tokens(system) if system else 0) + MESSAGE_TOKENS * len(params["messages"]) \
            + sum(tokens(b["text"]) for b in blocks)
        marked = [i for i, b in enumerate(blocks) if b.get("cache_control")]
        read = write = 0
        with self.lock:
            if marked:
                prefix_blocks = blocks[:marked[-1] + 1]
                prefix = system + "\x00" + "\x00".join(b["text"] for b in prefix_blocks)
                size = (MESSAGE_TOKENS + tokens(system) if system else 0) + MESSAGE_TOKENS \
                    + sum(tokens(b["text"]) for b in prefix_blocks)
                if size >= self.min_cache:
                    if prefix in self.anthropic_cache:
                        read = size
                    else:
                        write = size
                        self.anthropic_cache.add(prefix)
            answer = reply(params.get("model", ""), params["messages"])
            out = tokens(answer)
            self._charge(input=total, cached_input=read, cache_write=write, output=out)
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": params.get("model"),
                "content": [{"type": "text", "text": answer}], "stop_reason": "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": total - read - write, "cache_creation_input_tokens": write,
                          "cache_read_input_tokens": read, "output_tokens": out}}

    # -- batches ---------------------------------------------------------------------------------------------

    def create_batch(self, kind: str, requests: list[dict[str, Any]]) -> dict[str, Any]:
        with self.lock:
            batch_id = f"{'msgbatch' if kind == 'anthropic' else 'batch'}_{len(self.batches) + 1}"
            self.batches[batch_id] = {"kind": kind, "requests": requests, "status": "in_progress", "results": None}
            self.submitted.append(batch_id)
        return self.batch_view(batch_id)

    def advance(self, batch_id: str) -> None:
        batch = self.batches[batch_id]
        if batch["status"] != "in_progress" or self.hold.is_set():
            return
        if self.expire:
            self.expire, batch["status"], batch["results"] = False, "expired", []
            return
        lines = []
        failing = {r["custom_id"] for r in batch["requests"][:self.fail_first]}
        for request in batch["requests"]:
            cid = request["custom_id"]
            if batch["kind"] == "openai":
                if cid in failing:
                    lines.append({"id": "r", "custom_id": cid, "response": {"status_code": 400, "body": {
                        "error": {"message": "invalid request", "type": "invalid_request_error"}}}, "error": None})
                else:
                    lines.append({"id": "r", "custom_id": cid, "error": None,
                                  "response": {"status_code": 200, "body": self.openai_chat(request["body"])}})
            elif cid in failing:
                lines.append({"custom_id": cid, "result": {"type": "errored", "error": {"type": "error", "error": {
                    "type": "invalid_request_error", "message": "invalid request"}}}})
            else:
                lines.append({"custom_id": cid, "result": {"type": "succeeded",
                                                           "message": self.anthropic_message(request["params"])}})
        batch["status"], batch["results"] = "completed", lines

    def batch_view(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        n, status, results = len(batch["requests"]), batch["status"], batch["results"] or []
        failed = sum(1 for r in results if (r.get("response") or {}).get("status_code", 200) != 200
                     or (r.get("result") or {}).get("type", "succeeded") != "succeeded")
        if batch["kind"] == "anthropic":
            ended = status != "in_progress"
            counts = {"processing": 0 if ended else n, "succeeded": len(results) - failed, "errored": failed,
                      "canceled": 0, "expired": n - len(results) if ended else 0}
            return {"id": batch_id, "type": "message_batch", "processing_status": "ended" if ended else "in_progress",
                    "request_counts": counts, "created_at": "2026-12-01T00:00:00Z",
                    "expires_at": "2026-12-02T00:00:00Z", "ended_at": "2026-12-01T01:00:00Z" if ended else None,
                    "cancel_initiated_at": None, "archived_at": None,
                    "results_url": f"{self.url}/v1/messages/batches/{batch_id}/results" if ended else None}
        output = f"file-out-{batch_id}" if status == "completed" else None
        if output:
            self.results[output] = results
        return {"id": batch_id, "object": "batch", "endpoint": "/v1/chat/completions", "input_file_id": "file-in",
                "completion_window": "24h", "status": status, "created_at": 0, "output_file_id": output,
                "error_file_id": None,
                "request_counts": {"total": n, "completed": len(results) - failed, "failed": failed}}


def _results_text(fake: "FakeHosted", lines: list[dict[str, Any]]) -> str:
    if fake.results_mode == "garbage" and len(lines) > 1:
        lines = ["{not json", {"custom_id": lines[1]["custom_id"], "response": "oops", "result": "oops"}, *lines[2:]]
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in lines)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    @property
    def fake(self) -> FakeHosted:
        return self.server.fake

    def _send(self, status: int, payload: Any, *, raw: str | None = None) -> None:
        send_json(self, status, raw.encode() if raw is not None else payload)

    def _endless(self, first: str) -> None:
        """A results file that never ends (until ``endless_s`` or 8 GiB): one line, or ``first`` over and over."""
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        chunk = (first.encode() * max(1, (1 << 20) // max(len(first), 1))) if first else b"x" * (1 << 20)
        until, sent = time.monotonic() + self.fake.endless_s, 0
        try:
            while time.monotonic() < until and sent < 8 << 30:
                self.wfile.write(chunk)
                sent += len(chunk)
        except OSError:
            pass

    def _results(self, lines: list[dict[str, Any]]) -> None:
        if self.fake.results_mode in ("endless", "endless_lines"):
            return self._endless(json.dumps(lines[0]) + "\n" if self.fake.results_mode == "endless_lines" else "")
        self._send(200, None, raw=_results_text(self.fake, lines))

    def do_GET(self) -> None:
        parts = self.path.split("?")[0].strip("/").split("/")
        if parts == ["v1", "models"]:   # Anthropic's model list (the check before a run)
            return self._send(200, {"data": [{"type": "model", "id": "claude-test", "display_name": "Claude test",
                                              "created_at": "2025-01-01T00:00:00Z"}], "has_more": False,
                                    "first_id": "claude-test", "last_id": "claude-test"})
        if parts[:2] == ["v1", "batches"] and parts[2] in self.fake.batches:
            self.fake.advance(parts[2])
            return self._send(200, self.fake.batch_view(parts[2]))
        if parts[:2] == ["v1", "files"] and parts[-1] == "content" and parts[2] in self.fake.results:
            return self._results(self.fake.results[parts[2]])
        if parts[:2] == ["v1", "files"] and parts[-1] == "content" and parts[2] in self.fake.files:
            return self._send(200, None, raw=self.fake.files[parts[2]])
        if parts[:3] == ["v1", "messages", "batches"] and parts[3] in self.fake.batches:
            if parts[-1] == "results":
                return self._results(self.fake.batches[parts[3]]["results"] or [])
            self.fake.advance(parts[3])
            return self._send(200, self.fake.batch_view(parts[3]))
        self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path = self.path.split("?")[0].rstrip("/")
        if path == "/v1/chat/completions":
            body = json.loads(raw)
            self.fake.chat_requests.append(body)
            return self._send(200, self.fake.openai_chat(body))
        if path == "/v1/messages":
            body = json.loads(raw)
            self.fake.chat_requests.append(body)
            return self._send(200, self.fake.anthropic_message(body))
        if path == "/v1/files":
            content = _multipart_file(raw, self.headers.get("Content-Type", ""))
            file_id = f"file-{len(self.fake.files) + 1}"
            self.fake.files[file_id] = content
            return self._send(200, {"id": file_id, "object": "file", "bytes": len(content), "created_at": 0,
                                    "filename": "batch.jsonl", "purpose": "batch", "status": "processed"})
        if path == "/v1/batches":
            body = json.loads(raw)
            lines = [json.loads(line) for line in self.fake.files[body["input_file_id"]].splitlines() if line.strip()]
            return self._send(200, self.fake.create_batch("openai", lines))
        if path == "/v1/messages/batches":
            return self._send(200, self.fake.create_batch("anthropic", json.loads(raw)["requests"]))
        self._send(404, {"error": {"message": f"no route {self.path}"}})


def _multipart_file(raw: bytes, content_type: str) -> str:
    """The uploaded file's text from a multipart/form-data body."""
    boundary = content_type.split("boundary=", 1)[1].strip('"').encode()
    for part in raw.split(b"--" + boundary):
        if b'name="file"' in part:
            return part.split(b"\r\n\r\n", 1)[1].rsplit(b"\r\n", 1)[0].decode("utf-8")
    raise ValueError("no file part")
