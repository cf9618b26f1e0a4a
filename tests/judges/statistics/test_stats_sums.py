"""``sums_bootstrap``, the vectorised cluster bootstrap over per-cluster sums: the same draws as
``cluster_bootstrap`` with the same seed, endpoints against scipy's paired percentile bootstrap and a
by-hand resample, undefined replicates dropped, degenerate inputs NaN."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import bootstrap

from auditpacks.judges.statistics.stats import cluster_bootstrap, sums_bootstrap

NUM = [round(x, 3) for x in np.random.default_rng(43).uniform(0, 3, 25)]
DEN = [round(x, 3) for x in np.random.default_rng(44).uniform(1, 6, 25)]
ROWS = np.column_stack([NUM, DEN])


def ratio(sums: np.ndarray) -> np.ndarray:
    return sums[:, 0] / sums[:, 1]


def _scipy(level=0.95, b=2000, seed=0):
    ci = bootstrap((np.array(NUM), np.array(DEN)), lambda n, d, axis=-1: n.sum(axis) / d.sum(axis), paired=True,
                   n_resamples=b, method="percentile", confidence_level=level, rng=np.random.default_rng(seed),
                   vectorized=True).confidence_interval
    return ci.low, ci.high


def test_defaults_match_scipys_paired_percentile_bootstrap():
    """2,000 replicates, seed 0, 95%: scipy draws the same indices from the same generator."""
    point, low, high = sums_bootstrap(ROWS, ratio)
    assert point == pytest.approx(sum(NUM) / sum(DEN), abs=1e-12)
    assert (low, high) == pytest.approx(_scipy(), abs=1e-12)


@pytest.mark.parametrize("alpha, level", [(0.10, 0.90), (0.05, 0.95), (0.20, 0.80)])
def test_levels_and_seeds_match_scipy(alpha, level):
    got = sums_bootstrap(ROWS, ratio, b=999, seed=5, alpha=alpha)[1:]
    assert got == pytest.approx(_scipy(level, b=999, seed=5), abs=1e-12)


def test_the_same_draws_as_cluster_bootstrap():
    slow = cluster_bootstrap([tuple(r) for r in ROWS], lambda cs: sum(n for n, _ in cs) / sum(d for _, d in cs),
                             b=300, seed=9)
    assert sums_bootstrap(ROWS.tolist(), ratio, b=300, seed=9) == pytest.approx(slow, abs=1e-12)


def _by_hand(rows, b, seed, alpha=0.05):
    """Draw n clusters with replacement b times, sum their rows, keep replicates with a denominator."""
    draws = np.random.default_rng(seed).integers(0, len(rows), size=(b, len(rows)))
    kept = []
    for draw in draws:
        num, den = sum(rows[i][0] for i in draw), sum(rows[i][1] for i in draw)
        if den:
            kept.append(num / den)
    return tuple(np.percentile(kept, [100 * alpha / 2, 100 * (1 - alpha / 2)])), len(kept)


def test_undefined_replicates_are_dropped_by_hand_without_warnings():
    rows = [[0, 0], [1, 1], [0, 0], [2, 3]]   # clusters 0 and 2 hold nothing: some replicates have no denominator
    (low, high), kept = _by_hand(rows, b=400, seed=11)
    assert kept < 400
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = sums_bootstrap(rows, ratio, b=400, seed=11)
    assert got == pytest.approx((0.75, low, high), abs=1e-12)


def test_a_replicate_weights_each_cluster_by_how_often_it_was_drawn():
    # one replicate of three clusters: its sum is the rows weighted by their draw counts
    draw = np.random.default_rng(0).integers(0, 3, size=(1, 3))[0]
    rows = [[1.0, 0.0], [10.0, 0.0], [100.0, 0.0]]
    expected = sum(rows[i][0] for i in draw)
    assert sums_bootstrap(rows, lambda s: s[:, 0], b=1) == (111.0, expected, expected)


def test_degenerate_inputs_are_nan():
    for rows in ([], np.zeros((0, 2)), [1.0, 2.0]):
        assert all(math.isnan(x) for x in sums_bootstrap(rows, ratio, b=10))
    assert all(math.isnan(x) for x in sums_bootstrap([[0, 0], [0, 0]], ratio, b=10))


def test_a_replicate_dividing_by_zero_is_dropped_without_warnings_by_hand():
    rows = [[1, 0], [1, 1], [0, 2]]   # a replicate drawing only the first cluster divides 2 by 0
    draws = np.random.default_rng(4).integers(0, 3, size=(300, 3))
    kept = [sum(rows[i][0] for i in d) / sum(rows[i][1] for i in d) for d in draws if sum(rows[i][1] for i in d)]
    assert len(kept) < 300
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = sums_bootstrap(rows, ratio, b=300, seed=4)
    assert got == pytest.approx((2 / 3, *np.percentile(kept, [2.5, 97.5])), abs=1e-12)


def test_one_cluster_is_its_own_interval_and_a_statistic_of_no_sums_is_computed():
    assert sums_bootstrap([[1.0, 4.0]], ratio, b=20) == (0.25, 0.25, 0.25)
    assert sums_bootstrap(np.zeros((3, 0)), lambda s: np.full(len(s), 0.5), b=20) == (0.5, 0.5, 0.5)


def test_exact_fractions_give_the_figures_of_their_floats():
    fractions = [[Fraction(n), Fraction(d)] for n, d in zip(NUM[:10], DEN[:10])]
    floats = sums_bootstrap(ROWS[:10], ratio, b=400, seed=6)
    assert sums_bootstrap(fractions, ratio, b=400, seed=6) == pytest.approx(floats, abs=1e-12)
