"""The ``choice`` judge: the strict-but-kind parser table, the verdict and the headline."""

from __future__ import annotations

import pytest
from simpleaudit.judges.choice_match import parse_choice

from auditpacks.judges.reader import Reader
from auditpacks.judges.choice import METHODS, NO_CHOICE, choice_verdict, figures, headline, make_judge, parse_choice_strict

YES_NO = {"yes": "Found guilty", "no": "Not found guilty"}
LETTERS = {"A": "first", "B": "second", "C": "third"}
MENTIONED = {"yes": None, "no": None, "not_mentioned": None}
COUNTS = {"0": None, "1": None, "2": None, "3_plus": None}

ACCEPTED = [
    ("yes", YES_NO, "yes", "plain"),
    ("YES.", YES_NO, "yes", "plain"),
    ("Yes, because the operative part says so", YES_NO, "yes", "plain"),
    ("Answer: **yes**", YES_NO, "yes", "label"),
    ("**Answer:** yes", YES_NO, "yes", "label"),
    ("**Answer**: no", YES_NO, "no", "label"),
    ("Final answer: no", YES_NO, "no", "label"),
    ("**Answer:**\nno\n> quote", YES_NO, "no", "label"),
    ("Option B", LETTERS, "B", "label"),
    ("(yes)", YES_NO, "yes", "parentheses"),
    ("(B) second", LETTERS, "B", "parentheses"),
    ("[no]", YES_NO, "no", "parentheses"),
    ("1. yes", YES_NO, "yes", "numbered"),
    ("1) no", YES_NO, "no", "numbered"),
    ("1. 2", COUNTS, "2", "numbered"),
    ("2. Two defendants were convicted", COUNTS, "2", "plain"),
    ("The answer is yes", YES_NO, "yes", "phrase"),
    ("The correct answer is: no", YES_NO, "no", "phrase"),
    ("Answer is no", YES_NO, "no", "phrase"),
    ("I choose not_mentioned", MENTIONED, "not_mentioned", "phrase"),
    ("<think>It could be no.</think>\nyes\n\"ËSHTË FAJTOR\"", YES_NO, "yes", "plain"),
    ("<think>long reasoning</think>\n\nAnswer: **no**", YES_NO, "no", "label"),
    ("**yes**", YES_NO, "yes", "markdown"),
    ("`no`", YES_NO, "no", "markdown"),
    ("- no", YES_NO, "no", "markdown"),
    ("> yes", YES_NO, "yes", "markdown"),
    ("_not_mentioned_", MENTIONED, "not_mentioned", "markdown"),
    ("NOT_MENTIONED", MENTIONED, "not_mentioned", "plain"),
    ("no", MENTIONED, "no", "plain"),
    ("B) second", LETTERS, "B", "plain"),
    ("b.", LETTERS, "B", "plain"),
    ("3_plus", COUNTS, "3_plus", "plain"),
]

REFUSED = [
    ("yes/no", YES_NO, "ambiguous"),
    ("yes or no", YES_NO, "ambiguous"),
    ("yes, no", YES_NO, "ambiguous"),
    ("A or B", LETTERS, "ambiguous"),
    ("A/B", LETTERS, "ambiguous"),
    ("Answer: yes | no", YES_NO, "ambiguous"),
    ("(yes/no)", YES_NO, "ambiguous"),
    ("yes-ish", YES_NO, "none"),
    ("A court found the defendant guilty", LETTERS, "none"),
    ("not", MENTIONED, "none"),
    ("y", YES_NO, "none"),
    ("Svar: ja", YES_NO, "none"),
    ("The court found him guilty", YES_NO, "none"),
    ("(maybe)", YES_NO, "none"),
    ("", YES_NO, "empty"),
    ("<think>yes</think>", YES_NO, "empty"),
    ("   \n\n", YES_NO, "empty"),
]


@pytest.mark.parametrize("text, criteria, key, method", ACCEPTED)
def test_accepted_forms(text, criteria, key, method):
    assert parse_choice_strict(text, criteria) == (key, method)
    assert method in METHODS


@pytest.mark.parametrize("text, criteria, method", REFUSED)
def test_refused_forms(text, criteria, method):
    assert parse_choice_strict(text, criteria) == (None, method)
    assert method in NO_CHOICE


