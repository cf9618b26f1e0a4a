"""Results read as typed views: fields, the ERROR predicate, streaming, and one-line errors written out by hand."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.runs.results import Result, ResultsError, iter_results, raw_results, typed


def result(name: str = "s", **fields) -> dict:
    return {"scenario_name": name, "severity": "pass", "judgment": {"severity": "pass"},
            "conversation": [{"role": "assistant", "content": "ok"}], **fields}


def saved(path, results: list, *, indent: int | None = 2):
    """A results file as simpleaudit saves it (two-space indentation), or compact with ``indent=None``."""
    path.write_text(json.dumps({"timestamp": "t", "summary": {}, "results": results}, indent=indent,
                               ensure_ascii=False), encoding="utf-8")
    return path


def test_fields_are_typed_and_absent_ones_are_empty():
    r = Result.read({"scenario_name": "a", "target_input_tokens": 7, "target_output_tokens": 5})
    assert (r.scenario_name, r.severity, r.judgment, r.conversation) == ("a", None, {}, [])
    assert (r.target_input_tokens, r.target_output_tokens, r.tokens) == (7, 5, 12)
    full = Result.read(result(target_input_tokens=None))
    assert full.judgment == {"severity": "pass"} and full.conversation[0]["content"] == "ok"
    assert full.target_input_tokens == 0 and full.to_dict() == result(target_input_tokens=None)


@pytest.mark.parametrize("fields, error", [
    ({"severity": "ERROR"}, True),
    ({"judgment": {"severity": "ERROR"}}, True),   # a judge call that failed under a result marked otherwise
    ({"severity": "pass"}, False),
    ({"severity": "error"}, False),               # the word is upper case, as simpleaudit writes it
])
def test_is_error_reads_the_severity_and_the_judgments(fields, error):
    assert Result.read(result(**fields)).is_error is error


@pytest.mark.parametrize("data, message", [
    (5, "m.json result #3: field scenario_name is missing or not a string"),
    ({"severity": "pass"}, "m.json result #3: field scenario_name is missing or not a string"),
    ({"scenario_name": 7}, "m.json result #3: field scenario_name is missing or not a string"),
    (result(severity=3), "m.json result #3: field severity is 3, not a string"),
    (result(judgment=[]), "m.json result #3: field judgment is [], not an object"),
    (result(conversation="hi"), "m.json result #3: field conversation is 'hi', not a list"),
    (result(target_input_tokens=-1), "m.json result #3: field target_input_tokens is -1, not a count"),
    (result(target_output_tokens="5"), "m.json result #3: field target_output_tokens is '5', not a count"),
    (result(target_output_tokens=True), "m.json result #3: field target_output_tokens is True, not a count"),
    (result(judgment="x" * 60), "m.json result #3: field judgment is 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…, "
                                "not an object"),
])
def test_a_bad_result_is_one_line_naming_file_result_and_field(data, message):
    with pytest.raises(ResultsError) as err:
        Result.read(data, source="m.json", index=3)
    assert str(err.value) == message


@pytest.mark.parametrize("indent", [2, None])
def test_both_layouts_read_the_same_results(tmp_path, indent):
    results = [result("a"), result("b    }", conversation=[{"role": "user", "content": '    {\n  "results": ['}])]
    path = saved(tmp_path / "r.json", results, indent=indent)
    assert [r.raw for r in iter_results(path)] == results
    ranges = [where.span for where, _ in raw_results(path)]
    assert all(w is None for w in ranges) if indent is None else all(w is not None for w in ranges)


def test_results_are_streamed_one_at_a_time(tmp_path):
    """The first result comes back before a later bad one is read: the file is never parsed whole."""
    path = saved(tmp_path / "r.json", [result("a"), result("b", judgment=[])])
    stream = iter_results(path)
    assert next(stream).scenario_name == "a"
    with pytest.raises(ResultsError) as err:
        next(stream)
    assert str(err.value) == "r.json result #1: field judgment is [], not an object"


@pytest.mark.parametrize("text, message", [
    ('{"summary": {}}', "r.json: not a simpleaudit results file (no results list)"),
    ('[1, 2]', "r.json: not a simpleaudit results file (no results list)"),
    ('{"results": [', "r.json: invalid JSON at line 1 column 14: Expecting value"),
    ('{\n  "results": [\n    {\n      "scenario_name": "a"', "r.json: the file ends inside a result"),
    ('{\n  "results": [\n    {\n      "scenario_name": "a"\n    }', "r.json: the file ends inside the results list"),
])
def test_a_file_that_is_not_a_results_file_is_one_line(tmp_path, text, message):
    path = tmp_path / "r.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ResultsError) as err:
        list(iter_results(path))
    assert str(err.value) == message


def test_a_missing_file_names_itself(tmp_path):
    with pytest.raises(ResultsError) as err:
        list(iter_results(tmp_path / "gone.json"))
    assert str(err.value) == "gone.json: results file not found"


def test_typed_takes_a_files_content_or_results_already_read(tmp_path):
    content = {"results": [result("a"), result("b")]}
    assert [r.scenario_name for r in typed(content, "c.json")] == ["a", "b"]
    streamed = iter_results(saved(tmp_path / "r.json", content["results"]))
    assert [r.scenario_name for r in typed(streamed, "r.json")] == ["a", "b"]
    with pytest.raises(ResultsError) as err:
        list(typed([], "l.json"))  # a bare list is not a results file
    assert str(err.value) == "l.json: not a simpleaudit results file (no results list)"
    with pytest.raises(ResultsError) as err:
        list(typed(iter([result("a")]), "i.json"))
    assert str(err.value) == "i.json result #0: not a checked result"
