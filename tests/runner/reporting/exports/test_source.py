"""What the exports read of a run: a merged run and a split results file read as one run (one log, one set of
records, the same samples as the plain run's), a folder holding several runs is refused, the pack's manifest is
found by sha256 (or given), and figures get stable ids and their intervals' levels."""

from __future__ import annotations

import json

import pytest
from inspect_ai.log import read_eval_log

from auditpacks.judges.figures import Figure
from auditpacks.runner.cli.main import main
from auditpacks.runner.reporting.exports.source import (Dataset, ExportError, confidence_level, figure_ids,
                                                        figure_title, load_source)
from tests.support.fake_openai import FakeOpenAI
from tests.support.hand_runs import tiny_choice_run
from tests.support.paths import FIXTURES
from tests.support.runs import run_here


@pytest.fixture(scope="module")
def iustitia_runs(tmp_path_factory):
    """A plain run, the same run written split (parts and documents stored once), and two shards merged."""
    root = tmp_path_factory.mktemp("merged")
    pack = root / "iustitia.json"
    assert main(["build", "iustitia", "--source", str(FIXTURES / "iustitia"), "--out", str(pack)]) == 0
    with FakeOpenAI() as server, pytest.MonkeyPatch.context() as patch:
        assert run_here(pack, root / "plain", server.base_url) == 0
        for shard in ("1/2", "2/2"):
            assert run_here(pack, root / f"shard{shard[0]}", server.base_url, "--shard", shard) == 0
        patch.setattr("auditpacks.runner.store.results_file.LIMIT_BYTES", 20_000)
        assert run_here(pack, root / "split", server.base_url) == 0
    assert main(["merge", str(root / "shard1"), str(root / "shard2"), "--out", str(root / "merged"),
                 "--pack", str(pack)]) == 0
    assert len(list((root / "split").glob("m.part*.json"))) >= 1  # really written in parts
    return root


def samples(path):
    log = read_eval_log(str(path))
    return {s.id: (s.scores["choice_match"].value, s.output.completion, s.input[-1].text) for s in log.samples}, log


def test_a_merged_or_split_run_is_one_log_with_the_plain_runs_samples(iustitia_runs, tmp_path):
    logs = {}
    for name in ("plain", "split", "merged"):
        assert main(["export", "inspect", str(iustitia_runs / name), "--out", str(tmp_path / f"{name}.eval")]) == 0
        logs[name] = samples(tmp_path / f"{name}.eval")
    plain = logs["plain"][0]
    assert len(plain) == 15 and logs["split"][0] == plain and logs["merged"][0] == plain
    merged_record = json.loads((iustitia_runs / "merged" / "m.run.json").read_text(encoding="utf-8"))
    micro = next(s for s in logs["merged"][1].results.scores).metrics["agreement (micro)"]
    assert micro.value == merged_record["summary"]["headline"]["micro"]
    assert logs["merged"][1].eval.metadata["merged_from"] == merged_record["merged_from"]


def test_a_merged_run_is_one_set_of_records(iustitia_runs, eee_wheel, tmp_path):
    assert main(["export", "eee", str(iustitia_runs / "merged"), "--out", str(tmp_path), "--schemas",
                 str(eee_wheel)]) == 0
    aggregate = json.loads(next(tmp_path.rglob("*-*.json")).read_text(encoding="utf-8"))
    rows = next(tmp_path.rglob("*_samples.jsonl")).read_text(encoding="utf-8").splitlines()
    record = json.loads((iustitia_runs / "merged" / "m.run.json").read_text(encoding="utf-8"))
    assert len(rows) == aggregate["detailed_evaluation_results"]["total_rows"] == 15
    micro = next(r for r in aggregate["evaluation_results"] if r["evaluation_result_id"] == "agreement_micro")
    assert micro["score_details"]["score"] == record["summary"]["headline"]["micro"]


