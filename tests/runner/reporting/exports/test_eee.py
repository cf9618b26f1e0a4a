"""``auditpacks export eee``: the records of a jacite, an Iustitia chat, an Iustitia decision and an ICJ tool run
pass Every Eval Ever's own schemas (read from its wheel and checked here with jsonschema) and its own validator
(run from the unpacked wheel), carry the benchmark, the model and its settings, and read back to the run
summary's figures to the last digit; a record a schema refuses is one line naming the field, and nothing is
written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest

from auditpacks.runner.cli.main import main
from tests.runner.reporting.exports.test_inspect_log import FIGURES, at
from tests.support.export_runs import record_of, results_of

DATASETS = {"jacite": "raihan-js/jacite-bench", "iustitia_chat": "Kushtrim/iustitia-marigonae",
            "iustitia_decision": "Kushtrim/iustitia-marigonae", "icj_tools": "VISAI-AI/icj-precedent-cite-bench"}


def wheel_schema(wheel: Path, name: str) -> dict:
    with zipfile.ZipFile(wheel) as archive:
        return json.loads(archive.read(f"every_eval_ever/schemas/{name}"))


@pytest.fixture(scope="module")
def exported(export_runs, eee_wheel, tmp_path_factory):
    out = tmp_path_factory.mktemp("eee")
    found = {}
    for name, folder in export_runs.items():
        assert main(["export", "eee", str(folder), "--out", str(out / name), "--schemas", str(eee_wheel),
                     "--developer", "test-org"]) == 0
        aggregate = next((out / name).rglob("*-*.json"))
        samples = aggregate.with_name(aggregate.stem + "_samples.jsonl")
        rows = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
        found[name] = (aggregate, json.loads(aggregate.read_text(encoding="utf-8")), samples, rows)
    return found


@pytest.mark.parametrize("run", sorted(FIGURES))
def test_the_records_pass_the_schemas(run, exported, eee_wheel):
    _, aggregate, _, rows = exported[run]
    aggregate_check = jsonschema.Draft7Validator(wheel_schema(eee_wheel, "eval.schema.json"))
    row_check = jsonschema.Draft7Validator(wheel_schema(eee_wheel, "instance_level_eval.schema.json"))
    assert [e.message for e in aggregate_check.iter_errors(aggregate)] == []
    assert rows and all(not list(row_check.iter_errors(row)) for row in rows)


def test_the_packages_own_validator_passes_them(exported, eee_wheel, tmp_path):
    unpacked = tmp_path / "wheel"
    with zipfile.ZipFile(eee_wheel) as archive:
        archive.extractall(unpacked)
    files = [str(p) for _, (aggregate, _, samples, _) in sorted(exported.items()) for p in (aggregate, samples)]
    done = subprocess.run([sys.executable, "-m", "every_eval_ever.validator.validate", "--format", "json", *files],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(unpacked)})
    reports = json.loads(done.stdout)
    assert len(reports) == 8 and all(r["valid"] and not r["errors"] and not r["warnings"] for r in reports), reports
    assert done.returncode == 0  # 0: clean (1: errors, 2: warnings only)


@pytest.mark.parametrize("run", sorted(FIGURES))
def test_the_figures_read_back_to_the_summary(run, exported, export_runs):
    _, aggregate, _, _ = exported[run]
    headline = record_of(export_runs[run])["summary"]["headline"]
    by_name = {(r["score_details"]["details"].get("group", r["metric_config"]["additional_details"]["judge"]),
                r["score_details"]["details"]["figure"]): r for r in aggregate["evaluation_results"]}
    for group, name, value_path, interval_path in FIGURES[run]:
        result = by_name[(group, name)]
        assert repr(result["score_details"]["score"]) == repr(at(headline, value_path)), (group, name)
        if interval_path:
            interval = result["score_details"]["uncertainty"]["confidence_interval"]
            assert [interval["lower"], interval["upper"]] == at(headline, interval_path)
            assert interval["confidence_level"] == 0.95 and interval["method"].startswith("95% ")
        else:
            assert "uncertainty" not in result["score_details"]


@pytest.mark.parametrize("run", sorted(FIGURES))
def test_the_records_carry_benchmark_model_and_settings(run, exported, export_runs):
    aggregate_path, aggregate, samples_path, rows = exported[run]
    record = record_of(export_runs[run])
    assert aggregate_path.parent.relative_to(aggregate_path.parents[3]).as_posix() == \
        f"{record['pack']['builder']['name']}/test-org/{record['model']}"
    assert aggregate["model_info"] == {**aggregate["model_info"], "id": record["model"], "developer": "test-org"}
    assert aggregate["model_info"]["additional_details"]["deployment_type"] == "self_deployed"  # a loopback server
    detail = aggregate["detailed_evaluation_results"]
    assert detail["total_rows"] == len(rows) and samples_path.as_posix().endswith(detail["file_path"])
    for result in aggregate["evaluation_results"]:
        source = result["source_data"]
        assert source["dataset_name"] == DATASETS[run] and source["source_type"] == "hf_dataset"
        assert source["additional_details"]["pack_sha256"] == record["pack"]["sha256"]
        assert json.loads(source["additional_details"]["source_files"])  # the manifest's source files
        generation = result["generation_config"]
        assert generation["generation_args"]["temperature"] == record["parameters"]["temperature"]
        details = generation["additional_details"]  # every run parameter, as text (JSON but for strings)
        for key, value in record["parameters"].items():
            assert key not in details if value is None else \
                (details[key] if isinstance(value, str) else json.loads(details[key])) == value, key
    results = {r["scenario_name"]: r for r in results_of(export_runs[run])}
    assert sorted(row["sample_id"] for row in rows) == sorted(results)
    for row in rows:
        result = results[row["sample_id"]]
        assert row["evaluation"]["is_correct"] is (result["severity"] == "pass")
        assert row["evaluation"]["score"] == (1.0 if result["severity"] == "pass" else 0.0)
        assert row["input"]["reference"] == result["expected_behavior"]
        assert row["token_usage"]["input_tokens"] == result["target_input_tokens"]
        assert json.loads(row["metadata"]["judgment"]) == result["judgment"]


def test_a_tool_run_is_agentic_with_its_tool_calls(exported):
    _, aggregate, _, rows = exported["icj_tools"]
    tools = aggregate["evaluation_results"][0]["generation_config"]["generation_args"]["agentic_eval_config"]
    assert {"find_case", "get_case_citations"} <= {t["name"] for t in tools["available_tools"]}
    for row in rows:
        assert row["interaction_type"] == "agentic" and row["output"] is None
        assert [m["role"] for m in row["messages"]] == ["user", "assistant", "tool", "tool", "assistant"]
        assert row["evaluation"]["tool_calls_count"] == 2
        assert row["messages"][1]["tool_calls"][0] == {"id": "call_1_1", "name": "find_case",
                                                        "arguments": {"query": "Corfu"}}
        assert row["messages"][2]["tool_call_id"] == ["call_1_1"]
        assert row["answer_attribution"][0]["source"] == "messages[4].content"
    assert sorted(row["metadata"]["tool_run.blocked_by_cutoff"] for row in rows) == ["0", "1"]


def test_a_chat_run_is_single_turn(exported, export_runs):
    rows = exported["iustitia_chat"][3]
    results = {r["scenario_name"]: r for r in results_of(export_runs["iustitia_chat"])}
    for row in rows:
        reply = results[row["sample_id"]]["conversation"][-1]["content"]
        assert row["interaction_type"] == "single_turn" and row["messages"] is None
        assert row["output"]["raw"] == [reply] and row["answer_attribution"][0]["source"] == "output.raw"
        assert row["input"]["formatted"].endswith(row["input"]["raw"])  # the documents, then the prompt


def stricter(wheel: Path, folder: Path, name: str, edit) -> Path:
    """The wheel's two schemas in ``folder``, ``name`` changed by ``edit``."""
    folder.mkdir(parents=True, exist_ok=True)
    for schema in ("eval.schema.json", "instance_level_eval.schema.json"):
        data = wheel_schema(wheel, schema)
        if schema == name:
            edit(data)
        (folder / schema).write_text(json.dumps(data), encoding="utf-8")
    return folder


