"""The run-file names and the ERROR predicate, by hand."""

from pathlib import Path

import pytest

from auditpacks.core.runs.run_files import (error_message, is_error, journal_name, record_for, record_name, results_name,
                                       stem_of, tool_run_names)


def test_names():
    assert results_name("smollm2") == "smollm2.json"
    assert results_name("smollm2", 1) == "smollm2.json"
    assert results_name("smollm2", 3) == "smollm2.round3.json"
    assert record_name("m") == "m.run.json"
    assert journal_name("m") == "m.journal.jsonl"


@pytest.mark.parametrize("name", ["m.json", "m.round2.json", "m.round12.json", "m.run.json", "m.journal.jsonl"])
def test_record_for_any_file_of_a_run(name):
    assert record_for(Path("results/x") / name) == Path("results/x/m.run.json")
    assert stem_of(name) == "m"


def test_stem_keeps_dots_inside_model_names():
    assert stem_of("qwen2.5-7b.round2.json") == "qwen2.5-7b"
    assert stem_of("notes.txt") == "notes.txt"


@pytest.mark.parametrize("result, expected", [
    ({"severity": "ERROR"}, True),
    ({"severity": "pass", "judgment": {"severity": "ERROR"}}, True),
    ({"severity": "pass", "judgment": {"severity": "pass"}}, False),
    ({"severity": "ungraded"}, False),
    ({"severity": "error"}, False),
    ({"judgment": "ERROR"}, False),
    ({}, False),
    (None, False),
])
def test_is_error(result, expected):
    assert is_error(result) is expected


def test_a_tool_runs_files_share_the_stem():
    assert tool_run_names("m") == ("m.traces.jsonl", "m.tools.jsonl", "m.tools-journal.jsonl")
    assert {stem_of(f"out/{name}") for name in tool_run_names("a.b")} == {"a.b"}


def test_run_ids_are_readable_and_file_safe():
    import datetime as dt

    from auditpacks.core.runs.run_files import run_id

    when = dt.datetime(2026, 12, 3, 8, 5, 9, tzinfo=dt.timezone(dt.timedelta(hours=9)))  # 23:05:09 UTC the day before
    assert run_id("smollm2", "checklist", ["gemma3:12b", "t0.7"], when) == \
        "smollm2-checklist-gemma3_12b-t0.7-1202-230509"
    assert run_id("a_b_c-1234abcd", "decision", [], when) == "a_b_c-1234abcd-decision-1202-230509"
    assert run_id("m", "choice", ["org/model name"], when) == "m-choice-org_model_name-1202-230509"


def test_an_errors_cause_is_one_line_of_its_judgment_else_its_first_issue():
    assert error_message({"judgment": {"error": "Scenario execution failed: timed out\nafter 30 s"}}) == "timed out"
    assert error_message({"judgment": {}, "issues_found": ["HTTP 500", "HTTP 502"]}) == "HTTP 500"
    assert error_message({}) == "unknown error"
    assert error_message({"judgment": {"error": "x" * 200}}) == "x" * 159 + "…"


def test_only_results_files_and_the_run_record_end_in_json_and_earlier_names_are_still_read(tmp_path):
    from auditpacks.core.runs.run_files import INDEX_NAME, existing, one_line_json, progress_name

    # a viewer that offers a folder's *.json files offers results files (and the record, which has no results)
    assert [progress_name("m"), tool_run_names("m")[1], INDEX_NAME] == ["m.progress.jsonl", "m.tools.jsonl",
                                                                      "runs.jsonl"]
    assert stem_of("m.progress.json") == stem_of("m.tools.json") == stem_of("m.progress.jsonl") == "m"
    assert existing(tmp_path, "runs.jsonl", "runs.json") == tmp_path / "runs.jsonl"   # neither: the new name
    (tmp_path / "runs.json").write_text("{}", encoding="utf-8")
    assert existing(tmp_path, "runs.jsonl", "runs.json") == tmp_path / "runs.json"    # only the earlier one
    (tmp_path / "runs.jsonl").write_text("{}", encoding="utf-8")
    assert existing(tmp_path, "runs.jsonl", "runs.json") == tmp_path / "runs.jsonl"
    assert one_line_json({"a": [1, "é"]}) == '{"a":[1,"é"]}\n'