def test_a_folder_of_several_runs_is_refused_in_one_line(iustitia_runs, tmp_path, capsys):
    assert main(["export", "inspect", str(iustitia_runs), "--out", str(tmp_path / "all.eval")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "run records under it" in err and "name one run record" in err
    assert not (tmp_path / "all.eval").exists()


def test_the_manifest_is_found_by_sha256_or_given(iustitia_runs, tmp_path):
    found = load_source(iustitia_runs / "plain")
    assert found.dataset.manifest == "iustitia.manifest.json" and found.dataset.name == "Kushtrim/iustitia-marigonae"
    assert [s["name"] for s in found.dataset.sources][0] == "tasks/test-00000-of-00001.jsonl"
    other = tmp_path / "other.json"
    assert main(["build", "jacite", "--out", str(other), "--limit", "2"]) == 0
    with pytest.raises(Exception, match="field sha256 is not the run's pack sha256"):
        load_source(iustitia_runs / "plain", other)


def test_figure_ids_are_stable_and_unique():
    rows = [Figure("invented rate", 0.5, group="en"), Figure("invented rate", 0.2, group="en"),
            Figure("agreement (micro)", 0.4, group="≤26-option track"), Figure("tasks", 3, "count")]
    assert figure_ids(rows) == ["en.invented_rate", "en.invented_rate_2", "26_option_track.agreement_micro",
                                "tasks"]


def test_an_intervals_level_is_read_from_its_name():
    assert confidence_level("95% CI, bootstrap over judgments") == 0.95
    assert confidence_level("90% Wilson interval") == 0.9
    assert confidence_level("bootstrap") is None and confidence_level(None) is None


def test_a_pack_no_benchmark_built_exports_with_its_judges_figures(tmp_path, eee_wheel):
    tiny_run = tiny_choice_run(tmp_path)
    record = json.loads(tiny_run.read_text(encoding="utf-8"))
    record["summary"]["headline"] = {"tasks": 4, "judgments": 2, "micro": 0.5, "macro": 0.5, "coverage": 0.75,
                                     "ci": {"micro": [0.25, 0.75], "macro": [0.25, 0.75], "coverage": [0.5, 1.0]}}
    tiny_run.write_text(json.dumps(record), encoding="utf-8")
    assert main(["export", "inspect", str(tiny_run), "--out", str(tmp_path / "tiny.json")]) == 0
    log = read_eval_log(str(tmp_path / "tiny.json"))
    assert log.eval.task == "tiny" and log.eval.task_display_name is None and len(log.samples) == 4
    assert [s.scores["choice_match"].value for s in sorted(log.samples, key=lambda s: s.id)] == ["C", "C", "I", "N"]
    assert sum(s.error is not None for s in log.samples) == 1 and log.results.completed_samples == 3
    metrics = log.results.scores[0].metrics
    assert metrics["agreement (micro)"].value == 0.5 and metrics["coverage"].metadata["interval"] == [0.5, 1.0]
    assert main(["export", "eee", str(tiny_run), "--out", str(tmp_path / "eee"), "--schemas",
                 str(eee_wheel)]) == 0
    aggregate = json.loads(next((tmp_path / "eee").rglob("*-*.json")).read_text(encoding="utf-8"))
    source = aggregate["evaluation_results"][0]["source_data"]
    assert source["source_type"] == "other" and source["dataset_name"] == "tiny.json"
    assert aggregate["model_info"]["developer"] == "unknown"


def test_a_repeated_runs_rounds_are_epochs(tmp_path, eee_wheel):
    from tests.support.tiny_pack import write_pack

    pack = write_pack(tmp_path / "tiny.json", 4)
    with FakeOpenAI() as server:
        assert run_here(pack, tmp_path / "run", server.base_url, "--repeats", "2") == 0
    record = json.loads((tmp_path / "run" / "m.run.json").read_text(encoding="utf-8"))
    assert main(["export", "inspect", str(tmp_path / "run"), "--out", str(tmp_path / "run.eval")]) == 0
    log = read_eval_log(str(tmp_path / "run.eval"))
    assert log.eval.config.epochs == 2 and sorted({s.epoch for s in log.samples}) == [1, 2]
    assert len(log.samples) == 8
    rounds = [r["summary"]["headline"]["micro"] for r in record["rounds"]]
    micro = log.results.scores[0].metrics["agreement (micro)"]
    assert micro.value == sum(rounds) / 2 and micro.metadata["better"] == "higher"
    assert main(["export", "eee", str(tmp_path / "run"), "--out", str(tmp_path / "eee"), "--schemas",
                 str(eee_wheel)]) == 0
    rows = [json.loads(line) for line in next((tmp_path / "eee").rglob("*_samples.jsonl")).read_text().splitlines()]
    assert sorted(row["metadata"]["epoch"] for row in rows) == ["1"] * 4 + ["2"] * 4


def test_a_pack_built_from_a_download_names_its_revision(iustitia_runs, tmp_path):
    manifest = json.loads((iustitia_runs / "iustitia.manifest.json").read_text(encoding="utf-8"))
    for source in manifest["sources"]:
        source["origin"] = "hf:Kushtrim/iustitia-marigonae@0123abcd"  # as sources.py records a download
    (tmp_path / "iustitia.json").write_bytes((iustitia_runs / "iustitia.json").read_bytes())
    (tmp_path / "iustitia.manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    found = load_source(iustitia_runs / "plain", tmp_path / "iustitia.json")
    assert found.dataset.revision == "0123abcd" and found.dataset.manifest == "iustitia.manifest.json"


# -- in-process: a hand-written run's source, its manifest and its dataset ------------------------------------------

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
