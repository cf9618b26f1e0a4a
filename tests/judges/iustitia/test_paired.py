"""Iustitia's paired comparison resamples whole judgments: every task of a judgment is drawn together."""

from __future__ import annotations

import pytest

from auditpacks.judges.iustitia.paired import compare


def _triple(verdict: str, question: str, a_right: bool, b_right: bool):
    scenario = {"name": f"{question} - {verdict}",
                "decision": {"id": question, "instructions": "?", "criteria": {"yes": "", "no": ""},
                             "accepted": ["yes"]},
                "metadata": {"task_id": f"{verdict}::{question}", "verdict_id": verdict, "question_id": question}}
    return scenario, {"judgment": {"choice": "yes" if a_right else "no"}}, \
        {"judgment": {"choice": "yes" if b_right else "no"}}


def test_the_bootstrap_draws_whole_judgments_not_single_tasks():
    # judgment X: A right and B wrong on all 10 questions; judgment Y: the reverse.
    paired = [_triple("X", f"Q{i}", True, False) for i in range(10)] + \
             [_triple("Y", f"Q{i}", False, True) for i in range(10)]
    micro = next(row for row in compare(paired) if row["figure"] == "micro agreement")
    assert (micro["a"], micro["b"], micro["diff"]) == (0.5, 0.5, 0.0)
    # Drawing 2 judgments: {X,X} → +1, {X,Y} → 0, {Y,Y} → −1 (each 1/4, 1/2, 1/4), so the 95% interval is
    # [−1, 1]. Drawing 20 single tasks would almost never give ±1 (both runs' 20 draws all from one side).
    assert micro["ci"] == pytest.approx([-1.0, 1.0])


def test_one_judgment_gives_a_degenerate_interval_however_many_tasks_it_has():
    paired = [_triple("X", f"Q{i}", i % 2 == 0, i % 3 == 0) for i in range(12)]
    micro = next(row for row in compare(paired) if row["figure"] == "micro agreement")
    # A right on 6 of 12, B on 4 of 12; every replicate draws judgment X again: the same difference.
    assert micro["diff"] == pytest.approx(2 / 12) and micro["ci"] == pytest.approx([2 / 12, 2 / 12])
