"""What the exports read of a run, in process: a hand-written run's source, its manifest (found beside the run, in
its parents or the working directory, by sha256, or given) and its dataset; figures' stable ids, titles and their
intervals' levels."""

from __future__ import annotations

import json

import pytest

from auditpacks.core.runs.run_files import tool_run_names
from auditpacks.judges.figures import Figure
from auditpacks.runner.reporting.exports.source import (Dataset, ExportError, confidence_level, figure_ids,
                                                        figure_title, load_source)
from tests.support.hand_runs import tiny_choice_run


def test_figure_ids_are_stable_and_unique():
    rows = [Figure("invented rate", 0.5, group="en"), Figure("invented rate", 0.2, group="en"),
            Figure("agreement (micro)", 0.4, group="≤26-option track"), Figure("tasks", 3, "count")]
    assert figure_ids(rows) == ["en.invented_rate", "en.invented_rate_2", "26_option_track.agreement_micro",
                                "tasks"]


def test_an_intervals_level_is_read_from_its_name():
    assert confidence_level("95% CI, bootstrap over judgments") == 0.95
    assert confidence_level("90% Wilson interval") == 0.9
    assert confidence_level("bootstrap") is None and confidence_level(None) is None


def relocated(tmp_path, where: str, *runs: str):
    """The tiny hand-written run at ``tmp_path/a/b/c/d/run`` (more run records there: ``runs``), its pack and
    manifest moved to ``tmp_path/where``; the run's folder."""
    path = tiny_choice_run(tmp_path / "a" / "b" / "c" / "d")
    for name in runs:
        (path.parent / name).write_bytes(path.read_bytes())
    target = tmp_path / where
    target.mkdir(parents=True, exist_ok=True)
    for name in ("tiny.json", "tiny.manifest.json"):
        (path.parent.parent / name).replace(target / name)
    return path.parent


@pytest.mark.parametrize("where, cwd", [("a/b/c/d/run", "."), ("a/b/c/d", "."), ("a/b/c", "."), ("a/b", "."),
                                        ("a/b/packs", "."), ("a/b/c/d/run/packs", "."), ("w", "w"),
                                        ("w/packs", "w")])
def test_the_manifest_is_found_beside_the_run_in_its_parents_or_the_working_directory(tmp_path, monkeypatch, where,
                                                                                      cwd):
    (tmp_path / "w").mkdir()
    monkeypatch.chdir(tmp_path / cwd)
    assert load_source(relocated(tmp_path, where)).dataset == Dataset(None, None, [], "tiny.manifest.json")


