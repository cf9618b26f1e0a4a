"""A results file read one result at a time, checked at the byte: where each result lies (its byte range),
files cut short or laid out otherwise, results that are not JSON, and every field check's message."""

from __future__ import annotations

import json
import os
import threading

import pytest

from auditpacks.core.runs.results import Location, Result, ResultsError, iter_results, raw_results, typed
from auditpacks.core.runs.results_layout import documents_key

RESULTS = [{"scenario_name": "a", "severity": "pass", "conversation": [{"role": "user", "content": "q"}]},
           {"scenario_name": "b", "severity": "fail", "target_input_tokens": 0, "target_output_tokens": 7}]


def write(path, results=RESULTS, newline="\n", **header):
    text = json.dumps({"timestamp": "t", **header, "results": results}, indent=2)
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_each_result_s_byte_range_holds_exactly_its_json(tmp_path, newline):
    path = write(tmp_path / "m.json", newline=newline)
    found = list(raw_results(path))
    assert [data for _, data in found] == RESULTS
    data = path.read_bytes()
    for i, (where, result) in enumerate(found):
        assert (where.file, where.index, where.name) == (path, i, f"m.json result #{i}")
        start, end = where.span
        assert data[start:start + 1] == b"{" and data[end - 1:end] == b"}"
        assert json.loads(data[start:end].replace(b"\r\n", b"\n")) == result


def test_a_file_laid_out_otherwise_is_read_whole_without_byte_ranges(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"results": RESULTS}), encoding="utf-8")
    assert list(raw_results(path)) == [(Location(path, 0, None), RESULTS[0]), (Location(path, 1, None), RESULTS[1])]


@pytest.mark.parametrize("text, message", [
    ('{"results": [', "m.json: invalid JSON at line 1 column 14: Expecting value"),
    ('{\n  "results": [\n    {\n      "scenario_name": "a"\n', "m.json: the file ends inside a result"),
    ('{\n  "results": [\n    {\n      "scenario_name": "a"\n    },\n', "m.json: the file ends inside the results "
                                                                          "list"),
    ('{\n  "results": [\n    {\n      "scenario_name": "a" "b"\n    }\n  ]\n}',
     "m.json: a result that is not valid JSON (Expecting ',' delimiter: line 2 column 28 (char 29))"),
    ('{\n  "results": [\n    {\n      "n": ' + "[" * 5000 + "]" * 5000 + '\n    }\n  ]\n}',
     "m.json: a result: JSON nested too deeply to read"),
])
def test_a_file_cut_short_or_a_result_that_is_no_json_is_one_line(tmp_path, text, message):
    path = tmp_path / "m.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ResultsError) as err:
        list(raw_results(path))
    assert str(err.value) == message


def test_a_folder_or_a_missing_file_is_one_line(tmp_path):
    (tmp_path / "m.json").mkdir()
    for name, message in (("m.json", "m.json: results file is a folder, not a file"),
                          ("gone.json", "gone.json: results file not found")):
        with pytest.raises(ResultsError) as err:
            list(raw_results(tmp_path / name))
        assert str(err.value) == message


def test_stored_documents_are_put_back_unless_asked_not_to(tmp_path):
    key = documents_key(["judgment"])
    (tmp_path / "m.documents.jsonl").write_text(json.dumps({"key": key, "documents": ["judgment"]}) + "\n",
                                                encoding="utf-8")
    result = {"scenario_name": "a", "conversation": [{"role": "user", "documents_ref": key}]}
    path = write(tmp_path / "m.json", [result], documents="m.documents.jsonl")
    assert [d["conversation"] for _, d in raw_results(path)] == [[{"role": "user", "documents": ["judgment"]}]]
    assert [d["conversation"] for _, d in raw_results(path, documents=False)] == [result["conversation"]]


@pytest.mark.parametrize("data, message", [
    ({"scenario_name": "a", "severity": 3}, "results result #0: field severity is 3, not a string"),
    ({"scenario_name": "a", "judgment": "x" * 50}, f"results result #0: field judgment is {repr('x' * 50)[:39]}…, "
                                                    "not an object"),
    ({"scenario_name": "a", "conversation": "x" * 38}, f"results result #0: field conversation is {'x' * 38!r}, "
                                                        "not a list"),
    ({"scenario_name": "a", "conversation": "x" * 39}, f"results result #0: field conversation is "
                                                        f"{repr('x' * 39)[:39]}…, not a list"),
    ({"scenario_name": "a", "target_input_tokens": -1}, "results result #0: field target_input_tokens is -1, not a "
                                                         "count"),
    ({"scenario_name": "a", "target_output_tokens": True}, "results result #0: field target_output_tokens is True, "
                                                            "not a count"),
])
def test_a_field_check_names_the_result_and_shows_the_value_cut_to_40_characters(data, message):
    with pytest.raises(ResultsError) as err:
        Result.read(data)
    assert str(err.value) == message


def test_a_result_keeps_its_fields_and_zero_tokens_are_a_count():
    result = Result.read(RESULTS[1], source="m.json", index=1)
    assert (result.scenario_name, result.severity, result.judgment, result.conversation) == ("b", "fail", {}, [])
    assert (result.target_input_tokens, result.target_output_tokens, result.tokens) == (0, 7, 7)
    assert result.to_dict() == RESULTS[1] and result.to_dict() is not RESULTS[1]


def test_typed_names_the_source_and_each_result_s_index():
    content = {"results": [RESULTS[0], {"scenario_name": 5}]}
    with pytest.raises(ResultsError) as err:
        list(typed(content))
    assert str(err.value) == "results result #1: field scenario_name is missing or not a string"
    with pytest.raises(ResultsError, match=r"^m\.json result #1: field scenario_name"):
        list(typed(content, "m.json"))
    assert [r.scenario_name for r in typed({"results": RESULTS})] == ["a", "b"]


def test_results_read_from_a_file_name_their_place(tmp_path):
    path = write(tmp_path / "m.json", [RESULTS[0], {"scenario_name": "c", "severity": ["x"]}])
    with pytest.raises(ResultsError) as err:
        list(iter_results(path))
    assert str(err.value) == "m.json result #1: field severity is ['x'], not a string"


def test_results_stream_from_a_pipe_in_one_pass(tmp_path):
    """A pipe (``<(…)``) is no regular file and is read once: each result keeps its place and byte range."""
    pipe = tmp_path / "m.json"
    os.mkfifo(pipe)
    writer = threading.Thread(target=write, args=(pipe,))
    writer.start()
    found = list(raw_results(pipe))
    writer.join()
    assert [(where.file, where.index, data) for where, data in found] == [(pipe, 0, RESULTS[0]), (pipe, 1, RESULTS[1])]
    assert all(where.span is not None for where, _ in found)


def test_a_file_laid_out_otherwise_that_is_not_json_is_one_line(tmp_path):
    path = tmp_path / "m.json"
    path.write_text("not json", encoding="utf-8")
    with pytest.raises(ResultsError, match="^m.json: invalid JSON at line 1 column 1: Expecting value$"):
        list(raw_results(path))
