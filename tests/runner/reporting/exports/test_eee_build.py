"""The Every Eval Ever records of a hand-written run, built in process: where they go, who deployed the model,
the benchmark's source data, the settings, one result per figure with a value, and the files written."""

from __future__ import annotations

import hashlib
import json

import pytest

from auditpacks.runner.reporting.exports import eee
from auditpacks.runner.reporting.exports.eee_schemas import load_schemas
from auditpacks.runner.reporting.exports.source import Dataset, ExportError
from tests.runner.reporting.exports.test_inspect_log_parts import hand_source


@pytest.fixture
def schemas(eee_wheel):
    return load_schemas(eee_wheel)


@pytest.mark.parametrize("text, component", [("tiny", "tiny"), ("a/b:c?", "a_b_c_"), ("name. ", "name"),
                                             ("...", "_"), ("data", "_data"), ("data.", "_data"),
                                             ("model X", "model X")])
def test_a_path_component_is_portable(text, component):
    assert eee._component(text) == component


@pytest.mark.parametrize("provider, base_url, embedded, deployment", [
    ("openai", "https://api.example.org/v1", False, "externally_managed"),
    ("openai", None, False, "externally_managed"),
    ("openai", "http://localhost:8000/v1", False, "self_deployed"),
    ("openai", "http://10.1.2.3:8000/v1", False, "self_deployed"),
    ("openai", "http://[::1]:8000/v1", False, "self_deployed"),
    ("openai", "https://api.example.org/v1", True, "self_deployed"),
    ("ollama", "https://gpu.example.org", False, "self_deployed"),      # a keyless server
    ("bedrock", "https://api.example.org/v1", False, "unknown")])       # no key known, not ours
def test_who_deployed_the_model(tmp_path, provider, base_url, embedded, deployment):
    source = hand_source(tmp_path, provider=provider, base_url=base_url, embedded=embedded)
    assert eee._deployment(source) == deployment


@pytest.mark.parametrize("model_id, developer, folder, ident, listed", [
    (None, None, "data/tiny/unknown/m", "m", "unknown"), (None, "acme", "data/tiny/acme/m", "m", "acme"),
    ("org/x/y", "acme", "data/tiny/org/x_y", "org_x_y", None)])
def test_the_records_folder_and_ids_name_the_task_developer_and_model(tmp_path, schemas, model_id, developer,
                                                                      folder, ident, listed):
    records = eee.build(hand_source(tmp_path), schemas, model_id=model_id, developer=developer)
    assert str(records.folder) == folder and len(records.rows) == 4
    aggregate = records.aggregate
    assert aggregate["evaluation_id"].startswith(f"tiny/{ident}/") and aggregate["schema_version"] == schemas.version
    assert aggregate["model_info"].get("developer") == listed and aggregate["model_info"]["id"] == (model_id or "m")
    assert [row["evaluation_id"] for row in records.rows] == [aggregate["evaluation_id"]] * 4


def test_the_aggregate_carries_the_source_model_and_library(tmp_path, schemas):
    source = hand_source(tmp_path, started="2026-12-01T10:00:00+00:00", base_url="http://u:pw@h.example.org/v1",
                         model_digest="sha256:abc", auditpacks="1.2", simpleaudit="0.4")
    aggregate = eee.build(source, schemas, organization="Org", relationship="first_party").aggregate
    assert aggregate["evaluation_timestamp"] == "2026-12-01T10:00:00+00:00"
    assert float(aggregate["retrieved_timestamp"]) > 0
    assert aggregate["source_metadata"] == {
        "source_name": "auditpacks", "source_type": "evaluation_run", "source_organization_name": "Org",
        "evaluator_relationship": "first_party", "additional_details": {"run_record": "m.run.json",
                                                                        "fingerprint": "m"}}
    assert aggregate["model_info"] == {
        "name": "m", "id": "m", "inference_platform": "openai", "developer": "unknown",
        "additional_details": {"deployment_type": "externally_managed", "model_availability": "unknown",
                               "provider": "openai", "base_url": "http://h.example.org/v1",
                               "model_digest": "sha256:abc", "embedded": "false"}}
    assert aggregate["eval_library"] == {"name": "auditpacks", "version": "1.2",
                                         "additional_details": {"simpleaudit": "0.4"}}


