"""ICJ inputs: the join to the test targets (id, unique case id, case description), the prompt, and errors."""

import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.icj.inputs import Joiner, Prompt, decision_phrase, messages, read_inputs
from auditpacks.packs.icj.targets import Target

CB = {"user_template": "Case: {case_json}\nCite for {decision}.", "dated_decision": "its decision of {date}",
      "undated_decision": "its final decision"}
T1 = Target("001", "001-19860627-JUD-01", "1986-06-27", {}, description={"parties": ["A", "B"]})
T2 = Target("002", "002-19900101-JUD-01", None, {}, description={"parties": ["C", "D"]})
T3 = Target("002", "002-19910101-JUD-01", None, {}, description={"parties": ["C", "D"]})  # same case, same text
TARGETS = {t.target_document_id: t for t in (T1, T2, T3)}


def write(path, records):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("record, target", [
    ({"target_document_id": "002-19910101-JUD-01"}, T3),
    ({"target_document_id": "001-19860627-JUD-01", "case_id": "1"}, T1),  # "1" normalises to "001"
    ({"case_id": "001"}, T1),                                            # one target has case 001
    ({"case_id": "1"}, T1),
    ({"case": {"parties": ["A", "B"]}}, T1),                             # by the case description
])
def test_a_record_joins_its_target(record, target):
    assert Joiner(TARGETS, "test.jsonl").target(record, "inputs.jsonl line 1") == target


@pytest.mark.parametrize("record, message", [
    ({"target_document_id": "x"}, "L: target_document_id 'x' is not a target in the test file"),
    ({"target_document_id": "001-19860627-JUD-01", "case_id": "002"},
     "L (001-19860627-JUD-01): case_id '002' does not match the test file (001)"),
    ({"case_id": "002"}, "L: cannot join to test.jsonl: no target_document_id, case_id '002' is shared by "
                         "several targets, and no target has its case description"),
    ({"case": {"parties": ["C", "D"]}}, "L: cannot join to test.jsonl: no target_document_id, no case_id, and "
                                        "several targets share its case description"),
    ({"case_id": "009"}, "L: cannot join to test.jsonl: no target_document_id, case_id '009' is unknown, and "
                         "no target has its case description"),
    ({"input": {"parties": ["Z"]}}, "L: cannot join to test.jsonl: no target_document_id, no case_id, and no "
                                    "target has its case description"),
])
def test_a_record_that_cannot_join_is_one_line(record, message):
    with pytest.raises(PackError) as err:
        Joiner(TARGETS, "test.jsonl").target(record, "L")
    assert str(err.value) == message


def test_messages_join_text_parts_and_turns_by_role():
    value = [{"role": "system", "content": "S1"}, {"role": "user", "content": [{"text": "U"}, {"text": "1"}, 5]},
             {"role": "system", "content": "S2"}, {"role": "user", "content": "U2"}]
    assert messages(value, "L") == ("S1\n\nS2", "U1\n\nU2")


@pytest.mark.parametrize("value, message", [
    ([], "L: field messages is not a non-empty list"),
    ("hi", "L: field messages is not a non-empty list"),
    ([{"role": "assistant", "content": "x"}], "L: messages[0].role is 'assistant'; only system and user turns "
                                              "can be sent"),
    ([{"content": "x"}], "L: messages[0].role is None; only system and user turns can be sent"),
    ([{"role": "user", "content": 3}], "L: messages[0].content is not text"),
    ([{"role": "system", "content": "s"}, {"role": "user", "content": "  "}], "L: messages hold no user text"),
])
def test_bad_messages_are_one_line(value, message):
    with pytest.raises(PackError) as err:
        messages(value, "L")
    assert str(err.value) == message


def test_decision_phrase_dated_and_undated():
    assert decision_phrase(T1, CB) == "its decision of 1986-06-27"
    assert decision_phrase(T2, CB) == "its final decision"


def test_read_inputs_takes_messages_text_fields_or_renders_the_case(tmp_path):
    path = write(tmp_path / "inputs.jsonl", [
        {"target_document_id": T1.target_document_id, "input": {"parties": ["A", "B"]},
         "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "ask"}]},
        {"target_document_id": T2.target_document_id, "system_prompt": "sp", "user_prompt": "up"},
        {"target_document_id": T3.target_document_id, "input": "a text description"},
    ])
    joined = read_inputs(path, TARGETS, CB, "default system")
    assert [t for t, _ in joined] == [T1, T2, T3]
    assert joined[0][1] == Prompt("sys", "ask", {"parties": ["A", "B"]})
    assert joined[1][1] == Prompt("sp", "up", {})
    rendered = joined[2][1]
    assert rendered == Prompt("default system", 'Case: {\n  "description": "a text description"\n}\n'
                                                "Cite for its final decision.", {"description": "a text description"},
                              rendered=True)


@pytest.mark.parametrize("records, message", [
    ([[1]], "inputs.jsonl line 1: a list, not a JSON object"),
    ([{"target_document_id": T1.target_document_id, "input": 5}],
     "inputs.jsonl line 1 (001-19860627-JUD-01): field input is not a JSON object"),
    ([{"target_document_id": T1.target_document_id}],
     "inputs.jsonl line 1 (001-19860627-JUD-01): neither messages nor a case description (input) is present"),
    ([{"target_document_id": T1.target_document_id, "input": "x"}] * 2,
     "inputs.jsonl line 2 (001-19860627-JUD-01): joins a target that an earlier line already joined"),
    ([{"target_document_id": T1.target_document_id, "input": "x"}],
     "inputs.jsonl: 2 test targets have no input (first: 002-19900101-JUD-01)"),
])
def test_read_inputs_errors_are_one_line(tmp_path, records, message):
    path = write(tmp_path / "inputs.jsonl", records)
    with pytest.raises(PackError) as err:
        read_inputs(path, TARGETS, CB, "sys")
    assert str(err.value) == message


def test_unreadable_inputs_are_a_pack_error(tmp_path):
    path = tmp_path / "inputs.jsonl"
    path.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(PackError) as err:
        read_inputs(path, TARGETS, CB, "sys")
    assert str(err.value).startswith("inputs.jsonl line 1: invalid JSON")
