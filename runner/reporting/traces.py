"""A tool run's trace per scenario, as the report shows it: each tool call with its arguments, its result (cut)
and whether the cutoff guard withheld it, between the model calls that asked for them.

Generic over benchmarks: any run with a condition in its run record has ``<stem>.traces.jsonl`` beside it
(written by :mod:`auditpacks.runner.tools.tool_run`); a run without one shows no trace.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from auditpacks.core.errors import FormatError
from auditpacks.core.io import iter_jsonl
from auditpacks.core.runs.record import RunRecord
from auditpacks.core.runs.run_files import stem_of, tool_run_names

#: Characters of a tool result the report shows (the trace file keeps the capped whole).
RESULT_CHARS = 600


def run_traces(run) -> dict[str, dict[str, Any]]:
    """Scenario name → its trace view, for a run under a tool condition (empty for any other run)."""
    return {name: trace_view(trace) for name, trace in raw_traces(run.record_path, run.record).items()}


def raw_traces(record_path: Path, record: RunRecord) -> dict[str, Mapping[str, Any]]:
    """Scenario name → its trace as written (every step, results uncut), for a run under a tool condition."""
    if record.condition is None:
        return {}
    path = record_path.parent / tool_run_names(stem_of(record_path))[0]
    if not path.is_file():
        return {}
    out = {}
    for number, trace in iter_jsonl(path):
        if not isinstance(trace, Mapping) or not isinstance(trace.get("scenario"), str) \
                or not isinstance(trace.get("steps", []), list):
            raise FormatError(f"{path.name} line {number}: not a trace (scenario and steps)")
        out[trace["scenario"]] = trace
    return out


def trace_view(trace: Mapping[str, Any]) -> dict[str, Any]:
    """One scenario's steps for the report: model calls (tokens, replayed from the cache) and tool calls."""
    steps = [_step(s) for s in trace.get("steps", []) if isinstance(s, Mapping)]
    tools = [s for s in steps if s["kind"] == "tool"]
    return {"steps": steps, "tool_calls": len(tools), "blocked": sum(s["blocked"] for s in tools),
            "failed": sum(not s["ok"] and not s["blocked"] for s in tools), "capped": bool(trace.get("capped")),
            "cutoff": trace.get("cutoff"), "snapshot": trace.get("snapshot"), "error": trace.get("error")}


def _step(step: Mapping[str, Any]) -> dict[str, Any]:
    if step.get("kind") != "tool":
        tokens = step.get("tokens") or {}
        return {"kind": "model", "call": step.get("call"), "input": tokens.get("input"),
                "output": tokens.get("output"), "cached": bool(step.get("cached")),
                "asked": step.get("tool_calls") or 0}
    result = str(step.get("result") or "")
    arguments = step.get("arguments")
    return {"kind": "tool", "call": step.get("call"), "tool": str(step.get("tool")),
            "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False),
            "result": result if len(result) <= RESULT_CHARS else result[:RESULT_CHARS] + "…",
            "cut": len(result) > RESULT_CHARS or bool(step.get("truncated")), "ok": bool(step.get("ok")),
            "blocked": bool(step.get("leak")), "error": step.get("error"),
            "dates": ", ".join(map(str, step.get("source_dates") or []))}
