"""``ratio_bootstrap`` on the inputs its callers give it beyond whole counts: weights below one (a replicate's
denominator under 1 divides as it is) and exact fractions, against scipy's paired percentile bootstrap and a
by-hand resample."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import bootstrap

from auditpacks.judges.statistics.stats import ratio_bootstrap

# weights whose replicate sums stay below 1: each replicate's ratio is its sums divided as they are
NUM = [round(x, 4) for x in np.random.default_rng(7).uniform(0, 0.02, 12)]
DEN = [round(x, 4) for x in np.random.default_rng(8).uniform(0.01, 0.06, 12)]


def _scipy(num, den, level=0.95, b=2000, seed=0):
    ci = bootstrap((np.array(num, float), np.array(den, float)), lambda n, d, axis=-1: n.sum(axis) / d.sum(axis),
                   paired=True, n_resamples=b, method="percentile", confidence_level=level,
                   rng=np.random.default_rng(seed), vectorized=True).confidence_interval
    return ci.low, ci.high


def test_denominators_below_one_divide_as_they_are():
    assert sum(DEN) < 1   # every replicate's denominator is under 1
    point, low, high = ratio_bootstrap(NUM, DEN)
    assert point == pytest.approx(sum(NUM) / sum(DEN), abs=1e-12)
    assert (low, high) == pytest.approx(_scipy(NUM, DEN), abs=1e-12)


def test_one_small_replicate_by_hand():
    # one replicate of two clusters of weight 0.25 and 0.5: its ratio is its numerators over 0.5, 0.75 or 1
    draw = np.random.default_rng(3).integers(0, 2, size=(1, 2))[0]
    num, den = [0.1, 0.2], [0.25, 0.5]
    expected = sum(num[i] for i in draw) / sum(den[i] for i in draw)
    assert ratio_bootstrap(num, den, b=1, seed=3) == pytest.approx((0.4, expected, expected), abs=1e-12)


def test_exact_fractions_give_the_same_figures_as_their_floats():
    num = [Fraction(n, 7) for n in (0, 1, 2, 0, 3, 1, 0)]
    den = [Fraction(d, 7) for d in (3, 4, 5, 2, 6, 1, 2)]
    floats = ratio_bootstrap([float(x) for x in num], [float(x) for x in den], b=500, seed=2)
    assert ratio_bootstrap(num, den, b=500, seed=2) == pytest.approx(floats, abs=1e-12)
    assert ratio_bootstrap(num, [float(x) for x in den], b=500, seed=2) == pytest.approx(floats, abs=1e-12)
    assert ratio_bootstrap([float(x) for x in num], den, b=500, seed=2) == pytest.approx(floats, abs=1e-12)
    assert floats[0] == pytest.approx(7 / 23)
