"""What counts as a figure: finite numbers, [low, high] pairs, every numeric leaf of a headline, and a figure's
dictionary as ``--json`` and the exports carry it."""

from __future__ import annotations

import math

from auditpacks.judges.figures import Figure, Headline, decision_id, interval, leaves, number, outcome


def test_a_figure_as_a_dictionary():
    assert Figure("micro", 0.5, interval=(0.25, 0.75), interval_name="95% CI").to_dict() == {
        "name": "micro", "value": 0.5, "unit": "%", "interval": [0.25, 0.75], "interval_name": "95% CI",
        "meaning": "", "group": "", "better": ""}
    assert Figure("tasks", 12, "count").to_dict()["interval"] is None


def test_only_finite_numbers_are_figures():
    assert number(3) == 3 and isinstance(number(3), int) and number(0) == 0 and number(0.25) == 0.25
    assert number(-1.5) == -1.5
    for value in (True, False, "0.5", None, [1], math.nan, math.inf, -math.inf):
        assert number(value) is None, value


def test_an_interval_is_a_pair_of_finite_numbers():
    assert interval([0.1, 0.2]) == (0.1, 0.2)
    got = interval((1, 2))
    assert got == (1.0, 2.0) and all(isinstance(v, float) for v in got)
    for pair in ([0.1], [0.1, 0.2, 0.3], [0.1, None], [math.nan, 1.0], [0.0, math.inf], "ab", [True, 1], None, []):
        assert interval(pair) is None, pair


def test_every_numeric_leaf_of_a_headline_is_a_figure():
    headline = {"tasks": 12, "ci": {"micro": 0.5, "deep": {"n": 2}}, "text": "x", "flag": True, "undefined": None,
                "micro": 0.75}
    assert leaves(headline) == [Figure("tasks", 12, "count"), Figure("ci micro", 0.5, "ratio"),
                                Figure("ci deep n", 2, "count"), Figure("undefined", None, "ratio"),
                                Figure("micro", 0.75, "ratio")]
    assert leaves({"n": 1}, "round 1 ") == [Figure("round 1 n", 1, "count")]
    assert leaves({}) == []


def test_a_scenarios_decision_id():
    assert decision_id({"decision": {"id": "q7"}}) == "q7"
    assert decision_id({"decision": {"accepted": ["A"]}}) is None
    assert decision_id({"decision": "q7"}) is None and decision_id({}) is None


def test_verdict_words_for_severities_and_an_empty_own_word():
    assert outcome({"severity": "pass"}) == "correct"
    for severity in ("high", "medium", "low", None):
        assert outcome({"severity": severity}) == "wrong"
    assert outcome({"severity": "pass"}, lambda r: "") == "correct"     # no word of its own: the generic one
    assert outcome({"severity": "pass"}, lambda r: "invented") == "invented"


def test_a_headline_without_values():
    empty = Headline()
    assert empty.values == {} and empty.figures == [] and empty.warnings == [] and empty.error is None
    assert empty.calibration is None and Headline({"warnings": None}).warnings == []
    assert Headline({"error": 3}).error == "3" and Headline({"calibration": "n/a"}).calibration is None
