"""One result as an Every Eval Ever instance row, from results written by hand: single-turn, multi-turn and agentic
rows, the input and reference, where the answer was read and what it was, the verdict as a 1/0 score, tokens, an
ERROR's message, and the metadata as strings only (the schema takes nothing else)."""

from __future__ import annotations

import hashlib
import json

from auditpacks.core.runs.results import Result
from auditpacks.judges.reader import Reader
from auditpacks.runner.reporting.exports.eee_rows import instance_row, strings

CLOSED = Reader.of("choice_match", "auditpacks.packs.iustitia.builder")
HEAD = {"schema_version": "0.3.0", "evaluation_id": "e1", "model_id": "m", "evaluation_name": "tiny"}


def result(conversation, severity="pass", judgment=None, **fields):
    return Result.read({"scenario_name": "s1", "severity": severity, "conversation": conversation,
                        "judgment": judgment if judgment is not None else {"choice": "a", "correct": True}, **fields})


def row(res, epoch=1, **kwargs):
    return instance_row(res, epoch, head=HEAD, judge="choice_match", reader=CLOSED, **kwargs)


def test_strings_makes_every_value_a_string_and_leaves_none_out():
    assert strings({"a": "x", "b": 2, "c": None, "d": {"z": "é", "a": [1]}, 5: True}) == {
        "a": "x", "b": "2", "d": '{"a": [1], "z": "é"}', "5": "true"}


def test_a_one_reply_scenario_is_single_turn_with_its_reply_as_output():
    conversation = [{"role": "user", "content": "Which?", "documents": ["Doc A", "Doc B"]},
                    {"role": "assistant", "content": "a\nBecause.", "reasoning": "thought"}]
    r = row(result(conversation, target_input_tokens=30, target_output_tokens=4, expected_behavior=["Answers a.", 2],
                   summary="Chose a."), epoch=3)
    assert {k: r[k] for k in HEAD} == HEAD
    assert (r["sample_id"], r["interaction_type"], r["messages"]) == ("s1", "single_turn", None)
    assert r["sample_hash"] == hashlib.sha256("Which?Answers a.2".encode()).hexdigest()
    assert r["input"] == {"raw": "Which?", "reference": ["Answers a.", "2"], "formatted": "Doc A\n\nDoc B\n\nWhich?"}
    assert r["output"] == {"raw": ["a\nBecause."], "reasoning_trace": ["thought"]}
    assert r["answer_attribution"] == [{"turn_idx": 0, "source": "output.raw", "extracted_value": "chose a",
                                        "extraction_method": "auditpacks choice_match grader", "is_terminal": True}]
    assert r["evaluation"] == {"score": 1.0, "is_correct": True, "num_turns": 1, "tool_calls_count": 0}
    assert r["token_usage"] == {"input_tokens": 30, "output_tokens": 4, "total_tokens": 34}
    assert r["error"] is None
    assert r["metadata"] == {"verdict": "correct", "severity": "pass", "epoch": "3", "judge": "choice_match",
                             "summary": "Chose a.", "judgment": '{"choice": "a", "correct": true}'}


def test_a_prompt_without_documents_has_no_formatted_input_and_a_reply_without_reasoning_no_trace():
    r = row(result([{"role": "user", "content": "Which?"}, {"role": "assistant", "content": "b"}], "medium",
                   {"choice": "b", "correct": False}))
    assert r["input"] == {"raw": "Which?", "reference": [], "formatted": None}
    assert r["output"] == {"raw": ["b"], "reasoning_trace": None}
    assert r["evaluation"] == {"score": 0.0, "is_correct": False, "num_turns": 1, "tool_calls_count": 0}
    assert r["sample_hash"] == hashlib.sha256(b"Which?").hexdigest()


