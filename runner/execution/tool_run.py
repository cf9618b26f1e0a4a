"""Run scenarios through a tool loop and write simpleaudit results with a trace of every step beside them.

``run_with_tools`` is benchmark-neutral: the caller gives, per scenario, the tool box (or None for
no tools) and the grader. It writes ``<stem>.json`` (``AuditResults``, the same file a plain run
writes, so exports and reports read it), ``<stem>.traces.jsonl`` (one line per scenario: every model
call and tool call with its arguments, capped result, source dates and tokens) and
``<stem>.tools.json`` (the condition, its tools and what its search is). A failed model call makes
that scenario an ERROR result; the others go on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Mapping

from auditpacks.core.io import atomic_write_json, atomic_write_text
from auditpacks.core.run_files import ERROR, results_name
from auditpacks.runner.execution.results_file import slim_result, write_results
from auditpacks.runner.targets.tool_loop import ToolLoop

TRACES_SUFFIX = ".traces.jsonl"
TOOLS_SUFFIX = ".tools.json"


def _messages(scenario: Mapping[str, Any], system: str | None) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": system}] if system else []
    return messages + [{"role": "user", "content": scenario["test_prompt"]}]


def _result(scenario: Mapping[str, Any], messages: list[dict], reply: dict | None, judgment: Mapping[str, Any],
            tokens: tuple[int, int]) -> dict[str, Any]:
    conversation = [m for m in messages if m["role"] == "user"] + ([reply] if reply else [])
    return {"scenario_name": scenario["name"], "scenario_description": scenario.get("description", ""),
            "conversation": conversation, "severity": judgment.get("severity", ERROR),
            "issues_found": list(judgment.get("issues_found", [])),
            "positive_behaviors": list(judgment.get("positive_behaviors", [])),
            "summary": str(judgment.get("summary", "")), "recommendations": list(judgment.get("recommendations", [])),
            "expected_behavior": scenario.get("expected_behavior"), "judgment": dict(judgment),
            "target_input_tokens": tokens[0], "target_output_tokens": tokens[1]}


def run_with_tools(scenarios: list[Mapping[str, Any]], loop: ToolLoop, *, toolbox_for: Callable[[Mapping], Any],
                   grade: Callable[[Mapping, Mapping], Mapping], out: Path, stem: str, condition: str,
                   system: str | None, info: Mapping[str, Any]) -> dict[str, Any]:
    """Run each scenario, grade its final reply, write results, traces and the condition's info; counts."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    results, traces = [], []
    counts = {"scenarios": len(scenarios), "errors": 0, "tool_calls": 0, "leaks_refused": 0, "capped": 0}
    for scenario in scenarios:
        messages = _messages(scenario, system)
        try:
            box = toolbox_for(scenario)
            done = loop.run(messages, box)
        except Exception as exc:  # noqa: BLE001 - one scenario's failure is its ERROR result, not the run's end
            reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
            judgment = {"severity": ERROR, "error": reason, "summary": reason, "condition": condition}
            results.append(_result(scenario, messages, None, judgment, (0, 0)))
            traces.append({"scenario": scenario["name"], "condition": condition, "error": reason, "steps": []})
            counts["errors"] += 1
            continue
        reply = {"role": "assistant", "content": done.text, "finish_reason": done.finish_reason}
        judgment = {**grade(scenario, reply), "condition": condition}
        results.append(_result(scenario, messages, reply, judgment, (done.input_tokens, done.output_tokens)))
        tools = [s for s in done.steps if s["kind"] == "tool"]
        counts["tool_calls"] += len(tools)
        counts["leaks_refused"] += sum(bool(s["leak"]) for s in tools)
        counts["capped"] += done.capped
        traces.append({"scenario": scenario["name"], "condition": condition, "capped": done.capped,
                       "input_tokens": done.input_tokens, "output_tokens": done.output_tokens, "steps": done.steps})
    write_results(out / results_name(stem), [slim_result(r) for r in results], results)
    atomic_write_text(out / f"{stem}{TRACES_SUFFIX}", "".join(json.dumps(t, ensure_ascii=False, default=str) + "\n"
                                                            for t in traces))
    atomic_write_json(out / f"{stem}{TOOLS_SUFFIX}", {**info, "condition": condition, "counts": counts})
    return counts
