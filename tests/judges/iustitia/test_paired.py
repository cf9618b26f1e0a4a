"""Iustitia's paired comparison: its rows per run, the judgment, question and cluster a scenario names, and a
bootstrap that resamples whole judgments (every task of a judgment is drawn together)."""

from __future__ import annotations

import pytest

from auditpacks.judges.iustitia.paired import cluster, compare, judgment, question


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


def _rows(paired):
    return {row["figure"]: {k: row[k] for k in ("a", "b", "diff", "p", "tested", "test", "clusters", "note")}
            for row in compare(paired)}


def test_the_rows_count_right_answers_per_run_and_the_discordant_tasks():
    ungraded = ({"name": "open", "decision": {"id": "Q9", "accepted": []}, "metadata": {"task_id": "Z::Q9"}},
                {"judgment": {"choice": "yes"}}, {"judgment": {"choice": "no"}})
    unnamed = ({"name": "free", "decision": {"id": "Q1", "accepted": ["yes"]}},
               {"judgment": {"choice": "yes"}}, {"judgment": {"choice": "no"}})
    paired = [_triple("X", "Q1", True, False), _triple("X", "Q2", True, True), ungraded,
              _triple("Y", "Q1", True, False), (_triple("Y", "Q2", True, True)[0], {}, {"judgment": None}), unnamed]
    # Graded: X/Q1, X/Q2, Y/Q1, Y/Q2 (neither result holds a choice) and "free" (its own judgment, question Q1).
    # A right on 4 of 5, B on 1 of 5; Q1: A 3/3, B 0/3, Q2: A 1/2, B 1/2. Discordant: 3 right only in A, none in B,
    # so McNemar's exact p is 2 * (1/2)**3.
    assert _rows(paired) == {
        "micro agreement": {"a": pytest.approx(0.8), "b": pytest.approx(0.2), "diff": pytest.approx(0.6),
                            "p": pytest.approx(0.25), "tested": True, "test": "McNemar", "clusters": 3, "note": ""},
        "macro agreement": {"a": pytest.approx(0.75), "b": pytest.approx(0.25), "diff": pytest.approx(0.5),
                            "p": None, "tested": False, "test": None, "clusters": 3, "note": ""},
        "discordant tasks": {"a": 3, "b": 0, "diff": None, "p": pytest.approx(0.25), "tested": True,
                             "test": "McNemar", "clusters": 3, "note": "right only in A / right only in B"}}


@pytest.mark.parametrize("metadata, expected", [
    ({"verdict_id": "V1", "question_id": "Q3", "task_id": "V1::Q3"}, ("V1", "Q3", "V1")),
    ({"task_id": "V2::Q1"}, (None, None, "V2::Q1")),
    ({"verdict_id": 7}, (7, None, "7")),
    (None, (None, None, "Q1 - scenario")),
    ({}, (None, None, "Q1 - scenario")),
])
def test_a_scenario_names_its_judgment_question_and_cluster_from_its_metadata(metadata, expected):
    scenario = {"name": "Q1 - scenario", **({} if metadata is None else {"metadata": metadata})}
    assert (judgment(scenario), question(scenario), cluster(scenario)) == expected
