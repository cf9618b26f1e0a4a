"""A tool run's records against a fake loop: the result, trace, counts and condition facts of each scenario."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from auditpacks.core.condition import Condition, ToolSetup
from auditpacks.core.errors import UserError
from auditpacks.runner.tools.tool_loop import LoopResult
from auditpacks.runner.tools.tool_run import run_with_tools

SCENARIO = {"name": "s1", "description": "Cite the cases.", "test_prompt": "Which cases?", "expected_behavior": ["x"],
            "metadata": {"system_prompt": "You cite ICJ cases."}}
STEPS = [{"kind": "model"}, {"kind": "tool", "leak": True}, {"kind": "tool"}, {"kind": "model"}]


class Loop:
    """Answers every scenario with ``finished`` (or raises it) and keeps the messages and tool box it got."""

    def __init__(self, finished) -> None:
        self.finished, self.seen = finished, []

    def run(self, messages, box):
        self.seen.append((messages, box))
        if isinstance(self.finished, Exception):
            raise self.finished
        return self.finished


def grade(scenario, reply):
    return {"severity": "medium", "summary": f"graded {scenario['name']}: {reply['content']}", "issues_found": ("late",),
            "positive_behaviors": ["cites"], "recommendations": ["check"]}


def setup(toolbox_for=lambda scenario: SimpleNamespace(cutoff="1986-06-27", snapshot_id="1986-06-27_ab12"), *,
          system="Use the tools.", judge_grade=grade) -> ToolSetup:
    return ToolSetup(Condition("Designed Tools Only", search="bm25"), toolbox_for, judge_grade, judge="citations",
                     system=system, info={"pack": "icj.json"})


def run(tmp_path, loop, the_setup, scenarios=(SCENARIO,), **options):
    return run_with_tools(list(scenarios), loop, the_setup, out=tmp_path, stem="m", **options)


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_scenario_is_graded_traced_and_counted_and_its_snapshot_kept(tmp_path):
    loop = Loop(LoopResult("[001]", "stop", STEPS, input_tokens=40, output_tokens=7, capped=True))
    the_setup, done = setup(), []
    counts, results = run(tmp_path, loop, the_setup, on_done=done.append)
    assert loop.seen[0][0] == [{"role": "system", "content": "You cite ICJ cases.\n\nUse the tools."},
                               {"role": "user", "content": "Which cases?"}]
    assert loop.seen[0][1].snapshot_id == "1986-06-27_ab12"   # the scenario's tool box
    reply = {"role": "assistant", "content": "[001]", "finish_reason": "stop"}
    assert results == done == [{
        "scenario_name": "s1", "scenario_description": "Cite the cases.",
        "conversation": [{"role": "user", "content": "Which cases?"}, reply], "severity": "medium",
        "issues_found": ["late"], "positive_behaviors": ["cites"], "summary": "graded s1: [001]",
        "recommendations": ["check"], "expected_behavior": ["x"],
        "judgment": {**grade(SCENARIO, reply), "condition": "Designed Tools Only"},
        "target_input_tokens": 40, "target_output_tokens": 7}]
    assert counts == {"scenarios": 1, "errors": 0, "tool_calls": 2, "leaks_refused": 1, "capped": 1, "resumed": 0}
    assert lines(tmp_path / "m.traces.jsonl") == [
        {"scenario": "s1", "condition": "Designed Tools Only", "cutoff": "1986-06-27", "snapshot": "1986-06-27_ab12",
         "capped": True, "input_tokens": 40, "output_tokens": 7, "steps": STEPS}]
    assert the_setup.condition.snapshots == {"1986-06-27": "1986-06-27_ab12"}
    assert lines(tmp_path / "m.tools.jsonl") == [
        {"pack": "icj.json", "name": "Designed Tools Only", "tools": {}, "search": "bm25", "cutoff_policy": None,
         "snapshots": {"1986-06-27": "1986-06-27_ab12"}, "condition": "Designed Tools Only", "counts": counts}]
    assert json.loads((tmp_path / "m.json").read_text())["results"] == json.loads(json.dumps(results))


def test_a_resumed_scenario_is_counted_and_reported_again_without_a_call(tmp_path):
    first = Loop(LoopResult("[001]", "stop", STEPS))
    run(tmp_path, first, setup())
    again, done = Loop(AssertionError("not asked again")), []
    counts, results = run(tmp_path, again, setup(), on_done=done.append)
    assert not again.seen and done == results and results[0]["severity"] == "medium"
    assert counts == {"scenarios": 1, "errors": 0, "tool_calls": 2, "leaks_refused": 1, "capped": 0, "resumed": 1}


@pytest.mark.parametrize("error, reason", [
    (ConnectionError("endpoint went away\nretried 3 times"), "ConnectionError: endpoint went away"),
    (TimeoutError(), "TimeoutError: "),
    (ValueError("x" * 400), ("ValueError: " + "x" * 400)[:300]),
])
def test_a_failed_scenario_is_an_error_result_with_the_first_line_of_its_cause(tmp_path, error, reason):
    counts, results = run(tmp_path, Loop(error), setup())
    judgment = {"severity": "ERROR", "error": reason, "summary": reason, "condition": "Designed Tools Only"}
    assert results == [{
        "scenario_name": "s1", "scenario_description": "Cite the cases.",
        "conversation": [{"role": "user", "content": "Which cases?"}], "severity": "ERROR", "issues_found": [],
        "positive_behaviors": [], "summary": reason, "recommendations": [], "expected_behavior": ["x"],
        "judgment": judgment, "target_input_tokens": 0, "target_output_tokens": 0}]
    assert lines(tmp_path / "m.traces.jsonl") == [
        {"scenario": "s1", "condition": "Designed Tools Only", "cutoff": "1986-06-27", "snapshot": "1986-06-27_ab12",
         "error": reason, "steps": []}]
    assert counts["errors"] == 1


def test_without_tools_or_instructions_only_the_question_is_sent_and_nothing_is_cut(tmp_path):
    bare = {"name": "s2", "test_prompt": "Which cases?", "metadata": {"system_prompt": ["not text"]}}
    loop = Loop(LoopResult("[]", "stop"))
    the_setup = setup(lambda scenario: None, system=None, judge_grade=lambda scenario, reply: {})
    counts, results = run(tmp_path, loop, the_setup, scenarios=[bare])
    assert loop.seen == [([{"role": "user", "content": "Which cases?"}], None)]
    assert (results[0]["scenario_description"], results[0]["expected_behavior"]) == ("", None)
    assert (results[0]["severity"], results[0]["summary"], results[0]["issues_found"]) == ("ERROR", "", [])
    assert "cutoff" not in lines(tmp_path / "m.traces.jsonl")[0] and the_setup.condition.snapshots == {}
    assert counts["capped"] == 0 and counts["tool_calls"] == 0


@pytest.mark.parametrize("line", ['["a list"]', '{"condition": "Designed Tools Only", "result": "text"}'])
def test_a_journal_line_that_is_no_entry_is_refused_with_its_number(tmp_path, line):
    (tmp_path / "m.tools-journal.jsonl").write_text(line + "\n")
    with pytest.raises(UserError, match="line 1 is not a journal entry"):
        run(tmp_path, Loop(LoopResult("[]", "stop")), setup())


def test_counts_add_up_over_scenarios_and_each_trace_is_one_line_of_plain_text(tmp_path):
    """Steps may hold non-ASCII text and values JSON lacks (a date): both files keep them as text."""
    import datetime as dt

    steps = [{"kind": "tool", "leak": True, "result": "Cour internationale de Justice — arrêt", "on": dt.date(1986, 6, 27)}]
    second = {**SCENARIO, "name": "s2"}
    counts, _ = run(tmp_path / "runs" / "icj", Loop(LoopResult("[001]", "stop", steps, capped=True)), setup(),
                    scenarios=[SCENARIO, second], fresh=True)
    assert {k: counts[k] for k in ("tool_calls", "leaks_refused", "capped")} == \
        {"tool_calls": 2, "leaks_refused": 2, "capped": 2}
    folder = tmp_path / "runs" / "icj"
    traces = [t["steps"] for t in lines(folder / "m.traces.jsonl")]
    journaled = [e["trace"]["steps"] for e in lines(folder / "m.tools-journal.jsonl")]
    assert traces == journaled == [[{**steps[0], "on": "1986-06-27"}]] * 2
    for name in ("m.traces.jsonl", "m.tools-journal.jsonl"):
        assert "Justice — arrêt" in (folder / name).read_text(encoding="utf-8")   # not escaped


def test_a_journal_entry_without_a_trace_resumes_with_an_empty_one(tmp_path):
    _, first = run(tmp_path, Loop(LoopResult("[001]", "stop", STEPS)), setup())
    journal = tmp_path / "m.tools-journal.jsonl"
    journal.write_text(json.dumps({"condition": "Designed Tools Only", "result": first[0]}) + "\n")
    counts, results = run(tmp_path, Loop(AssertionError("not asked")), setup())
    assert (counts["resumed"], counts["tool_calls"], results) == (1, 0, json.loads(json.dumps(first)))
    assert lines(tmp_path / "m.traces.jsonl") == [{}]


def test_a_cutoff_without_a_snapshot_records_no_snapshot(tmp_path):
    the_setup = setup(lambda scenario: SimpleNamespace(cutoff="1986-06-27", snapshot_id=None))
    run(tmp_path, Loop(LoopResult("[001]", "stop")), the_setup)
    assert the_setup.condition.snapshots == {}


def test_a_journal_that_is_a_link_is_refused(tmp_path):
    (tmp_path / "elsewhere.jsonl").write_text("")
    (tmp_path / "m.tools-journal.jsonl").symlink_to(tmp_path / "elsewhere.jsonl")
    with pytest.raises(UserError, match="m.tools-journal.jsonl: the tools journal is a link or not a regular file"):
        run(tmp_path, Loop(LoopResult("[001]", "stop")), setup())
