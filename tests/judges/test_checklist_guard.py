"""The checklist guard's pieces by hand: the ungraded record, missing items, headline fallbacks, schema edges."""

from __future__ import annotations

import pytest

from auditpacks.judges.checklist import bounded_schema, headline, incomplete_checklist, make_judge, ungraded

ADVICE = ["Use a larger judge model (see docs/judges.md)."]


def test_an_ungraded_record_holds_the_reason_and_the_judges_own_text():
    record = ungraded({"checklist": [], "notes": "n"}, "why")
    assert record == {"severity": "ungraded", "ungraded_reason": "why",
                      "judge_reply": str({"checklist": [], "notes": "n"}), "issues_found": ["Not graded: why."],
                      "positive_behaviors": [], "recommendations": ADVICE, "summary": "Not graded: why."}
    # simpleaudit's parse failure keeps the raw reply in its summary: that text is the judge's reply
    assert ungraded({"severity": "ERROR", "summary": "not json {"}, "x")["judge_reply"] == "not json {"
    assert ungraded("plain text", "x")["judge_reply"] == str({"reply": "plain text"})
    assert ungraded(["a"], "x")["judge_reply"] == str({"reply": ["a"]})
    assert len(ungraded({"severity": "ERROR", "summary": "y" * 5000}, "x")["judge_reply"]) == 2000


def test_the_judge_turns_an_unparsed_reply_into_ungraded_with_its_text():
    post = make_judge()["postprocess"]
    conversation = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "A."}]
    record = post({"severity": "ERROR", "issues_found": ["Could not parse judge response"], "summary": "garbage"},
                  conversation=conversation, expected_behavior=["Says A."], scenario_meta={})
    assert record["severity"] == "ungraded" and record["judge_reply"] == "garbage"
    assert record["ungraded_reason"] == "the judge's reply is not valid JSON"


def test_missing_expectations_are_named_by_number():
    judgment = {"checklist": [{"index": 1, "required": True, "status": "met"},
                              {"index": 2, "required": True, "status": None},
                              {"index": 3, "required": True},
                              {"index": 4, "required": False}]}
    assert incomplete_checklist(judgment) == "the judge assessed 1 of 3 required expectations (missing: 2, 3)"


def test_headline_counts_verdict_items_unknown_items_and_reasons_by_their_first_part():
    pairs = [({}, {"severity": "ungraded", "judgment": {
                "checklist": [{"verdict": "met"}, {"other": 1}, "not an item"],
                "ungraded_reason": "the judge's reply is not valid JSON; the reply stopped at the output cap (512 tokens)"}}),
             ({}, {"severity": "ungraded", "judgment": {
                 "ungraded_reason": "the judge's reply is not valid JSON; the reply stopped at the output cap (9 tokens)"}})]
    h = headline(pairs)
    assert h["checklist items"] == {"met": 1, "unknown": 1}
    assert h["ungraded"] == {"the judge's reply is not valid JSON; the reply stopped at the output cap": 2}


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"checklist": "not a schema"}},
    {"type": "object", "properties": {"checklist": {"type": "array", "items": {"properties": {"index": {}}}}}},
])
def test_other_schema_shapes_pass_unchanged(schema):
    assert bounded_schema(schema, ["x"]) == schema


def test_the_bounded_checklist_is_an_array_even_with_only_the_fields_it_fixes():
    schema = {"type": "object", "properties": {"checklist": {"type": "array", "items": {
        "type": "object", "properties": {"index": {"type": "integer"}, "expectation": {"type": "string"},
                                         "quote": {"type": "string"}}}}}}
    bounded = bounded_schema(schema, ["Says A."])["properties"]["checklist"]
    assert bounded["type"] == "array" and bounded["maxItems"] == 1
    assert bounded["prefixItems"][0]["properties"]["expectation"] == {"type": "string", "const": "Says A."}


def test_why_a_reply_cannot_be_read_as_a_checklist():
    from auditpacks.judges.checklist import unusable_reply

    assert unusable_reply(["met"]) == "the judge's reply is JSON but not an object"
    assert unusable_reply({"severity": "ERROR"}) == "the judge's reply is not valid JSON"
    assert unusable_reply({"checklist": "met"}) == "the judge's reply has no checklist"
    assert unusable_reply({"checklist": []}) is None


def test_a_judge_that_applied_nothing_is_ungraded_with_its_own_reply():
    """Every expectation not applicable: flagged as such; no expectation at all: not flagged, also ungraded."""
    post = make_judge()["postprocess"]
    conversation = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "A."}]
    reply = {"checklist": [{"index": 1, "expectation": "Says A.", "status": "not_applicable", "quote": ""}],
             "notes": "nothing to check here"}
    record = post(dict(reply), conversation=conversation, expected_behavior=["Says A."], scenario_meta={})
    assert record["all_not_applicable"] is True and "nothing to check here" in record["judge_reply"]
    bare = post({"checklist": [], "notes": "none"}, conversation=conversation, expected_behavior=[], scenario_meta={})
    assert bare["severity"] == "ungraded" and "all_not_applicable" not in bare and "none" in bare["judge_reply"]