def test_an_aggregate_a_schema_refuses_names_the_field_and_writes_nothing(export_runs, eee_wheel, tmp_path, capsys):
    def edit(schema):
        metric = schema["properties"]["evaluation_results"]["items"]["properties"]["metric_config"]
        metric["properties"]["metric_unit"]["enum"] = ["percent"]

    schemas = stricter(eee_wheel, tmp_path / "schemas", "eval.schema.json", edit)
    out = tmp_path / "out"
    assert main(["export", "eee", str(export_runs["jacite"]), "--out", str(out), "--schemas", str(schemas)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "field evaluation_results[0].metric_config.metric_unit: 'proportion' is not one of ['percent']" in err
    assert not out.exists() or not any(p.is_file() for p in out.rglob("*"))


def test_a_row_a_schema_refuses_names_the_row_and_writes_nothing(export_runs, eee_wheel, tmp_path, capsys):
    schemas = stricter(eee_wheel, tmp_path / "schemas", "instance_level_eval.schema.json",
                       lambda s: s["properties"]["sample_hash"].update(pattern="^x$"))
    out = tmp_path / "out"
    assert main(["export", "eee", str(export_runs["icj_tools"]), "--out", str(out), "--schemas", str(schemas)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "samples row 1 (ICJ 00" in err and "field sample_hash:" in err
    assert not out.exists()
