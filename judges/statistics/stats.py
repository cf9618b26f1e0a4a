"""Interval estimates and tests shared by every benchmark's headline figures.

* :func:`wilson_interval`: a binomial proportion's score interval (items independent).
* :func:`fisher_exact_2x2`: two proportions compared, two-sided exact test.
* :func:`cluster_bootstrap` / :func:`ratio_bootstrap` / :func:`sums_bootstrap`: percentile
  intervals that resample whole clusters (questions, documents), the stricter choice when items
  within a cluster are correlated. Seeded; the same seed gives the same draws in all three.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Sequence

import numpy as np

Interval = tuple[float, float]


def wilson_interval(k: int, n: int, z: float = 1.96) -> Interval:
    """Wilson score interval for k successes in n trials, clipped to [0, 1]; (0, 1) when n == 0."""
    _check_count(k, n)
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def fisher_exact_2x2(a: int, n_a: int, b: int, n_b: int) -> float:
    """Two-sided Fisher exact p for a/n_a vs b/n_b; NaN when a + b == 0 (nothing to compare)."""
    _check_count(a, n_a)
    _check_count(b, n_b)
    if a + b == 0:
        return float("nan")
    from scipy.stats import fisher_exact  # half a second to import: only where the test is run

    return float(fisher_exact([[a, n_a - a], [b, n_b - b]], alternative="two-sided")[1])


def _check_count(k: int, n: int) -> None:
    if not (0 <= k <= n):
        raise ValueError(f"a count must satisfy 0 <= k <= n, got k={k}, n={n}")


def _draws(n_clusters: int, b: int, seed: int) -> np.ndarray:
    """b bootstrap samples of cluster indices, each of n_clusters draws with replacement."""
    return np.random.default_rng(seed).integers(0, n_clusters, size=(b, n_clusters))


def _percentiles(replicates: np.ndarray, alpha: float) -> Interval:
    finite = replicates[np.isfinite(replicates)]
    if finite.size == 0:
        return (float("nan"), float("nan"))
    low, high = np.percentile(finite, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return (float(low), float(high))


def cluster_bootstrap(
    values_by_cluster: Sequence[Any] | Mapping[Any, Any],
    statistic: Callable[[list[Any]], float],
    *,
    b: int = 2000,
    seed: int = 0,
    alpha: float = 0.05,
) -> tuple[float, float, float]:
    """(point, low, high): ``statistic`` over all clusters and its percentile interval.

    ``values_by_cluster`` holds one entry per cluster (a mapping's values are used, in
    key order); each replicate draws as many clusters with replacement and applies
    ``statistic`` to the list of drawn entries. Replicates that are NaN are dropped.
    """
    clusters = [values_by_cluster[k] for k in sorted(values_by_cluster)] if isinstance(
        values_by_cluster, Mapping) else list(values_by_cluster)
    if not clusters:
        return (float("nan"), float("nan"), float("nan"))
    point = float(statistic(clusters))
    replicates = np.array([float(statistic([clusters[i] for i in row])) for row in _draws(len(clusters), b, seed)])
    return (point, *_percentiles(replicates, alpha))


def ratio_bootstrap(
    numerators: Sequence[float],
    denominators: Sequence[float],
    *,
    b: int = 2000,
    seed: int = 0,
    alpha: float = 0.05,
) -> tuple[float, float, float]:
    """(point, low, high) for a ratio of sums, Σnum / Σden, resampling clusters (one pair per cluster).

    Same draws as :func:`cluster_bootstrap` with the same seed; a replicate whose
    denominator is 0 is dropped; the point is NaN when the total denominator is 0.
    """
    num = np.asarray(numerators, dtype=float)
    den = np.asarray(denominators, dtype=float)
    if num.shape != den.shape or num.ndim != 1:
        raise ValueError("numerators and denominators must be two sequences of the same length")
    if num.size == 0 or den.sum() == 0:
        return (float("nan"), float("nan"), float("nan"))
    idx = _draws(num.size, b, seed)
    sums_num, sums_den = num[idx].sum(axis=1), den[idx].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        replicates = np.where(sums_den > 0, sums_num / np.where(sums_den > 0, sums_den, 1), np.nan)
    return (float(num.sum() / den.sum()), *_percentiles(replicates, alpha))


def sums_bootstrap(
    rows: Sequence[Sequence[float]] | np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    b: int = 2000,
    seed: int = 0,
    alpha: float = 0.05,
) -> tuple[float, float, float]:
    """(point, low, high) for a statistic of per-cluster sums, vectorised: ``rows`` holds one vector of
    sufficient statistics per cluster; ``statistic`` maps a (k, F) array of summed vectors to k values.

    Same draws as :func:`cluster_bootstrap` with the same seed; NaN replicates are dropped.
    """
    rows = np.asarray(rows, dtype=float)
    if rows.ndim != 2 or rows.shape[0] == 0:
        return (float("nan"), float("nan"), float("nan"))
    draws = _draws(rows.shape[0], b, seed)
    n = rows.shape[0]
    weights = np.bincount((np.arange(b)[:, None] * n + draws).ravel(), minlength=b * n).reshape(b, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        point = float(statistic(rows.sum(axis=0)[None, :])[0])
        replicates = np.asarray(statistic(weights @ rows), dtype=float)
    return (point, *_percentiles(replicates, alpha))
