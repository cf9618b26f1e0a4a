"""Run-file names at their edges: the split layout's parts and documents, the batch log, every file's stem, names
safe inside a folder, run ids of odd settings, and an ERROR's cause cut to 160 characters."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from auditpacks.core.runs.run_files import (batches_name, error_message, is_error, plain_name, progress_name, run_id,
                                       split_name, stem_of)


@pytest.mark.parametrize("results, part, name", [
    ("m.json", None, "m.documents.jsonl"), ("m.json", 2, "m.part2.json"), ("m.json", 11, "m.part11.json"),
    ("m.round3.json", 2, "m.round3.part2.json"), ("m.round3.json", None, "m.round3.documents.jsonl"),
    ("m", 2, "m.part2.json"), ("m", None, "m.documents.jsonl"), ("qwen2.5.json", 3, "qwen2.5.part3.json"),
])
def test_the_split_layout_s_file_names(results, part, name):
    assert split_name(results, part) == name


@pytest.mark.parametrize("part", [1, 0, -1])
def test_the_first_part_is_the_results_file_itself(part):
    with pytest.raises(ValueError) as err:
        split_name("m.json", part)
    assert str(err.value) == f"part {part}: the first part is the results file itself"


def test_the_batch_log_and_progress_names():
    assert batches_name("m") == "m.batches.jsonl" and progress_name("m") == "m.progress.jsonl"


@pytest.mark.parametrize("name", [
    "m.json", "m.round2.json", "m.part2.json", "m.round2.part3.json", "m.documents.jsonl", "m.round2.documents.jsonl",
    "m.run.json", "m.journal.jsonl", "m.progress.jsonl", "m.progress.json", "m.batches.jsonl", "m.traces.jsonl",
    "m.tools.jsonl", "m.tools.json", "m.tools-journal.jsonl",
])
def test_every_file_of_a_run_gives_its_stem(name):
    assert stem_of(name) == "m" and stem_of(Path("runs") / "x" / name) == "m"


@pytest.mark.parametrize("name, stem", [
    ("m.round2.json.bak", "m.round2.json.bak"), ("round2.json", "round2"), ("m.roundx.json", "m.roundx"),
    ("m.part.json", "m.part"), ("m.part2.round3.json", "m.part2"), ("a.round2.b.json", "a.round2.b"),
])
def test_only_a_run_file_s_own_suffixes_are_taken_off(name, stem):
    assert stem_of(name) == stem


@pytest.mark.parametrize("value, plain", [
    ("smollm2-checklist-1203-071530", True), ("a" * 255, True), ("a.b", True), ("a", True),
    ("", False), ("a" * 256, False), ("a/b", False), ("a\\b", False), ("a\0b", False), (".hidden", False),
    (".", False), ("..", False), (None, False), (7, False), (["a"], False),
])
def test_a_plain_name_inside_its_folder(value, plain):
    assert plain_name(value) is plain


WHEN = dt.datetime(2026, 12, 3, 7, 15, 30, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize("stem, mode, settings, run", [
    ("m", "checklist", [], "m-checklist-1203-071530"),
    ("m", "checklist", ["__/__"], "m-checklist-x-1203-071530"),          # nothing left: x
    ("m", "choice", ["a b / c", "ok.v1_2-3"], "m-choice-a_b_c-ok.v1_2-3-1203-071530"),
    ("_m_", "", ["é"], "m-x-x-1203-071530"),
    ("XQwen2.5-7B_", "Checklist", ["T0.7"], "XQwen2.5-7B-Checklist-T0.7-1203-071530"),
])
def test_a_run_id_s_parts_are_file_safe_and_never_empty(stem, mode, settings, run):
    assert run_id(stem, mode, settings, WHEN) == run


def test_the_start_time_is_in_utc_whatever_the_local_zone(monkeypatch):
    import time

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert run_id("m", "c", [], WHEN) == "m-c-1203-071530"
        tokyo = dt.datetime(2026, 12, 3, 16, 15, 30, tzinfo=dt.timezone(dt.timedelta(hours=9)))
        assert run_id("m", "c", [], tokyo) == "m-c-1203-071530"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_naive_start_time_is_read_as_local_time():
    local = dt.datetime(2026, 12, 3, 7, 15, 30)
    assert run_id("m", "c", [], local).endswith(local.astimezone(dt.timezone.utc).strftime("%m%d-%H%M%S"))


@pytest.mark.parametrize("result, message", [
    ({"judgment": {"error": "x" * 160}}, "x" * 160),
    ({"judgment": {"error": "x" * 161}}, "x" * 159 + "…"),
    ({"judgment": {"error": "  \n"}}, "unknown error"),
    ({"judgment": {"error": ""}, "issues_found": []}, "unknown error"),
    ({"judgment": None, "issues_found": ["Scenario execution failed: HTTP 500\nbody"]}, "HTTP 500"),
    ({"judgment": {"error": 42}}, "42"),
    ({"issues_found": None}, "unknown error"),
])
def test_an_error_s_cause_in_one_line(result, message):
    assert error_message(result) == message


def test_an_error_in_a_judgment_that_is_not_an_object_is_no_error():
    assert is_error({"severity": "pass", "judgment": ["ERROR"]}) is False
    assert is_error({"severity": "ERROR", "judgment": None}) is True
