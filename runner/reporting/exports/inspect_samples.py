"""One result as an Inspect AI sample: the input the target got, its messages, the grader's verdict as a score.

The score's value is Inspect's C (correct), I (wrong, or a benchmark's own kind of wrong) or N (ungraded, or an
ERROR, which is also the sample's error); its answer is what the benchmark reads from the reply (its report
module's ``answer``), its explanation the judgment's summary, its metadata the verdict word, the severity and the
whole judgment. A tool run's turns (:mod:`.transcript`) give one Inspect model event per model call and one tool
event per tool call, a result the cutoff guard withheld marked as a ``permission`` error. Imported only by the
Inspect export (it needs the ``inspect`` extra).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from inspect_ai.event import ModelEvent, ToolEvent
from inspect_ai.log import EvalError, EvalSample
from inspect_ai.model import (ChatCompletionChoice, ChatMessageAssistant, ChatMessageSystem, ChatMessageTool,
                              ChatMessageUser, ContentReasoning, ContentText, GenerateConfig, ModelOutput, ModelUsage)
from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, Score
from inspect_ai.tool import ToolCall, ToolCallError, ToolInfo

from auditpacks.core.runs.results import Result
from auditpacks.judges.reader import Reader
from auditpacks.runner.reporting.exports.transcript import Turn, transcript
from auditpacks.runner.reporting.outcomes import answer

#: The generic verdict words as Inspect score values; a benchmark's own words (kinds of wrong) are INCORRECT.
SCORE_VALUE = {"correct": CORRECT, "wrong": INCORRECT, "ungraded": NOANSWER, "error": NOANSWER}
#: simpleaudit's fields of a result kept in the sample's metadata.
KEPT = ("scenario_description", "issues_found", "positive_behaviors", "recommendations", "severity")


def usage(input_tokens: int, output_tokens: int) -> ModelUsage:
    return ModelUsage(input_tokens=input_tokens, output_tokens=output_tokens,
                      total_tokens=input_tokens + output_tokens)


def to_sample(result: Result, epoch: int, *, model: str, judge: str, reader: Reader, started: dt.datetime,
              system_prompt: str | None = None, trace: Any = None, tools: list[str] = ()) -> EvalSample:
    """``result`` (of round ``epoch``) as a sample; ``trace``: its tool trace, for a run under a tool condition."""
    raw = result.raw
    opening, rest = transcript(result, trace, system_prompt)
    given = [_message(t) for t in opening]
    messages, events = list(given), []
    infos = [ToolInfo(name=name, description=name) for name in tools]
    for t in rest:
        message = _message(t)
        if t.tokens is not None:  # a model call of a tool run
            events.append(ModelEvent(model=model, input=list(messages), tools=infos, tool_choice="auto",
                                     config=GenerateConfig(), timestamp=started, cache="read" if t.cached else None,
                                     output=ModelOutput(model=model, choices=[ChatCompletionChoice(message=message)],
                                                        usage=usage(*t.tokens))))
        elif t.role == "tool":
            events.append(ToolEvent(id=t.call_id, function=t.function or "", arguments=_arguments_of(rest, t),
                                    result=t.content, error=message.error, timestamp=started,
                                    metadata={"blocked_by_cutoff": t.blocked, **t.facts}))
        messages.append(message)
    verdict = reader.outcome(raw)
    score = Score(value=SCORE_VALUE.get(verdict, INCORRECT), answer=answer(reader, raw),
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
    return EvalSample(id=result.scenario_name, epoch=epoch, input=given or str(raw.get("scenario_description", "")),
                      target=[str(e) for e in expected] if isinstance(expected, list) else "",
                      messages=messages, output=output, scores={judge: score}, metadata=metadata,
                      model_usage={model: output.usage}, role_usage=roles, error=error, events=events)


def _arguments_of(turns: list[Turn], tool: Turn) -> dict[str, Any]:
    return next((u.arguments for t in turns for u in t.tool_calls if u.id == tool.call_id), {})


def _message(t: Turn) -> Any:
    """A turn as an Inspect message (documents as text parts before the prompt; reasoning kept)."""
    if t.role == "assistant":
        parts: list[Any] = [ContentReasoning(reasoning=t.reasoning)] if t.reasoning else []
        calls = [ToolCall(id=u.id, function=u.function, arguments=u.arguments) for u in t.tool_calls] or None
        return ChatMessageAssistant(content=parts + [ContentText(text=t.content)] if parts else t.content,
                                    tool_calls=calls, metadata=t.facts or None)
    if t.role == "tool":
        error = None
        if t.error is not None:
            error = (ToolCallError("permission", f"withheld by the cutoff guard: {t.error}") if t.blocked
                     else ToolCallError("unknown", t.error))
        return ChatMessageTool(content=t.content, tool_call_id=t.call_id, function=t.function, error=error,
                               metadata=t.facts or None)
    if t.role == "system":
        return ChatMessageSystem(content=t.content)
    if not t.documents:
        return ChatMessageUser(content=t.content)
    return ChatMessageUser(content=[ContentText(text=d) for d in t.documents] + [ContentText(text=t.content)])
