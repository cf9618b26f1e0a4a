"""Calibration of a run's (scenario, result) pairs: which confidence is used, which tasks count, and the
statistics (replicates, seed) the figures are made with."""

from __future__ import annotations

import json

import numpy as np
import pytest

from auditpacks.judges.iustitia.agreement import headline
from auditpacks.judges.iustitia.calibration import calibration, confidence
from auditpacks.judges.statistics.calibration import reliability, risk_coverage, scores


def scenario(name, verdict, accepted=("yes",)):
    return {"name": name, "decision": {"accepted": list(accepted), "criteria": {"yes": "", "no": ""}},
            "metadata": {"verdict_id": verdict, "question_id": "q"}}


def result(choice, probabilities=None, conf=None, severity="pass"):
    judgment = {"choice": choice, **({"probabilities": probabilities} if probabilities else {}),
                **({"confidence": conf} if conf is not None else {})}
    return {"scenario_name": "x", "severity": severity, "judgment": judgment}


def test_the_chosen_options_probability_wins_over_a_rescaled_confidence():
    # a server reporting (n·p − 1)/(n − 1) = 0.5 for p = 0.75 over two options
    assert confidence(result("yes", {"yes": 0.75, "no": 0.25}, conf=0.5)) == 0.75
    assert confidence(result("yes", conf=0.8)) == 0.8
    assert confidence(result("yes")) is None and confidence(None) is None
    assert confidence(result("yes", conf=1.5)) is None


def test_four_answered_tasks_and_an_unanswered_one_by_hand():
    pairs = [(scenario("t1", "A"), result("yes", {"yes": 0.95, "no": 0.05})),
             (scenario("t2", "A"), result("no", {"yes": 0.08, "no": 0.92})),
             (scenario("t3", "B"), result("yes", {"yes": 0.6, "no": 0.4})),
             (scenario("t4", "B"), result("no", {"yes": 0.7, "no": 0.3}, conf=0.3)),
             (scenario("t5", "B"), None),
             (scenario("t6", "B"), result("yes", {"yes": 0.9, "no": 0.1}, severity="ERROR"))]
    # t4 chose "no" at 0.3 while "yes" is accepted: wrong → (0.3, 0); t5 skipped and t6 ERROR: no prediction
    found = calibration(pairs)
    assert found["n"] == 4 and found["eligible"] == 6
    # Brier = (0.05² + 0.92² + 0.4² + 0.3²) / 4 = (0.0025 + 0.8464 + 0.16 + 0.09) / 4
    assert found["brier"] == pytest.approx(1.0989 / 4)
    assert found["risk_coverage"]["rows"][0]["answered"] == 4 and found["risk_coverage"]["rows"][0]["coverage"] == 4 / 6
    assert set(found["per_question"]) == {"q"} and found["per_question"]["q"]["n"] == 4
    head = headline(pairs)
    assert head["calibration"] == found and json.loads(json.dumps(head)) == head  # JSON-safe: no NaN, no tuples


def test_chat_answers_without_probabilities_have_no_calibration():
    pairs = [(scenario("t1", "A"), result("yes")), (scenario("t2", "B"), result("no"))]
    assert calibration(pairs) is None and "calibration" not in headline(pairs)


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_a_probability_at_either_end_of_the_scale_is_a_confidence(value):
    assert confidence(result("yes", {"yes": value, "no": 1 - value})) == value


def _spread_pairs():
    """Twelve answered tasks over six judgments and two questions, confidences and correctness mixed."""
    pairs = []
    for i in range(12):
        p = 0.5 + 0.04 * i
        task = scenario(f"t{i}", f"V{i % 6}")
        task["metadata"]["question_id"] = f"q{i % 2}"
        pairs.append((task, result("yes" if i % 3 else "no", {"yes": p, "no": 1 - p})))
    return pairs


def _columns(pairs, question=None):
    rows = [(p, c, s["metadata"]["verdict_id"]) for s, r in pairs
            for c in [int(r["judgment"]["choice"] == "yes")] for p in [confidence(r)]
            if question is None or s["metadata"]["question_id"] == question]
    return [np.array(column) for column in zip(*rows)]


@pytest.mark.parametrize("kwargs, b, per_question_b, seed", [
    ({}, 2000, 500, 0),                      # the run's figures: 2000 replicates (500 per question), seed 0
    ({"b": 50, "seed": 7}, 50, 50, 7),
])
def test_the_figures_are_the_statistics_of_the_tasks_with_the_replicates_and_seed_asked_for(
        kwargs, b, per_question_b, seed):
    pairs = _spread_pairs()
    found = calibration(pairs, **kwargs)
    p, y, verdict = _columns(pairs)
    assert {k: found[k] for k in ("n", "ece", "brier", "ci")} == scores(p, y, verdict, b=b, seed=seed)
    assert found["reliability"] == reliability(p, y)
    assert found["risk_coverage"] == risk_coverage(p, y, verdict, 12, b=b, seed=seed)
    assert found["per_question"] == {q: scores(*_columns(pairs, q), b=per_question_b, seed=seed)
                                     for q in ("q0", "q1")}
    assert found["binning"].startswith("10 equal-width bins")
    assert found["confidence"].startswith("the chosen option's probability")
