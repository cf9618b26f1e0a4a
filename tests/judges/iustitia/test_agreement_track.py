"""A decision run that skipped the questions over the option limit headlines the ≤26-option track, with the full
track's figures and the skipped count beside it; what a run's headline carries beside its figures."""

from __future__ import annotations

import pytest

from auditpacks.judges.iustitia.agreement import choice_headline, headline
from auditpacks.judges.iustitia.figures import figures

SMALL = {"yes": "", "no": ""}
LARGE = {f"role{i}": "" for i in range(30)}  # over the codebook's 26
AT_LIMIT = {f"kind{i}": "" for i in range(26)}  # the codebook's 26 exactly


def pair(verdict: str, question: str, right: bool | None, criteria=SMALL):
    scenario = {"name": f"{question} - {verdict}",
                "decision": {"id": question, "instructions": "?", "criteria": criteria,
                             "accepted": [next(iter(criteria))]},
                "metadata": {"task_id": f"{verdict}::{question}", "verdict_id": verdict, "question_id": question}}
    if right is None:
        return scenario, None  # skipped: the endpoint could not take it
    choice = next(iter(criteria)) if right else list(criteria)[1]
    return scenario, {"severity": "pass" if right else "medium", "judgment": {"choice": choice}}


def run(skip_large: bool = True):
    answers = {"J1": (True, False), "J2": (True, True), "J3": (False, True)}
    pairs = []
    for verdict, (a, b) in answers.items():
        pairs += [pair(verdict, "A", a), pair(verdict, "B", b),
                  pair(verdict, "TYPE", None if skip_large else True, LARGE)]
    return pairs


def test_skipped_questions_over_the_limit_move_the_headline_to_the_le26_track():
    h = headline(run())
    # ≤26 track: 6 tasks, 4 right; per question A 2/3, B 2/3; every task answered.
    assert (h["track"], h["max_options"], h["tasks"], h["correct"]) == ("le26", 26, 6, 4)
    assert h["micro"] == pytest.approx(4 / 6) and h["macro"] == pytest.approx(2 / 3) and h["coverage"] == 1.0
    assert (h["skipped"], h["skipped_over_limit"]) == (3, 3)
    full = h["full_track"]
    # full track: 9 tasks, the 3 skipped count wrong and uncovered; macro = mean(2/3, 2/3, 0).
    assert full["tasks"] == 9 and full["judgments"] == 3
    assert full["micro"] == pytest.approx(4 / 9) and full["macro"] == pytest.approx(4 / 9)
    assert full["coverage"] == pytest.approx(6 / 9) and len(full["ci"]["micro"]) == 2


def test_the_figures_name_both_tracks_and_the_skipped_count():
    rows = {(f.group, f.name): f for f in figures(headline(run()))}
    assert rows[("≤26-option track", "agreement (micro)")].value == pytest.approx(4 / 6)
    assert rows[("full track", "agreement (micro)")].value == pytest.approx(4 / 9)
    assert rows[("full track", "skipped")].value == 3
    assert "3 over its option limit" in rows[("full track", "skipped")].meaning
    assert list(rows)[0] == ("≤26-option track", "agreement (micro)")  # the headline comes first


def test_a_run_that_answered_every_question_keeps_the_full_track():
    h = headline(run(skip_large=False))
    assert "track" not in h and "full_track" not in h and h["tasks"] == 9 and h["skipped"] == 0
    assert all(f.group == "" for f in figures(h))


def test_questions_skipped_within_the_limit_count_wrong_on_the_one_track():
    pairs = [pair("J1", "A", True), pair("J1", "B", None), pair("J2", "A", True), pair("J2", "B", True)]
    h = headline(pairs)
    assert "track" not in h and h["skipped"] == 1 and h["micro"] == pytest.approx(3 / 4)


def test_a_question_with_exactly_the_limit_of_options_is_on_the_le26_track():
    pairs = []
    for verdict in ("J1", "J2"):
        pairs += [pair(verdict, "A", True), pair(verdict, "KIND", None, AT_LIMIT), pair(verdict, "TYPE", None, LARGE)]
    h = headline(pairs)
    # ≤26 track: A and KIND (2 tasks each), the skipped KIND tasks wrong; only TYPE is over the limit.
    assert (h["track"], h["tasks"], h["correct"], h["skipped"], h["skipped_over_limit"]) == ("le26", 4, 2, 4, 2)


def with_probability(scenario_and_result, p: float):
    """The pair, its answer carrying probability ``p`` for its choice, read by the JSON method."""
    scenario, result = scenario_and_result
    choice = result["judgment"]["choice"]
    judgment = {**result["judgment"], "probabilities": {choice: p}, "choice_method": "json"}
    return scenario, {**result, "judgment": judgment}


def test_answers_with_probabilities_add_calibration_and_a_choice_run_counts_its_methods():
    pairs = [with_probability(pair("J1", "A", True), 0.9), with_probability(pair("J2", "A", False), 0.6),
             pair("J3", "A", None)]
    h = headline(pairs)
    assert h["calibration"]["eligible"] == 3 and h["tasks"] == 3
    assert "calibration" not in headline(run(skip_large=False))  # chat answers: no probabilities
    c = choice_headline(pairs)
    assert c["choice_methods"] == {"None": 1, "json": 2}  # the skipped scenario was read by no method
    assert c["micro"] == pytest.approx(1 / 3) and c["calibration"] == h["calibration"]