def test_one_result_per_figure_with_a_value(tmp_path, schemas):
    source = hand_source(tmp_path, started="2026-12-01T10:00:00+00:00", judge_model="jm",
                         parameters={"temperature": 0, "max_tokens": 0})
    results = eee.build(source, schemas).aggregate["evaluation_results"]
    assert [r["evaluation_result_id"] for r in results] == ["agreement_micro", "coverage", "tasks", "judgments",
                                                            "invalid", "skipped"]   # macro has no value
    micro, tasks = results[0], results[2]
    assert micro["evaluation_name"] == "tiny: agreement (micro)" and micro["score_details"] == {
        "score": 0.5, "details": {"unit": "%", "figure": "agreement (micro)"},
        "uncertainty": {"confidence_interval": {"lower": 0.25, "upper": 0.75, "confidence_level": 0.95,
                                                "method": "95% CI, bootstrap over judgments"}}}
    config = micro["metric_config"]
    assert (config["metric_id"], config["metric_name"], config["metric_unit"]) == (
        "auditpacks.tiny.agreement_micro", "agreement (micro)", "proportion")
    assert (config["min_score"], config["max_score"], config["lower_is_better"]) == (0, 1, False)
    assert config["additional_details"] == {"better": "higher", "judge": "choice_match", "judge_model": "jm"}
    assert config["evaluation_description"] == "correct answers ÷ questions; unanswered count as wrong"
    assert micro["evaluation_timestamp"] == "2026-12-01T10:00:00+00:00"
    assert (tasks["metric_config"]["metric_unit"], tasks["metric_config"]["max_score"]) == ("count", "Infinity")
    assert tasks["metric_config"]["additional_details"]["better"] == "no direction (a count or a test)"
    assert "uncertainty" not in tasks["score_details"]
    assert micro["generation_config"] == {"generation_args": {"temperature": 0},
                                          "additional_details": {"temperature": "0", "max_tokens": "0"}}


def test_a_run_without_a_start_has_no_timestamps_and_a_manifestless_pack_says_so(tmp_path, schemas):
    source = hand_source(tmp_path, parameters={"temperature": 0.5, "max_tokens": 64},
                         condition={"name": "Tools", "tools": {"b": "x", "a": "y"}})
    source.dataset = Dataset(None, None)     # no manifest found
    results = eee.build(source, schemas).aggregate["evaluation_results"]
    assert all("evaluation_timestamp" not in r for r in results)
    data = results[0]["source_data"]
    assert data == {"dataset_name": "tiny.json", "source_type": "other", "additional_details": {
        "pack": "tiny.json", "pack_sha256": source.record.pack.sha256,
        "revision": "unknown: no pack manifest was found (pass --pack)"}}
    args = results[0]["generation_config"]["generation_args"]
    assert (args["temperature"], args["max_tokens"]) == (0.5, 64)
    assert args["agentic_eval_config"]["available_tools"] == [{"name": "a"}, {"name": "b"}]
    assert json.loads(args["agentic_eval_config"]["additional_details"]["tools"]) == {"a": "y", "b": "x"}


def test_a_benchmarks_pack_names_its_dataset_and_a_local_build(tmp_path, schemas):
    source = hand_source(tmp_path)
    source.dataset = Dataset("org/data", None, [{"name": "f.jsonl"}], "tiny.manifest.json")
    data = eee.build(source, schemas).aggregate["evaluation_results"][0]["source_data"]
    assert (data["dataset_name"], data["source_type"], data["hf_repo"], data["samples_number"]) == (
        "org/data", "hf_dataset", "org/data", 4)
    assert data["additional_details"]["revision"] == ("not recorded: the pack was built from a local copy (see "
                                                      "source_files)")
    assert json.loads(data["additional_details"]["source_files"]) == [{"name": "f.jsonl"}]
    source.dataset = Dataset("org/data", "abc123", [], "tiny.manifest.json")
    assert eee._source_data(source)["additional_details"]["revision"] == "abc123"


def test_write_puts_the_samples_first_and_names_them_with_their_checksum(tmp_path, schemas):
    records = eee.build(hand_source(tmp_path), schemas, developer="acme")
    aggregate_path, samples_path = eee.write(records, tmp_path / "out", schemas)
    assert aggregate_path == tmp_path / "out" / "data/tiny/acme/m" / f"{records.name}.json"
    text = samples_path.read_text(encoding="utf-8")
    assert samples_path.name == f"{records.name}_samples.jsonl" and len(text.splitlines()) == 4
    written = json.loads(aggregate_path.read_text(encoding="utf-8"))
    assert written["detailed_evaluation_results"] == {
        "format": "jsonl", "file_path": f"data/tiny/acme/m/{records.name}_samples.jsonl", "hash_algorithm": "sha256",
        "checksum": hashlib.sha256(text.encode("utf-8")).hexdigest(), "total_rows": 4}
    assert aggregate_path.read_text(encoding="utf-8").endswith("}\n") and written == records.aggregate


def test_a_run_without_rows_writes_the_aggregate_alone(tmp_path, schemas):
    records = eee.build(hand_source(tmp_path), schemas)
    records.rows = []
    aggregate_path, samples_path = eee.write(records, tmp_path / "out", schemas)
    assert aggregate_path.is_file() and not samples_path.exists()
    assert "detailed_evaluation_results" not in json.loads(aggregate_path.read_text(encoding="utf-8"))


def test_the_relationship_is_one_the_schema_knows():
    assert [eee.check_relationship(v) for v in eee.RELATIONSHIPS] == list(eee.RELATIONSHIPS)
    with pytest.raises(ExportError, match=r"^--relationship 'friend': one of third_party, first_party, "
                                          r"collaborative, other$"):
        eee.check_relationship("friend")

