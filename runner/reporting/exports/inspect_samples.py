"""One result as an Inspect AI sample: the input the target got, its messages, the grader's verdict as a score.

The score's value is Inspect's C (correct), I (wrong or invented) or N (ungraded, or an ERROR, which is also the
sample's error); its answer is what the benchmark reads from the reply (its report module's ``answer``), its
explanation the judgment's summary, its metadata the verdict word, the severity and the whole judgment. A tool
run's trace becomes the conversation it was (each model call's tool calls, each tool's result) and one Inspect
model event per model call and tool event per tool call, a result the cutoff guard withheld marked as a
``permission`` error. Imported only by the Inspect export (it needs the ``inspect`` extra).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Mapping

from inspect_ai.event import ModelEvent, ToolEvent
from inspect_ai.log import EvalError, EvalSample
from inspect_ai.model import (ChatCompletionChoice, ChatMessageAssistant, ChatMessageSystem, ChatMessageTool,
                              ChatMessageUser, ContentReasoning, ContentText, GenerateConfig, ModelOutput, ModelUsage)
from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, Score
from inspect_ai.tool import ToolCall, ToolCallError, ToolInfo

from auditpacks.core.results import Result
from auditpacks.runner.reporting.outcomes import answer, outcome

#: The verdict word as an Inspect score value.
SCORE_VALUE = {"correct": CORRECT, "wrong": INCORRECT, "invented": INCORRECT, "ungraded": NOANSWER,
               "error": NOANSWER}
#: simpleaudit's fields of a result kept in the sample's metadata.
KEPT = ("scenario_description", "issues_found", "positive_behaviors", "recommendations", "severity")


def usage(input_tokens: int, output_tokens: int) -> ModelUsage:
    return ModelUsage(input_tokens=input_tokens, output_tokens=output_tokens,
                      total_tokens=input_tokens + output_tokens)


def to_sample(result: Result, epoch: int, *, model: str, judge: str, report: Any, started: dt.datetime,
              system_prompt: str | None = None, trace: Mapping[str, Any] | None = None,
              tools: list[str] = ()) -> EvalSample:
    """``result`` (of round ``epoch``) as a sample; ``trace``: its tool trace, for a run under a tool condition."""
    raw = result.raw
    opening = [_message(m) for m in _before_reply(result.conversation)]
    if system_prompt:
        opening.insert(0, ChatMessageSystem(content=system_prompt))
    events: list[Any] = []
    if trace is not None:
        messages = _tool_conversation(opening, result.conversation, trace, model, started, tools, events)
    else:
        messages = opening + [_message(m) for m in result.conversation[len(_before_reply(result.conversation)):]]
    verdict = outcome(raw)
    score = Score(value=SCORE_VALUE[verdict], answer=answer(report, raw),
                  explanation=str(raw.get("summary") or result.judgment.get("summary") or ""),
                  metadata={"verdict": verdict, "severity": result.severity, "judgment": dict(result.judgment)})
    last = next((m for m in reversed(messages) if isinstance(m, ChatMessageAssistant)), None)
    output = ModelOutput(model=model, choices=[ChatCompletionChoice(message=last)] if last else [],
                         usage=usage(result.target_input_tokens, result.target_output_tokens))
    roles = {role: usage(raw.get(f"{role}_input_tokens") or 0, raw.get(f"{role}_output_tokens") or 0)
             for role in ("judge", "auditor") if raw.get(f"{role}_input_tokens") or raw.get(f"{role}_output_tokens")}
    error = None
    if result.is_error:
        error = EvalError(message=str(result.judgment.get("error") or "the scenario ended in ERROR"),
                          traceback="", traceback_ansi="")
    expected = raw.get("expected_behavior")
    metadata = {k: raw[k] for k in KEPT if k in raw}
    if trace is not None:
        metadata["tool_run"] = {k: trace.get(k) for k in ("condition", "cutoff", "snapshot", "capped", "error")}
    return EvalSample(id=result.scenario_name, epoch=epoch, input=opening or str(raw.get("scenario_description", "")),
                      target=[str(e) for e in expected] if isinstance(expected, list) else "",
                      messages=messages, output=output, scores={judge: score}, metadata=metadata,
                      model_usage={model: output.usage}, role_usage=roles, error=error, events=events)


def _before_reply(conversation: list[Any]) -> list[Mapping[str, Any]]:
    """The entries before the first reply: what the target was given."""
    out = []
    for entry in conversation:
        if not isinstance(entry, Mapping) or entry.get("role") == "assistant":
            break
        out.append(entry)
    return out


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) if isinstance(p, Mapping) else str(p) for p in content)
    return "" if content is None else str(content)


def _message(entry: Any) -> Any:
    """One transcript entry as an Inspect message (documents as text parts before the prompt; reasoning kept)."""
    entry = entry if isinstance(entry, Mapping) else {"role": "user", "content": str(entry)}
    text, role = _text(entry.get("content")), entry.get("role")
    if role == "assistant":
        parts: list[Any] = [ContentReasoning(reasoning=str(entry["reasoning"]))] if entry.get("reasoning") else []
        facts = {k: entry[k] for k in ("finish_reason", "decision", "cut_chars") if k in entry}
        return ChatMessageAssistant(content=parts + [ContentText(text=text)] if parts else text,
                                    metadata=facts or None)
    if role == "system":
        return ChatMessageSystem(content=text)
    documents = [d.get("text", "") if isinstance(d, Mapping) else str(d) for d in entry.get("documents") or []]
    if not documents:
        return ChatMessageUser(content=text)
    return ChatMessageUser(content=[ContentText(text=str(d)) for d in documents] + [ContentText(text=text)])


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {"arguments": value}
    return dict(value) if isinstance(value, Mapping) else {"arguments": value}


def _tool_conversation(opening: list[Any], conversation: list[Any], trace: Mapping[str, Any], model: str,
                       started: dt.datetime, tools: list[str], events: list[Any]) -> list[Any]:
    """The conversation a tool run had (from its trace), appending its model and tool events to ``events``."""
    steps = [s for s in trace.get("steps") or [] if isinstance(s, Mapping)]
    final = [_message(m) for m in conversation[len(_before_reply(conversation)):]]
    messages, infos = list(opening), [ToolInfo(name=name, description=name) for name in tools]
    model_steps = [i for i, s in enumerate(steps) if s.get("kind") != "tool"]
    for index in model_steps:
        step, calls = steps[index], []
        for k, tool in enumerate(steps[index + 1:], 1):
            if tool.get("kind") != "tool":
                break
            calls.append((f"call_{step.get('call')}_{k}", tool))
        if index == model_steps[-1] and not calls and final:
            reply = final[-1]  # the reply as graded
        else:
            reply = ChatMessageAssistant(content=str(step.get("text") or ""), tool_calls=[
                ToolCall(id=i, function=str(t.get("tool")), arguments=_arguments(t.get("arguments")))
                for i, t in calls] or None)
        tokens = step.get("tokens") or {}
        events.append(ModelEvent(model=model, input=list(messages), tools=infos, tool_choice="auto",
                                 config=GenerateConfig(), timestamp=started,
                                 cache="read" if step.get("cached") else None,
                                 output=ModelOutput(model=model, choices=[ChatCompletionChoice(message=reply)],
                                                    usage=usage(tokens.get("input") or 0, tokens.get("output") or 0))))
        messages.append(reply)
        for call_id, tool in calls:
            event, message = _tool_call(call_id, tool, started)
            events.append(event)
            messages.append(message)
    if not steps:
        messages += final
    return messages


def _tool_call(call_id: str, tool: Mapping[str, Any], started: dt.datetime) -> tuple[ToolEvent, ChatMessageTool]:
    """One tool step as its event and its message; a result the cutoff guard withheld is a ``permission`` error."""
    error = None
    if tool.get("leak"):
        error = ToolCallError("permission", f"withheld by the cutoff guard: {tool.get('error') or ''}".strip())
    elif not tool.get("ok", True):
        error = ToolCallError("unknown", str(tool.get("error") or "the tool call failed"))
    result, function = str(tool.get("result") or ""), str(tool.get("tool"))
    facts = {"blocked_by_cutoff": bool(tool.get("leak")), "source_dates": tool.get("source_dates") or [],
             "truncated": bool(tool.get("truncated"))}
    event = ToolEvent(id=call_id, function=function, arguments=_arguments(tool.get("arguments")), result=result,
                      error=error, metadata=facts, timestamp=started)
    return event, ChatMessageTool(content=result, tool_call_id=call_id, function=function, error=error)
