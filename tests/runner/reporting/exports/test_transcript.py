"""A result's conversation as turns: documents apart from the prompt, reasoning and reply facts kept, and a tool
run's trace turned into the conversation it was (written by hand here, including a run cut at its step cap)."""

from __future__ import annotations

import pytest

from auditpacks.core.runs.results import Result
from auditpacks.runner.reporting.exports.transcript import ToolUse, Turn, arguments, text, transcript, turn


def result(conversation):
    return Result.read({"scenario_name": "s1", "severity": "pass", "conversation": conversation})


def test_a_plain_conversation_keeps_documents_reasoning_and_facts():
    opening, rest = transcript(result([
        {"role": "user", "content": "Which option?", "documents": ["doc one", {"text": "doc two"}]},
        {"role": "assistant", "content": "yes", "reasoning": "the verdict says so", "finish_reason": "stop",
         "decision": {"choice": "yes"}, "extra": 1},
        {"role": "user", "content": "Sure?"}, {"role": "assistant", "content": "yes"}]), system_prompt="Be brief.")
    assert [(t.role, t.content) for t in opening] == [("system", "Be brief."), ("user", "Which option?")]
    assert opening[1].documents == ["doc one", "doc two"]
    assert [(t.role, t.content) for t in rest] == [("assistant", "yes"), ("user", "Sure?"), ("assistant", "yes")]
    assert rest[0].reasoning == "the verdict says so"
    assert rest[0].facts == {"finish_reason": "stop", "decision": {"choice": "yes"}}


TRACE = {"steps": [
    {"kind": "model", "call": 1, "tokens": {"input": 10, "output": 2}, "cached": True, "text": "looking"},
    {"kind": "tool", "call": 1, "tool": "find", "arguments": {"q": "x"}, "result": "[1]", "ok": True},
    {"kind": "tool", "call": 1, "tool": "get", "arguments": "{not json", "result": "", "ok": False,
     "error": "bad arguments"},
    {"kind": "model", "call": 2, "tokens": {"input": 20, "output": 3}, "text": ""},
    {"kind": "tool", "call": 2, "tool": "get", "arguments": {"id": "9"}, "result": "{}", "ok": False, "leak": True,
     "error": "dated after the cutoff", "source_dates": ["2001-01-01"]},
    {"kind": "model", "call": 3, "tokens": {"input": 30, "output": 4}, "text": "final"}]}


def test_a_trace_becomes_model_calls_and_tool_results():
    _, rest = transcript(result([{"role": "user", "content": "q"}, {"role": "assistant", "content": "final"}]),
                         TRACE)
    assert [t.role for t in rest] == ["assistant", "tool", "tool", "assistant", "tool", "assistant"]
    first, found, refused, second, blocked, last = rest
    assert first.tool_calls == [ToolUse("call_1_1", "find", {"q": "x"}), ToolUse("call_1_2", "get",
                                                                                  {"arguments": "{not json"})]
    assert (first.tokens, first.cached, second.tokens, last.tokens) == ((10, 2), True, (20, 3), (30, 4))
    assert (found.call_id, found.content, found.error) == ("call_1_1", "[1]", None)
    assert (refused.error, refused.blocked) == ("bad arguments", False)
    assert (blocked.call_id, blocked.blocked, blocked.error) == ("call_2_1", True, "dated after the cutoff")
    assert blocked.facts["source_dates"] == ["2001-01-01"]
    assert last.content == "final" and last.tool_calls == []


def test_a_run_cut_at_its_step_cap_ends_on_its_tool_results():
    capped = {"steps": TRACE["steps"][:5]}
    _, rest = transcript(result([{"role": "user", "content": "q"}, {"role": "assistant", "content": ""}]), capped)
    assert [t.role for t in rest] == ["assistant", "tool", "tool", "assistant", "tool"]
    assert rest[3].tool_calls == [ToolUse("call_2_1", "get", {"id": "9"})]


def test_arguments_are_an_object():
    assert arguments('{"a": 1}') == {"a": 1} and arguments("[1, 2]") == {"arguments": [1, 2]}
    assert arguments("plain") == {"arguments": "plain"} and arguments(None) == {"arguments": None}


@pytest.mark.parametrize("content, expected", [
    ([{"type": "text", "text": "a"}, "b", {"type": "image"}], "a\nb\n"), (None, ""), (3, "3"), ("plain", "plain")])
def test_content_in_parts_is_joined_line_by_line(content, expected):
    assert text(content) == expected


def test_an_entry_becomes_a_turn_with_what_it_holds_and_a_bare_string_a_user_turn():
    assert turn("just text") == Turn("user", "just text")
    assert turn({"content": "q", "documents": [{"title": "untitled"}, 7], "reasoning": "", "cut_chars": 12}) == \
        Turn("user", "q", documents=["", "7"], facts={"cut_chars": 12})


def test_the_opening_runs_to_the_first_reply_or_an_entry_that_is_no_object():
    opening, rest = transcript(result([{"role": "user", "content": "q"}, "stray text", {"role": "user"}]),
                               {"steps": ["not a step"]}, system_prompt="")
    assert opening == [Turn("user", "q")] and rest == [Turn("user", "stray text"), Turn("user", "")]
    opening, rest = transcript(result([{"role": "user", "content": "q"}]))
    assert opening == [Turn("user", "q")] and rest == []


def _steps(*steps):
    return {"steps": [{"kind": "model", "call": i, **s} for i, s in enumerate(steps, 1)]}


def test_only_the_last_model_call_without_tool_calls_is_the_graded_reply_and_keeps_its_own_facts():
    graded = {"role": "assistant", "content": "final", "finish_reason": "stop"}
    trace = _steps({"text": "first", "finish_reason": "length", "tokens": {"output": 5}},
                   {"tokens": {"input": 7}}, {"finish_reason": "tool_calls"})
    _, rest = transcript(result([{"role": "user", "content": "q"}, graded]), trace)
    assert [(t.content, t.tokens, t.facts) for t in rest] == [
        ("first", (0, 5), {"finish_reason": "length"}), ("", (7, 0), {}), ("final", (0, 0), {"finish_reason": "stop"})]


@pytest.mark.parametrize("tool, error, blocked", [
    ({"ok": True}, None, False),
    ({}, None, False),                                          # no word on success: it succeeded
    ({"ok": False}, "the tool call failed", False),
    ({"ok": True, "leak": True, "error": "dated after the cutoff"}, "dated after the cutoff", True),
])
def test_a_tool_turn_answers_its_call_and_says_whether_it_failed_or_was_withheld(tool, error, blocked):
    trace = {"steps": [{"kind": "model", "call": 4}, {"kind": "tool", "tool": "get", "result": None, **tool}]}
    _, (_, answer) = transcript(result([{"role": "user", "content": "q"}]), trace)
    assert (answer.call_id, answer.function, answer.content, answer.error, answer.blocked) == (
        "call_4_1", "get", "", error, blocked)
    assert answer.facts == {"source_dates": [], "truncated": False}


def test_a_tool_turn_says_when_the_tool_cut_its_result():
    trace = {"steps": [{"kind": "model", "call": 1}, {"kind": "tool", "tool": "get", "result": "x", "truncated": 1}]}
    assert transcript(result([]), trace)[1][1].facts["truncated"] is True
