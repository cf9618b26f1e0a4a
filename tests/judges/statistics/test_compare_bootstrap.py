"""Paired comparisons against hand counts and a by-hand resample of whole clusters.

The paired bootstrap draws ``b`` rows of cluster indices from
``numpy.random.default_rng(seed).integers(0, n, size=(b, n))`` (clusters in key order), sums
each run's counts over the drawn clusters, drops replicates that are undefined and takes the
2.5th and 97.5th percentiles. The resamples below spell that out, so the endpoints, the number
of replicates and the seed are all pinned.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from auditpacks.judges.statistics.compare import compare_choices, compare_f1, compare_ratios, f1_score, paired_row

B, SEED = 37, 3  # not the defaults, so that both must reach the resample

# (cluster, question, a right, b right); q0 twice in c0, q2 only once (in c3)
CHOICES = [("c0", "q0", 1, 0), ("c0", "q0", 1, 1), ("c1", "q0", 0, 1), ("c1", "q1", 1, 1),
           ("c2", "q1", 1, 0), ("c2", "q1", 0, 0), ("c3", "q0", 1, 0), ("c3", "q2", 1, 1),
           ("c4", "q1", 0, 1), ("c4", "q0", 1, 1), ("c5", "q1", 1, 0), ("c5", "q0", 1, 1)]


def by_hand(clusters: list, statistic, b: int = B, seed: int = SEED):
    """Resample whole clusters; replicates where ``statistic`` is None are dropped."""
    draws = np.random.default_rng(seed).integers(0, len(clusters), size=(b, len(clusters)))
    kept = [v for v in (statistic([row for i in draw for row in clusters[i]]) for draw in draws) if v is not None]
    return list(np.percentile(kept, [2.5, 97.5])) if kept else None


def by_cluster(rows: list[tuple]) -> list[list[tuple]]:
    return [[r for r in rows if r[0] == c] for c in sorted({r[0] for r in rows})]


def choice_rows(rows=CHOICES) -> list[dict]:
    return [{"cluster": c, "question": q, "a": bool(a), "b": bool(b)} for c, q, a, b in rows]


def micro_diff(rows):
    return (sum(r[2] for r in rows) - sum(r[3] for r in rows)) / len(rows)


def macro_diff(rows):
    questions = sorted({r[1] for r in rows})  # only the questions drawn
    per = [[r for r in rows if r[1] == q] for q in questions]
    return float(np.mean([(sum(r[2] for r in p) - sum(r[3] for r in p)) / len(p) for p in per]))


def test_choice_counts_and_points_by_hand():
    out = compare_choices(choice_rows(), b=B, seed=SEED)
    # A right on 9 of 12 tasks, B on 7; A alone right on 4, B alone on 2 (the last task agrees)
    assert {k: out[k] for k in ("tasks", "clusters", "questions", "a_only", "b_only")} == {
        "tasks": 12, "clusters": 6, "questions": 3, "a_only": 4, "b_only": 2}
    assert out["mcnemar_p"] == pytest.approx(2 * (15 + 6 + 1) / 64)  # two-sided binomial, 4 of 6
    assert out["micro"]["a"] == pytest.approx(9 / 12) and out["micro"]["b"] == pytest.approx(7 / 12)
    assert out["micro"]["diff"] == pytest.approx(2 / 12)
    # per question, A: q0 5/6, q1 3/5, q2 1/1; B: 4/6, 2/5, 1/1 (the question asked once still counts)
    assert out["macro"]["a"] == pytest.approx((5 / 6 + 3 / 5 + 1) / 3)
    assert out["macro"]["b"] == pytest.approx((4 / 6 + 2 / 5 + 1) / 3)
    assert out["macro"]["diff"] == pytest.approx(11 / 90)


def test_choice_intervals_resample_clusters_by_hand():
    clusters = by_cluster(CHOICES)
    out = compare_choices(choice_rows(), b=B, seed=SEED)
    assert out["micro"]["ci"] == pytest.approx(by_hand(clusters, micro_diff), abs=1e-12)
    # a replicate that misses q2 (about a third) averages over the questions it drew
    assert out["macro"]["ci"] == pytest.approx(by_hand(clusters, macro_diff), abs=1e-12)
    other = compare_choices(choice_rows(), b=60, seed=8)
    assert other["micro"]["ci"] == pytest.approx(by_hand(clusters, micro_diff, 60, 8), abs=1e-12)


def test_nothing_to_compare():
    assert compare_choices([]) == {"tasks": 0, "clusters": 0, "questions": 0, "a_only": 0, "b_only": 0,
                                   "mcnemar_p": None, "micro": None, "macro": None}
    assert compare_ratios([]) == {"clusters": 0, "a": None, "b": None, "diff": None, "ci": None}
    assert compare_f1([], ("ids", "names")) == {"targets": 0, "ids": None, "names": None}


# (cluster, a num, a den, b num, b den); c1 twice, c3 where B has nothing to count
RATIOS = [("c0", 1, 4, 0, 3), ("c1", 2, 5, 1, 2), ("c1", 0, 1, 1, 1), ("c2", 3, 6, 2, 5), ("c3", 1, 2, 0, 0),
          ("c4", 0, 3, 1, 4)]


def ratio_rows(rows) -> list[dict]:
    return [{"cluster": c, "a": (an, ad), "b": (bn, bd)} for c, an, ad, bn, bd in rows]


def ratio_diff(rows):
    a_den, b_den = sum(r[2] for r in rows), sum(r[4] for r in rows)
    return sum(r[1] for r in rows) / a_den - sum(r[3] for r in rows) / b_den if a_den and b_den else None


def test_ratio_counts_point_and_interval_by_hand():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = compare_ratios(ratio_rows(RATIOS), b=B, seed=SEED)
    # A: 7 / 21; B: 5 / 15
    assert out["clusters"] == 5 and out["a_counts"] == [7, 21] and out["b_counts"] == [5, 15]
    assert out["a"] == pytest.approx(1 / 3) and out["b"] == pytest.approx(1 / 3) and out["diff"] == pytest.approx(0)
    assert out["ci"] == pytest.approx(by_hand(by_cluster(RATIOS), ratio_diff), abs=1e-12)
    other = compare_ratios(ratio_rows(RATIOS), b=60, seed=8)["ci"]
    assert other == pytest.approx(by_hand(by_cluster(RATIOS), ratio_diff, 60, 8), abs=1e-12)


def test_ratio_replicates_without_a_denominator_are_dropped_quietly():
    rows = ratio_rows([("c0", 1, 2, 0, 0), ("c1", 1, 4, 1, 2)])  # a replicate of c0 twice has no B denominator
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = compare_ratios(rows, b=200, seed=0)
        # seed 11's single replicate draws c0 twice: no interval, the difference stands
        lone = compare_ratios(rows, b=1, seed=11)
        nothing = compare_ratios(ratio_rows([("c0", 1, 2, 0, 0), ("c1", 1, 4, 2, 0)]), b=50)
    assert out["diff"] == pytest.approx(2 / 6 - 1 / 2)
    assert out["ci"] == pytest.approx(by_hand(by_cluster([("c0", 1, 2, 0, 0), ("c1", 1, 4, 1, 2)]), ratio_diff,
                                              200, 0), abs=1e-12)
    assert lone["diff"] == pytest.approx(2 / 6 - 1 / 2) and lone["ci"] is None
    # B never has a denominator: no rate, no difference, no interval
    assert (nothing["a"], nothing["b"], nothing["diff"], nothing["ci"]) == (pytest.approx(2 / 6), None, None, None)
    assert nothing["b_counts"] == [2, 0]


FAMILIES = ("ids", "names")
# (cluster, A's tp fp fn, B's tp fp fn) for "ids"; "names" swaps the runs; t0 has two rows
F1_ROWS = [("t0", 3, 1, 0, 1, 1, 1), ("t0", 1, 0, 1, 0, 0, 2), ("t1", 0, 2, 1, 2, 0, 0), ("t2", 2, 0, 0, 1, 2, 1),
           ("t3", 1, 1, 1, 1, 0, 1)]


def f1_rows() -> list[dict]:
    def counts(tp, fp, fn):
        return {"tp": tp, "fp": fp, "fn": fn}
    return [{"cluster": c, "a": {"ids": counts(a1, a2, a3), "names": counts(b1, b2, b3)},
             "b": {"ids": counts(b1, b2, b3), "names": counts(a1, a2, a3)}} for c, a1, a2, a3, b1, b2, b3 in F1_ROWS]


def f1_diff(rows):
    a = [sum(r[i] for r in rows) for i in (1, 2, 3)]
    b = [sum(r[i] for r in rows) for i in (4, 5, 6)]
    return f1(*a) - f1(*b)


def f1(tp, fp, fn):
    return 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else 0.0


def test_f1_pooled_points_and_intervals_by_hand():
    out = compare_f1(f1_rows(), FAMILIES, b=B, seed=SEED)
    # A ids: tp 7, fp 4, fn 3 → 14/21; B ids: tp 5, fp 3, fn 5 → 10/18
    assert out["targets"] == 4
    assert out["ids"]["a"] == pytest.approx(14 / 21) and out["ids"]["b"] == pytest.approx(10 / 18)
    assert out["ids"]["diff"] == pytest.approx(14 / 21 - 10 / 18)
    assert out["names"]["diff"] == pytest.approx(10 / 18 - 14 / 21)
    ci = by_hand(by_cluster(F1_ROWS), f1_diff)
    assert out["ids"]["ci"] == pytest.approx(ci, abs=1e-12)
    assert out["names"]["ci"] == pytest.approx([-ci[1], -ci[0]], abs=1e-12)
    other = compare_f1(f1_rows(), FAMILIES, b=60, seed=8)["ids"]["ci"]
    assert other == pytest.approx(by_hand(by_cluster(F1_ROWS), f1_diff, 60, 8), abs=1e-12)


def test_f1_score_by_hand():
    assert f1_score(3, 1, 2) == pytest.approx(6 / 9)
    assert f1_score(1, 1, 1) == pytest.approx(0.5)
    assert f1_score(0, 0, 0) == 0.0  # nothing to find and nothing claimed


def test_paired_row_names_the_test_only_when_one_was_run():
    stats = {"a": 0.5, "b": 0.25, "diff": 0.25, "ci": [0.1, 0.4]}
    assert paired_row("micro agreement", stats, 0.03, tested=True, clusters=12) == {
        "figure": "micro agreement", "a": 0.5, "b": 0.25, "diff": 0.25, "ci": [0.1, 0.4], "p": 0.03,
        "tested": True, "test": "McNemar", "clusters": 12, "note": ""}
    untested = paired_row("rate", stats)
    assert (untested["test"], untested["tested"], untested["p"]) == (None, False, None)
    assert paired_row("rate", None)["diff"] is None
