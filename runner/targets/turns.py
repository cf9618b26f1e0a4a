"""What a target learns during one scenario that simpleaudit's result has no field for.

simpleaudit strips ``<think>`` blocks from every reply before storing it, so the
reasoning would be lost. Our targets instead record each reply's reasoning in the
scenario's :class:`ScenarioLog` (held in a context variable that the executor sets
afresh for each scenario, in the asyncio task that runs it); the executor then adds it
to the assistant entries of the stored ``conversation`` under ``"reasoning"``. A target
that refuses a prompt as too long for the model notes that too, so ``--skip-oversize``
can skip it. The log also tells a target which scenario it serves (its journal key, for
answers fetched ahead in a batch) and which lane and document group it runs in (slot pinning, endpoint placement).
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from typing import Any

from auditpacks.core import reply_facts


@dataclass
class ScenarioLog:
    reasoning: list[str | None] = field(default_factory=list)
    oversize: str | None = None
    key: str | None = None      # the scenario's journal key
    lane: int | None = None     # the slot lane its group holds (0-based; pinned as llama.cpp's id_slot)
    group: str | None = None    # its group's document key (where several endpoints place it)
    judge_replies: list[dict[str, Any]] = field(default_factory=list)  # raw judge replies, in order


_current: contextvars.ContextVar[ScenarioLog | None] = contextvars.ContextVar("auditpacks_scenario", default=None)


def begin(*, key: str | None = None, lane: int | None = None, group: str | None = None) -> ScenarioLog:
    """Start a fresh log for the scenario running in the current task."""
    log = ScenarioLog(key=key, lane=lane, group=group)
    _current.set(log)
    reply_facts.begin()
    return log


def current() -> ScenarioLog | None:
    """The log of the scenario running in the current task (None outside the executor)."""
    return _current.get()


def record_reasoning(text: str | None) -> None:
    """Note one target reply's reasoning (None when it had none); call once per reply."""
    log = _current.get()
    if log is not None:
        log.reasoning.append(text or None)


def record_judge_reply(text: str, finish_reason: str | None, max_tokens: int | None) -> None:
    """Note a judge reply's raw text and why it ended (for a reply that cannot be graded)."""
    log = _current.get()
    if log is not None:
        log.judge_replies.append({"text": text, "finish_reason": finish_reason, "max_tokens": max_tokens})


def explain_ungraded(judgment: dict[str, Any], log: ScenarioLog) -> None:
    """Give an ungraded judgment the judge's whole raw reply and, when it was cut off, say so."""
    if judgment.get("severity") != "ungraded" or not judgment.get("ungraded_reason") or not log.judge_replies:
        return
    last = log.judge_replies[-1]
    judgment["judge_reply"] = last["text"]
    if last["finish_reason"] == "length":
        judgment["ungraded_reason"] += f"; the reply stopped at the output cap ({last['max_tokens']} tokens)"


def record_oversize(reason: str) -> None:
    log = _current.get()
    if log is not None:
        log.oversize = reason


def attach_reasoning(conversation: list[dict[str, Any]], log: ScenarioLog) -> None:
    """Add ``"reasoning"`` to the assistant entries, in order, where the reply had any."""
    replies = [entry for entry in conversation if entry.get("role") == "assistant"]
    if len(replies) != len(log.reasoning):
        return  # a target that does not record (decision, any-llm): nothing to align
    for entry, reasoning in zip(replies, log.reasoning):
        if reasoning:
            entry["reasoning"] = reasoning
