"""A run's Iustitia tasks: which task a scenario asks, the choice a result holds, and whether it is a prediction."""

from auditpacks.judges.iustitia.run_tasks import choice_of, prediction_given, task_id_of


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
