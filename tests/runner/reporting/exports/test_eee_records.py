"""The Every Eval Ever records of a hand-written run, in process, beyond what test_eee_build.py pins: each row's
round, judge, system prompt and trace, every record handed to both checks with its place, the figures' units,
bounds, groups and intervals, the defaults a record states, and the files as written."""

from __future__ import annotations

import dataclasses
import json

import pytest

from auditpacks.core.runs.run_files import tool_run_names
from auditpacks.judges.figures import Figure
from auditpacks.runner.reporting.exports import eee
from auditpacks.runner.reporting.exports.eee_schemas import load_schemas
from auditpacks.runner.reporting.exports.source import Dataset, ExportError
from tests.runner.reporting.exports.test_inspect_log_parts import hand_source

#: a scenario name longer than the 60 characters a row's place quotes of it
LONG = "Décision " + "x" * 70
FIRST_ROW = "samples row 1 (Décision " + "x" * 51 + ")"


@pytest.fixture
def schemas(eee_wheel):
    return load_schemas(eee_wheel)


def renamed(tmp_path, **fields):
    """The hand-written run (``fields`` in its record) with its first scenario named ``LONG``."""
    source = hand_source(tmp_path, **fields)
    results_file = source.folder / "m.json"
    data = json.loads(results_file.read_text(encoding="utf-8"))
    data["results"][0]["scenario_name"] = LONG
    results_file.write_text(json.dumps(data), encoding="utf-8")
    return source


def test_every_record_goes_through_the_packages_own_check_with_its_place(tmp_path, schemas, monkeypatch):
    calls = []
    monkeypatch.setattr(eee, "package_check", lambda: lambda record, name, where: calls.append((record, name, where)))
    records = eee.build(renamed(tmp_path), schemas)
    places = [FIRST_ROW, "samples row 2 (Tiny 0001 - Outcome of V0000)", "samples row 3 (Tiny 0002 - Outcome of V0000)",
              "samples row 4 (Tiny 0003 - Outcome of V0001)"]
    assert calls == [(row, "instance_level_eval.schema.json", where) for row, where in zip(records.rows, places)]
    calls.clear()
    eee.write(records, tmp_path / "out", schemas)
    assert calls == [(records.aggregate, "eval.schema.json", f"the aggregate record {records.name}.json")]


def test_a_row_or_aggregate_a_schema_refuses_is_named_with_its_place_and_schema(tmp_path, schemas):
    def stricter(schema, field):
        return {**schema, "properties": {**schema["properties"], field: {"type": "integer"}}}

    source = renamed(tmp_path)
    with pytest.raises(ExportError) as refused:
        eee.build(source, dataclasses.replace(schemas, instance=stricter(schemas.instance, "sample_id")))
    message = str(refused.value)
    assert message.startswith(f"{FIRST_ROW}: field sample_id: ")
    assert message.endswith(" is not of type 'integer' (Every Eval Ever instance_level_eval.schema.json)")
    records = eee.build(source, schemas)
    refusing = dataclasses.replace(schemas, aggregate=stricter(schemas.aggregate, "schema_version"))
    with pytest.raises(ExportError) as refused:
        eee.write(records, tmp_path / "out", refusing)
    assert str(refused.value) == (f"the aggregate record {records.name}.json: field schema_version: '0.3.0' is not "
                                  "of type 'integer' (Every Eval Ever eval.schema.json)")
    assert not (tmp_path / "out").exists()


def test_each_row_states_its_round_judge_system_prompt_and_trace(tmp_path, schemas):
    source = hand_source(tmp_path, parameters={"system_prompt": "Be brief."},
                         condition={"name": "Tools", "tools": {"find": "find_case"}})
    trace = {"scenario": "Tiny 0000 - Outcome of V0000",
             "steps": [{"kind": "model", "call": 1, "tokens": {"input": 5, "output": 2}, "tool_calls": 0}]}
    (source.folder / tool_run_names("m")[0]).write_text(json.dumps(trace) + "\n", encoding="utf-8")
    traced, plain = eee.build(source, schemas).rows[:2]
    assert (traced["metadata"]["epoch"], traced["metadata"]["judge"]) == ("1", "choice_match")
    assert traced["answer_attribution"][0]["extraction_method"] == "auditpacks choice_match grader"
    assert (traced["interaction_type"], plain["interaction_type"]) == ("agentic", "single_turn")
    assert (traced["messages"][0]["role"], traced["messages"][0]["content"]) == ("system", "Be brief.")
    assert traced["metadata"]["tool_run.blocked_by_cutoff"] == "0" and "tool_run.blocked_by_cutoff" not in \
        plain["metadata"]


def test_a_figures_unit_bounds_group_direction_and_interval(tmp_path, schemas):
    source = hand_source(tmp_path, judge_qualification={"passed": True}, decision_probe={"ok": True},
                         parameters={"max_tokens": 1})
    source.dataset = Dataset(None, None, [], "tiny.manifest.json")
    source.figures = lambda: [Figure("latency", 2.5, "ms", interval=(2.0, 3.0), group="en", better="lower"),
                              Figure("F1", 0.5, interval=(0.4, 0.6), interval_name="bootstrap", meaning="f")]
    latency, f1 = eee.build(source, schemas).aggregate["evaluation_results"]
    assert latency["metric_config"] == {
        "evaluation_description": "", "metric_id": "auditpacks.tiny.en.latency", "metric_name": "latency (en)",
        "metric_unit": "ms", "lower_is_better": True, "score_type": "continuous", "min_score": "-Infinity",
        "max_score": "Infinity", "additional_details": {"better": "lower", "judge": "choice_match",
                                                        "judge_qualification": '{"passed": true}',
                                                        "decision_probe": '{"ok": true}'}}
    assert latency["score_details"] == {"score": 2.5, "details": {"unit": "ms", "group": "en", "figure": "latency"},
                                        "uncertainty": {"confidence_interval": {"lower": 2.0, "upper": 3.0,
                                                                                "method": ""}}}
    assert f1["score_details"]["uncertainty"] == {"confidence_interval": {"lower": 0.4, "upper": 0.6,
                                                                          "method": "bootstrap"}}
    assert (f1["metric_config"]["lower_is_better"], f1["metric_config"]["max_score"]) == (False, 1)
    assert latency["generation_config"]["generation_args"]["max_tokens"] == 1
    assert latency["source_data"]["additional_details"]["pack_manifest"] == "tiny.manifest.json"


def test_the_defaults_an_aggregate_states(tmp_path, schemas):
    meta = eee.build(hand_source(tmp_path), schemas).aggregate["source_metadata"]
    assert (meta["source_organization_name"], meta["evaluator_relationship"]) == ("unspecified", "third_party")


def test_the_files_are_utf8_json_a_row_a_line_the_aggregate_indented_and_a_folder_reused(tmp_path, schemas):
    records = eee.build(renamed(tmp_path), schemas, organization="Université")
    aggregate_path, samples_path = eee.write(records, tmp_path / "out", schemas)
    lines = samples_path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == records.rows and f'"sample_id": "{LONG}"' in lines[0]
    text = aggregate_path.read_text(encoding="utf-8")
    assert text.startswith('{\n  "schema_version": ') and '"source_organization_name": "Université"' in text
    again = eee.build(hand_source(tmp_path / "again"), schemas)    # another run of the same model: the same folder
    second, _ = eee.write(again, tmp_path / "out", schemas)
    assert second.parent == aggregate_path.parent and len(list(second.parent.iterdir())) == 4