def test_several_replies_make_a_multi_turn_row_with_every_turn_and_the_answer_read_from_the_last():
    conversation = [{"role": "user", "content": "Which?", "documents": ["Doc"]},
                    {"role": "assistant", "content": "a", "decision": {"choice": "a"}},
                    {"role": "user", "content": "Sure?"}, {"role": "assistant", "content": "a, yes"}]
    r = row(result(conversation), system_prompt="Be brief.")
    assert (r["interaction_type"], r["output"]) == ("multi_turn", None)
    assert [(m["turn_idx"], m["role"], m["content"]) for m in r["messages"]] == [
        (0, "system", "Be brief."), (1, "user", "Doc\n\nWhich?"), (2, "assistant", "a"), (3, "user", "Sure?"),
        (4, "assistant", "a, yes")]
    assert all(m["tool_calls"] is None and m["tool_call_id"] is None and m["reasoning_trace"] is None
               for m in r["messages"])
    assert r["answer_attribution"][0]["turn_idx"] == 4 and r["answer_attribution"][0]["source"] == "messages[4].content"
    assert r["evaluation"]["num_turns"] == 2
    assert json.loads(r["metadata"]["decision"]) == {"choice": "a"}


def test_a_tool_run_is_agentic_with_its_calls_and_results():
    trace = {"condition": "tools", "cutoff": "2000-01-01", "snapshot": "g1", "capped": True, "steps": [
        {"kind": "model", "call": 1, "tokens": {"input": 5, "output": 1}, "text": "looking"},
        {"kind": "tool", "call": 1, "tool": "find", "arguments": {"q": "x", "n": 2}, "result": "[1]"},
        {"kind": "tool", "call": 1, "tool": "get", "arguments": {"id": "9"}, "result": "", "ok": False, "leak": True},
        {"kind": "model", "call": 2, "tokens": {"input": 9, "output": 2}, "text": "final"}]}
    conversation = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "final"}]
    r = row(result(conversation), trace=trace)
    assert (r["interaction_type"], r["output"]) == ("agentic", None)
    first, asked, found, withheld, last = r["messages"]
    assert asked["tool_calls"] == [{"id": "call_1_1", "name": "find", "arguments": {"q": "x", "n": "2"}},
                                   {"id": "call_1_2", "name": "get", "arguments": {"id": "9"}}]
    assert (found["role"], found["tool_call_id"], withheld["tool_call_id"]) == ("tool", ["call_1_1"], ["call_1_2"])
    assert r["answer_attribution"][0]["turn_idx"] == 4
    assert r["evaluation"] == {"score": 1.0, "is_correct": True, "num_turns": 2, "tool_calls_count": 2}
    meta = r["metadata"]
    assert (meta["tool_run.condition"], meta["tool_run.cutoff"], meta["tool_run.snapshot"], meta["tool_run.capped"],
            meta["tool_run.blocked_by_cutoff"]) == ("tools", "2000-01-01", "g1", "true", "1")


def test_an_error_without_a_reply_has_no_answer_and_says_what_failed():
    r = row(result([], "ERROR", {"severity": "ERROR", "error": "HTTP 500"}))
    assert (r["interaction_type"], r["output"], r["answer_attribution"]) == ("single_turn",
                                                                            {"raw": [], "reasoning_trace": None}, [])
    assert r["input"] == {"raw": "", "reference": [], "formatted": None}
    assert r["sample_hash"] == hashlib.sha256(b"").hexdigest()
    assert (r["error"], r["evaluation"]["num_turns"], r["evaluation"]["score"]) == ("HTTP 500", 1, 0.0)
    assert row(result([], "ERROR", {"severity": "ERROR"}))["error"] == "the scenario ended in ERROR"


def test_an_agentic_row_without_replies_attributes_nothing():
    trace = {"steps": [{"kind": "tool", "call": 1, "tool": "find", "arguments": {}, "result": "r"}]}
    r = row(result([{"role": "user", "content": "q"}]), trace=trace)
    assert (r["interaction_type"], r["answer_attribution"]) == ("agentic", [])
    assert [m["role"] for m in r["messages"]] == ["user"]
