"""Paired comparisons of two runs on the same scenarios, with intervals that respect clustering.

Every difference is run A minus run B. Each replicate of the paired bootstrap draws
whole clusters once (judgments, questions or targets) and recomputes the statistic for
both runs on that same draw, so the correlation between the runs is kept; the
replicates come from :func:`auditpacks.judges.statistics.stats.cluster_bootstrap` (seeded,
percentile interval, replicates that are undefined are dropped).

* :func:`compare_choices`: closed questions. Micro and macro agreement differences
  (bootstrap over the clusters given) and McNemar's exact test on discordant tasks.
* :func:`compare_ratios`: a ratio of sums such as an invented rate per cited mention.
* :func:`compare_f1`: F1 per family pooled over clusters (pooled counts recomputed in
  every replicate).

:func:`paired_row` is one compared figure as ``compare`` prints it; a benchmark's
``paired.compare`` returns a list of them, and :mod:`auditpacks.judges.statistics.significance` decides each.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from auditpacks.judges.statistics.stats import cluster_bootstrap

B = 2000
SEED = 0


def _difference(point: float, low: float, high: float) -> dict[str, Any]:
    finite = np.isfinite([point, low, high])
    return {"diff": float(point) if finite[0] else None,
            "ci": [float(low), float(high)] if finite[1] and finite[2] else None}


def paired_row(figure: str, stats: Mapping[str, Any] | None, p: float | None = None, *,
               tested: bool = False, clusters: int | None = None, test: str = "McNemar") -> dict[str, Any]:
    """One compared figure from a statistic's ``{"a", "b", "diff", "ci"}``; ``tested``: a test's p (``test``
    names it) belongs to it (None then means undefined, n/a); ``clusters``: how many the interval resampled."""
    stats = stats or {}
    return {"figure": figure, "a": stats.get("a"), "b": stats.get("b"), "diff": stats.get("diff"),
            "ci": stats.get("ci"), "p": p, "tested": tested, "test": test if tested else None,
            "clusters": clusters, "note": ""}


def mcnemar_exact(a_only: int, b_only: int) -> float | None:
    """Two-sided exact McNemar p on the discordant counts (a binomial test at 1/2); None with none."""
    from scipy.stats import binomtest  # over a second to import: only where the test is run, not in every run

    n = a_only + b_only
    return None if n == 0 else float(binomtest(a_only, n, 0.5).pvalue)


def compare_choices(tasks: Iterable[Mapping[str, Any]], *, b: int = B, seed: int = SEED) -> dict[str, Any]:
    """Paired agreement figures from rows ``{"cluster", "question", "a", "b"}`` (a, b: correct or not).

    Micro = correct ÷ tasks; macro = mean over questions of per-question agreement (a
    question missing from a replicate's draw is left out of that replicate's mean).
    """
    rows = list(tasks)
    questions = sorted({str(t["question"]) for t in rows})
    column = {q: i for i, q in enumerate(questions)}
    clusters: dict[str, np.ndarray] = {}  # cluster → [a correct, b correct, tasks] per question
    a_only = b_only = 0
    for t in rows:
        cell = clusters.setdefault(str(t["cluster"]), np.zeros((3, len(questions))))
        cell[:, column[str(t["question"])]] += (bool(t["a"]), bool(t["b"]), 1)
        a_only += bool(t["a"]) and not t["b"]
        b_only += bool(t["b"]) and not t["a"]
    out: dict[str, Any] = {"tasks": len(rows), "clusters": len(clusters), "questions": len(questions),
                           "a_only": a_only, "b_only": b_only, "mcnemar_p": mcnemar_exact(a_only, b_only)}
    if not rows:
        return {**out, "micro": None, "macro": None}
    total = np.sum(list(clusters.values()), axis=0)
    for name, stat in (("micro", _micro), ("macro", _macro)):
        a, b_value = (stat(total, run) for run in (0, 1))
        point, low, high = cluster_bootstrap(clusters, lambda drawn, s=stat: _diff(s, drawn), b=b, seed=seed)
        out[name] = {"a": a, "b": b_value, **_difference(point, low, high)}
    return out


def _micro(total: np.ndarray, run: int) -> float:
    return float(total[run].sum() / total[2].sum())


def _macro(total: np.ndarray, run: int) -> float:
    present = total[2] > 0
    return float(np.mean(total[run, present] / total[2, present]))


def _diff(stat, drawn: Sequence[np.ndarray]) -> float:
    total = np.sum(drawn, axis=0)
    return stat(total, 0) - stat(total, 1)


def compare_ratios(rows: Iterable[Mapping[str, Any]], *, b: int = B, seed: int = SEED) -> dict[str, Any]:
    """Paired difference of Σnum/Σden from rows ``{"cluster", "a": (num, den), "b": (num, den)}``.

    Rows of one cluster are summed first; a replicate where either run's denominator is
    0 is dropped; a rate with a zero total denominator is None.
    """
    clusters: dict[str, np.ndarray] = {}
    for row in rows:
        cell = clusters.setdefault(str(row["cluster"]), np.zeros(4))
        cell += (*row["a"], *row["b"])
    out: dict[str, Any] = {"clusters": len(clusters)}
    if not clusters:
        return {**out, "a": None, "b": None, "diff": None, "ci": None}
    total = np.sum(list(clusters.values()), axis=0)
    rate_a, rate_b = _rate(total[0], total[1]), _rate(total[2], total[3])
    point, low, high = cluster_bootstrap(clusters, _ratio_diff, b=b, seed=seed)
    return {**out, "a": rate_a, "b": rate_b, **_difference(point, low, high),
            "a_counts": [int(total[0]), int(total[1])], "b_counts": [int(total[2]), int(total[3])]}


def _rate(num: float, den: float) -> float | None:
    return float(num / den) if den else None


def _ratio_diff(drawn: Sequence[np.ndarray]) -> float:
    t = np.sum(drawn, axis=0)
    return float(t[0] / t[1] - t[2] / t[3]) if t[1] and t[3] else float("nan")


def f1_score(tp: float, fp: float, fn: float) -> float:
    """Pooled F1 = 2TP / (2TP + FP + FN); 0 when the denominator is 0."""
    den = 2 * tp + fp + fn
    return float(2 * tp / den) if den else 0.0


def compare_f1(rows: Iterable[Mapping[str, Any]], families: Sequence[str], *, b: int = B,
               seed: int = SEED) -> dict[str, Any]:
    """Per family, the paired F1 difference from rows ``{"cluster", "a": counts, "b": counts}``.

    ``counts`` maps each family to ``{"tp", "fp", "fn"}`` for one target; F1 is pooled over
    the drawn targets in every replicate.
    """
    clusters: dict[str, np.ndarray] = {}  # target → [run, family, (tp, fp, fn)]
    for row in rows:
        cell = clusters.setdefault(str(row["cluster"]), np.zeros((2, len(families), 3)))
        for r, run in enumerate(("a", "b")):
            for f, family in enumerate(families):
                c = row[run][family]
                cell[r, f] += (c["tp"], c["fp"], c["fn"])
    out: dict[str, Any] = {"targets": len(clusters)}
    if not clusters:
        return {**out, **{family: None for family in families}}
    total = np.sum(list(clusters.values()), axis=0)
    for f, family in enumerate(families):
        def stat(drawn, f=f):
            t = np.sum(drawn, axis=0)
            return f1_score(*t[0, f]) - f1_score(*t[1, f])
        point, low, high = cluster_bootstrap(clusters, stat, b=b, seed=seed)
        out[family] = {"a": f1_score(*total[0, f]), "b": f1_score(*total[1, f]), **_difference(point, low, high)}
    return out
