"""What the exports read of a run, end to end: a merged run and a split results file read as one run (one log, one
set of records, the same samples as the plain run's), a folder holding several runs is refused, the pack's manifest
is found by sha256 (or given), and a repeated run's rounds are epochs."""

from __future__ import annotations

import json

import pytest
from inspect_ai.log import read_eval_log

from auditpacks.runner.cli.main import main
from auditpacks.runner.reporting.exports.source import load_source
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
