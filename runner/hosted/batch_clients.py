"""The providers' batch APIs: OpenAI Batch and Anthropic Message Batches, through their own SDKs.

Each client does three things: :meth:`submit` a list of ``(custom_id, body)`` requests as one
batch and return its id; :meth:`poll` a batch (:class:`BatchState`: ended or not, requests done
and total); :meth:`results` of an ended batch, as ``custom_id → Reply`` (the reply's tokens
normalised by :mod:`runner.models.usage`) or ``custom_id → str`` (why that request has no reply:
its error, or the batch's expiry). The SDKs' own retries are left on: a batch call is cheap and
idempotent except :meth:`submit`, which the caller logs before it polls.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any, Iterable

from auditpacks.runner.models.reply import Reply
from auditpacks.runner.models.usage import from_anthropic, from_openai


@dataclass
class BatchState:
    ended: bool
    done: int
    total: int
    status: str


def reply_of(message: dict[str, Any], usage: Any) -> Reply:
    return Reply(content=message.get("content") or "", input_tokens=usage.input, output_tokens=usage.output,
                 finish_reason=message.get("finish_reason"), cached_input_tokens=usage.cached_input or None,
                 cache_write_tokens=usage.cache_write or None)


class OpenAIBatches:
    """``/v1/files`` (purpose ``batch``) and ``/v1/batches`` over ``/v1/chat/completions``."""

    provider = "openai"
    ENDED = ("completed", "failed", "expired", "cancelled")

    def __init__(self, *, base_url: str, api_key: str, timeout: float | None = None) -> None:
        import openai

        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout)

    def submit(self, requests: Iterable[tuple[str, dict[str, Any]]]) -> str:
        lines = "".join(json.dumps({"custom_id": cid, "method": "POST", "url": "/v1/chat/completions", "body": body},
                                   ensure_ascii=False) + "\n" for cid, body in requests)
        upload = self.client.files.create(file=("batch.jsonl", io.BytesIO(lines.encode("utf-8"))), purpose="batch")
        batch = self.client.batches.create(input_file_id=upload.id, endpoint="/v1/chat/completions",
                                           completion_window="24h")
        return batch.id

    def poll(self, batch_id: str) -> BatchState:
        batch = self.client.batches.retrieve(batch_id)
        counts = batch.request_counts
        return BatchState(ended=batch.status in self.ENDED, done=(counts.completed + counts.failed) if counts else 0,
                          total=counts.total if counts else 0, status=batch.status)

    def results(self, batch_id: str, custom_ids: list[str]) -> dict[str, Reply | str]:
        batch = self.client.batches.retrieve(batch_id)
        out: dict[str, Reply | str] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                for line in self.client.files.content(file_id).text.splitlines():
                    if line.strip():
                        cid, answer = self._line(json.loads(line))
                        out[cid] = answer
        for cid in custom_ids:
            out.setdefault(cid, f"no result: the batch {batch.status}")
        return out

    @staticmethod
    def _line(entry: dict[str, Any]) -> tuple[str, Reply | str]:
        response, error = entry.get("response") or {}, entry.get("error")
        body = response.get("body") or {}
        if error or response.get("status_code") != 200:
            message = (error or body.get("error") or {}).get("message") or f"HTTP {response.get('status_code')}"
            return entry["custom_id"], f"batch request failed: {message}"
        choice = body["choices"][0]
        return entry["custom_id"], reply_of({"content": choice["message"].get("content"),
                                             "finish_reason": choice.get("finish_reason")},
                                            from_openai(body.get("usage")))


class AnthropicBatches:
    """``/v1/messages/batches``: create, retrieve and the JSONL results."""

    provider = "anthropic"

    def __init__(self, *, base_url: str | None, api_key: str, timeout: float | None = None) -> None:
        import anthropic

        self.client = anthropic.Anthropic(base_url=base_url, api_key=api_key, timeout=timeout)

    def submit(self, requests: Iterable[tuple[str, dict[str, Any]]]) -> str:
        batch = self.client.messages.batches.create(requests=[{"custom_id": cid, "params": body}
                                                              for cid, body in requests])
        return batch.id

    def poll(self, batch_id: str) -> BatchState:
        batch = self.client.messages.batches.retrieve(batch_id)
        c = batch.request_counts
        done = c.succeeded + c.errored + c.canceled + c.expired
        return BatchState(ended=batch.processing_status == "ended", done=done, total=done + c.processing,
                          status=batch.processing_status)

    def results(self, batch_id: str, custom_ids: list[str]) -> dict[str, Reply | str]:
        out: dict[str, Reply | str] = {}
        for entry in self.client.messages.batches.results(batch_id):
            result = entry.result
            if result.type != "succeeded":
                error = getattr(getattr(result, "error", None), "error", None)
                out[entry.custom_id] = f"batch request {result.type}" + (f": {error.message}" if error else "")
                continue
            message = result.message
            text = "".join(block.text for block in message.content if block.type == "text")
            out[entry.custom_id] = reply_of({"content": text, "finish_reason": "length" if message.stop_reason
                                             == "max_tokens" else "stop"}, from_anthropic(message.usage))
        for cid in custom_ids:
            out.setdefault(cid, "no result: the batch ended without it")
        return out
