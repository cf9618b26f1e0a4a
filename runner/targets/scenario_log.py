"""The scenario a model call serves, and the replies it got, held for the executor.

The executor starts one :class:`ScenarioLog` per scenario (:func:`begin`, in the asyncio
task that runs it) with the scenario's scheduling facts: its journal key (answers
fetched ahead in a batch), its lane (slot pinning) and its group's document key
(endpoint placement). Chat targets add every reply they return
(:class:`~auditpacks.runner.models.reply.Reply`, which carries its own finish reason,
token counts and reasoning); :meth:`ScenarioLog.annotate` then puts each reply's facts
on its assistant entry of simpleaudit's transcript (which keeps only the text, without
``<think>`` blocks): reasoning and finish reason before the grader reads it, reasoning
in the stored results. A
prompt refused as too long (for ``--skip-oversize``) and the judge's raw replies (for a
judgment that cannot be graded) are noted too.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field
from typing import Any

from auditpacks.runner.models.reply import Reply


#: The reply facts a grader reads on its transcript entry, and those the results file keeps.
GRADED = ("reasoning", "finish_reason")
STORED = ("reasoning",)


@dataclass
class ScenarioLog:
    key: str | None = None      # the scenario's journal key
    lane: int | None = None     # the slot lane its group holds (0-based; pinned as llama.cpp's id_slot)
    group: str | None = None    # its group's document key (where several endpoints place it)
    system: str | None = None   # the scenario's own system message (metadata.system_prompt), sent in its role
    replies: list[Reply] = field(default_factory=list)       # the target's replies, in order
    oversize: str | None = None
    judge_replies: list[dict[str, Any]] = field(default_factory=list)  # raw judge replies, in order

    @property
    def reasoning(self) -> list[str | None]:
        return [reply.reasoning for reply in self.replies]

    def annotate(self, conversation: list[dict[str, Any]], fields: tuple[str, ...] = GRADED) -> None:
        """Put each reply's facts named in ``fields`` on its assistant entry, in order (and take off the
        others): :data:`GRADED` for the grader, :data:`STORED` for the results file."""
        entries = [entry for entry in conversation if entry.get("role") == "assistant"]
        if len(entries) != len(self.replies):
            return  # a target that does not record (decision): nothing to align
        for entry, reply in zip(entries, self.replies):
            facts = reply.facts()
            for name in GRADED:
                if name in fields and facts.get(name):
                    entry[name] = facts[name]
                else:
                    entry.pop(name, None)


_current: contextvars.ContextVar[ScenarioLog | None] = contextvars.ContextVar("auditpacks_scenario", default=None)


def begin(*, key: str | None = None, lane: int | None = None, group: str | None = None,
          system: str | None = None) -> ScenarioLog:
    """Start a fresh log for the scenario running in the current task."""
    log = ScenarioLog(key=key, lane=lane, group=group, system=system)
    _current.set(log)
    return log


def current() -> ScenarioLog | None:
    """The log of the scenario running in the current task (None outside the executor)."""
    return _current.get()


def record_reply(reply: Reply) -> None:
    """Note one target reply (call once per reply)."""
    log = _current.get()
    if log is not None:
        log.replies.append(reply)


def record_oversize(reason: str) -> None:
    log = _current.get()
    if log is not None:
        log.oversize = reason


def record_judge_reply(reply: Reply, max_tokens: int | None) -> None:
    """Note a judge reply's raw text and why it ended (for a reply that cannot be graded)."""
    log = _current.get()
    if log is not None:
        log.judge_replies.append({"text": reply.content, "finish_reason": reply.finish_reason,
                                  "max_tokens": max_tokens})


def flag_truncated(result: dict[str, Any], log: ScenarioLog) -> None:
    """Mark a result whose target reply stopped at the output-token cap: its judgment's ``truncated`` is
    true, whatever the benchmark (a grader may say more, as ICJ's validation status does)."""
    judgment = result.get("judgment")
    if isinstance(judgment, dict) and any(reply.truncated for reply in log.replies):
        judgment["truncated"] = True


def explain_ungraded(judgment: dict[str, Any], log: ScenarioLog) -> None:
    """Give an ungraded judgment the judge's whole raw reply and, when it was cut off, say so."""
    if judgment.get("severity") != "ungraded" or not judgment.get("ungraded_reason") or not log.judge_replies:
        return
    last = log.judge_replies[-1]
    judgment["judge_reply"] = last["text"]
    if last["finish_reason"] == "length":
        judgment["ungraded_reason"] += f"; the reply stopped at the output cap ({last['max_tokens']} tokens)"
