"""Edges of the ``choice`` reader and verdict: key boundaries, brackets, labels and odd replies."""

from __future__ import annotations

import pytest

from auditpacks.judges import choice_match
from auditpacks.judges.reader import Reader
from auditpacks.judges.choice import choice_verdict, make_judge, parse_choice_strict

YES_NO = {"yes": "Found guilty", "no": "Not found guilty"}
ARTICLES = {"5": "Article 5", "5.1": "Article 5(1)", "6": "Article 6"}
XY = {"X": "first", "Y": "second"}
SCENARIO = {"severity": "high", "decision": {"instructions": "Guilty?", "criteria": YES_NO, "accepted": ["yes"]}}


@pytest.mark.parametrize("text, criteria, expected", [
    ("5.1", ARTICLES, ("5.1", "plain")),            # the longest key first: not "5" followed by ".1"
    ("Answer: 5.1", ARTICLES, ("5.1", "label")),
    ("X", XY, ("X", "plain")),                      # a key that is a capital letter, not a bracket
    ("(yes )", YES_NO, ("yes", "parentheses")),    # space before the closing bracket
    ("**Answer:**\nno", YES_NO, ("no", "label")),  # the option on the second of two lines
])
def test_accepted_edges(text, criteria, expected):
    assert parse_choice_strict(text, criteria) == expected


@pytest.mark.parametrize("text, criteria, method", [
    ("yesa.", YES_NO, "none"),            # a longer word that begins with the key
    ("yes_x", YES_NO, "none"),            # joined by an underscore: one word
    ("yes-a.", YES_NO, "none"),           # joined by a hyphen and a letter: one word
    ("yes or (no)", YES_NO, "ambiguous"),  # the alternative in brackets still names an option
    ("yes, [no]", YES_NO, "ambiguous"),
    ("X or XY", XY, "none"),              # "XY" is a word, not option Y; a one-letter key before prose is a word
    ("(yes and more)", YES_NO, "none"),   # an opening bracket needs its closing right after the key
    ("(yes Xavier)", YES_NO, "none"),
    ("Answer:", YES_NO, "none"),          # a label alone on the only line
])
def test_refused_edges(text, criteria, method):
    assert parse_choice_strict(text, criteria) == (None, method)


def test_a_reply_without_content_is_empty():
    judgment = choice_verdict(SCENARIO, {"role": "assistant", "content": None})
    assert (judgment["choice"], judgment["choice_method"], judgment["choice_source"]) == (None, "empty", None)
    assert choice_verdict(SCENARIO, {"role": "assistant"})["choice_method"] == "empty"


def test_a_decision_that_is_not_a_mapping_is_ignored():
    judgment = choice_verdict(SCENARIO, {"content": "yes", "decision": "no"})
    assert (judgment["choice"], judgment["choice_source"], judgment["choice_method"]) == ("yes", "text", "plain")
    assert "confidence" not in judgment


def test_the_ambiguous_issue_is_worded_for_the_reader():
    judgment = choice_verdict(SCENARIO, {"content": "yes/no"})
    assert judgment["issues_found"] == ["The first line names more than one option; no choice was taken."]


def test_judge_descriptions():
    assert make_judge(None)["description"] == (
        "Closed questions graded in code: the option on the reply's first line (markdown, labels, "
        "parentheses, numbering and <think> blocks allowed; ambiguous lines refused) against decision.accepted.")
    assert choice_match.make_judge(None) == "choice_match"


def test_choice_match_headline_is_the_agreement_headline():
    scenario = {**SCENARIO, "name": "GUILTY - x", "metadata": {"task_id": "x::GUILTY", "verdict_id": "x"}}
    other = {**scenario, "name": "GUILTY - y", "metadata": {"task_id": "y::GUILTY", "verdict_id": "y"}}
    pairs = [(scenario, {"judgment": {"choice": "yes"}}), (other, {"judgment": {"choice": "no"}})]
    head = Reader.of("choice_match").headline(pairs).values   # a pack without a manifest: read as Iustitia's
    assert head["tasks"] == 2 and head["micro"] == 0.5 and head["coverage"] == 1.0
