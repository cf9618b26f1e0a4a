"""One result as an Inspect AI sample, from results written by hand: the input the target was given (system
prompt, documents as text parts before the prompt), the messages that followed, the verdict as C / I / N with the
benchmark's answer and the judgment, token usage per model and role, an ERROR as the sample's error, and a tool
run's model and tool events (a result the cutoff guard withheld as a permission error)."""

from __future__ import annotations

import datetime as dt

import pytest
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool, ChatMessageUser

from auditpacks.core.runs.results import Result
from auditpacks.judges.reader import Reader
from auditpacks.runner.reporting.exports.inspect_samples import to_sample, usage

CLOSED = Reader.of("choice_match", "auditpacks.packs.iustitia.builder")
GENERIC = Reader.of("checklist", None)
STARTED = dt.datetime(2026, 12, 1, 9, 30, tzinfo=dt.timezone.utc)


def result(severity="pass", judgment=None, conversation=None, **fields):
    return Result.read({"scenario_name": "s1", "severity": severity, "judgment": judgment or {},
                        "conversation": conversation if conversation is not None else [], **fields})


def sample(res, reader=CLOSED, **kwargs):
    return to_sample(res, kwargs.pop("epoch", 1), model="m", judge="choice_match", reader=reader, started=STARTED,
                     **kwargs)


def test_usage_totals_input_and_output():
    assert (usage(7, 3).input_tokens, usage(7, 3).output_tokens, usage(7, 3).total_tokens) == (7, 3, 10)


@pytest.mark.parametrize("severity, judgment, value", [
    ("pass", {"choice": "a", "correct": True}, "C"),
    ("medium", {"choice": "b", "correct": False}, "I"),
    ("ungraded", {"severity": "ungraded"}, "N"),
    ("ERROR", {"severity": "ERROR", "error": "HTTP 500"}, "N"),
])
def test_the_verdict_is_inspects_c_i_or_n_with_the_verdict_word_and_judgment_kept(severity, judgment, value):
    s = sample(result(severity, judgment))
    score = s.scores["choice_match"]
    assert score.value == value
    assert score.metadata["severity"] == severity and score.metadata["judgment"] == judgment
    assert score.metadata["verdict"] == {"C": "correct", "I": "wrong"}.get(value, score.metadata["verdict"])


def test_a_benchmarks_own_kind_of_wrong_scores_incorrect(monkeypatch):
    monkeypatch.setattr(Reader, "outcome", lambda self, raw: "invented")
    assert sample(result()).scores["choice_match"].value == "I"


def test_the_answer_is_the_benchmarks_reading_and_the_explanation_the_summary():
    s = sample(result("pass", {"choice": "a", "choice_source": "text", "summary": "judged"}, summary="top summary"))
    assert (s.scores["choice_match"].answer, s.scores["choice_match"].explanation) == ("chose a (text)", "top summary")
    s = sample(result("pass", {"summary": "the judgment's"}), reader=GENERIC)
    assert (s.scores["choice_match"].answer, s.scores["choice_match"].explanation) == ("the judgment's",
                                                                                      "the judgment's")
    assert sample(result("pass", {}), reader=GENERIC).scores["choice_match"].explanation == ""


def test_the_input_is_what_the_target_was_given_and_the_output_its_last_reply():
    conversation = [{"role": "user", "content": "Which?", "documents": ["Doc A", {"text": "Doc B"}]},
                    {"role": "assistant", "content": "a", "reasoning": "because", "finish_reason": "stop"},
                    {"role": "user", "content": "Sure?"}, {"role": "assistant", "content": "a, yes"}]
    s = sample(result(conversation=conversation, target_input_tokens=40, target_output_tokens=5,
                      expected_behavior=["Answers a.", 7], scenario_description="d", issues_found=["x"]),
               system_prompt="Be brief.", epoch=2)
    system, user = s.input
    assert isinstance(system, ChatMessageSystem) and system.content == "Be brief."
    assert isinstance(user, ChatMessageUser) and [c.text for c in user.content] == ["Doc A", "Doc B", "Which?"]
    assert (s.id, s.epoch, s.target) == ("s1", 2, ["Answers a.", "7"])
    assert [type(m) for m in s.messages] == [ChatMessageSystem, ChatMessageUser, ChatMessageAssistant,
                                             ChatMessageUser, ChatMessageAssistant]
    first = s.messages[2]
    assert [c.reasoning if c.type == "reasoning" else c.text for c in first.content] == ["because", "a"]
    assert first.metadata == {"finish_reason": "stop"} and first.tool_calls is None
    assert s.messages[3].content == "Sure?" and s.messages[4].metadata is None
    assert s.output.model == "m" and s.output.choices[0].message.content == "a, yes"
    assert (s.output.usage.input_tokens, s.output.usage.output_tokens, s.output.usage.total_tokens) == (40, 5, 45)
    assert s.model_usage["m"].total_tokens == 45
    assert s.metadata == {"scenario_description": "d", "issues_found": ["x"], "severity": "pass"}
    assert s.error is None and s.events == [] and s.role_usage == {}


