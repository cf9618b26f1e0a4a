"""The shared pack model: checker rules, streaming writer, manifest and verified reader."""

from __future__ import annotations

import json

import pytest

from auditpacks.packs.checks import ERROR, WARN, check_pack, check_scenario
from auditpacks.core.errors import PackError
from auditpacks.core.io import sha256_file
from auditpacks.packs.pack import PackWriter, load_pack, manifest_path, replacing
from auditpacks.packs.scenario import make_scenario


def scenario(i: int, **overrides):
    base = make_scenario(
        name=f"Topic {i} - Concern", description="Checks something.", test_prompt=f"Question {i}?",
        language="en", expected_behavior=["One.", "Two.", "Three."], category="System Integrity",
        subcategory="Hallucination", severity="medium",
        source={"type": "adapted", "origin": "a benchmark", "original_language": "en"},
        metadata={"question_id": f"q{i}"}, date_created="2026-12-01",
    )
    base.update(overrides)
    return base


def levels(findings, level):
    return [(f.field, f.message) for f in findings if f.level == level]


def test_valid_scenario_has_no_findings():
    assert check_scenario(scenario(1)) == []


@pytest.mark.parametrize("change, field", [
    ({"schema_version": "1.0"}, "schema_version"),
    ({"name": "ab"}, "name"),
    ({"test_prompt": ""}, "test_prompt"),
    ({"description": " "}, "description"),
    ({"category": "Law"}, "category"),
    ({"subcategory": "Abuse"}, "subcategory"),
    ({"severity": "severe"}, "severity"),
    ({"source": {"type": "found"}}, "source.type"),
    ({"source": {"type": "adapted", "origin": "x"}}, "source.original_language"),
    ({"source": {"type": "synthetic"}}, "metadata.rationale"),
    ({"expected_behavior": "be good"}, "expected_behavior"),
    ({"decision": {"instructions": "Q?", "criteria": {"yes": None}}}, "decision"),
    ({"decision": {"instructions": "Q?", "criteria": {"a": None, "b": None}, "acepted": ["a"]}}, "decision"),
    ({"metadata": {"author": "x", "judge_notes": "note"}}, "metadata.judge_notes"),
])
def test_error_rules(change, field):
    assert field in [f for f, _ in levels(check_scenario(scenario(1, **change)), ERROR)]


def test_missing_required_key_is_an_error():
    s = scenario(1)
    del s["language"]
    assert ("language", "missing") in levels(check_scenario(s), ERROR)


@pytest.mark.parametrize("change, field", [
    ({"name": "Topic – Concern"}, "name"),
    ({"name": "Topic Concern"}, "name"),
    ({"language": "eng"}, "language"),
    ({"expected_behavior": ["Only one."]}, "expected_behavior"),
    ({"expected_behavior": ["Mentions AB-12.", "Two.", "Three."]}, "expected_behavior[0]"),
    ({"description": "Write to someone@example.org."}, "description"),
])
def test_warn_rules(change, field):
    assert field in [f for f, _ in levels(check_scenario(scenario(1, **change)), WARN)]


def test_pack_rules_duplicate_names_and_prompts():
    findings = check_pack([scenario(1), scenario(2, name="Topic 1 - Concern"), scenario(3, test_prompt="Question 1?")])
    errors = levels(findings, ERROR)
    assert ("name", "duplicates the name of record #0") in errors
    assert ("test_prompt", "duplicates the prompt of record #0") in errors


def test_writer_streams_a_pack_simpleaudit_can_run(tmp_path):
    out = tmp_path / "p.json"
    with PackWriter(out, builder="test", sources=[], filters={"limit": None}) as writer:
        for i in range(5):
            writer.add(scenario(i), language="en")
    data = json.loads(out.read_text())
    assert [s["name"] for s in data] == [f"Topic {i} - Concern" for i in range(5)]
    manifest = json.loads(manifest_path(out).read_text())
    assert manifest["sha256"] == sha256_file(out)
    assert manifest["counts"] == {"scenarios": 5, "language": {"en": 5}}
    assert manifest["builder"]["name"] == "test"
    pack = load_pack(out)
    assert pack.sha256 == manifest["sha256"] and len(pack.scenarios) == 5


def _write(out, n):
    with PackWriter(out, builder="test") as writer:
        for i in range(n):
            writer.add(scenario(i))


def test_writer_refuses_to_replace_a_pack_of_other_content(tmp_path, capsys):
    out = tmp_path / "p.json"
    _write(out, 3)
    before = out.read_bytes()
    _write(out, 3)  # the same content: rewritten without a word
    assert out.read_bytes() == before and capsys.readouterr().err == ""
    with pytest.raises(PackError, match=r"p\.json \(3 scenarios, sha256 \w{12}…\) already holds another pack; "
                                        r"pass --force"):
        _write(out, 2)
    assert out.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["p.json", "p.manifest.json"]
    with replacing():
        _write(out, 2)
    assert len(json.loads(out.read_text())) == 2
    assert "replaced " in (err := capsys.readouterr().err) and "(3 scenarios," in err and "with 2 scenarios" in err


def test_writer_refuses_an_invalid_scenario_and_leaves_nothing(tmp_path):
    out = tmp_path / "p.json"
    with pytest.raises(PackError, match=r"p\.json: ERROR #1 'Topic 0 - Concern' \[name\]: duplicates"):
        with PackWriter(out, builder="test") as writer:
            writer.add(scenario(0))
            writer.add(scenario(1, name="Topic 0 - Concern"))
    assert list(tmp_path.iterdir()) == []


def test_reader_detects_a_changed_pack(tmp_path):
    out = tmp_path / "p.json"
    with PackWriter(out, builder="test") as writer:
        writer.add(scenario(0))
    out.write_text(out.read_text().replace("Question 0", "Question zero"))
    with pytest.raises(PackError, match="does not match p.manifest.json field sha256"):
        load_pack(out)


@pytest.mark.parametrize("text, message", [
    ("[{", "invalid JSON at line 1"),
    ('{"a": 1}', "a pack is a JSON list"),
    ('[{"name": "x - y"}]', "record #0 field 'description' is missing"),
    ("[3]", "record #0 is a int"),
])
def test_reader_errors_name_file_record_and_field(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(PackError, match=message):
        load_pack(path)
