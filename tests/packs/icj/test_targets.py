"""ICJ test targets: case ids, the gold families, dates, the case description, and strict one-line errors."""

import json

import pytest

from auditpacks.core.errors import FormatError
from auditpacks.packs.icj.targets import (
    Target,
    case_description,
    case_id_set,
    load_targets,
    normalise_case_id,
    validation_status,
)

GOLD = {"gold_citation_case_ids": ["1", "070"], "gold_citation_provision_keys": ["UNC-2-4"],
        "gold_citation_resolution_symbols": []}


def record(**changes):
    base = {"case_id": "070", "target_document_id": "070-19860627-JUD-01", **GOLD}
    base.update(changes)
    return {k: v for k, v in base.items() if v is not ...}


def test_normalise_case_ids():
    assert [normalise_case_id(v) for v in ("1", "70", "070", "1234", "A12", "٣")] == [
        "001", "070", "070", "1234", "A12", "٣"]  # non-ASCII digits are kept as given
    assert case_id_set(["1", "001", "70", "x"]) == frozenset({"001", "070", "x"})


def test_case_description_first_present_key():
    assert case_description({"input": {}, "case": "c", "description": "d"}) == "c"
    assert case_description({"input": None, "case_description": {"a": 1}}) == {"a": 1}
    assert case_description({"other": 1}) is None


def test_a_record_becomes_a_target():
    target = Target.from_record(record(target_decision_date="1986-06-27T00:00:00", input={"p": 1}, extra=1), "L")
    assert target == Target("070", "070-19860627-JUD-01", "1986-06-27",
                            {"case_ids": ("001", "070"), "provision_keys": ("UNC-2-4",), "resolution_symbols": ()})
    assert target.description == {"p": 1}
    assert Target.from_record(record(), "L").decision_date is None


@pytest.mark.parametrize("data, message", [
    ([], "L: a list, not a JSON object"),
    (record(case_id=...), "L: field case_id is missing"),
    (record(case_id=70), "L: field case_id is 70, not a non-empty string"),
    (record(case_id="70"), "L: field case_id '70' is not a three-character id"),
    (record(target_document_id=" "), "L: field target_document_id is ' ', not a non-empty string"),
    (record(target_decision_date="27/06/1986"),
     "L (070-19860627-JUD-01): field target_decision_date '27/06/1986' is not an ISO date"),
    (record(citation_eligible="yes"), "L (070-19860627-JUD-01): field citation_eligible is not true or false"),
    (record(gold_citation_provision_keys=...), "L (070-19860627-JUD-01): field gold_citation_provision_keys is "
                                               "missing"),
    (record(gold_citation_case_ids="001"), "L (070-19860627-JUD-01): field gold_citation_case_ids is a str, "
                                           "not a list"),
    (record(gold_citation_resolution_symbols=["S/1", 2]),
     "L (070-19860627-JUD-01): field gold_citation_resolution_symbols[1] is a int (2), not a string"),
])
def test_strict_fields_are_one_line(data, message):
    with pytest.raises(FormatError) as err:
        Target.from_record(data, "L")
    assert str(err.value) == message


def test_load_targets_refuses_repeats_and_empty_files(tmp_path):
    path = tmp_path / "test.jsonl"
    path.write_text(json.dumps(record()) + "\n\n" + json.dumps(record(case_id="071")) + "\n")
    with pytest.raises(FormatError) as err:
        load_targets(path)
    assert str(err.value) == "test.jsonl line 3: target_document_id 070-19860627-JUD-01 repeats line 1"
    path.write_text("\n")
    with pytest.raises(FormatError, match="^test.jsonl: no targets$"):
        load_targets(path)
    path.write_text(json.dumps(record()) + "\n")
    assert [t.case_id for t in load_targets(path)] == ["070"]


@pytest.mark.parametrize("data, status", [
    ({"validation": "partial"}, "partial"),
    ({"validation_status": {"status": "truncated"}}, "truncated"),
    ({"validation": None, "status": "error"}, "error"),
    ({}, "unrecorded"),
])
def test_validation_status_wherever_kept(data, status):
    assert validation_status(data) == status


@pytest.mark.parametrize("data, status", [
    ({"validation": {"valid": True, "issues": []}}, "valid"),
    ({"validation": {"valid": False, "issues": ["missing field"]}}, "not valid"),
    ({"validation": "ok"}, "ok"),
    ({"status": "partial"}, "partial"),                      # a top-level status
    ({"status": "completed"}, "completed"),
    ({"validation": "oops"}, "oops"),
    ({"status": {"status": 1}}, "unrecognised"),
    ({"validation": ["valid"]}, "unrecognised"),
])
def test_other_validation_metadata_is_kept_as_given(data, status):
    assert validation_status(data, "rec") == status


def test_an_empty_description_is_no_description():
    assert case_description({"input": "", "case": {"name": "Nicaragua"}}) == {"name": "Nicaragua"}
    assert case_description({"input": [], "description": "text"}) == "text"


def test_case_id_sets_normalise_every_numeric_form():
    assert case_id_set(["0070", "070", "70", "0001"]) == frozenset({"070", "001"})


@pytest.mark.parametrize("day", [1986, "", " "])
def test_a_date_that_is_not_text_names_the_line_and_target(day):
    with pytest.raises(FormatError) as err:
        Target.from_record(record(target_decision_date=day), "L")
    assert str(err.value) == f"L (070-19860627-JUD-01): field target_decision_date {day!r} is not an ISO date"


def test_a_bad_target_in_the_file_names_its_line(tmp_path):
    path = tmp_path / "test.jsonl"
    path.write_text(json.dumps(record()) + "\n" + json.dumps(record(case_id="70")) + "\n")
    with pytest.raises(FormatError) as err:
        load_targets(path)
    assert str(err.value) == "test.jsonl line 2: field case_id '70' is not a three-character id"
