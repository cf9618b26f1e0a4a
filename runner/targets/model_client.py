"""Judge and auditor-model calls as first-class model calls.

simpleaudit calls its judge and auditor models through a client's
``acompletion(model=, messages=, stream=, response_format=, **params)``.
:class:`ModelClient` is that client, built on one of our chat APIs
(:func:`~auditpacks.runner.targets.chat_api`), so these calls get what target calls get:
the response cache, the one retry layer and a per-attempt timeout. On top it applies
the role's own decoding settings (:class:`RoleSettings`: temperature 0 and an output
cap unless asked otherwise), keeps structured output (``response_format`` with a JSON
schema for OpenAI-compatible servers, Ollama's ``format`` on the native API), counts
requests, cache hits and tokens, and notes every judge reply's raw text and finish
reason in the scenario log, so a reply that cannot be parsed is recorded as such.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from types import SimpleNamespace
from typing import Any, Mapping

from auditpacks.runner.targets import turns

_FRAMEWORK_KEYS = ("model", "messages", "stream", "response_format", "extra_headers")


@dataclass(frozen=True)
class RoleSettings:
    """One model role's request settings (``judge`` or ``auditor``)."""

    role: str
    model: str
    provider: str
    base_url: str | None
    temperature: float = 0.0
    max_tokens: int | None = 1024
    timeout: float | None = None
    structured_output: bool = True
    bounded_schema: bool = False   # the server enforces a schema's bounds (a grammar): judges may send tighter ones

    def record(self) -> dict[str, Any]:
        return asdict(self)


class ModelClient:
    """An ``acompletion`` client for simpleaudit that sends through ``api`` (our cached, retried client)."""

    def __init__(self, api: Any, settings: RoleSettings) -> None:
        self.api, self.settings = api, settings
        self.counts = {"calls": 0, "requests": 0, "cache_hits": 0, "input_tokens": 0, "output_tokens": 0}

    def params(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """The request's decoding parameters: the role's settings, then what simpleaudit passed."""
        params: dict[str, Any] = {"temperature": self.settings.temperature}
        if self.settings.max_tokens is not None:
            params["max_tokens"] = self.settings.max_tokens
        params.update({k: v for k, v in kwargs.items() if k not in _FRAMEWORK_KEYS and v is not None})
        params.pop("max_completion_tokens", None)
        return params

    async def acompletion(self, **kwargs: Any) -> Any:
        response_format = kwargs.get("response_format") if self.settings.structured_output else None
        reply, cached = await self.api.complete(list(kwargs["messages"]), self.params(kwargs), response_format)
        self.counts["calls"] += 1
        self.counts["cache_hits" if cached else "requests"] += 1
        self.counts["input_tokens"] += reply.get("input_tokens") or 0
        self.counts["output_tokens"] += reply.get("output_tokens") or 0
        if self.settings.role == "judge":
            turns.record_judge_reply(reply.get("content") or "", reply.get("finish_reason"),
                                     self.params(kwargs).get("max_tokens"))
        return completion(reply)

    def record(self) -> dict[str, Any]:
        """For the run file: who this role is, its settings and what it cost."""
        return {**self.settings.record(), **self.counts}

    async def aclose(self) -> None:
        await self.api.aclose()


def completion(reply: Mapping[str, Any]) -> Any:
    """The parts of an OpenAI chat completion simpleaudit reads: content and usage."""
    message = SimpleNamespace(content=reply.get("content") or "")
    usage = SimpleNamespace(prompt_tokens=reply.get("input_tokens") or 0,
                            completion_tokens=reply.get("output_tokens") or 0)
    return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason=reply.get("finish_reason"))],
                           usage=usage)
