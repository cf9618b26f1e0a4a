"""A run's Iustitia tasks: the task rows of graded scenarios, which task a scenario asks, the choice a result
holds, and whether it is a prediction."""

import pytest

from auditpacks.judges.iustitia.run_tasks import choice_of, prediction_given, task_id_of, tasks_from_scenarios


def test_a_scenario_asks_its_metadata_task_else_its_name():
    assert task_id_of({"name": "S1", "metadata": {"task_id": "V1::Q2"}}) == "V1::Q2"
    assert task_id_of({"name": "S1", "metadata": {}}) == "S1"
    assert task_id_of({"name": "S1"}) == "S1"


def test_a_prediction_is_a_choice_read_from_a_finished_result():
    answered = {"severity": "pass", "judgment": {"choice": "b"}}
    assert choice_of(answered) == "b" and prediction_given(answered)
    assert choice_of(None) is None and not prediction_given(None)
    assert not prediction_given({"severity": "low", "judgment": {"choice": None}})  # no option could be read
    assert not prediction_given({"severity": "ERROR", "judgment": {"choice": "b"}})
    assert not prediction_given({"severity": "pass", "judgment": {"severity": "ERROR", "choice": "b"}})


def _task(task_id, verdict_id, question_id, accepted, options):
    return {"task_id": task_id, "verdict_id": verdict_id, "question_id": question_id,
            "accepted_options": accepted, "options": options}


@pytest.mark.parametrize("scenario, task", [
    ({"name": "S1", "decision": {"id": "d", "accepted": ("b",), "criteria": {"a": "", "b": ""}},
      "metadata": {"task_id": "V1::Q2", "verdict_id": "V1", "question_id": "Q2"}},
     _task("V1::Q2", "V1", "Q2", ["b"], ["a", "b"])),
    ({"name": "S2", "metadata": {"task_id": "T", "accepted_options": ["a"]}},  # a pack without decisions
     _task("T", "T", "answer", ["a"], None)),
    ({"name": "S3", "decision": {"id": "Q5", "accepted": ["c"], "criteria": {}}, "metadata": None},
     _task("S3", "S3", "Q5", ["c"], None)),
    ({"name": "S4", "decision": {"accepted": [], "criteria": {"c": ""}}, "metadata": {"accepted_options": ["c"]}},
     _task("S4", "S4", "answer", ["c"], ["c"])),
])
def test_a_graded_scenario_gives_its_task_row(scenario, task):
    assert tasks_from_scenarios([scenario]) == [task]


def test_scenarios_without_an_answer_key_are_left_out_and_the_rest_kept_in_order():
    ungraded = [{"name": "U1"}, {"name": "U2", "decision": {"accepted": []}, "metadata": {"accepted_options": []}}]
    graded = [{"name": n, "decision": {"accepted": ["a"]}} for n in ("G1", "G2")]
    tasks = tasks_from_scenarios(iter([ungraded[0], graded[0], ungraded[1], graded[1]]))
    assert [t["task_id"] for t in tasks] == ["G1", "G2"]
