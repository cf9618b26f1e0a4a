"""ICJ inputs, prompt by prompt: where a case description may stand, how it is rendered (keys sorted, text as
written), chat messages of every shape, and the line every refusal names."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.icj.inputs import Joiner, Prompt, messages, read_inputs
from auditpacks.packs.icj.targets import Target

CB = {"user_template": "Case:\n{case_json}\nCite for {decision}.", "dated_decision": "its decision of {date}",
      "undated_decision": "its final decision"}
DESCRIPTION = {"title": "Activités militaires", "parties": ["Nicaragua", "United States"]}
T1 = Target("070", "070-19860627-JUD-01", "1986-06-27", {}, description=DESCRIPTION)
TARGETS = {T1.target_document_id: T1}


def read(tmp_path, *records, system="Answer with citations.", **kwargs):
    path = tmp_path / "inputs.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return [prompt for _, prompt in read_inputs(path, TARGETS, CB, system, **kwargs)]


RENDERED = ('Case:\n{\n  "parties": [\n    "Nicaragua",\n    "United States"\n  ],\n  "title": "Activités '
            'militaires"\n}\nCite for its decision of 1986-06-27.')


@pytest.mark.parametrize("key", ["input", "case", "case_description", "description"])
def test_a_case_description_under_any_of_its_keys_is_rendered_keys_sorted_and_text_as_written(tmp_path, key):
    record = {"target_document_id": T1.target_document_id, key: {"title": DESCRIPTION["title"],
                                                                 "parties": DESCRIPTION["parties"]}}
    assert read(tmp_path, record) == [Prompt("Answer with citations.", RENDERED, DESCRIPTION, rendered=True)]


def test_a_description_in_other_key_order_joins_the_same_target(tmp_path):
    reordered = {"parties": DESCRIPTION["parties"], "title": DESCRIPTION["title"]}
    assert Joiner(TARGETS, "test.jsonl").target({"case": reordered}, "L") == T1
    assert read(tmp_path, {"input": reordered})[0].user == RENDERED


def test_a_text_description_is_kept_under_description(tmp_path):
    prompt = read(tmp_path, {"target_document_id": T1.target_document_id, "case": "Nicaragua v. United States"})[0]
    assert prompt.case == {"description": "Nicaragua v. United States"}
    assert prompt.user == 'Case:\n{\n  "description": "Nicaragua v. United States"\n}\nCite for its decision of ' \
                          '1986-06-27.'


@pytest.mark.parametrize("value", [[], 5, ["Nicaragua"]])
def test_an_input_that_is_no_object_or_text_is_refused_even_beside_messages(tmp_path, value):
    record = {"target_document_id": T1.target_document_id, "input": value,
              "messages": [{"role": "user", "content": "Which cases?"}]}
    with pytest.raises(PackError) as err:
        read(tmp_path, record)
    assert str(err.value) == "inputs.jsonl line 1 (070-19860627-JUD-01): field input is not a JSON object"


@pytest.mark.parametrize("record, system, user", [
    ({"system": 5, "user": "Which cases?"}, "", "Which cases?"),
    ({"system": None, "user": "Which cases?"}, "", "Which cases?"),
    ({"system_prompt": "S", "user_prompt": "U"}, "S", "U"),
    ({"system_message": "S", "user_message": "U", "user": " "}, "S", "U"),
])
def test_plain_text_messages(tmp_path, record, system, user):
    prompt = read(tmp_path, {"target_document_id": T1.target_document_id, **record})[0]
    assert (prompt.system, prompt.user, prompt.case, prompt.rendered) == (system, user, {}, False)


def test_text_parts_without_text_add_nothing():
    value = [{"role": "user", "content": [{"type": "image_url"}, {"type": "text", "text": "Which"}, "raw",
                                          {"type": "text", "text": " cases?"}]}]
    assert messages(value, "L") == ("", "Which cases?")


@pytest.mark.parametrize("value, error", [
    (["Which cases?"], "L: messages[0].role is None; only system and user turns can be sent"),
    ([{"role": "user", "content": " "}, {"role": "user", "content": "\n"}], "L: messages hold no user text"),
])
def test_messages_that_cannot_be_sent(value, error):
    with pytest.raises(PackError) as err:
        messages(value, "L")
    assert str(err.value) == error


def test_bad_messages_name_their_line_and_target(tmp_path):
    with pytest.raises(PackError) as err:
        read(tmp_path, {"target_document_id": T1.target_document_id, "messages": "Which cases?"})
    assert str(err.value) == "inputs.jsonl line 1 (070-19860627-JUD-01): field messages is not a non-empty list"


def test_a_record_that_joins_nothing_names_its_line_and_the_test_file(tmp_path):
    with pytest.raises(PackError) as err:
        read(tmp_path, {"case_id": "999"})
    assert str(err.value) == ("inputs.jsonl line 1: cannot join to test.jsonl: no target_document_id, case_id "
                              "'999' is unknown, and no target has its case description")
    with pytest.raises(PackError, match="^inputs.jsonl line 1: cannot join to data/test.jsonl: "):
        read(tmp_path, {"case_id": "999"}, test_name="data/test.jsonl")
