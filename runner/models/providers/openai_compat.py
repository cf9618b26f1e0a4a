"""The OpenAI-compatible provider: one ``/chat/completions`` request in, one reply out.

The ``openai`` SDK's own retries are off (``max_retries=0``); the
:class:`~auditpacks.runner.models.model.Model` around this provider is the only retry
layer, and the only cache. Reasoning (``reasoning_content``/``reasoning`` fields) is
kept apart from the answer. With ``slot_pinning`` (llama.cpp only) a request that names
its group's lane carries that lane's ``id_slot`` (:mod:`runner.models.providers.slots`); it is
never part of the cache key. A llama.cpp server's ``timings`` (``prompt_n`` tokens
evaluated, ``cache_n`` reused) are summed over the requests actually sent, for the run file.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from importlib.metadata import version
from typing import Any, Callable, Mapping

from auditpacks.core.bounded import http as bounded_http
from auditpacks.core.numbers import token_count
from auditpacks.runner.models.model import ModelAPI
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.models.usage import from_openai
from auditpacks.runner.models.providers import slots

USER_AGENT = f"auditpacks simpleaudit/{version('simpleaudit')}"


class ErrorReply(Exception):
    """An HTTP 200 whose body is an error, not a completion (some gateways answer so); the server's message."""


def _error_message(completion: Any) -> str:
    error = (getattr(completion, "model_extra", None) or {}).get("error")
    message = error.get("message") if isinstance(error, Mapping) else error
    text = (str(message).strip().splitlines() or [""])[0][:300] if message else ""
    return f"HTTP 200 without a reply: the server says {text!r}" if text else \
        "HTTP 200 without a reply: no choices and no error message"


def reply_from_completion(completion: Any) -> Reply:
    """The parts of a chat completion we keep (and cache); a body without choices is :class:`ErrorReply`."""
    choices = getattr(completion, "choices", None)
    if not choices:
        raise ErrorReply(_error_message(completion))
    choice = choices[0]
    message = choice.message
    extra = getattr(message, "model_extra", None) or {}
    reasoning = extra.get("reasoning_content") or extra.get("reasoning")
    usage = getattr(completion, "usage", None)
    tokens = from_openai(usage)
    calls = [tool_call(c, i) for i, c in enumerate(getattr(message, "tool_calls", None) or [])]
    return Reply(content=message.content or "", reasoning=reasoning if isinstance(reasoning, str) else None,
                 input_tokens=getattr(usage, "prompt_tokens", None),
                 output_tokens=getattr(usage, "completion_tokens", None), finish_reason=choice.finish_reason,
                 cached_input_tokens=tokens.cached_input or None, cache_write_tokens=tokens.cache_write or None,
                 tool_calls=calls or None, served_model=getattr(completion, "model", None))


#: The longest tool-call arguments kept (characters); longer ones are cut, with their true length beside them.
MAX_TOOL_ARGUMENT_CHARS = 16_000


