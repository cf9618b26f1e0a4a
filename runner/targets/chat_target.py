"""A chat model as a run target: simpleaudit's ``send`` over a :class:`~auditpacks.runner.models.model.Model`.

:class:`ChatTarget` lays out the turn's messages (``stock``: simpleaudit's own;
``document-first``: the prompt-cache layout, also part of the cache key; see
:mod:`runner.models.providers.messages`), asks its model (every provider, cache and retries
included, in one call), keeps reasoning (the provider's field, or ``<think>`` blocks in
the content) apart from the answer, and returns a :class:`ChatResponse` whose ``reply``
carries the reply's facts; the reply is also added to the scenario's log, which puts
them on the transcript. A provider that caches only up to a marked block (``cache_marks``:
Anthropic) gets the document block marked with ``cache_control``. The request names the scenario's lane, for slot pinning, and,
when the model has several endpoints, the document it is placed by (:func:`document_of`). A
scenario that carries its own system message (``metadata.system_prompt``, as ICJ inputs do)
sends it in the system role instead of the run's ``--system-prompt``, whatever the provider.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Mapping

from simpleaudit.targets import TargetContext, TargetResponse

from auditpacks.core.reasoning import split_reasoning
from auditpacks.runner.models.model import Model
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.targets import scenario_log
from auditpacks.runner.models.providers.context_fit import PromptTooLong
from auditpacks.runner.targets.contract import RunTarget
from auditpacks.runner.models.providers.messages import LAYOUTS, STOCK


@dataclass
class ChatResponse(TargetResponse):
    """simpleaudit's response, with the reply it came from (answer without reasoning, and its facts)."""

    reply: Reply | None = None


def chat_response(raw: Reply) -> ChatResponse:
    """The answer without reasoning for simpleaudit, and the reply with the reasoning apart."""
    answer, think = split_reasoning(raw.content)
    reasoning = "\n\n".join(r for r in (raw.reasoning, think) if r) or None
    reply = dataclasses.replace(raw, content=answer, reasoning=reasoning)
    return ChatResponse(content=answer, raw=raw.record(), input_tokens=raw.input_tokens or None,
                        output_tokens=raw.output_tokens or None, reply=reply)


def document_of(documents: Any, history: Any, user: str | None) -> str:
    """The key a request is placed by: its group's document key (in the executor), else its documents
    (given, or in the transcript), else the scenario it belongs to, else its prompt."""
    log = scenario_log.current()
    if log is not None and log.group:
        return log.group
    if not documents:
        documents = next((entry.get("documents") for entry in history or [] if isinstance(entry, dict)
                          and entry.get("documents")), None)
    if documents:
        blob = json.dumps(documents, sort_keys=True, ensure_ascii=False, default=str)
        return "documents:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()
    if log is not None and log.key:
        return "scenario:" + log.key
    return "prompt:" + hashlib.sha256(str(user).encode("utf-8")).hexdigest()


class ChatTarget(RunTarget):
    """``send`` one chat turn through ``model``; ``repeat`` (the round, minus one) is part of the cache key."""

    def __init__(self, model: Model, *, layout: str = STOCK, note: str | None = None) -> None:
        self.model, self.layout_name, self.layout = model, layout, LAYOUTS[layout]
        self.note = note

    async def send(self, *, system: str | None = None, user: str, history: list[dict[str, Any]] | None = None,
                   file_uri: Any = None, documents: list[Any] | None = None,
                   response_format: Mapping[str, Any] | None = None, params: Mapping[str, Any] | None = None,
                   context: TargetContext | None = None) -> ChatResponse:
        log = scenario_log.current()
        if log is not None and log.system:  # the scenario's own system message wins over the run's
            system = log.system
        request = Request(
            messages=self.layout(system=system, user=user, history=history, documents=documents, file_uri=file_uri,
                                 mark=self.model.api.cache_marks),
            params=dict(params or {}), response_format=response_format,
            headers=dict((context.trace_headers if context else None) or {}),
            lane=log.lane if log is not None else None, group=log.group if log is not None else None,
            route=document_of(documents, history, user) if self.model.pool.several else None,
            prompt_order=self.layout_name if self.layout_name != STOCK else None, repeat=self.repeat)
        try:
            response = chat_response(await self.model.generate(request))
        except PromptTooLong as exc:
            scenario_log.record_oversize(str(exc))
            raise
        scenario_log.record_reply(response.reply)
        return response

    def prepare(self) -> dict[str, Any]:
        return self.model.prepare()

    @property
    def placement(self) -> Any:  # type: ignore[override]
        return self.model.placement

    @property
    def fatal(self) -> BaseException | None:
        return self.model.fatal

    def stats(self) -> dict[str, Any]:
        return self.model.stats()

    def notes(self) -> list[str]:
        return [self.note] if self.note else []

    async def aclose(self) -> None:
        await self.model.aclose()
