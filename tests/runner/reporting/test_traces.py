"""The report's view of a tool run's trace: tool calls, cut results, blocked-by-cutoff marks, model calls."""

from __future__ import annotations

import json

from auditpacks.runner.reporting.traces import RESULT_CHARS, trace_view

TRACE = {"scenario": "s1", "condition": "c", "cutoff": "1986-06-27", "snapshot": "1986-06-27_ab", "capped": True,
         "steps": [{"kind": "model", "call": 1, "tokens": {"input": 100, "output": 10}, "cached": True,
                    "tool_calls": 3},
                   {"kind": "tool", "call": 1, "tool": "find_case", "arguments": {"query": "Corfu"},
                    "result": "x" * (RESULT_CHARS + 5), "ok": True, "leak": False,
                    "source_dates": ["1949-04-09", "1948-03-25"], "truncated": False},
                   {"kind": "tool", "call": 1, "tool": "get_document", "arguments": {"document_id": "d"},
                    "result": '{"error": "result withheld"}', "ok": False, "leak": True,
                    "error": "later date 1990-01-01"},
                   {"kind": "tool", "call": 1, "tool": "teleport", "arguments": "{not json", "result": "{}",
                    "ok": False, "leak": False, "error": "no tool"},
                   {"kind": "model", "call": 2, "tokens": {"input": 200, "output": 20}, "tool_calls": 0}]}


def test_a_trace_shows_each_call_with_its_marks():
    view = trace_view(TRACE)
    assert (view["tool_calls"], view["blocked"], view["failed"], view["capped"]) == (3, 1, 1, True)
    model, found, blocked, refused, last = view["steps"]
    assert model == {"kind": "model", "call": 1, "input": 100, "output": 10, "cached": True, "asked": 3}
    assert found["arguments"] == json.dumps({"query": "Corfu"}) and found["cut"] is True
    assert found["result"] == "x" * RESULT_CHARS + "…" and found["dates"] == "1949-04-09, 1948-03-25"
    assert blocked["blocked"] is True and blocked["error"] == "later date 1990-01-01"
    assert refused["arguments"] == "{not json" and not refused["ok"] and not refused["blocked"]
    assert last["cached"] is False and view["cutoff"] == "1986-06-27"
