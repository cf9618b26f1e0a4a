"""One constructor for SimpleAudit v2 scenarios: the fixed key order, optional blocks, metadata defaults."""

import json

from auditpacks.packs.scenario import make_scenario

FIELDS = dict(name="N", description="D", test_prompt="P", language="ja", expected_behavior=("a", "b"),
              category="System Integrity", subcategory="Hallucination", severity="high",
              source={"type": "adapted"}, metadata={"question_id": "q1"}, date_created="2026-01-02")


def test_keys_in_the_v2_order_without_optional_blocks():
    scenario = make_scenario(**FIELDS)
    assert list(scenario) == ["schema_version", "name", "description", "test_prompt", "language",
                              "expected_behavior", "category", "subcategory", "severity", "source", "metadata"]
    assert scenario["schema_version"] == "2.0"
    assert scenario["expected_behavior"] == ["a", "b"]  # a list, whatever sequence was given
    assert scenario["metadata"] == {"author": "auditpacks", "date_created": "2026-01-02", "question_id": "q1"}


def test_documents_and_decision_sit_before_the_metadata():
    scenario = make_scenario(**FIELDS, documents=["doc"], decision={"accepted": ["A"]})
    assert list(scenario)[-3:] == ["documents", "decision", "metadata"]
    assert scenario["documents"] == ["doc"] and scenario["decision"] == {"accepted": ["A"]}
    assert "documents" in make_scenario(**FIELDS, documents=[])  # an empty list is kept, only None leaves it out


def test_the_builder_metadata_may_override_the_defaults_and_the_bytes_are_stable():
    scenario = make_scenario(**{**FIELDS, "metadata": {"author": "someone", "x": 1}})
    assert scenario["metadata"] == {"author": "someone", "date_created": "2026-01-02", "x": 1}
    assert json.dumps(make_scenario(**FIELDS)) == json.dumps(make_scenario(**FIELDS))
