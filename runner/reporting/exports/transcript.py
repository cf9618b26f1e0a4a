"""One result's conversation as neutral turns, for both exports: what the target was given, then what followed.

A plain run's turns are its transcript entries (a user turn's documents kept apart from its prompt, an assistant
turn's reasoning and facts: finish reason, a decision model's structured answer, characters cut). A tool run's
come from its trace: each model call (its tokens, whether the cache replayed it, the tool calls it asked for),
each tool's result (failed, or withheld by the cutoff guard), and the final reply as graded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from auditpacks.core.runs.results import Result


@dataclass(frozen=True)
class ToolUse:
    id: str
    function: str
    arguments: dict[str, Any]


@dataclass
class Turn:
    role: str                              # system, user, assistant or tool
    content: str
    documents: list[str] = field(default_factory=list)
    reasoning: str | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    tool_calls: list[ToolUse] = field(default_factory=list)
    call_id: str | None = None             # a tool turn: the call it answers
    function: str | None = None
    error: str | None = None               # a tool turn: why the call failed
    blocked: bool = False                  # a tool turn: the cutoff guard withheld the result
    tokens: tuple[int, int] | None = None  # an assistant turn from a trace: (input, output) tokens of its call
    cached: bool = False


def text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) if isinstance(p, Mapping) else str(p) for p in content)
    return "" if content is None else str(content)


def turn(entry: Any) -> Turn:
    """One transcript entry as a turn."""
    entry = entry if isinstance(entry, Mapping) else {"role": "user", "content": str(entry)}
    role = str(entry.get("role") or "user")
    docs = [str(d.get("text", "")) if isinstance(d, Mapping) else str(d) for d in entry.get("documents") or []]
    return Turn(role=role, content=text(entry.get("content")), documents=docs,
                reasoning=str(entry["reasoning"]) if entry.get("reasoning") else None,
                facts={k: entry[k] for k in ("finish_reason", "decision", "cut_chars") if k in entry})


def transcript(result: Result, trace: Mapping[str, Any] | None = None,
               system_prompt: str | None = None) -> tuple[list[Turn], list[Turn]]:
    """(what the target was given, what followed): the turns before the first reply, and the rest."""
    entries = list(result.conversation)
    split = next((i for i, e in enumerate(entries) if not isinstance(e, Mapping) or e.get("role") == "assistant"),
                 len(entries))
    opening = ([Turn("system", system_prompt)] if system_prompt else []) + [turn(e) for e in entries[:split]]
    rest = [turn(e) for e in entries[split:]]
    steps = [s for s in (trace or {}).get("steps") or [] if isinstance(s, Mapping)]
    return opening, _from_steps(steps, rest) if steps else rest


def arguments(value: Any) -> dict[str, Any]:
    """A tool call's arguments as an object (text that is not a JSON object kept whole under ``arguments``)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {"arguments": value}
    return dict(value) if isinstance(value, Mapping) else {"arguments": value}


def _from_steps(steps: list[Mapping[str, Any]], final: list[Turn]) -> list[Turn]:
    turns: list[Turn] = []
    calls_at = [i for i, s in enumerate(steps) if s.get("kind") != "tool"]
    for index in calls_at:
        step, tools = steps[index], []
        for tool in steps[index + 1:]:
            if tool.get("kind") != "tool":
                break
            tools.append(tool)
        uses = [ToolUse(f"call_{step.get('call')}_{k}", str(t.get("tool")), arguments(t.get("arguments")))
                for k, t in enumerate(tools, 1)]
        if index == calls_at[-1] and not uses and final:
            reply = final[-1]  # the reply as graded
        else:
            reply = Turn("assistant", str(step.get("text") or ""), tool_calls=uses)
        tokens = step.get("tokens") or {}
        reply.tokens = (int(tokens.get("input") or 0), int(tokens.get("output") or 0))
        reply.cached = bool(step.get("cached"))
        if step.get("finish_reason"):
            reply.facts.setdefault("finish_reason", step["finish_reason"])
        turns.append(reply)
        for use, tool in zip(uses, tools):
            failed = tool.get("leak") or not tool.get("ok", True)
            turns.append(Turn("tool", str(tool.get("result") or ""), call_id=use.id, function=use.function,
                              error=str(tool.get("error") or "the tool call failed") if failed else None,
                              blocked=bool(tool.get("leak")),
                              facts={"source_dates": tool.get("source_dates") or [],
                                     "truncated": bool(tool.get("truncated"))}))
    return turns
