"""A simpleaudit Target for OpenAI-compatible chat servers, with our cache and retry layer.

The ``openai`` SDK's own retries are off (``max_retries=0``); :mod:`runner.retry` is
the only layer. Messages come from a layout in :mod:`runner.targets.messages`
(``stock``: simpleaudit's; ``document-first``: the prompt-cache layout, which is also
part of the cache key). Reasoning (``reasoning_content``/``reasoning`` fields, or
``<think>`` blocks in the content) is kept apart from the answer and recorded for the
results file. With ``slot_pinning`` (llama.cpp only) each request carries the ``id_slot``
of its group's lane (:mod:`runner.targets.slots`); it is never part of the cache key.
A llama.cpp server's ``timings`` (``prompt_n`` tokens evaluated, ``cache_n`` reused) are
summed over the requests actually sent, for the run file.
"""

from __future__ import annotations

import asyncio
from importlib.metadata import version
from typing import Any, Callable, Mapping

from simpleaudit.targets import TargetContext, TargetResponse

from auditpacks.core import reply_facts
from auditpacks.core.reasoning import split_reasoning
from auditpacks.runner.execution.cache import ResponseCache
from auditpacks.runner.execution.retry import RetryPolicy, call_with_retries
from auditpacks.runner.targets import slots, turns
from auditpacks.runner.targets.contract import RunTarget
from auditpacks.runner.targets.messages import LAYOUTS, STOCK
from auditpacks.runner.targets.turns import record_reasoning

USER_AGENT = f"auditpacks simpleaudit/{version('simpleaudit')}"


def secret_scrubber(secret: str | None) -> Callable[[str], str]:
    """A function that blanks ``secret`` out of error text (servers sometimes echo keys)."""
    if not secret or len(secret) < 4:
        return lambda text: text
    return lambda text: text.replace(secret, "[api key]")


def reply_from_completion(completion: Any) -> dict[str, Any]:
    """The parts of a chat completion we keep (and cache)."""
    choice = completion.choices[0]
    message = choice.message
    extra = getattr(message, "model_extra", None) or {}
    reasoning = extra.get("reasoning_content") or extra.get("reasoning")
    usage = getattr(completion, "usage", None)
    return {
        "content": message.content or "",
        "reasoning": reasoning if isinstance(reasoning, str) else None,
        "input_tokens": getattr(usage, "prompt_tokens", None),
        "output_tokens": getattr(usage, "completion_tokens", None),
        "finish_reason": choice.finish_reason,
    }


def target_response(reply: Mapping[str, Any]) -> TargetResponse:
    """The answer without reasoning for simpleaudit; the reasoning goes to the scenario log."""
    answer, think = split_reasoning(reply.get("content") or "")
    reasoning = "\n\n".join(r for r in (reply.get("reasoning"), think) if r) or None
    record_reasoning(reasoning)
    reply_facts.note(finish_reason=reply.get("finish_reason"))
    return TargetResponse(content=answer, raw=dict(reply), input_tokens=reply.get("input_tokens") or None,
                          output_tokens=reply.get("output_tokens") or None)