def tool_call(call: Any, index: int) -> dict[str, Any]:
    """One tool call as a reply keeps it, ``{"id", "name", "arguments"}``, whatever the server sent: a call
    without ``function`` has name None, arguments that are not text become JSON text, and arguments over
    :data:`MAX_TOOL_ARGUMENT_CHARS` are cut with ``arguments_chars`` (their true length) beside them."""
    function = getattr(call, "function", None)
    name = getattr(function, "name", None)
    arguments = getattr(function, "arguments", None)
    if arguments is not None and not isinstance(arguments, str):
        try:
            arguments = json.dumps(arguments, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            arguments = repr(arguments)[:MAX_TOOL_ARGUMENT_CHARS + 1]
    out = {"id": str(getattr(call, "id", None) or f"call_{index}")[:100],
           "name": name[:200] if isinstance(name, str) else None, "arguments": arguments or ""}
    if len(out["arguments"]) > MAX_TOOL_ARGUMENT_CHARS:
        out["arguments_chars"] = len(out["arguments"])
        out["arguments"] = out["arguments"][:MAX_TOOL_ARGUMENT_CHARS]
    return out


def cache_key_of(group: str) -> str:
    """The ``prompt_cache_key`` of a document: a short hash of its key (no document text leaves in it)."""
    return "doc-" + hashlib.sha256(group.encode("utf-8")).hexdigest()[:24]


class OpenAIChatAPI(ModelAPI):
    """``base_url``'s ``/chat/completions`` through the ``openai`` AsyncClient."""

    facts_optional = True

    def __init__(self, *, model: str, base_url: str, api_key: str, timeout: float | None = None,
                 identity: Mapping[str, Any] | None = None, token_param: str = "max_tokens",
                 preflight: Callable[[], None] | None = None, slot_pinning: bool = False,
                 prompt_cache_key: bool = False, max_bytes: int | None = None) -> None:
        self.model, self.base_url, self.timeout, self.max_bytes = model, base_url.rstrip("/"), timeout, max_bytes
        self.identity = dict(identity or {"base_url": self.base_url})
        # an endpoint of no given identity is known by the model it serves, so replicas share replies
        self.needs_facts, self.address = identity is None, self.base_url
        self.token_param, self.slot_pinning = token_param, slot_pinning
        self.prompt_cache_key = prompt_cache_key   # send each document's key, so its requests meet its cached prefix
        self.server_tokens = {"requests": 0, "prompt_n": 0, "cache_n": 0}
        self.secret = api_key
        self._preflight = preflight
        self._checked: asyncio.Future | None = None
        self._slots: asyncio.Future | None = None
        self._client = None

    def prepare(self) -> dict[str, Any]:
        """The served model (``GET {base}/models``: its ``id`` and ``meta``); {} when the server does not tell."""
        from auditpacks.runner.models.providers.checks import served_model

        served = served_model(self.base_url, self.secret, self.model, timeout=min(self.timeout or 10.0, 10.0))
        return {"served_model": served} if served else {}

    def check(self, *, who: str | None = None, hint: str = "") -> None:
        """``GET {base}/models`` with the key: nothing listening, or the key refused, is one line."""
        from auditpacks.runner.models.providers.checks import check_openai

        check_openai(self.base_url, self.secret, who=who, hint=hint)

    def build(self, request: Request) -> dict[str, Any]:
        body = {k: v for k, v in request.params.items() if k not in ("extra_headers", "model", "messages", "stream")}
        if "max_tokens" in body and self.token_param != "max_tokens":
            body[self.token_param] = body.pop("max_tokens")
        if request.response_format:
            body["response_format"] = dict(request.response_format)
        if self.prompt_cache_key and request.group:
            body["prompt_cache_key"] = cache_key_of(request.group)
        return {"model": self.model, "messages": request.messages, **body}

    def cache_key(self, body: Mapping[str, Any], request: Request) -> dict[str, Any]:
        """The served model (``prepare``), else the endpoint, the messages and the decoding parameters."""
        served = (self.facts or {}).get("served_model") if self.needs_facts else None
        return self._key(body, request, {"served_model": served} if served else self.identity)

    def old_cache_key(self, body: Mapping[str, Any], request: Request) -> dict[str, Any] | None:
        """Before the served model named the reply, its endpoint's URL did."""
        served = (self.facts or {}).get("served_model") if self.needs_facts else None
        return self._key(body, request, self.identity) if served else None

    def _key(self, body: Mapping[str, Any], request: Request, identity: Mapping[str, Any]) -> dict[str, Any]:
        params = {k: v for k, v in body.items() if k not in ("model", "messages", "prompt_cache_key")}
        key = {"api": "openai-chat", "model": self.model, **identity, "messages": body["messages"],
               "params": params, "repeat": request.repeat}
        if request.prompt_order:  # stock keys stay as they were, so older caches still answer
            key["prompt_order"] = request.prompt_order
        return key

    async def before_call(self) -> None:
        """Run the deferred reachability check once, before the first request (cache runs only)."""
        if self._preflight is None:
            return
        if self._checked is None:
            self._checked = asyncio.ensure_future(asyncio.to_thread(self._preflight))
        await asyncio.shield(self._checked)

    async def call(self, body: dict[str, Any], request: Request) -> Reply:
        extra = await self._slot_body(request.lane)
        completion = await self.client.chat.completions.create(**body, stream=False,
                                                               extra_headers=dict(request.headers) or None,
                                                               extra_body=extra)
        self._count_timings((getattr(completion, "model_extra", None) or {}).get("timings"))
        return reply_from_completion(completion)

    async def _slot_body(self, lane: int | None) -> dict[str, Any] | None:
        """``{"id_slot": n}`` for this lane when pinning (the slot count is read once)."""
        if not self.slot_pinning or lane is None:
            return None
        if self._slots is None:
            self._slots = asyncio.ensure_future(asyncio.to_thread(slots.server_slots, self.base_url))
        return {"id_slot": slots.slot_for(lane, await asyncio.shield(self._slots))}

    def _count_timings(self, timings: Any) -> None:
        if isinstance(timings, Mapping) and token_count(timings.get("prompt_n")) is not None:
            self.server_tokens["requests"] += 1
            self.server_tokens["prompt_n"] += token_count(timings["prompt_n"])
            self.server_tokens["cache_n"] += token_count(timings.get("cache_n")) or 0

    def stats(self) -> dict[str, Any]:
        """For the run file: the prompt tokens the server evaluated and reused (when it reports them)."""
        return {"server_prompt_tokens": dict(self.server_tokens) if self.server_tokens["requests"] else None}

    @property
    def client(self):
        if self._client is None:
            import openai

            self._client = openai.AsyncOpenAI(base_url=self.base_url, api_key=self.secret, max_retries=0,
                                              timeout=self.timeout, default_headers={"User-Agent": USER_AGENT},
                                              http_client=bounded_http.async_client(
                                                  self.base_url, timeout=self.timeout, max_bytes=self.max_bytes))
        return self._client

    @property
    def fatal(self) -> BaseException | None:
        """The failed reachability check, which stops the whole run (not just one scenario)."""
        if self._checked is not None and self._checked.done() and not self._checked.cancelled():
            return self._checked.exception()
        return None

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None
