"""Headline denominators in groups that hold ERROR results: an ERROR is counted, never graded."""

from __future__ import annotations

import pytest

from auditpacks.judges.jacite.grounding import headline


def _answered(qid, language, n_invented, n_cited, gold_hit):
    judgment = {"severity": "pass", "n_invented": n_invented, "n_cited": n_cited, "gold_hit": gold_hit}
    return {"name": qid, "metadata": {"question_id": qid, "language": language}}, {"judgment": judgment}


def _errored(qid, language, judgment=None):
    scenario = {"name": qid, "metadata": {"question_id": qid, "language": language}}
    return scenario, {"judgment": judgment or {"severity": "ERROR", "error": "CallFailed: gave up"}}


def test_jacite_gold_hit_rate_is_over_answered_questions_only():
    # en: 3 answered (2 gold hits), 2 errors -> 2/3, not 2/5
    pairs = [_answered("q1", "en", 0, 2, True), _errored("q2", "en"), _answered("q3", "en", 1, 4, True),
             _errored("q4", "en"), _answered("q5", "en", 0, 1, False)]
    en = headline(pairs)["en"]
    assert (en["answered"], en["errored"], en["gold_hit"]) == (3, 2, 2)
    assert en["gold_hit_rate"] == pytest.approx(2 / 3)
    # Wilson 95% for 2/3 by hand: centre (0.6667 + 0.6403) / 2.2805 = 0.5731,
    # half 1.96 * sqrt(0.07407 + 0.10671) / 2.2805 = 0.3654
    low, high = en["gold_hit_wilson95"]
    assert low == pytest.approx(0.2077, abs=1e-4) and high == pytest.approx(0.9385, abs=1e-4)
    assert (en["invented"], en["cited"], en["invented_rate"]) == (1, 7, 1 / 7)


def test_a_judgment_without_counts_is_an_error_even_without_the_error_severity():
    pairs = [_answered("q1", "ja", 0, 2, True), _errored("q2", "ja", {"severity": "pass"})]
    ja = headline(pairs)["ja"]
    assert (ja["answered"], ja["errored"], ja["gold_hit_rate"]) == (1, 1, 1.0)


def test_a_group_of_errors_only_has_no_rates():
    ja = headline([_errored("q1", "ja"), _errored("q2", "ja")])["ja"]
    assert (ja["answered"], ja["errored"], ja["cited"]) == (0, 2, 0)
    assert ja["gold_hit_rate"] is None and ja["gold_hit_wilson95"] is None and ja["invented_rate"] is None
