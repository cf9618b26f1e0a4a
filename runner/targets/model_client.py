"""Judge and auditor-model calls as first-class model calls.

simpleaudit calls its judge and auditor models through a client's
``acompletion(model=, messages=, stream=, response_format=, **params)``.
:class:`RoleModel` is that client over a :class:`~auditpacks.runner.models.model.Model`
(:func:`~auditpacks.runner.models.providers.chat_model`), so these calls get what target calls get:
the response cache, the one retry layer and a per-attempt timeout. On top it applies
the role's own decoding settings (:class:`RoleSettings`: temperature 0 and an output
cap unless asked otherwise), keeps structured output (``response_format`` with a JSON
schema for OpenAI-compatible servers, Ollama's ``format`` on the native API), counts
requests, cache hits and tokens (the model's counts), and notes every judge reply's raw text and finish
reason in the scenario log, so a reply that cannot be parsed is recorded as such.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from types import SimpleNamespace
from typing import Any, Mapping

from auditpacks.runner.models.model import Model
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.targets import scenario_log

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


class RoleModel:
    """A model in a judge or auditor role: simpleaudit's ``acompletion`` client over a :class:`Model`."""

    def __init__(self, model: Model, settings: RoleSettings) -> None:
        self.model, self.settings = model, settings

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
        params = self.params(kwargs)
        reply = await self.model.generate(Request(messages=list(kwargs["messages"]), params=params,
                                                  response_format=response_format))
        if self.settings.role == "judge":
            scenario_log.record_judge_reply(reply, params.get("max_tokens"))
        return completion(reply)

    @property
    def counts(self) -> dict[str, int]:
        return self.model.counts

    def record(self) -> dict[str, Any]:
        """For the run file: who this role is, its settings and what it cost."""
        return {**self.settings.record(), **self.counts}

    async def aclose(self) -> None:
        await self.model.aclose()


def completion(reply: Reply) -> Any:
    """The parts of an OpenAI chat completion simpleaudit reads: content and usage."""
    message = SimpleNamespace(content=reply.content)
    usage = SimpleNamespace(prompt_tokens=reply.input_tokens or 0, completion_tokens=reply.output_tokens or 0)
    return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason=reply.finish_reason)],
                           usage=usage)
