"""The report's view of a tool run's trace (tool calls, cut results, blocked-by-cutoff marks, model calls), read
from the traces file beside a run under a tool condition."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.core.errors import FormatError

from auditpacks.runner.reporting.traces import RESULT_CHARS, raw_traces, run_traces, trace_view

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


def test_a_tool_step_shows_its_call_tool_arguments_as_written_and_a_result_at_the_limit_uncut():
    step = {"kind": "tool", "call": 2, "tool": "find_case", "arguments": {"query": "Cour de Genève — 1949"},
            "result": "r" * RESULT_CHARS, "ok": True, "truncated": False}
    assert trace_view({"steps": [step]})["steps"] == [
        {"kind": "tool", "call": 2, "tool": "find_case", "arguments": '{"query": "Cour de Genève — 1949"}',
         "result": "r" * RESULT_CHARS, "cut": False, "ok": True, "blocked": False, "error": None, "dates": ""}]


def test_a_step_without_a_result_or_count_shows_empty_and_a_result_the_tool_cut_is_marked_cut():
    model, tool = trace_view({"steps": [{"kind": "model", "call": 1},
                                        {"kind": "tool", "tool": "get_document", "truncated": True}]})["steps"]
    assert (model["asked"], model["input"], model["cached"]) == (0, None, False)
    assert (tool["result"], tool["cut"], tool["ok"]) == ("", True, False)


def test_the_view_counts_failed_calls_apart_from_blocked_ones_and_keeps_the_trace_facts():
    def tool(ok, leak):
        return {"kind": "tool", "tool": "t", "result": "{}", "ok": ok, "leak": leak}
    view = trace_view({"steps": [tool(False, False), tool(False, False), tool(True, False), tool(False, True),
                                 "not a step"],
                       "snapshot": "1986-06-27_ab", "error": "tool budget spent"})
    assert (view["tool_calls"], view["failed"], view["blocked"]) == (4, 2, 1)
    assert (view["snapshot"], view["error"], view["capped"], view["cutoff"]) == (
        "1986-06-27_ab", "tool budget spent", False, None)
    assert trace_view({"scenario": "s"})["steps"] == []


def _run(folder: Path, lines: list, condition="graph tools"):
    """A run record's path under ``condition`` with its traces file of ``lines`` beside it (None: no file)."""
    record_path = folder / "m-run.run.json"
    if lines is not None:
        (folder / "m-run.traces.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    (folder / "m-run.tools.jsonl").write_text(json.dumps({"scenario": "facts"}) + "\n", encoding="utf-8")
    return SimpleNamespace(record_path=record_path, record=SimpleNamespace(condition=condition))


def test_a_tool_run_reads_each_scenario_trace_from_the_traces_file_beside_its_record(tmp_path):
    first, second = {"scenario": "s1", "steps": [{"kind": "model", "call": 1}]}, {"scenario": "s2"}
    run = _run(tmp_path, [first, second])
    assert raw_traces(run.record_path, run.record) == {"s1": first, "s2": second}
    views = run_traces(run)
    assert list(views) == ["s1", "s2"] and views["s1"]["steps"][0]["kind"] == "model"


@pytest.mark.parametrize("lines, condition", [([{"scenario": "s1"}], None), (None, "graph tools")])
def test_a_run_without_a_condition_or_without_a_traces_file_has_no_traces(tmp_path, lines, condition):
    run = _run(tmp_path, lines, condition)
    assert raw_traces(run.record_path, run.record) == {} and run_traces(run) == {}


@pytest.mark.parametrize("bad", [["s2"], {"steps": []}, {"scenario": 2}, {"scenario": "s2", "steps": {}}])
def test_a_line_that_is_no_trace_is_refused_with_its_file_and_line(tmp_path, bad):
    run = _run(tmp_path, [{"scenario": "s1"}, bad])
    with pytest.raises(FormatError, match=r"^m-run\.traces\.jsonl line 2: not a trace \(scenario and steps\)$"):
        raw_traces(run.record_path, run.record)
