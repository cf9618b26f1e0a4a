"""Iustitia task rows decoded and checked: defaults for optional columns, and each refusal in one line."""

import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.iustitia.tasks import REQUIRED, Task, read_task, require, unit_of


def row(**changes):
    base = {"task_id": "v1:u2::q3", "verdict_id": "v1", "question_id": "q3", "is_canonical": True,
            "state_json": json.dumps({"header": "Court of X", "reasoning": "..."}), "instructions": "Pick one.",
            "options": [{"key": "A", "description": "granted"}, {"key": "B", "description": "dismissed"}],
            "accepted_options": ["B"]}
    base.update(changes)
    return {k: v for k, v in base.items() if v is not ...}


def test_a_full_row_is_decoded_with_defaults_for_the_optional_columns():
    assert read_task(row(), "tasks.jsonl") == Task(
        task_id="v1:u2::q3", unit_id="v1:u2", verdict_id="v1", unit_type="", question_id="q3", question_group="",
        state={"header": "Court of X", "reasoning": "..."}, instructions="Pick one.",
        criteria={"A": "granted", "B": "dismissed"}, reference=None, accepted=["B"], reference_origin="")


def test_optional_columns_are_read_when_present():
    task = read_task(row(unit_id="u9", unit_type="claim", question_group="g", options=["A", "B", "C"],
                         accepted_options=["A", "C"], reference_json='{"answer": "A"}', reference_origin="court"),
                     "L")
    assert (task.unit_id, task.unit_type, task.question_group, task.reference_origin) == ("u9", "claim", "g", "court")
    assert task.criteria == {"A": None, "B": None, "C": None}  # bare keys have no description
    assert task.accepted == ["A", "C"]
    assert task.reference == {"answer": "A"}
    assert read_task(row(reference_json="not json"), "L").reference == "not json"  # kept as given


def test_unit_of():
    assert unit_of("v1:u2::q3") == "v1:u2"
    assert unit_of("a::b::c") == "a"
    assert unit_of("plain") == "plain"


@pytest.mark.parametrize("column", REQUIRED)
def test_each_required_column_is_named_when_missing(column):
    with pytest.raises(PackError) as err:
        require(row(**{column: ...}), REQUIRED, "tasks.jsonl line 4")
    task = "?" if column == "task_id" else "v1:u2::q3"
    assert str(err.value) == (f"tasks.jsonl line 4: task {task} field {column}: missing "
                              "(a column the benchmark card names)")


@pytest.mark.parametrize("column", ["task_id", "verdict_id", "question_id", "unit_id"])
def test_an_id_that_is_not_text_is_refused(column):
    with pytest.raises(PackError) as err:
        read_task(row(**{column: 7}), "L")
    name = "?" if column == "task_id" else "v1:u2::q3"
    assert str(err.value) == f"L: record {name} field {column}: a int, not text"


@pytest.mark.parametrize("changes, message", [
    ({"state_json": "{"}, "field state_json: invalid JSON"),
    ({"state_json": None}, "field state_json: invalid JSON"),
    ({"state_json": "[]"}, "field state_json: no judgment section (header, operative_part, reasoning, "
                           "remedy_notice, full_text)"),
    ({"state_json": '{"facts": "x"}'}, "field state_json: no judgment section"),
    ({"options": [{"key": "A"}, {"key": "A"}]}, "field options: missing, empty or repeated key 'A'"),
    ({"options": [{"key": " "}, {"key": "B"}]}, "field options: missing, empty or repeated key ' '"),
    ({"options": [{"description": "x"}, "B"]}, "field options: missing, empty or repeated key None"),
    ({"options": ["A"], "accepted_options": ["A"]}, "field options: fewer than two options"),
    ({"options": None}, "field options: fewer than two options"),
    ({"accepted_options": []}, "field accepted_options: [] must name option keys (A, B)"),
    ({"accepted_options": ["B", "Z"]}, "field accepted_options: ['B', 'Z'] must name option keys (A, B)"),
])
def test_bad_rows_are_one_line_naming_the_task_and_field(changes, message):
    with pytest.raises(PackError) as err:
        read_task(row(**changes), "tasks.jsonl")
    assert str(err.value).startswith(f"tasks.jsonl: task v1:u2::q3 {message}")
    assert "\n" not in str(err.value)
