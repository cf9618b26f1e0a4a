"""Calibration of decision confidences and selective automation: pure functions over tasks that each have
a confidence ``p`` (the model's probability for the option it chose), whether the choice was correct
``y`` and a cluster (the judgment it comes from).

* Brier score: mean (p − y)², scikit-learn's ``brier_score_loss`` (0 is perfect; always answering
  with p = 0.5 scores 0.25).
* Expected calibration error (ECE): ten equal-width bins of p, right edges inclusive
  ([0, 0.1], (0.1, 0.2], …, (0.9, 1]) as scikit-learn's ``calibration_curve(strategy="uniform")``
  bins them; ECE = Σ_b (n_b / N) · |agreement_b − mean p_b|.
* Both with 95% percentile intervals from :func:`~auditpacks.judges.statistics.stats.sums_bootstrap`,
  resampling whole clusters (judgments), the same draws for both.
* Reliability: per non-empty bin its range, count, mean confidence and agreement.
* Risk–coverage: for each confidence threshold t, the tasks answered with p ≥ t: their agreement
  (with a judgment-bootstrap interval) and their share of all eligible tasks, answered or not; and
  the lowest observed threshold at which agreement reaches a target (95%), chosen on the same data.
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

import numpy as np

from auditpacks.judges.statistics.stats import ratio_bootstrap, sums_bootstrap

BINS = 10
THRESHOLDS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)
TARGET = 0.95
BINNING = "10 equal-width bins of the chosen option's probability, right edges inclusive"


def bin_ids(p: np.ndarray, bins: int = BINS) -> np.ndarray:
    """Each confidence's bin, as scikit-learn's ``calibration_curve`` assigns it."""
    return np.searchsorted(_edges(bins)[1:-1], p)


@functools.lru_cache(maxsize=8)
def _edges(bins: int) -> np.ndarray:
    return np.linspace(0.0, 1.0, bins + 1)


def sufficient(p: Sequence[float], y: Sequence[int], cluster: Sequence[Any], bins: int = BINS) -> np.ndarray:
    """One row per cluster (in sorted order): per bin its count, Σp and Σy; then Σ(p − y)² and the task
    count. Summing rows pools clusters."""
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    keys, index = np.unique(np.asarray(cluster, dtype=object).astype(str), return_inverse=True)
    cells = index * bins + bin_ids(p, bins)
    size = len(keys) * bins
    return np.column_stack([np.bincount(cells, minlength=size).reshape(-1, bins),
                            np.bincount(cells, weights=p, minlength=size).reshape(-1, bins),
                            np.bincount(cells, weights=y, minlength=size).reshape(-1, bins),
                            np.bincount(index, weights=(p - y) ** 2, minlength=len(keys)),
                            np.bincount(index, minlength=len(keys))])


def _ece(sums: np.ndarray, bins: int = BINS) -> np.ndarray:
    """ECE of each row of summed statistics (NaN where no task)."""
    return np.abs(sums[:, 2 * bins:3 * bins] - sums[:, bins:2 * bins]).sum(axis=1) / sums[:, -1]


def _brier(sums: np.ndarray) -> np.ndarray:
    return sums[:, -2] / sums[:, -1]


def ece(p: Sequence[float], y: Sequence[int], bins: int = BINS) -> float:
    """Expected calibration error over the bins scikit-learn's ``calibration_curve`` uses."""
    from sklearn.calibration import calibration_curve

    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=int)
    if p.size == 0:
        return float("nan")
    agreement, confidence = calibration_curve(y, p, n_bins=bins, strategy="uniform")
    counts = np.bincount(bin_ids(p, bins), minlength=bins)
    return float(np.sum(counts[counts > 0] / p.size * np.abs(agreement - confidence)))


def brier(p: Sequence[float], y: Sequence[int]) -> float:
    from sklearn.metrics import brier_score_loss

    return float(brier_score_loss(np.asarray(y, dtype=int), np.asarray(p, dtype=float), pos_label=1)) if len(p) \
        else float("nan")


def reliability(p: Sequence[float], y: Sequence[int], bins: int = BINS) -> list[dict[str, Any]]:
    """Per non-empty bin: its edges, count, mean confidence and agreement (the reliability diagram's points)."""
    stats = sufficient(p, y, [0] * len(p), bins).sum(axis=0)
    edges = _edges(bins)
    return [{"low": round(float(edges[b]), 4), "high": round(float(edges[b + 1]), 4), "n": int(stats[b]),
             "confidence": float(stats[bins + b] / stats[b]), "agreement": float(stats[2 * bins + b] / stats[b])}
            for b in range(bins) if stats[b]]


def scores(p: Sequence[float], y: Sequence[int], cluster: Sequence[Any], *, b: int = 2000, seed: int = 0,
           alpha: float = 0.05) -> dict[str, Any]:
    """ECE and Brier of the tasks (confidence, correct, cluster), with cluster-bootstrap intervals."""
    out: dict[str, Any] = {"n": len(p), "ece": _finite(ece(p, y)), "brier": _finite(brier(p, y)), "ci": {}}
    stats = sufficient(p, y, cluster)
    for name, statistic in (("ece", _ece), ("brier", _brier)):
        _, low, high = sums_bootstrap(stats, statistic, b=b, seed=seed, alpha=alpha)
        out["ci"][name] = [_finite(low), _finite(high)]
    return out


def risk_coverage(p: Sequence[float], y: Sequence[int], cluster: Sequence[Any], eligible: int,
                  thresholds: Sequence[float] = THRESHOLDS, *, target: float = TARGET, b: int = 2000,
                  seed: int = 0) -> dict[str, Any]:
    """Agreement and coverage when only answers with p ≥ t are kept, per threshold; the target's threshold."""
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=int)
    keys, index = np.unique(np.asarray(cluster, dtype=object).astype(str), return_inverse=True)
    rows = []
    for t in thresholds:
        kept = p >= t
        answered = np.bincount(index[kept], minlength=len(keys))
        correct = np.bincount(index[kept], weights=y[kept], minlength=len(keys))
        n = int(answered.sum())
        point, low, high = ratio_bootstrap(correct, answered, b=b, seed=seed) if n else (None, None, None)
        rows.append({"threshold": t, "answered": n, "coverage": n / eligible if eligible else None,
                     "agreement": _finite(point), "ci": [_finite(low), _finite(high)] if n else None})
    return {"rows": rows, "automation": automation(p, y, eligible, target)}


def automation(p: Sequence[float], y: Sequence[int], eligible: int, target: float = TARGET) -> dict[str, Any] | None:
    """The lowest observed confidence t whose answers with p ≥ t agree at ``target`` or better (None: none)."""
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    if p.size == 0 or not eligible:
        return None
    order = np.argsort(-p, kind="stable")
    p, kept = p[order], np.arange(1, p.size + 1)
    agreement = np.cumsum(y[order]) / kept
    last = np.flatnonzero(np.append(p[1:] != p[:-1], True))  # the last task of each group of equal p
    reach = last[agreement[last] >= target]
    if reach.size == 0:
        return None
    i = int(reach[-1])
    return {"target": target, "threshold": float(p[i]), "answered": int(kept[i]),
            "coverage": float(kept[i] / eligible), "agreement": float(agreement[i])}


def _finite(value: Any) -> float | None:
    return float(value) if value is not None and np.isfinite(value) else None
