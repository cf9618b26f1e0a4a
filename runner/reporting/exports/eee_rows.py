"""One result as an Every Eval Ever instance-level row: input, reference, the reply or the whole conversation, how
the answer was read, the verdict as a score, tokens and the grader's facts.

A one-reply scenario is ``single_turn`` (its reply in ``output``); one with several replies is ``multi_turn`` and a
tool run's is ``agentic`` (every turn in ``messages``, tool calls and results included). The score is 1 for the
verdict correct and 0 otherwise (``is_correct`` the same); what the benchmark read from the reply (its report
module's ``answer``) is the answer's extracted value. The metadata holds the verdict word, the severity, the round
(epoch) and the judgment as JSON (the schema takes strings only).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping

from auditpacks.core.runs.results import Result
from auditpacks.judges.reader import Reader
from auditpacks.runner.reporting.exports.transcript import Turn, transcript
from auditpacks.runner.reporting.outcomes import answer


def strings(data: Mapping[str, Any]) -> dict[str, str]:
    """A mapping with every value a string (JSON for anything but a string; None left out)."""
    return {str(k): v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True)
            for k, v in data.items() if v is not None}


def _seen(t: Turn) -> str:
    """What a turn put before the model: its documents, then its text."""
    return "\n\n".join([*t.documents, t.content]) if t.documents else t.content


def _message(index: int, t: Turn) -> dict[str, Any]:
    return {"turn_idx": index, "role": t.role, "content": _seen(t), "reasoning_trace": t.reasoning,
            "tool_calls": [{"id": u.id, "name": u.function, "arguments": strings(u.arguments)}
                           for u in t.tool_calls] or None,
            "tool_call_id": [t.call_id] if t.call_id else None}


def instance_row(result: Result, epoch: int, *, head: Mapping[str, str], judge: str, reader: Reader,
                 trace: Mapping[str, Any] | None = None, system_prompt: str | None = None) -> dict[str, Any]:
    """The row of ``result`` (round ``epoch``); ``head``: schema_version, evaluation_id, model_id and
    evaluation_name, the same on every row of a run."""
    raw = result.raw
    opening, rest = transcript(result, trace, system_prompt)
    prompt = next((t for t in reversed(opening) if t.role == "user"), None)
    expected = raw.get("expected_behavior")
    reference = [str(e) for e in expected] if isinstance(expected, list) else []
    replies = [t for t in rest if t.role == "assistant"]
    kind = "agentic" if trace is not None else "multi_turn" if len(replies) > 1 else "single_turn"
    verdict = reader.outcome(raw)
    row: dict[str, Any] = {
        **head, "sample_id": result.scenario_name,
        "sample_hash": hashlib.sha256(((prompt.content if prompt else "") + "".join(reference)).encode()).hexdigest(),
        "interaction_type": kind,
        "input": {"raw": prompt.content if prompt else "", "reference": reference,
                  "formatted": _seen(prompt) if prompt and prompt.documents else None},
    }
    if kind == "single_turn":
        last = replies[-1] if replies else None
        row["output"] = {"raw": [last.content] if last else [],
                         "reasoning_trace": [last.reasoning] if last and last.reasoning else None}
        row["messages"], index, where = None, 0, "output.raw"
    else:
        turns = opening + rest
        row["output"], row["messages"] = None, [_message(i, t) for i, t in enumerate(turns)]
        index = max((i for i, t in enumerate(turns) if t.role == "assistant"), default=0)
        where = f"messages[{index}].content"
    row["answer_attribution"] = [{"turn_idx": index, "source": where, "extracted_value": answer(reader, raw),
                                  "extraction_method": f"auditpacks {judge} grader", "is_terminal": True}
                                 ] if replies else []
    row["evaluation"] = {"score": 1.0 if verdict == "correct" else 0.0, "is_correct": verdict == "correct",
                         "num_turns": max(1, len(replies)), "tool_calls_count": sum(len(t.tool_calls) for t in rest)}
    row["token_usage"] = {"input_tokens": result.target_input_tokens, "output_tokens": result.target_output_tokens,
                          "total_tokens": result.tokens}
    row["error"] = str(result.judgment.get("error") or "the scenario ended in ERROR") if result.is_error else None
    facts = {"verdict": verdict, "severity": result.severity, "epoch": epoch, "judge": judge,
             "summary": raw.get("summary"), "judgment": dict(result.judgment),
             "decision": next((t.facts["decision"] for t in replies if "decision" in t.facts), None)}
    if trace is not None:
        facts.update({f"tool_run.{k}": trace.get(k) for k in ("condition", "cutoff", "snapshot", "capped")})
        facts["tool_run.blocked_by_cutoff"] = sum(t.blocked for t in rest)
    row["metadata"] = strings(facts)
    return row
