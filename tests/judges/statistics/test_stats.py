"""Wilson intervals, Fisher's exact test and the cluster bootstrap, against the jacite-bench card."""

from __future__ import annotations

import math

import pytest

from auditpacks.judges.statistics.stats import cluster_bootstrap, fisher_exact_2x2, ratio_bootstrap, wilson_interval


def _pct(interval):
    return [round(100 * x, 1) for x in interval]


@pytest.mark.parametrize("k, n, expected", [
    (63, 1379, [3.6, 5.8]),   # llm-jp JA
    (7, 642, [0.5, 2.2]),     # llm-jp EN
    (7, 597, [0.6, 2.4]),     # Qwen JA
    (0, 567, [0.0, 0.7]),     # Qwen EN
    (0, 753, [0.0, 0.5]),     # Swallow JA
    (0, 670, [0.0, 0.6]),     # Swallow EN
])
def test_wilson_matches_the_card(k, n, expected):
    assert _pct(wilson_interval(k, n)) == expected


def test_wilson_by_hand_and_edges():
    # 3/8: centre (0.375 + 1.9208/8) / (1 + 3.8416/8), half-width from the score formula
    low, high = wilson_interval(3, 8)
    assert low == pytest.approx(0.13684, abs=1e-5) and high == pytest.approx(0.69426, abs=1e-5)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(5, 4)


def test_fisher_matches_the_card():
    assert fisher_exact_2x2(63, 1379, 7, 642) == pytest.approx(2.1e-5, rel=0.05)
    assert fisher_exact_2x2(7, 597, 0, 567) == pytest.approx(0.016, rel=0.05)
    assert math.isnan(fisher_exact_2x2(0, 753, 0, 670))
    assert fisher_exact_2x2(3, 8, 1, 4) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        fisher_exact_2x2(-1, 5, 0, 5)


def _ratio(clusters):
    den = sum(d for _, d in clusters)
    return sum(n for n, _ in clusters) / den if den else float("nan")


def test_ratio_bootstrap_equals_cluster_bootstrap_with_the_same_seed():
    num, den = [0, 1, 2, 0, 3, 1, 0], [3, 4, 5, 2, 6, 1, 2]
    fast = ratio_bootstrap(num, den, b=500, seed=7)
    slow = cluster_bootstrap(list(zip(num, den)), _ratio, b=500, seed=7)
    assert fast == pytest.approx(slow)
    assert fast[0] == pytest.approx(7 / 23)
    assert fast[1] <= fast[0] <= fast[2]


def test_bootstrap_is_seeded_and_takes_mappings():
    clusters = {"q2": [1.0, 0.0], "q1": [1.0, 1.0], "q3": [0.0]}
    mean = lambda cs: sum(sum(c) for c in cs) / sum(len(c) for c in cs)  # noqa: E731
    first = cluster_bootstrap(clusters, mean, b=300, seed=3)
    assert first == cluster_bootstrap(dict(reversed(list(clusters.items()))), mean, b=300, seed=3)
    assert first[0] == pytest.approx(0.6)
    assert 0.0 <= first[1] <= first[2] <= 1.0


def test_bootstrap_degenerate_inputs():
    assert all(math.isnan(x) for x in ratio_bootstrap([], []))
    assert all(math.isnan(x) for x in ratio_bootstrap([0, 0], [0, 0]))
    assert all(math.isnan(x) for x in cluster_bootstrap([], _ratio))
    assert ratio_bootstrap([0, 0], [3, 4], b=50) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        ratio_bootstrap([1, 2], [3])
