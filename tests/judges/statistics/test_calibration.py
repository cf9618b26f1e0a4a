"""Calibration figures on a four-task example computed by hand.

Tasks (confidence p, correct y, judgment): (0.95, 1, A), (0.92, 0, A), (0.6, 1, B), (0.3, 1, B); five
eligible tasks (one unanswered).
Brier = (0.05² + 0.92² + 0.4² + 0.7²) / 4 = (0.0025 + 0.8464 + 0.16 + 0.49) / 4 = 0.374725.
ECE: bin (0.9, 1] holds 0.95 and 0.92 (mean 0.935, agreement 0.5); (0.5, 0.6] holds 0.6; (0.2, 0.3]
holds 0.3: 2/4·|0.5 − 0.935| + 1/4·|1 − 0.6| + 1/4·|1 − 0.3| = 0.2175 + 0.1 + 0.175 = 0.4925.
Resampling the two judgments gives AA, AB, BA or BB; Brier of AA = (0.0025 + 0.8464)/2 = 0.42445 and of
BB = (0.16 + 0.49)/2 = 0.325, each drawn a quarter of the time: the 95% interval is [0.325, 0.42445].
"""

from __future__ import annotations

import pytest

from auditpacks.judges.statistics.calibration import automation, brier, ece, reliability, risk_coverage, scores

P, Y, C = [0.95, 0.92, 0.6, 0.3], [1, 0, 1, 1], ["A", "A", "B", "B"]


def test_brier_and_ece_by_hand():
    assert brier(P, Y) == pytest.approx(0.374725)
    assert ece(P, Y) == pytest.approx(0.4925)
    found = scores(P, Y, C)
    assert found["n"] == 4 and found["ece"] == pytest.approx(0.4925) and found["brier"] == pytest.approx(0.374725)
    assert found["ci"]["brier"] == pytest.approx([0.325, 0.42445])


def test_ece_bootstrap_extremes_by_hand():
    # AA: one bin (0.9, 1], mean 0.935, agreement 0.5 → 0.435; BB: |1 − 0.6|/2 + |1 − 0.3|/2 = 0.55
    assert scores(P, Y, C)["ci"]["ece"] == pytest.approx([0.435, 0.55])


def test_reliability_bins():
    bins = reliability(P, Y)
    assert [(b["low"], b["high"], b["n"]) for b in bins] == [(0.2, 0.3, 1), (0.5, 0.6, 1), (0.9, 1.0, 2)]
    assert bins[2]["confidence"] == pytest.approx(0.935) and bins[2]["agreement"] == 0.5


def test_risk_coverage_by_hand():
    table = risk_coverage(P, Y, C, eligible=5, thresholds=(0.0, 0.5, 0.9, 0.95, 0.99))
    rows = [(r["threshold"], r["answered"], r["coverage"], r["agreement"]) for r in table["rows"]]
    assert rows == [(0.0, 4, 0.8, 0.75), (0.5, 3, 0.6, pytest.approx(2 / 3)), (0.9, 2, 0.4, 0.5),
                    (0.95, 1, 0.2, 1.0), (0.99, 0, 0.0, None)]
    assert table["rows"][-1]["ci"] is None
    assert table["automation"] == {"target": 0.95, "threshold": 0.95, "answered": 1, "coverage": 0.2,
                                   "agreement": 1.0}


def test_automation_takes_the_lowest_threshold_that_reaches_the_target():
    # sorted by confidence: agreement 1, 1/2, 2/3, 3/4 → 75% is reached only when all four are answered
    assert automation(P, Y, 5, target=0.75)["threshold"] == 0.3
    assert automation(P, Y, 5, target=0.75)["coverage"] == 0.8
    assert automation([0.9, 0.8], [0, 0], 2) is None and automation([], [], 3) is None


def test_ties_are_answered_together():
    # two answers at 0.9, one wrong: a threshold of 0.9 keeps both (agreement 0.5), never just the right one
    assert automation([0.9, 0.9, 0.5], [1, 0, 1], 3, target=0.95) is None
