"""The providers' batch APIs: OpenAI Batch and Anthropic Message Batches, through their own SDKs.

Each client does three things: :meth:`submit` a list of ``(custom_id, body)`` requests as one
batch and return its id; :meth:`poll` a batch (:class:`BatchState`: ended or not, requests done
and total); :meth:`results` of an ended batch, as ``custom_id → Reply`` (the reply's tokens
normalised by :mod:`runner.models.usage`) or ``custom_id → str`` (why that request has no reply:
its error, or the batch's expiry). The SDKs' own retries are left on: a batch call is cheap and
idempotent except :meth:`submit`, which the caller logs before it polls.

Every byte comes through :func:`auditpacks.core.bounded.http.streamed_client`: an API reply under
the reply cap, a results file read as a stream (:func:`read_results`), each line at most the reply
cap, the file at most :data:`MAX_RESULTS_BYTES`, within the time-out. A line that cannot be read
(not JSON, not a result, over the cap) is recorded against its request when its ``custom_id`` can
be found in it, else against the requests left without a result: those requests are errors, never
the whole batch, and a later run submits them again.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

import httpx

from auditpacks.core.bounded import http as bounded_http
from auditpacks.core.bounded.lines import LinesTooLarge, Overlong, capped_lines, size_text
from auditpacks.core.errors import FormatError
from auditpacks.core.io import parse_json
from auditpacks.runner.models.reply import Reply
from auditpacks.runner.models.usage import from_anthropic, from_openai

#: The largest results file read for one batch (``AUDITPACKS_MAX_BATCH_BYTES`` overrides it): 10,000
#: replies of a few kilobytes each are some 50 MB.
MAX_RESULTS_BYTES = 256 * 2**20
MAX_RESULTS_VARIABLE = "AUDITPACKS_MAX_BATCH_BYTES"
_CUSTOM_ID = re.compile(rb'"custom_id"\s*:\s*"([A-Za-z0-9_.:-]{1,200})"')
_UNREADABLE = (FormatError, ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError)


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


def max_results_bytes() -> int:
    value = os.environ.get(MAX_RESULTS_VARIABLE, "")
    return int(value) if value.isdigit() and int(value) > 0 else MAX_RESULTS_BYTES


def http_client(base_url: str | None, timeout: float | None):
    """The SDKs' HTTP client: replies under the reply cap, results files streamed under theirs (the transport's
    own cap a little above, so that :func:`read_results` names the limit first)."""
    return bounded_http.streamed_client(base_url, timeout=timeout, download_bytes=max_results_bytes() + 2**20)


def _custom_id(entry: Any, line: bytes) -> str | None:
    cid = entry.get("custom_id") if isinstance(entry, Mapping) else None
    if isinstance(cid, str):
        return cid
    found = _CUSTOM_ID.search(line[:8192])
    return found.group(1).decode() if found else None


def read_results(chunks: Iterable[bytes], *, source: str, custom_ids: list[str],
                 parse: Callable[[Mapping[str, Any]], tuple[str, Reply | str]]) -> tuple[dict[str, Reply | str], str]:
    """``custom_id → Reply or why not`` from a results file's lines (``parse``: one line's entry; see the module
    doc for lines that cannot be read), and a note on what may be missing (the cap reached, lines unread)."""
    wanted, out, unread, note = set(custom_ids), {}, [], ""
    max_line = bounded_http.max_reply_bytes()
    try:
        for number, line in enumerate(capped_lines(chunks, source=source, max_line=max_line,
                                                   max_total=max_results_bytes(), hint=MAX_RESULTS_VARIABLE), 1):
            if isinstance(line, Overlong):
                why, entry, raw = f"line {number} is over the {size_text(max_line)} cap on a line", None, line.head
            elif not line.strip():
                continue
            else:
                why, entry, raw = None, None, line
                try:
                    entry = parse_json(line, f"{source} line {number}")
                    cid, answer = parse(entry)
                    if not isinstance(cid, str):
                        raise TypeError("custom_id is not a string")
                except _UNREADABLE as exc:
                    why = f"line {number} is not a result line ({type(exc).__name__}: {str(exc)[:120]})"
            if why is None:
                if cid in wanted:
                    out[cid] = answer
                continue
            cid = _custom_id(entry, raw)
            if cid in wanted:
                out[cid] = f"batch result unreadable: {source} {why}"
            else:
                unread.append(why)
    except (LinesTooLarge, bounded_http.BudgetExceeded, bounded_http.DeadlineExceeded) as exc:
        note = f"{source}: {exc}" if isinstance(exc, httpx.HTTPError) else str(exc)
    if unread:
        note = "; ".join(filter(None, [note, f"{source}: {len(unread)} line(s) not read as results ({unread[0]})"]))
    if note:
        print(f"auditpacks: warning: {note}", file=sys.stderr)
    return out, note


def completed(out: dict[str, Reply | str], custom_ids: list[str], ended: str,
              notes: list[str]) -> dict[str, Reply | str]:
    """``out`` with every request it lacks marked ``no result``: ``ended`` and the ``notes`` of the read."""
    why = "; ".join([ended, *filter(None, notes)])
    for cid in custom_ids:
        out.setdefault(cid, f"no result: {why}")
    return out


class OpenAIBatches:
    """``/v1/files`` (purpose ``batch``) and ``/v1/batches`` over ``/v1/chat/completions``."""

    provider = "openai"
    ENDED = ("completed", "failed", "expired", "cancelled")

    def __init__(self, *, base_url: str, api_key: str, timeout: float | None = None) -> None:
        import openai

        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout,
                                    http_client=http_client(base_url, timeout))

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
        notes = []
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                with self.client.files.with_streaming_response.content(file_id) as response:
                    found, note = read_results(response.iter_bytes(), source=f"batch {batch_id} results file "
                                               f"{file_id}", custom_ids=custom_ids, parse=self._line)
                out.update(found)
                notes.append(note)
        return completed(out, custom_ids, f"the batch {batch.status}", notes)

    @staticmethod
    def _line(entry: Mapping[str, Any]) -> tuple[str, Reply | str]:
        response, error = entry.get("response") or {}, entry.get("error")
        body = response.get("body") or {}
        if error or response.get("status_code") != 200:
            message = (error or body.get("error") or {}).get("message") or f"HTTP {response.get('status_code')}"
            return entry["custom_id"], f"batch request failed: {str(message)[:500]}"
        choice = body["choices"][0]
        return entry["custom_id"], reply_of({"content": _text(choice["message"].get("content")),
                                             "finish_reason": choice.get("finish_reason")},
                                            from_openai(body.get("usage")))


class AnthropicBatches:
    """``/v1/messages/batches``: create, retrieve and the JSONL results."""

    provider = "anthropic"

    def __init__(self, *, base_url: str | None, api_key: str, timeout: float | None = None) -> None:
        import anthropic

        self.client = anthropic.Anthropic(base_url=base_url, api_key=api_key, timeout=timeout,
                                          http_client=http_client(base_url, timeout))

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
        lines = self.client.messages.batches.results(batch_id)  # the SDK's decoder, over a stream not yet read
        try:
            found, note = read_results(lines.http_response.iter_bytes(), source=f"batch {batch_id} results file",
                                       custom_ids=custom_ids, parse=self._line)
        finally:
            lines.close()
        return completed(found, custom_ids, "the batch ended without it", [note])

    @staticmethod
    def _line(entry: Mapping[str, Any]) -> tuple[str, Reply | str]:
        result = entry["result"]
        if result["type"] != "succeeded":
            error = ((result.get("error") or {}).get("error") or {}).get("message")
            return entry["custom_id"], f"batch request {result['type']}" + (f": {str(error)[:500]}" if error else "")
        message = result["message"]
        text = "".join(_text(block["text"]) for block in message["content"] if block.get("type") == "text")
        return entry["custom_id"], reply_of({"content": text, "finish_reason": "length" if message.get("stop_reason")
                                             == "max_tokens" else "stop"}, from_anthropic(message.get("usage")))


def _text(value: Any) -> str:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"content is {type(value).__name__}, not text")
    return value or ""
