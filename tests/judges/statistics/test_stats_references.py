"""Interval endpoints pinned against independent references: scipy.stats.bootstrap and by-hand resamples.

The bootstrap functions document their draws: ``b`` rows of ``n`` cluster indices from
``numpy.random.default_rng(seed).integers(0, n, size=(b, n))``, percentile interval at
``alpha / 2`` and ``1 - alpha / 2``. scipy's percentile bootstrap draws the same way, so with
the same generator the endpoints must agree to rounding; the by-hand resamples below spell
the same procedure out for the cases scipy does not cover (dropped replicates).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import bootstrap

from auditpacks.judges.statistics.stats import cluster_bootstrap, fisher_exact_2x2, ratio_bootstrap, wilson_interval

SCORES = [0.0, 1.0, 1.0, 0.0, 1.0, 0.5, 0.25, 1.0]
NUM, DEN = [0, 1, 2, 0, 3, 1, 0], [3, 4, 5, 2, 6, 1, 2]
# continuous values, so that one replicate more or less moves a percentile
SPREAD = [round(x, 3) for x in np.random.default_rng(42).uniform(0, 1, 25)]
SPREAD_NUM = [round(x, 3) for x in np.random.default_rng(43).uniform(0, 3, 25)]
SPREAD_DEN = [round(x, 3) for x in np.random.default_rng(44).uniform(1, 6, 25)]


def _mean(clusters):
    return float(np.mean(clusters))


def _scipy_mean(level: float = 0.95, b: int = 2000, seed: int = 0, values=SCORES):
    ci = bootstrap((np.array(values),), np.mean, n_resamples=b, method="percentile", confidence_level=level,
                   rng=np.random.default_rng(seed), vectorized=True).confidence_interval
    return ci.low, ci.high


def _scipy_ratio(level: float = 0.95, b: int = 2000, seed: int = 0, num=NUM, den=DEN):
    ci = bootstrap((np.array(num, float), np.array(den, float)), lambda n, d, axis=-1: n.sum(axis) / d.sum(axis),
                   paired=True, n_resamples=b, method="percentile", confidence_level=level,
                   rng=np.random.default_rng(seed), vectorized=True).confidence_interval
    return ci.low, ci.high


def test_cluster_bootstrap_defaults_match_scipy():
    """Defaults: 2,000 replicates, seed 0, a 95% interval, all n clusters drawn each time."""
    point, low, high = cluster_bootstrap(SCORES, _mean)
    assert point == pytest.approx(4.75 / 8)
    assert (low, high) == pytest.approx(_scipy_mean(), abs=1e-12)
    assert cluster_bootstrap(SPREAD, _mean)[1:] == pytest.approx(_scipy_mean(values=SPREAD), abs=1e-12)


@pytest.mark.parametrize("alpha, level", [(0.10, 0.90), (0.05, 0.95), (0.20, 0.80)])
def test_interval_level_matches_scipy(alpha, level):
    got = cluster_bootstrap(SCORES, _mean, b=999, seed=5, alpha=alpha)[1:]
    assert got == pytest.approx(_scipy_mean(level, b=999, seed=5), abs=1e-12)
    got = ratio_bootstrap(NUM, DEN, b=999, seed=5, alpha=alpha)[1:]
    assert got == pytest.approx(_scipy_ratio(level, b=999, seed=5), abs=1e-12)


def test_ratio_bootstrap_defaults_match_scipy():
    point, low, high = ratio_bootstrap(NUM, DEN)
    assert point == pytest.approx(7 / 23)
    assert (low, high) == pytest.approx(_scipy_ratio(), abs=1e-12)
    got = ratio_bootstrap(SPREAD_NUM, SPREAD_DEN)[1:]
    assert got == pytest.approx(_scipy_ratio(num=SPREAD_NUM, den=SPREAD_DEN), abs=1e-12)


def _by_hand(num, den, b, seed, alpha=0.05):
    """The cluster resample written out: draw n clusters, sum, drop replicates with a zero denominator."""
    rows = np.random.default_rng(seed).integers(0, len(num), size=(b, len(num)))
    kept = []
    for row in rows:
        n_sum, d_sum = sum(num[i] for i in row), sum(den[i] for i in row)
        if d_sum != 0:
            kept.append(n_sum / d_sum)
    return tuple(np.percentile(kept, [100 * alpha / 2, 100 * (1 - alpha / 2)])), len(kept)


def test_ratio_bootstrap_drops_zero_denominator_replicates_by_hand():
    # clusters 0 and 2 have no items: replicates drawing only them have no denominator
    num, den = [0, 1, 0, 2], [0, 1, 0, 3]
    (low, high), kept = _by_hand(num, den, b=400, seed=11)
    assert kept < 400  # some replicates were dropped
    assert ratio_bootstrap(num, den, b=400, seed=11) == pytest.approx((0.75, low, high), abs=1e-12)
    # replicates whose denominator sums to exactly 1 stay in: (0, 1) and (1, 0) give 5 / 1
    (low, high), kept = _by_hand([0, 5], [1, 0], b=200, seed=1)
    assert (low, high) == (0.0, 5.0)
    assert ratio_bootstrap([0, 5], [1, 0], b=200, seed=1) == (5.0, 0.0, 5.0)


def test_small_and_degenerate_ratios_by_hand_without_numpy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ratio_bootstrap([2], [4], b=20) == (0.5, 0.5, 0.5)          # one cluster
        assert ratio_bootstrap([1, 0], [1, 0], b=50) == (1.0, 1.0, 1.0)    # total denominator 1
        assert all(math.isnan(x) for x in ratio_bootstrap([1, 2], [0, 0], b=20))


def test_a_single_replicate_is_its_own_interval():
    rows = np.random.default_rng(0).integers(0, 3, size=(1, 3))
    value = float(np.mean([[2.0, 4.0, 9.0][i] for i in rows[0]]))
    assert cluster_bootstrap([2.0, 4.0, 9.0], _mean, b=1) == pytest.approx((5.0, value, value))


def test_cluster_count_errors_and_degenerate_points_are_nan():
    assert all(math.isnan(x) for x in cluster_bootstrap({}, _mean))
    nan_stat = cluster_bootstrap([1.0, 2.0], lambda cs: float("nan"), b=20)
    assert all(math.isnan(x) for x in nan_stat)
    with pytest.raises(ValueError, match="^numerators and denominators must be two sequences of the same length$"):
        ratio_bootstrap([1, 2], [3])
    with pytest.raises(ValueError, match=r"0 <= k <= n, got k=5, n=4"):
        wilson_interval(5, 4)


def test_wilson_clips_rounding_above_one_and_below_zero():
    # without the clip, floating point puts 5/5's upper end a hair above 1 and 0/5's lower end below 0
    assert wilson_interval(5, 5)[1] == 1.0
    assert wilson_interval(0, 5)[0] == 0.0
    # 90% (z = 1.645) by hand for 3/8: centre (0.375 + 0.169127) / 1.338253 = 0.406595,
    # half 1.645 * sqrt(0.029297 + 0.010570) / 1.338253 = 0.245435
    low, high = wilson_interval(3, 8, z=1.645)
    assert low == pytest.approx(0.16116, abs=1e-5) and high == pytest.approx(0.65203, abs=1e-5)


def test_fisher_equal_nonzero_counts_compare():
    # a == b > 0: a real comparison (p = 1 for identical proportions), not "nothing to compare"
    assert fisher_exact_2x2(3, 8, 3, 8) == pytest.approx(1.0)
    assert fisher_exact_2x2(5, 5, 0, 5) == pytest.approx(2 / 252)  # two-sided: 1/252 in each tail
