"""An Iustitia source in process on hand-made folders: the task index, full rows, smoke ids and table places."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.iustitia.source import _table_place, open_source, smoke_task_ids

YES_NO = [{"key": "yes", "description": "Yes."}, {"key": "no", "description": "No."}]
STATE = json.dumps({"operative_part": "The court finds the defendant guilty."})


def task(task_id, *, canonical=True, clef=True, options=YES_NO, **extra):
    return {"task_id": task_id, "verdict_id": task_id.split("::")[0], "question_id": task_id.split("::")[-1],
            "is_canonical": canonical, "clef_supported": clef, "options": options, "accepted_options": ["yes"],
            "state_json": STATE, "instructions": f"Question {task_id}?", **extra}


def write(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def source_with(tmp_path, records):
    write(tmp_path / "tasks.jsonl", records)
    return open_source(str(tmp_path))


TASKS = [task("u1::Q1"), task("u2::Q1", canonical=False), task("u3::Q2", clef=False, unit_id="unit-3",
                                                                   unit_type="victim"),
         task("u4::Q3", options=["yes", "no", "maybe"])]


def light(task_id, row, option_keys, clef=True, unit_id=None, unit_type=None):
    """The light index row expected for ``task_id`` at ``row`` of the table."""
    return {"task_id": task_id, "unit_id": unit_id or task_id.split("::")[0], "verdict_id": task_id.split("::")[0],
            "unit_type": unit_type, "question_id": task_id.split("::")[1], "is_canonical": True,
            "clef_supported": clef, "accepted_options": ["yes"], "instructions": f"Question {task_id}?",
            "option_keys": option_keys, "row": row}


def test_the_full_track_keeps_canonical_tasks_as_light_rows(tmp_path):
    source = source_with(tmp_path, TASKS)
    assert source.task_index("full", 2) == [
        light("u1::Q1", 0, ["yes", "no"]),
        light("u3::Q2", 2, ["yes", "no"], clef=False, unit_id="unit-3", unit_type="victim"),
        light("u4::Q3", 3, ["yes", "no", "maybe"])]
    assert source.rows_read == {"tasks": 4} and source.read == ["tasks"]


def test_le26_keeps_clef_supported_tasks_and_refuses_too_many_options(tmp_path):
    source = source_with(tmp_path, TASKS)
    assert [row["task_id"] for row in source.task_index("le26", 3)] == ["u1::Q1", "u4::Q3"]
    with pytest.raises(PackError) as err:
        source.task_index("le26", 2)
    assert str(err.value) == ("tasks.jsonl: task u4::Q3 field clef_supported: true, but it has 3 options (over 2)")


def test_a_task_without_options_or_unit_columns_indexes_empty(tmp_path):
    row = {k: v for k, v in task("u1::Q1", options=None).items() if k != "clef_supported"}
    index = source_with(tmp_path, [row]).task_index("full", 2)
    assert index == [{**light("u1::Q1", 0, [], clef=None)}]


@pytest.mark.parametrize("track, drop, message", [
    ("full", "accepted_options", "tasks.jsonl: task u1::Q1 field accepted_options: missing"),
    ("full", "is_canonical", "tasks.jsonl: task u1::Q1 field is_canonical: missing"),
    ("le26", "clef_supported", "tasks.jsonl: task u1::Q1 field clef_supported: missing"),
])
def test_a_column_the_track_needs_is_named(tmp_path, track, drop, message):
    row = {k: v for k, v in task("u1::Q1").items() if k != drop}
    with pytest.raises(PackError, match="^" + message.replace(".", r"\.")):
        source_with(tmp_path, [row]).task_index(track, 2)


def test_an_unknown_track_is_refused(tmp_path):
    with pytest.raises(PackError, match=r"^unknown track 'le10'; use full or le26$"):
        source_with(tmp_path, TASKS).task_index("le10", 2)


def test_task_rows_come_in_the_order_asked(tmp_path):
    source = source_with(tmp_path, TASKS)
    assert [t.task_id for t in source.task_rows([3, 0, 2])] == ["u4::Q3", "u1::Q1", "u3::Q2"]
    assert [t.task_id for t in source.task_rows([2])] == ["u3::Q2"]
    assert list(source.task_rows([])) == []
    first = next(source.task_rows([0]))
    assert (first.unit_id, first.instructions) == ("u1", "Question u1::Q1?")
    assert first.criteria == {"yes": "Yes.", "no": "No."}


def test_task_rows_stop_after_the_last_one_asked(tmp_path):
    """A broken row after the last one asked is never read."""
    path = write(tmp_path / "tasks.jsonl", TASKS[:2])
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("{broken\n")
    assert [t.task_id for t in open_source(str(tmp_path)).task_rows([1, 0])] == ["u2::Q1", "u1::Q1"]


def test_a_missing_tasks_column_is_named_on_reading_the_parquet_table(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    row = {k: v for k, v in task("u1::Q1").items() if k not in ("state_json", "options")}
    pq.write_table(pa.Table.from_pylist([row]), tmp_path / "tasks.parquet")
    source = open_source(str(tmp_path))
    with pytest.raises(PackError) as err:
        source.table("tasks")
    assert str(err.value) == "tasks.parquet: missing column 'state_json' (configuration tasks)"
    assert source.read == []


# -- smoke pack ids ----------------------------------------------------------------------------


def smoke(tmp_path, content):
    path = tmp_path / "smoke.json"
    path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    return path


@pytest.mark.parametrize("scenarios, ids", [
    ([{"metadata": {"task_id": "u1::Q1"}, "name": "Q9 - u9"}], ["u1::Q1"]),
    ([{"name": "GUILTY.VERDICT - domv901"}, {"metadata": None, "name": "Q - u - 2"}],
     ["domv901::GUILTY.VERDICT", "u - 2::Q"]),
    ([{"metadata": {"task_id": ""}, "name": "Q1 - u1"}], ["u1::Q1"]),
    ([], []),
])
def test_smoke_ids_come_from_metadata_else_the_name(tmp_path, scenarios, ids):
    assert smoke_task_ids(smoke(tmp_path, scenarios)) == ids


@pytest.mark.parametrize("content, message", [
    ({"name": "Q - u"}, "smoke.json: a pack is a JSON list of scenarios"),
    ([{"metadata": {"task_id": "u::Q"}}, {"name": "no separator"}],
     "smoke.json: record #1 field metadata.task_id: missing (and no '<question> - <unit>' name)"),
    ([{"metadata": {"task_id": "u::Q"}}, "Q - u"],
     "smoke.json: record #1 field metadata.task_id: missing (and no '<question> - <unit>' name)"),
    ([{"metadata": {}}], "smoke.json: record #0 field metadata.task_id: missing (and no '<question> - <unit>' name)"),
])
def test_a_smoke_pack_without_ids_is_refused(tmp_path, content, message):
    with pytest.raises(PackError) as err:
        smoke_task_ids(smoke(tmp_path, content))
    assert str(err.value) == message


@pytest.mark.parametrize("content", [b"[{broken", b'["\xff\xfe"]'])
def test_a_smoke_file_that_is_not_json_is_refused(tmp_path, content):
    with pytest.raises(PackError, match=r"^smoke\.json: not a JSON scenario list \(.+\)$"):
        smoke_task_ids(smoke(tmp_path, content))


@pytest.mark.parametrize("parts, place", [
    (("tasks.jsonl",), True), (("results",), True), (("data", "tasks", "x.parquet"), True),
    (("tasks", "x.jsonl"), True), (("documents", "x.jsonl"), True), (("units", "x.jsonl"), True),
    (("questions", "x.jsonl"), True), (("results", "tasks.jsonl"), False), (("simpleaudit", "tasks"), False),
])
def test_table_places_are_the_top_data_and_configuration_folders(parts, place):
    assert _table_place(parts) is place