@pytest.mark.parametrize("text, criteria", [("yes/no", YES_NO), ("A or B", LETTERS), ("yes-ish", YES_NO)])
def test_choice_match_takes_the_first_key_where_choice_refuses(text, criteria):
    assert parse_choice(text, criteria) is not None
    assert parse_choice_strict(text, criteria)[0] is None


SCENARIO = {"severity": "high", "decision": {"id": "GUILTY.VERDICT", "instructions": "Guilty?",
                                             "criteria": YES_NO, "accepted": ["yes"]}}


def test_verdict_pass_and_method():
    judgment = choice_verdict(SCENARIO, {"role": "assistant", "content": "**Answer:** yes\n\"ËSHTË FAJTOR\""})
    assert judgment["severity"] == "pass" and judgment["correct"] is True
    assert (judgment["choice"], judgment["choice_source"], judgment["choice_method"]) == ("yes", "text", "label")
    assert "confidence" not in judgment and "probabilities" not in judgment


def test_verdict_wrong_answer_gets_the_designed_severity():
    judgment = choice_verdict(SCENARIO, {"content": "(no)"})
    assert (judgment["severity"], judgment["correct"], judgment["choice"]) == ("high", False, "no")


def test_verdict_ambiguous_is_no_answer():
    judgment = choice_verdict(SCENARIO, {"content": "yes/no"})
    assert judgment["choice"] is None and judgment["choice_source"] is None and judgment["correct"] is False
    assert judgment["choice_method"] == "ambiguous" and judgment["severity"] == "high"
    assert "more than one option" in judgment["issues_found"][0]


def test_verdict_decision_model_answer_keeps_confidence():
    reply = {"content": "yes: Found guilty",
             "decision": {"type": "choice", "choice": "yes", "confidence": 0.97, "probabilities": {"yes": 0.97, "no": 0.03}}}
    judgment = choice_verdict(SCENARIO, reply)
    assert judgment["choice_method"] == "decision" and judgment["choice_source"] == "decision"
    assert judgment["confidence"] == 0.97 and judgment["probabilities"] == {"yes": 0.97, "no": 0.03}


def test_verdict_without_accepted_is_ungraded():
    scenario = {"decision": {"instructions": "?", "criteria": YES_NO}}
    assert choice_verdict(scenario, {"content": "yes"})["severity"] == "ungraded"


def test_make_judge_grades_in_code():
    judge = make_judge(None)
    assert judge["name"] == "choice" and callable(judge["grade"])
    judgment = judge["grade"](conversation=[{"role": "user", "content": "?"}, {"role": "assistant", "content": "1. yes"}],
                              scenario_meta=SCENARIO)
    assert judgment["severity"] == "pass" and judgment["choice_method"] == "numbered"


def test_headline_counts_methods():
    scenario = {**SCENARIO, "name": "GUILTY.VERDICT - x", "metadata": {"task_id": "x::GUILTY.VERDICT", "verdict_id": "x"}}
    other = {**scenario, "name": "GUILTY.VERDICT - y", "metadata": {"task_id": "y::GUILTY.VERDICT", "verdict_id": "y"}}
    pairs = [(scenario, {"judgment": choice_verdict(scenario, {"content": "yes"})}),
             (other, {"judgment": choice_verdict(other, {"content": "yes or no"})})]
    head = Reader.of("choice").headline(pairs).values   # read as Iustitia's: agreement, then the methods
    assert head["micro"] == 0.5 and head["coverage"] == 0.5 and head["tasks"] == 2
    assert head["choice_methods"] == {"ambiguous": 1, "plain": 1}
    assert headline(pairs)["choice_methods"] == {"ambiguous": 1, "plain": 1}   # the judge's own: pass rate, methods


def test_figures_show_the_pass_rate_and_each_verdict():
    """The judge's own headline reads as the pass rate with its Wilson interval, then a count per verdict."""
    found = figures({"verdicts": {"pass": 3, "fail": 1}, "graded": 4, "pass_rate": 0.75, "pass_wilson95": [0.3, 0.95]})
    assert [(f.name, f.value, f.unit) for f in found] == [("pass rate", 0.75, "%"), ("verdict pass", 3, "count"),
                                                          ("verdict fail", 1, "count")]
    assert found[0].interval == (0.3, 0.95) and found[0].better == "higher" and "4 graded" in found[0].meaning