def test_a_manifest_out_of_reach_or_of_another_pack_is_not_found(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = relocated(tmp_path, "a")       # four levels up: past the three parents searched
    assert load_source(folder).dataset == Dataset(None, None, [], None)
    (tmp_path / "a" / "b" / "tiny.manifest.json").write_text(    # within reach, but another pack's
        json.dumps({"manifest_version": 1, "sha256": "0" * 64, "sources": []}), encoding="utf-8")
    assert load_source(folder).dataset.manifest is None


def test_a_given_pack_without_its_manifest_is_refused(tmp_path):
    folder = relocated(tmp_path, "a")
    (tmp_path / "a" / "tiny.manifest.json").unlink()
    with pytest.raises(ExportError, match=r"^tiny.json: no manifest tiny.manifest.json beside it$"):
        load_source(folder, tmp_path / "a" / "tiny.json")
    (tmp_path / "a" / "tiny.manifest.json").write_text(json.dumps({"manifest_version": 1, "sha256": "0" * 64}),
                                                       encoding="utf-8")
    sha = json.loads((folder / "m.run.json").read_text(encoding="utf-8"))["pack"]["sha256"]
    with pytest.raises(ExportError) as refused:
        load_source(folder, tmp_path / "a" / "tiny.json")
    assert str(refused.value) == (f"tiny.manifest.json: field sha256 is not the run's pack sha256 ({sha[:12]}…); "
                                  "this is the manifest of another pack")


@pytest.mark.parametrize("count, listed", [(2, "m.run.json, n0.run.json"),
                                           (3, "m.run.json, n0.run.json, n1.run.json"),
                                           (4, "m.run.json, n0.run.json, n1.run.json, …")])
def test_several_run_records_are_named_in_the_refusal(tmp_path, count, listed):
    folder = relocated(tmp_path, "a", *(f"n{i}.run.json" for i in range(count - 1)))
    with pytest.raises(ExportError) as refused:
        load_source(folder)
    assert str(refused.value) == (f"{folder}: {count} run records under it ({listed}); name one run record "
                                  "(a merged run has one)")


@pytest.mark.parametrize("origins, revision", [
    (["hf:org/data@abc", "hf:org/data@abc"], "abc"), (["hf:org/data@abc", "hf:org/data@def"], None),
    (["hf:org/data", "local@abc"], None), ([None, "hf:org/data@v1"], "v1"), (["hf:org/data"], None),
    (["hf:org/data@v1@v2"], "v2")])
def test_the_dataset_names_its_sources_and_their_one_revision(tmp_path, origins, revision):
    folder = relocated(tmp_path, "a")
    manifest_file = tmp_path / "a" / "tiny.manifest.json"
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    manifest["sources"] = [{"name": f"s{i}", "origin": o, "sha256": "f" * 8, "bytes": 3} for i, o in
                           enumerate(origins)] + ["not a source"]
    manifest_file.write_text(json.dumps(manifest), encoding="utf-8")
    found = load_source(folder, tmp_path / "a" / "tiny.json").dataset
    assert found == Dataset(None, revision, [{"name": f"s{i}", "origin": o, "sha256": "f" * 8}
                                             for i, o in enumerate(origins)], "tiny.manifest.json")


def test_a_benchmarks_pack_names_its_source_dataset_from_the_codebook(tmp_path):
    from auditpacks.runner.reporting.exports.source import _dataset

    assert _dataset("iustitia", None) == Dataset("Kushtrim/iustitia-marigonae", None)
    assert _dataset("iustitia", ("i.manifest.json", {"sources": None})) == Dataset(
        "Kushtrim/iustitia-marigonae", None, [], "i.manifest.json")
    assert _dataset(None, None) == Dataset(None, None)
    assert _dataset("no-such-benchmark", None) == Dataset(None, None)      # no codebook section: no dataset
    assert _dataset("no-such-benchmark", ("i.manifest.json", {})) == Dataset(None, None, [], "i.manifest.json")


def test_a_codebook_dataset_that_is_not_one_name_is_not_named(tmp_path, monkeypatch):
    from auditpacks.runner.reporting.exports.source import _dataset

    (tmp_path / "codebook.yaml").write_text("iustitia:\n  dataset: [a/b, c/d]\n", encoding="utf-8")
    monkeypatch.setenv("AUDITPACKS_CODEBOOK", str(tmp_path / "codebook.yaml"))
    assert _dataset("iustitia", None) == Dataset(None, None)
    assert _dataset("iustitia", ("i.manifest.json", {})) == Dataset(None, None, [], "i.manifest.json")


@pytest.mark.parametrize("builder", ["iustitia", {"name": "iustitia", "version": 1}])
def test_a_pack_a_benchmark_built_is_that_benchmarks_task_and_names_its_dataset(tmp_path, builder):
    folder = relocated(tmp_path, "a/b/c/d/run")
    record = json.loads((folder / "m.run.json").read_text(encoding="utf-8"))
    record["pack"]["builder"] = builder
    (folder / "m.run.json").write_text(json.dumps(record), encoding="utf-8")
    source = load_source(folder)
    assert (source.built_by, source.task) == ("iustitia", "iustitia")
    assert source.dataset == Dataset("Kushtrim/iustitia-marigonae", None, [], "tiny.manifest.json")


def test_what_a_source_reads_of_its_run(tmp_path):
    folder = relocated(tmp_path, "a")
    record_file = folder / "m.run.json"
    record = json.loads(record_file.read_text(encoding="utf-8"))
    record["parameters"] = {"system_prompt": "Be brief.", "base": "http://u:pw@h/v1"}
    record_file.write_text(json.dumps(record), encoding="utf-8")
    source = load_source(record_file)
    assert (source.folder, source.task, source.built_by, source.benchmark) == (folder, "tiny", None, "iustitia")
    assert source.parameters == {"system_prompt": "Be brief.", "base": "http://[credentials]@h/v1"}
    assert source.system_prompt == "Be brief." and source.traces() == {}
    assert [(n, r.scenario_name) for n, r in source.results()] == [
        (1, f"Tiny 000{i} - Outcome of V000{i // 3}") for i in range(4)]
    source.record.parameters["system_prompt"] = ["not", "text"]
    assert source.system_prompt is None


def test_a_tool_runs_source_reads_the_traces_beside_its_record(tmp_path):
    folder = relocated(tmp_path, "a")
    trace = {"scenario": "Tiny 0000 - Outcome of V0000", "steps": [{"kind": "model", "call": 1}]}
    (folder / tool_run_names("m")[0]).write_text(json.dumps(trace) + "\n", encoding="utf-8")
    source = load_source(folder)
    assert source.traces() == {}                 # no tool condition: the file is not read
    source.record.condition = "graph tools"
    assert source.traces() == {"Tiny 0000 - Outcome of V0000": trace}


def test_a_run_of_errors_only_states_no_figures(tmp_path):
    source = load_source(relocated(tmp_path, "a"))
    source.record.summary.headline = {"tasks": 4, "judgments": 2, "micro": 0.5, "macro": 0.5, "coverage": 0.75,
                                      "ci": {"micro": [0.25, 0.75], "macro": [0.25, 0.75], "coverage": [0.5, 1.0]}}
    assert "agreement (micro)" in [f.name for f in source.figures()]
    source.record.summary.completed = 0     # every result an ERROR
    assert source.figures() == []


def test_a_figures_title_carries_its_group():
    assert figure_title(Figure("invented rate", 0.5, group="en")) == "invented rate (en)"
    assert figure_title(Figure("tasks", 3, "count")) == "tasks"
    assert figure_ids([Figure("", 1), Figure("%", 2), Figure("", 3)]) == ["figure", "figure_2", "figure_3"]
    assert figure_ids([Figure("Brier Score", 1, group="EN"), Figure("X rate", 2)]) == ["en.brier_score", "x_rate"]
