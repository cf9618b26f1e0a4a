"""Run scenarios through a tool loop and write simpleaudit results with a trace of every step beside them.

``run_with_tools`` is benchmark-neutral: the caller gives, per scenario, the tool box (or None for
no tools) and the grader. It writes ``<stem>.json`` (``AuditResults``, the same file a plain run
writes, so exports and reports read it), ``<stem>.traces.jsonl`` (one line per scenario: every model
call and tool call with its arguments, capped result, source dates and tokens) and
``<stem>.tools.json`` (the condition, its tools and what its search is). A failed model call makes
that scenario an ERROR result; the others go on.

Each finished scenario is appended to ``<stem>.tools-journal.jsonl`` (result and trace, fsynced) as it
ends. A rerun into the same folder keeps the journal's finished scenarios and runs the rest (and
the ERROR ones) again; ``fresh=True`` starts over. A journal of another condition is refused.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Mapping

from auditpacks.core.errors import UserError
from auditpacks.core.io import atomic_write_json, atomic_write_text, iter_jsonl
from auditpacks.core.run_files import ERROR, is_error, results_name
from auditpacks.runner.execution.results_file import slim_result, write_results
from auditpacks.runner.targets.tool_loop import ToolLoop

TRACES_SUFFIX = ".traces.jsonl"
TOOLS_SUFFIX = ".tools.json"
JOURNAL_SUFFIX = ".tools-journal.jsonl"


def _finished(journal: Path, condition: str) -> dict[str, tuple[dict, dict]]:
    """Scenario name → (result, trace) of the journal's finished, non-ERROR scenarios."""
    done: dict[str, tuple[dict, dict]] = {}
    if not journal.is_file():
        return done
    for number, entry in iter_jsonl(journal):
        if not isinstance(entry, dict) or not isinstance(entry.get("result"), dict):
            raise UserError(f"{journal}: line {number} is not a journal entry (result and trace)")
        if entry.get("condition") != condition:
            raise UserError(f"{journal}: line {number} is of condition {entry.get('condition')!r}, not "
                            f"{condition!r}; use another --out or start over")
        if not is_error(entry["result"]):
            done[entry["result"]["scenario_name"]] = (entry["result"], entry.get("trace") or {})
    return done


def _append(journal: Path, entry: dict) -> None:
    with journal.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry, ensure_ascii=False, default=str) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def _messages(scenario: Mapping[str, Any], system: str | None) -> list[dict[str, str]]:
    """The scenario's own system message (``metadata.system_prompt``), then the condition's, as one system turn."""
    own = (scenario.get("metadata") or {}).get("system_prompt")
    system = "\n\n".join(s for s in (own if isinstance(own, str) else None, system) if s)
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


def _count(counts: dict[str, int], trace: Mapping[str, Any]) -> None:
    tools = [s for s in trace.get("steps", []) if s.get("kind") == "tool"]
    counts["tool_calls"] += len(tools)
    counts["leaks_refused"] += sum(bool(s.get("leak")) for s in tools)
    counts["capped"] += bool(trace.get("capped"))


def run_with_tools(scenarios: list[Mapping[str, Any]], loop: ToolLoop, *, toolbox_for: Callable[[Mapping], Any],
                   grade: Callable[[Mapping, Mapping], Mapping], out: Path, stem: str, condition: str,
                   system: str | None, info: Mapping[str, Any], fresh: bool = False) -> dict[str, Any]:
    """Run each scenario, grade its final reply, write results, traces and the condition's info; counts."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    journal = out / f"{stem}{JOURNAL_SUFFIX}"
    if fresh:
        journal.unlink(missing_ok=True)
    done = _finished(journal, condition)
    results, traces = [], []
    counts = {"scenarios": len(scenarios), "errors": 0, "tool_calls": 0, "leaks_refused": 0, "capped": 0,
              "resumed": 0}
    for scenario in scenarios:
        if scenario["name"] in done:
            result, trace = done[scenario["name"]]
            results.append(result)
            traces.append(trace)
            counts["resumed"] += 1
            _count(counts, trace)
            continue
        messages = _messages(scenario, system)
        try:
            box = toolbox_for(scenario)
            finished = loop.run(messages, box)
        except Exception as exc:  # noqa: BLE001 - one scenario's failure is its ERROR result, not the run's end
            reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
            judgment = {"severity": ERROR, "error": reason, "summary": reason, "condition": condition}
            results.append(_result(scenario, messages, None, judgment, (0, 0)))
            traces.append({"scenario": scenario["name"], "condition": condition, "error": reason, "steps": []})
            counts["errors"] += 1
            _append(journal, {"condition": condition, "result": results[-1], "trace": traces[-1]})
            continue
        reply = {"role": "assistant", "content": finished.text, "finish_reason": finished.finish_reason}
        judgment = {**grade(scenario, reply), "condition": condition}
        results.append(_result(scenario, messages, reply, judgment, (finished.input_tokens, finished.output_tokens)))
        traces.append({"scenario": scenario["name"], "condition": condition, "capped": finished.capped,
                       "input_tokens": finished.input_tokens, "output_tokens": finished.output_tokens,
                       "steps": finished.steps})
        _count(counts, traces[-1])
        _append(journal, {"condition": condition, "result": results[-1], "trace": traces[-1]})
    write_results(out / results_name(stem), [slim_result(r) for r in results], results)
    atomic_write_text(out / f"{stem}{TRACES_SUFFIX}", "".join(json.dumps(t, ensure_ascii=False, default=str) + "\n"
                                                            for t in traces))
    atomic_write_json(out / f"{stem}{TOOLS_SUFFIX}", {**info, "condition": condition, "counts": counts})
    return counts
