"""One scenario's result as the report words it: which verdicts the "wrong only" filter keeps, the answer read
(in the benchmark's words, else the judgment's summary; an ERROR's message), the question it groups under, the
prompt and documents as sent and their names, the reply as shown (cut, with a decision, marked when cut off by
the token cap) and the tokens it cost."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from auditpacks.judges.reader import Reader
from auditpacks.runner.reporting import outcomes
from tests.support.tiny_pack import tiny_scenario

CLOSED = Reader.of("choice_match", "auditpacks.packs.iustitia.builder")   # words answers, groups by question
GENERIC = Reader.of("checklist", None)                                     # no report module of its own
SCENARIO = tiny_scenario(4)      # judgment V0001, question q4, category System Integrity


def turn(role, content, **extra):
    return {"role": role, "content": content, **extra}


def test_wrong_and_a_benchmarks_own_kinds_of_wrong_are_kept_by_the_wrong_only_filter():
    assert [outcomes.bad(w) for w in ("wrong", "invented", "correct", "ungraded", "error", "")] == [
        True, True, False, False, False, False]


def test_the_answer_is_in_the_benchmarks_words_else_the_summary_and_an_error_says_what_failed():
    assert outcomes.answer(CLOSED, {"judgment": {"choice": "guilty", "choice_method": "first line"}}) \
        == "chose guilty (first line)"
    assert outcomes.answer(CLOSED, {"judgment": {"choice": None}}) == "no choice read"
    assert outcomes.answer(GENERIC, {"judgment": {"summary": "Met 3 of 4."}}) == "Met 3 of 4."
    assert outcomes.answer(GENERIC, {"judgment": {}}) == outcomes.answer(GENERIC, {}) == ""
    failed = {"severity": "ERROR", "judgment": {"severity": "ERROR", "error": "HTTP 500"}}
    assert outcomes.answer(CLOSED, failed) == "HTTP 500"
    assert outcomes.answer(CLOSED, {"severity": "ERROR"}) == "the scenario did not complete"


def test_two_runs_agree_on_a_scenario_when_outcome_and_answer_match():
    right = {"severity": "pass", "judgment": {"choice": "guilty", "correct": True, "severity": "pass"}}
    assert outcomes.answer_key(CLOSED, right) == "correct|chose guilty"
    assert outcomes.answer_key(CLOSED, {**right, "judgment": {**right["judgment"], "choice_source": "text"}}) \
        == "correct|chose guilty (text)"


def test_a_scenario_groups_under_its_benchmarks_question_else_its_category():
    assert outcomes.group(CLOSED, SCENARIO) == "q4"
    assert outcomes.group(GENERIC, {"category": "Safety"}) == "Safety"
    # a report module's own grouping comes first; without one, the reader's question, then the category
    own = SimpleNamespace(report=SimpleNamespace(group=lambda s: "by the report"), question=lambda s: "asked")
    assert outcomes.group(own, SCENARIO) == "by the report"
    assert outcomes.group(SimpleNamespace(report=None, question=lambda s: "asked"), SCENARIO) == "asked"
    assert outcomes.group(GENERIC, {}) == "all"


def test_the_prompt_is_the_first_user_turn_as_sent_else_the_scenarios():
    result = {"conversation": [turn("system", "Be brief."), turn("user", "Sent prompt"), turn("user", "Later")]}
    assert outcomes.prompt(SCENARIO, result) == "Sent prompt"
    parts = {"conversation": [turn("user", [{"type": "text", "text": "Part one"}, "part two", {"type": "image"}])]}
    assert outcomes.prompt(SCENARIO, parts) == "Part one\npart two\n"
    assert outcomes.prompt(SCENARIO, {"conversation": [turn("user", None)]}) == ""
    assert outcomes.prompt(SCENARIO, {"conversation": []}) == SCENARIO["test_prompt"]
    assert outcomes.prompt({}, {}) == ""


def test_documents_are_those_sent_with_the_first_user_turn_else_the_scenarios_as_text():
    sent = {"conversation": [turn("assistant", "x", documents=["not these"]),
                             turn("user", "q", documents=[{"text": "Judgment A"}, {"id": "b"}, "plain"])]}
    assert outcomes.documents({}, sent) == ["Judgment A", "", "plain"]
    assert outcomes.documents({"documents": ["From the pack"]}, {"conversation": [turn("user", "q")]}) \
        == ["From the pack"]
    assert outcomes.documents({"documents": ["From the pack"]}, {}) == ["From the pack"]
    assert outcomes.documents({}, {}) == []


def test_documents_are_named_by_their_own_id_title_or_name_else_the_benchmarks_source_numbered():
    scenario = {**SCENARIO, "documents": [{"id": "D-1", "title": "T"}, {"title": "Title 2"}, {"name": "n3"},
                                          {"text": "no name"}, "plain text"]}
    assert outcomes.document_names(scenario, 6, CLOSED) == ["D-1", "Title 2", "n3", "V0001 (4)", "V0001 (5)",
                                                            "V0001 (6)"]
    assert outcomes.document_names({**SCENARIO, "documents": ["one"]}, 1, CLOSED) == ["V0001"]
    assert outcomes.document_names({"documents": [{"id": ""}, {"title": 7}]}, 2, GENERIC) == [None, "7"]
    assert outcomes.document_names({}, 0, GENERIC) == []


def test_the_reply_shown_is_the_last_one_cut_at_the_cap_with_its_decision_and_a_cut_off_mark():
    conversation = [turn("user", "q"), turn("assistant", "first"), turn("user", "again"), turn("assistant", "last")]
    assert outcomes.reply({"conversation": conversation}) == "last"
    assert outcomes.reply({}) == ""
    long = "x" * 20_000
    assert outcomes.reply({"conversation": [turn("assistant", long)]}) == long
    cut = outcomes.reply({"conversation": [turn("assistant", long + "yz")]})
    assert cut == long + "\n[… 2 more characters in the results file]"
    decided = {"conversation": [turn("assistant", "B", decision={"p": "é", "key": "b"})],
               "judgment": {"truncated": True}}
    assert outcomes.reply(decided) == 'B\n{"key": "b", "p": "é"}\n' + outcomes.CUT_MARK
    assert outcomes.CUT_MARK == "[stopped at the output-token cap: the answer may be cut short]"
    assert outcomes.reply({"conversation": [turn("assistant", "B", decision="b")],
                           "judgment": {"truncated": False}}) == "B"


@pytest.mark.parametrize("result, expected", [
    ({}, {"input": 0, "output": 0, "judge": 0}),
    ({"target_input_tokens": 120, "target_output_tokens": 7, "judge_input_tokens": 300, "judge_output_tokens": 40,
      "auditor_input_tokens": 50, "auditor_output_tokens": 5}, {"input": 120, "output": 7, "judge": 395}),
    ({"target_input_tokens": None, "target_output_tokens": "n/a", "judge_output_tokens": 9},
     {"input": 0, "output": 0, "judge": 9}),
])
def test_cost_counts_the_models_tokens_and_every_judge_and_auditor_call(result, expected):
    assert outcomes.cost(result) == expected
