"""Calibration figures at their edges, by hand: one task, no task, other bin counts, ties below the top, a threshold
nobody reaches, nothing eligible; and the intervals' defaults against the bootstraps they are drawn with."""

from __future__ import annotations

import math

import numpy as np
import pytest

from auditpacks.judges.statistics.calibration import (_brier, _ece, automation, brier, ece, reliability, risk_coverage, scores,
                                           sufficient)
from auditpacks.judges.statistics.stats import ratio_bootstrap, sums_bootstrap

P, Y, C = [0.95, 0.92, 0.6, 0.3], [1, 0, 1, 1], ["A", "A", "B", "B"]
# twelve tasks over six judgments, confidences spread over every tenth
SPREAD_P = [0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95, 0.97, 0.12]
SPREAD_Y = [0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0]
SPREAD_C = ["j1", "j1", "j2", "j2", "j3", "j3", "j4", "j4", "j5", "j5", "j6", "j6"]


def test_one_task_and_none():
    assert ece([0.7], [1]) == pytest.approx(0.3) and brier([0.7], [1]) == pytest.approx(0.09)
    assert math.isnan(ece([], [])) and math.isnan(brier([], []))
    assert scores([], [], []) == {"n": 0, "ece": None, "brier": None, "ci": {"ece": [None, None], "brier": [None, None]}}


def _ece_by_hand(p, y, bins):
    edges = np.linspace(0, 1, bins + 1)
    total = 0.0
    for b in range(bins):
        inside = [i for i, x in enumerate(p) if (edges[b] < x <= edges[b + 1]) or (b == 0 and x == 0)]
        if inside:
            total += len(inside) / len(p) * abs(np.mean([y[i] for i in inside]) - np.mean([p[i] for i in inside]))
    return total


@pytest.mark.parametrize("bins", [10, 5, 3])
def test_ece_over_any_number_of_bins_by_hand(bins):
    assert ece(SPREAD_P, SPREAD_Y, bins=bins) == pytest.approx(_ece_by_hand(SPREAD_P, SPREAD_Y, bins))
    pooled = sufficient(SPREAD_P, SPREAD_Y, SPREAD_C, bins=bins).sum(axis=0)[None, :]
    assert _ece(pooled, bins)[0] == pytest.approx(_ece_by_hand(SPREAD_P, SPREAD_Y, bins))


def test_reliability_with_three_bins():
    rows = reliability(SPREAD_P, SPREAD_Y, bins=3)
    assert [(r["low"], r["high"], r["n"]) for r in rows] == [(0.0, 0.3333, 4), (0.3333, 0.6667, 4), (0.6667, 1.0, 4)]
    assert rows[0]["confidence"] == pytest.approx((0.05 + 0.15 + 0.25 + 0.12) / 4) and rows[0]["agreement"] == 0.25


def test_the_intervals_are_the_documented_bootstraps_at_their_defaults():
    stats = sufficient(SPREAD_P, SPREAD_Y, SPREAD_C)
    found = scores(SPREAD_P, SPREAD_Y, SPREAD_C)
    assert found == scores(SPREAD_P, SPREAD_Y, SPREAD_C, b=2000, seed=0, alpha=0.05)
    assert found["ci"]["ece"] == pytest.approx(list(sums_bootstrap(stats, _ece, b=2000, seed=0)[1:]))
    other = scores(SPREAD_P, SPREAD_Y, SPREAD_C, b=300, seed=4, alpha=0.2)
    assert other["ci"]["brier"] == pytest.approx(list(sums_bootstrap(stats, _brier, b=300, seed=4, alpha=0.2)[1:]))
    table = risk_coverage(SPREAD_P, SPREAD_Y, SPREAD_C, eligible=12, thresholds=(0.0,))
    answered, correct = [2] * 6, [0, 1, 2, 1, 2, 1]   # per judgment, all kept at 0
    assert table["rows"][0]["ci"] == pytest.approx(list(ratio_bootstrap(correct, answered, b=2000, seed=0)[1:]))
    seeded = risk_coverage(SPREAD_P, SPREAD_Y, SPREAD_C, eligible=12, thresholds=(0.0,), b=300, seed=4)
    assert seeded["rows"][0]["ci"] == pytest.approx(list(ratio_bootstrap(correct, answered, b=300, seed=4)[1:]))


def test_a_threshold_nobody_reaches_and_nothing_eligible():
    table = risk_coverage(P, Y, C, eligible=0, thresholds=(0.5, 0.99), target=0.6)
    assert [(r["answered"], r["coverage"], r["agreement"], r["ci"]) for r in table["rows"]][1] == (0, None, None,
                                                                                                  None)
    assert table["rows"][0]["coverage"] is None and table["rows"][0]["ci"][0] is not None
    assert table["automation"] is None   # nothing eligible: no share to automate
    assert risk_coverage(P, Y, C, eligible=5, target=0.6)["automation"]["target"] == 0.6


def test_ties_below_the_top_are_answered_together():
    # sorted: 0.9 right, then 0.8 right and 0.8 wrong, then 0.7 right. A 2/2 = 100% stop inside the tie at 0.8
    # would keep one of two equal answers; together they give 2/3, and all four 3/4.
    assert automation([0.9, 0.8, 0.8, 0.7], [1, 1, 0, 1], 4, target=0.7) == {
        "target": 0.7, "threshold": 0.7, "answered": 4, "coverage": 1.0, "agreement": 0.75}
    assert automation([0.9, 0.8, 0.8, 0.7], [1, 1, 0, 0], 4, target=0.95)["threshold"] == 0.9


def test_risk_coverage_draws_2000_replicates_with_seed_0_by_default():
    rng = np.random.default_rng(12)
    clusters = [f"j{i}" for i in range(60) for _ in range(int(rng.integers(1, 6)))]
    p = rng.uniform(0.5, 1.0, len(clusters)).round(3).tolist()
    y = (rng.uniform(size=len(clusters)) < 0.8).astype(int).tolist()
    keys = sorted(set(clusters))
    answered = [clusters.count(k) for k in keys]
    correct = [sum(y[i] for i, c in enumerate(clusters) if c == k) for k in keys]
    row = risk_coverage(p, y, clusters, eligible=len(p), thresholds=(0.0,))["rows"][0]
    assert row["ci"] == pytest.approx(list(ratio_bootstrap(correct, answered, b=2000, seed=0)[1:]), abs=1e-12)
    assert row["ci"] != pytest.approx(list(ratio_bootstrap(correct, answered, b=2001, seed=0)[1:]), abs=1e-12)
    assert row["ci"] != pytest.approx(list(ratio_bootstrap(correct, answered, b=2000, seed=1)[1:]), abs=1e-12)