def test_without_a_transcript_the_input_is_the_scenarios_description_and_there_is_no_output():
    s = sample(result("ERROR", {"error": "timed out"}, scenario_description="Asks about V1."))
    assert (s.input, s.target, s.output.choices, s.messages) == ("Asks about V1.", "", [], [])
    assert s.error.message == "timed out" and (s.error.traceback, s.error.traceback_ansi) == ("", "")
    assert sample(result("ERROR")).error.message == "the scenario ended in ERROR"
    assert sample(result("ERROR")).input == ""


def test_judge_and_auditor_tokens_are_role_usage_when_spent():
    s = sample(result(judge_input_tokens=300, judge_output_tokens=20, auditor_output_tokens=9))
    assert {role: (u.input_tokens, u.output_tokens, u.total_tokens) for role, u in s.role_usage.items()} == {
        "judge": (300, 20, 320), "auditor": (0, 9, 9)}
    only = sample(result(judge_input_tokens=4)).role_usage
    assert {role: (u.input_tokens, u.output_tokens) for role, u in only.items()} == {"judge": (4, 0)}


TRACE = {"condition": "tools", "cutoff": "2000-01-01", "snapshot": "g1", "capped": False, "other": "not kept",
         "steps": [
             {"kind": "model", "call": 1, "tokens": {"input": 10, "output": 2}, "cached": True, "text": "looking"},
             {"kind": "tool", "call": 1, "tool": "find", "arguments": {"q": "x"}, "result": "[1]", "ok": True},
             {"kind": "tool", "call": 1, "tool": "get", "arguments": {"id": "9"}, "result": "", "ok": False,
              "leak": True, "error": "dated after the cutoff"},
             {"kind": "tool", "call": 1, "tool": "get", "arguments": {"id": "8"}, "result": "", "ok": False,
              "error": "no such id"},
             {"kind": "model", "call": 2, "tokens": {"input": 30, "output": 4}, "text": "final"}]}


def test_a_tool_run_gives_a_model_event_per_call_and_a_tool_event_per_tool_call():
    conversation = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "final"}]
    s = sample(result(conversation=conversation), trace=TRACE, tools=["find", "get"])
    assert [e.event for e in s.events] == ["model", "tool", "tool", "tool", "model"]
    first, found, withheld, failed, last = s.events
    assert (first.model, first.tool_choice, first.cache, first.timestamp) == ("m", "auto", "read", STARTED)
    assert [(t.name, t.description) for t in first.tools] == [("find", "find"), ("get", "get")]
    assert [m.content for m in first.input] == ["q"]                    # what the model had been given
    assert first.output.model == "m" and first.output.choices[0].message.content == "looking"
    assert first.output.usage.total_tokens == 12
    assert [(c.id, c.function, c.arguments) for c in first.output.choices[0].message.tool_calls] == [
        ("call_1_1", "find", {"q": "x"}), ("call_1_2", "get", {"id": "9"}), ("call_1_3", "get", {"id": "8"})]
    assert last.cache is None and len(last.input) == 5 and last.output.usage.total_tokens == 34
    assert (found.id, found.function, found.arguments, found.result, found.error) == (
        "call_1_1", "find", {"q": "x"}, "[1]", None)
    assert found.timestamp == STARTED
    assert found.metadata == {"blocked_by_cutoff": False, "source_dates": [], "truncated": False}
    assert (withheld.error.type, withheld.error.message) == ("permission",
                                                             "withheld by the cutoff guard: dated after the cutoff")
    assert withheld.metadata["blocked_by_cutoff"] is True and withheld.arguments == {"id": "9"}
    assert (failed.error.type, failed.error.message) == ("unknown", "no such id")
    tool_messages = [m for m in s.messages if isinstance(m, ChatMessageTool)]
    assert [(m.tool_call_id, m.function, m.error is None) for m in tool_messages] == [
        ("call_1_1", "find", True), ("call_1_2", "get", False), ("call_1_3", "get", False)]
    assert tool_messages[0].metadata == {"source_dates": [], "truncated": False}
    assert s.metadata["tool_run"] == {"condition": "tools", "cutoff": "2000-01-01", "snapshot": "g1",
                                      "capped": False, "error": None}


def test_a_tool_run_without_tools_listed_offers_none_and_keeps_each_calls_arguments():
    steps = [{"kind": "model", "call": 1, "tokens": {"input": 1, "output": 1}, "text": ""},
             {"kind": "tool", "call": 1, "tool": "find", "arguments": {"q": "x"}, "result": "r"},
             {"kind": "tool", "call": 1, "tool": "", "arguments": {}, "result": "r"}]
    s = sample(result(conversation=[{"role": "user", "content": "q"}]), trace={"steps": steps})
    assert [e.event for e in s.events] == ["model", "tool", "tool"] and s.events[1].arguments == {"q": "x"}
    assert s.events[2].function == ""                                  # a call the trace left unnamed
    assert s.events[0].tools == []
