"""Run scenarios through a tool loop and write simpleaudit results with a trace of every step beside them.

``run_with_tools`` is benchmark-neutral: the plugin's :class:`~auditpacks.core.condition.ToolSetup`
gives, per scenario, the tool box (or None for no tools) and the grader. It writes ``<stem>.json``
(``AuditResults``, the same file a plain run writes, so exports and reports read it), the traces
(one line per scenario: every model call and tool call with its arguments, capped result, source
dates and tokens) and the condition's facts (its tools, its search, its snapshots, the counts);
their names are :func:`~auditpacks.core.runs.run_files.tool_run_names`. A failed model call makes
that scenario an ERROR result; the others go on.

Each finished scenario is appended to the tool journal (result and trace, fsynced) as it
ends. A rerun into the same folder keeps the journal's finished scenarios and runs the rest (and
the ERROR ones) again; ``fresh=True`` starts over. A journal of another condition is refused.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from dataclasses import asdict
from typing import Any, Callable, Mapping

from auditpacks.core.condition import ToolSetup
from auditpacks.core.errors import UserError
from auditpacks.core.io import appendable, atomic_write_text, iter_jsonl
from auditpacks.core.runs.run_files import ERROR, is_error, one_line_json, results_name, tool_run_names
from auditpacks.runner.store.results_file import slim_result, write_results
from auditpacks.runner.tools.tool_loop import ToolLoop



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
    with appendable(journal, "tools journal", UserError).open("a", encoding="utf-8") as handle:
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


def run_with_tools(scenarios: list[Mapping[str, Any]], loop: ToolLoop, setup: ToolSetup, *, out: Path, stem: str,
                   fresh: bool = False, on_done: Callable[[dict[str, Any]], None] | None = None
                   ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run each scenario, grade its final reply, write results, traces and the condition's info; the counts and
    the results. Each cutoff's snapshot lands in ``setup.condition.snapshots``; ``on_done`` gets each result
    (resumed ones too) as it is ready (progress)."""
    condition = setup.condition.name
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    traces_name, tools_name, journal_name = tool_run_names(stem)
    journal = out / journal_name
    if fresh:
        journal.unlink(missing_ok=True)
    done = _finished(journal, condition)
    results, traces = [], []
    counts = {"scenarios": len(scenarios), "errors": 0, "tool_calls": 0, "leaks_refused": 0, "capped": 0,
              "resumed": 0}
    for scenario in scenarios:
        if scenario["name"] in done:
            result, trace = done[scenario["name"]]
            counts["resumed"] += 1
        else:
            result, trace = _one(scenario, loop, setup)
            counts["errors"] += is_error(result)
            _append(journal, {"condition": condition, "result": result, "trace": trace})
        results.append(result)
        traces.append(trace)
        if on_done is not None:
            on_done(result)
        _count(counts, trace)
        if trace.get("cutoff") and trace.get("snapshot"):
            setup.condition.snapshots[trace["cutoff"]] = trace["snapshot"]
    write_results(out / results_name(stem), [slim_result(r) for r in results], results)
    atomic_write_text(out / traces_name, "".join(json.dumps(t, ensure_ascii=False, default=str) + "\n"
                                                            for t in traces))
    atomic_write_text(out / tools_name, one_line_json({**setup.info, **asdict(setup.condition),
                                                       "condition": condition, "counts": counts}))
    return counts, results


def _one(scenario: Mapping[str, Any], loop: ToolLoop, setup: ToolSetup) -> tuple[dict, dict]:
    """One scenario through the loop: its graded result and its trace (an ERROR result when a call failed)."""
    condition = setup.condition.name
    messages = _messages(scenario, setup.system)
    where: dict[str, Any] = {}
    try:
        box = setup.toolbox_for(scenario)
        if box is not None:
            where = {"cutoff": box.cutoff, "snapshot": box.snapshot_id}
        finished = loop.run(messages, box)
    except Exception as exc:  # noqa: BLE001 - one scenario's failure is its ERROR result, not the run's end
        reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
        judgment = {"severity": ERROR, "error": reason, "summary": reason, "condition": condition}
        return (_result(scenario, messages, None, judgment, (0, 0)),
                {"scenario": scenario["name"], "condition": condition, **where, "error": reason, "steps": []})
    reply = {"role": "assistant", "content": finished.text, "finish_reason": finished.finish_reason}
    judgment = {**setup.grade(scenario, reply), "condition": condition}
    return (_result(scenario, messages, reply, judgment, (finished.input_tokens, finished.output_tokens)),
            {"scenario": scenario["name"], "condition": condition, **where, "capped": finished.capped,
             "input_tokens": finished.input_tokens, "output_tokens": finished.output_tokens, "steps": finished.steps})
