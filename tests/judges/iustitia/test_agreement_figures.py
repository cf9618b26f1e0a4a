"""Iustitia figures by hand: macro over the questions a resample holds, the defaults, run results and report lines."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from auditpacks.judges.iustitia import agreement as ag
from auditpacks.judges.iustitia.run_tasks import tasks_from_scenarios
from tests.support.iustitia import FIXTURE

# six judgments (V1..V6); Q2 asked only of V1 and V4, so many resamples hold no Q2 task
TASKS = [{"task_id": f"{v}::{q}", "verdict_id": v, "question_id": q, "accepted_options": ["y"], "options": ["y", "n"]}
         for v, q in [("V1", "Q1"), ("V1", "Q2"), ("V2", "Q1"), ("V3", "Q1"), ("V4", "Q1"), ("V4", "Q2"), ("V5", "Q1"),
                      ("V6", "Q1")]]
PREDICTIONS = {"V1::Q1": "y", "V1::Q2": "y", "V2::Q1": "n", "V3::Q1": "y", "V4::Q1": "n", "V4::Q2": "y", "V5::Q1": "y"}
# per judgment: correct and tasks per question (Q1, Q2), predictions given
CELLS = {"V1": ((1, 1), (1, 1), 2), "V2": ((0, 0), (1, 0), 1), "V3": ((1, 0), (1, 0), 1),
         "V4": ((0, 1), (1, 1), 2), "V5": ((1, 0), (1, 0), 1), "V6": ((0, 0), (1, 0), 0)}


def _by_hand(b: int, seed: int, alpha: float) -> dict[str, list[float]]:
    order = [CELLS[v] for v in sorted(CELLS)]
    figures: dict[str, list[float]] = {"micro": [], "macro": [], "coverage": []}
    for row in np.random.default_rng(seed).integers(0, 6, size=(b, 6)):
        correct = [sum(order[i][0][q] for i in row) for q in (0, 1)]
        tasks = [sum(order[i][1][q] for i in row) for q in (0, 1)]
        figures["micro"].append(sum(correct) / sum(tasks))
        figures["macro"].append(np.mean([c / t for c, t in zip(correct, tasks) if t]))  # questions present only
        figures["coverage"].append(sum(order[i][2] for i in row) / sum(tasks))
    return {k: list(np.percentile(v, [100 * alpha / 2, 100 * (1 - alpha / 2)])) for k, v in figures.items()}


def test_point_figures_and_intervals_by_hand():
    out = ag.agreement(TASKS, PREDICTIONS, b=200, seed=11, alpha=0.1)
    assert (out["micro"], out["macro"], out["coverage"]) == (5 / 8, (3 / 6 + 2 / 2) / 2, 7 / 8)
    assert out["per_question"] == {"Q1": {"tasks": 6, "correct": 3, "agreement": 0.5},
                                   "Q2": {"tasks": 2, "correct": 2, "agreement": 1.0}}
    expected = _by_hand(200, 11, 0.1)
    for name in ("micro", "macro", "coverage"):
        assert out["ci"][name] == pytest.approx(expected[name], abs=1e-12), name
    assert out["ci_method"] == {"method": "percentile bootstrap resampling whole judgments", "b": 200, "seed": 11,
                                "level": pytest.approx(0.9)}


def test_defaults_are_2000_replicates_seed_0_and_95_percent():
    out = ag.agreement(TASKS, PREDICTIONS)
    assert out["ci_method"] == {"method": "percentile bootstrap resampling whole judgments", "b": 2000, "seed": 0,
                                "level": 0.95}
    expected = _by_hand(2000, 0, 0.05)
    for name in ("micro", "macro", "coverage"):
        assert out["ci"][name] == pytest.approx(expected[name], abs=1e-12), name


def _named(name):
    return {"name": name, "metadata": {"task_id": name, "verdict_id": "V", "question_id": "Q"},
            "decision": {"criteria": {"y": 1, "n": 2}, "accepted": ["y"]}}


def test_a_result_marked_error_anywhere_holds_no_prediction():
    scenarios = [_named("a"), _named("b"), _named("c"), _named("d")]
    results = [{"scenario_name": "a", "severity": "ERROR", "judgment": {"choice": "y"}},
               {"scenario_name": "b", "severity": "high", "judgment": {"severity": "ERROR", "choice": "y"}},
               {"scenario_name": "c", "severity": "pass", "judgment": {"severity": "pass", "choice": "n"}},
               {"scenario_name": "d", "severity": "pass"}]
    assert ag.predictions_from_results({"results": results}, scenarios) == {"c": "n"}
    assert ag.predictions_from_results(results, scenarios) == {"c": "n"}  # a bare list of results
    assert ag.predictions_from_results({}, scenarios) == {}
    head = ag.headline(list(zip(scenarios, results)))
    assert (head["tasks"], head["predictions"], head["correct"], head["skipped"]) == (4, 1, 0, 0)


def test_scenarios_without_an_answer_key_are_skipped_not_the_end():
    ungraded = {"name": "u", "decision": {"criteria": {"y": 1}}}
    assert [t["task_id"] for t in tasks_from_scenarios([_named("a"), ungraded, _named("b")])] == ["a", "b"]


def test_report_lines_word_for_word():
    scores = {"tasks": 4, "judgments": 3, "questions": 2, "predictions": 2, "invalid": 1, "micro": 0.25, "macro": 0.5,
              "coverage": 0.5, "ci": {"micro": [0.0, 0.5], "macro": [0.1, 0.9], "coverage": [0.25, 0.75]}}
    lines = ["tasks 4, judgments 3, questions 2",
             "coverage 50.0% (95% CI 25.0%–75.0%): 2 predictions for 4 tasks, 1 invalid",
             "micro    25.0% (95% CI 0.0%–50.0%)", "macro    50.0% (95% CI 10.0%–90.0%)"]
    assert ag.format_scores(scores) == "\n".join(lines)
    with_track = {**scores, "track": "le26", "warnings": ["few", "more"]}
    assert ag.format_scores(with_track) == "\n".join(
        [lines[0] + ", track le26"] + lines[1:] + ["warning: few", "warning: more"])


def test_unknown_ids_name_the_full_track_by_default(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"task_id": "V9", "choice": "y"}\n', encoding="utf-8")
    with pytest.raises(ag.PackError, match=r"^p.jsonl: line 1: unknown task_id 'V9' \(not a task of the full track\)$"):
        ag.read_predictions(path, {"V1"})


def test_the_command_passes_seed_bootstrap_and_track(tmp_path, capsys):
    pred = tmp_path / "p.jsonl"
    pred.write_text("", encoding="utf-8")
    parser = argparse.ArgumentParser()
    ag.add_arguments(parser)
    args = parser.parse_args(["--pred", str(pred), "--source", str(FIXTURE), "--track", "full", "--seed", "3",
                              "--bootstrap", "50", "--out", str(tmp_path / "s.json")])  # no cache_dir: not needed
    assert ag.main(args) == 0
    scores = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert scores["track"] == "full" and scores["ci_method"]["b"] == 50 and scores["ci_method"]["seed"] == 3
    assert capsys.readouterr().out.startswith(f"tasks {scores['tasks']}, judgments")