class OpenAICompatTarget(RunTarget):
    """``send`` one chat turn to ``base_url``'s ``/chat/completions``."""

    def __init__(self, *, model: str, base_url: str, api_key: str, policy: RetryPolicy,
                 cache: ResponseCache | None = None, identity: Mapping[str, Any] | None = None,
                 token_param: str = "max_tokens", layout: str = STOCK,
                 preflight: Callable[[], None] | None = None, repeat: int = 0, slot_pinning: bool = False) -> None:
        self.model, self.base_url, self.policy, self.cache = model, base_url.rstrip("/"), policy, cache
        self.identity = dict(identity or {"base_url": self.base_url})
        self.token_param, self.layout_name, self.layout, self.repeat = token_param, layout, LAYOUTS[layout], repeat
        self.slot_pinning = slot_pinning
        self.server_tokens = {"requests": 0, "prompt_n": 0, "cache_n": 0}
        self._api_key = api_key
        self._scrub = secret_scrubber(api_key)
        self._preflight = preflight
        self._checked: asyncio.Future | None = None
        self._slots: asyncio.Future | None = None
        self._client = None

    def request_body(self, messages: list[dict[str, Any]], params: Mapping[str, Any] | None,
                     response_format: Mapping[str, Any] | None) -> dict[str, Any]:
        body = {k: v for k, v in (params or {}).items() if k not in ("extra_headers", "model", "messages", "stream")}
        if "max_tokens" in body and self.token_param != "max_tokens":
            body[self.token_param] = body.pop("max_tokens")
        if response_format:
            body["response_format"] = dict(response_format)
        return {"model": self.model, "messages": messages, **body}

    def cache_key(self, body: Mapping[str, Any]) -> dict[str, Any]:
        params = {k: v for k, v in body.items() if k not in ("model", "messages")}
        key = {"api": "openai-chat", "model": self.model, **self.identity, "messages": body["messages"],
               "params": params, "repeat": self.repeat}
        if self.layout_name != STOCK:  # stock keys stay as they were, so older caches still answer
            key["prompt_order"] = self.layout_name
        return key

    async def send(self, *, system: str | None = None, user: str, history: list[dict[str, Any]] | None = None,
                   file_uri: Any = None, documents: list[Any] | None = None,
                   response_format: Mapping[str, Any] | None = None, params: Mapping[str, Any] | None = None,
                   context: TargetContext | None = None) -> TargetResponse:
        messages = self.layout(system=system, user=user, history=history, documents=documents, file_uri=file_uri)
        headers = dict((context.trace_headers if context else None) or {})
        reply, _ = await self.complete(messages, params, response_format, headers=headers, pinned=True)
        return target_response(reply)

    async def complete(self, messages: list[dict[str, Any]], params: Mapping[str, Any] | None = None,
                       response_format: Mapping[str, Any] | None = None, *, headers: Mapping[str, str] | None = None,
                       pinned: bool = False) -> tuple[dict[str, Any], bool]:
        """One chat request through the cache and the retry layer: ``(reply, came_from_cache)``.

        Shared by target turns (``send``) and judge or auditor-model calls, which arrive as messages.
        """
        body = self.request_body(messages, params, response_format)
        key = self.cache_key(body) if self.cache is not None else None
        reply = self.cache.get(key) if self.cache is not None else None
        if reply is not None:
            return reply, True
        await self._check_endpoint()
        extra = await self._slot_body() if pinned else None
        reply = await call_with_retries(lambda: self._post(body, dict(headers or {}), extra), self.policy,
                                        scrub=self._scrub)
        if self.cache is not None:
            self.cache.put(key, reply)
        return reply, False

    async def _post(self, body: dict[str, Any], headers: dict[str, str], extra: dict[str, Any] | None) -> dict[str, Any]:
        completion = await self.client.chat.completions.create(**body, stream=False, extra_headers=headers or None,
                                                               extra_body=extra)
        self._count_timings((getattr(completion, "model_extra", None) or {}).get("timings"))
        return reply_from_completion(completion)

    async def _slot_body(self) -> dict[str, Any] | None:
        """``{"id_slot": n}`` for this scenario's lane when pinning (the slot count is read once)."""
        log = turns.current()
        if not self.slot_pinning or log is None or log.lane is None:
            return None
        if self._slots is None:
            self._slots = asyncio.ensure_future(asyncio.to_thread(slots.server_slots, self.base_url))
        return {"id_slot": slots.slot_for(log.lane, await asyncio.shield(self._slots))}

    def _count_timings(self, timings: Any) -> None:
        if isinstance(timings, Mapping) and isinstance(timings.get("prompt_n"), int):
            self.server_tokens["requests"] += 1
            self.server_tokens["prompt_n"] += timings["prompt_n"]
            self.server_tokens["cache_n"] += int(timings.get("cache_n") or 0)

    def stats(self) -> dict[str, Any]:
        """For the run file: the prompt tokens the server evaluated and reused (when it reports them)."""
        return {"server_prompt_tokens": dict(self.server_tokens) if self.server_tokens["requests"] else None}

    @property
    def client(self):
        if self._client is None:
            import openai

            self._client = openai.AsyncOpenAI(base_url=self.base_url, api_key=self._api_key, max_retries=0,
                                              timeout=self.policy.timeout, default_headers={"User-Agent": USER_AGENT})
        return self._client

    async def _check_endpoint(self) -> None:
        """Run the deferred reachability check once, before the first request (cache runs only)."""
        if self._preflight is None:
            return
        if self._checked is None:
            self._checked = asyncio.ensure_future(asyncio.to_thread(self._preflight))
        await asyncio.shield(self._checked)

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
