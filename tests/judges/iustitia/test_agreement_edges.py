"""Iustitia agreement by hand: point figures, a by-hand judgment resample, and every input error word for word."""

from __future__ import annotations

import numpy as np
import pytest

from auditpacks.core.errors import PackError
from auditpacks.judges.iustitia.agreement import agreement, headline, read_predictions
from auditpacks.judges.iustitia.run_tasks import tasks_from_scenarios

# three judgments (V1..V3), two questions (Q1, Q2)
TASKS = [
    {"task_id": "V1::Q1", "verdict_id": "V1", "question_id": "Q1", "accepted_options": ["yes"], "options": ["yes", "no"]},
    {"task_id": "V1::Q2", "verdict_id": "V1", "question_id": "Q2", "accepted_options": ["a", "b"],
     "options": [{"key": "a"}, {"key": "b"}, {"key": "c"}]},
    {"task_id": "V2::Q1", "verdict_id": "V2", "question_id": "Q1", "accepted_options": ["no"]},
    {"task_id": "V3::Q1", "verdict_id": "V3", "question_id": "Q1", "accepted_options": ["yes"], "options": ["yes", "no"]},
]
PREDICTIONS = {"V1::Q1": "yes", "V1::Q2": "c", "V2::Q1": "maybe", "V3::Q1": "banana"}


def test_intervals_resample_whole_judgments_by_hand():
    out = agreement(TASKS, {"V1::Q1": "yes", "V2::Q1": "no"}, b=300, seed=4, alpha=0.10)
    # per judgment (sorted V1, V2, V3): [correct, tasks, answered]
    cells = {"V1": (1, 2, 1), "V2": (1, 1, 1), "V3": (0, 1, 0)}
    order = [cells[v] for v in sorted(cells)]
    rows = np.random.default_rng(4).integers(0, 3, size=(300, 3))
    micro = [sum(order[i][0] for i in row) / sum(order[i][1] for i in row) for row in rows]
    coverage = [sum(order[i][2] for i in row) / sum(order[i][1] for i in row) for row in rows]
    assert out["ci"]["micro"] == pytest.approx(list(np.percentile(micro, [5, 95])), abs=1e-12)
    assert out["ci"]["coverage"] == pytest.approx(list(np.percentile(coverage, [5, 95])), abs=1e-12)
    assert out["ci_method"]["level"] == pytest.approx(0.9)
    assert out["micro"] == 0.5


def test_thirty_judgments_carry_no_warning():
    tasks = [{"task_id": f"V{i}", "verdict_id": f"V{i}", "question_id": "Q", "accepted_options": ["y"]} for i in range(30)]
    assert agreement(tasks, {}, b=10)["warnings"] == []
    assert agreement(tasks[:29], {}, b=10)["warnings"] == [
        "only 29 judgments: judgment-bootstrap intervals under-cover with few clusters"]


@pytest.mark.parametrize("tasks, predictions, message", [
    (TASKS, {"X": "yes", "A": "no"}, "predictions: unknown task_id 'A' (2 unknown)"),
    ([], {}, "no tasks to score"),
    (TASKS + TASKS[:1], {}, "tasks: duplicate task_id 'V1::Q1'"),
])
def test_agreement_input_errors(tasks, predictions, message):
    with pytest.raises(PackError) as err:
        agreement(tasks, predictions)
    assert str(err.value) == message


@pytest.mark.parametrize("text, message", [
    ('{"task_id": "V1::Q1", "choice": "yes"}\nnot json\n', "p.jsonl: line 2: invalid JSON (Expecting value)"),
    ('\n["V1::Q1"]\n', 'p.jsonl: line 2: expected {"task_id": "...", "choice": "..."}'),
    ('{"task_id": 7, "choice": "yes"}\n', 'p.jsonl: line 1: expected {"task_id": "...", "choice": "..."}'),
    ('{"task_id": "V1::Q1"}\n', 'p.jsonl: line 1: expected {"task_id": "...", "choice": "..."}'),
    ('{"task_id": "V1::Q1", "choice": "yes"}\n\n{"task_id": "V1::Q1", "choice": "no"}\n',
     "p.jsonl: line 3: duplicate task_id 'V1::Q1' (first on line 1)"),
    ('{"task_id": "V9::Q1", "choice": "yes"}\n', "p.jsonl: line 1: unknown task_id 'V9::Q1' (not a task of the le26 track)"),
])
def test_prediction_file_errors_name_the_line(tmp_path, text, message):
    path = tmp_path / "p.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PackError) as err:
        read_predictions(path, {"V1::Q1"}, track="le26")
    assert str(err.value) == message


def test_prediction_file_read_and_unreadable(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('\n{"task_id": "V1::Q1", "choice": null}\n', encoding="utf-8")
    assert read_predictions(path, {"V1::Q1"}) == {"V1::Q1": None}
    with pytest.raises(PackError, match=r"^missing.jsonl: cannot read \("):
        read_predictions(tmp_path / "missing.jsonl", set())


def _scenario(name, **meta):
    return {"name": name, "metadata": meta, "decision": {"id": "D", "criteria": {"y": 1, "n": 2}, "accepted": ["y"]}}


def test_tasks_from_scenarios_fallbacks():
    plain = {"name": "S3", "metadata": {"accepted_options": ["z"]}}
    ungraded = {"name": "S4", "decision": {"criteria": {"y": 1}}}
    rows = tasks_from_scenarios([_scenario("S1", task_id="T1", verdict_id="V", question_id="Q"), _scenario("S2"),
                                 plain, ungraded])
    assert rows == [
        {"task_id": "T1", "verdict_id": "V", "question_id": "Q", "accepted_options": ["y"], "options": ["y", "n"]},
        {"task_id": "S2", "verdict_id": "S2", "question_id": "D", "accepted_options": ["y"], "options": ["y", "n"]},
        {"task_id": "S3", "verdict_id": "S3", "question_id": "answer", "accepted_options": ["z"], "options": None},
    ]
    assert headline([(ungraded, {})]) == {"tasks": 0}
