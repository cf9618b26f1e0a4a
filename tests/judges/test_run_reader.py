"""What the exporters read: the model from the run record (through RunRecord) and results streamed, checked."""

from __future__ import annotations

import json
from types import GeneratorType

import pytest

from auditpacks.core.errors import PackError, UserError
from auditpacks.core.runs.record import PackRef, Round, RunRecord
from auditpacks.core.runs.results import Result
from auditpacks.judges.run_reader import check_benchmark, graded_results, model_of, read_run, record_of
from auditpacks.runner.cli.main import main


def run(folder, model="smollm2", results=None, rounds=1):
    names = ["m.json"] + [f"m.round{n}.json" for n in range(2, rounds + 1)]
    for name in names:
        (folder / name).write_text(json.dumps({"results": results or []}, indent=2), encoding="utf-8")
    RunRecord(model=model, provider="openai", judge="choice_match", pack=PackRef(name="p.json", sha256="0" * 64),
              fingerprint="f", repeats=rounds,
              rounds=[Round(round=n, seed=n - 1, results=name) for n, name in enumerate(names, 1)]).save(
        folder / "m.run.json")
    return folder / "m.json"


def test_the_model_comes_from_the_flag_else_the_record_beside_any_round(tmp_path):
    results = run(tmp_path, rounds=2)
    assert record_of(results).model == "smollm2"
    assert record_of(tmp_path / "m.round2.json").repeats == 2
    assert model_of(results, record_of(results)) == "smollm2"
    assert model_of(results, record_of(results), "given") == "given"
    stream, model = read_run(results)
    assert isinstance(stream, GeneratorType) and model == "smollm2" and list(stream) == []
    assert read_run(results, model_id="given")[1] == "given"
    (tmp_path / "m.run.json").write_text("{}", encoding="utf-8")
    assert read_run(results, model_id="given")[1] == "given"  # a flag given: the record is not read


DROP = object()


@pytest.mark.parametrize("changes, message", [
    ({"record_version": DROP}, "m.run.json: a run record from before record_version 1 (no record_version field); "
                               "run it again with this auditpacks"),
    ({"record_version": 2}, "m.run.json: run record version 2; this auditpacks reads version 1"),
    ({"model": ""}, "m.run.json: field model is empty"),
    ({"model": 5}, "m.run.json: field model is 5, not a str"),
    ({"model": DROP}, "m.run.json: field model is None, not a str"),
])
def test_a_bad_run_record_is_one_line_naming_file_and_field(tmp_path, changes, message):
    results = run(tmp_path)
    record = json.loads((tmp_path / "m.run.json").read_text(encoding="utf-8"))
    record.update({k: v for k, v in changes.items() if v is not DROP})
    for key in [k for k, v in changes.items() if v is DROP]:
        del record[key]
    (tmp_path / "m.run.json").write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(UserError) as err:
        read_run(results)
    assert str(err.value) == message


def test_no_record_and_no_flag_is_refused(tmp_path):
    assert record_of(tmp_path / "m.json") is None
    with pytest.raises(UserError) as err:
        read_run(tmp_path / "m.json")
    assert str(err.value) == "m.json: no model id; pass --model-id or a run record with a model field"


def test_graded_results_are_typed_and_numbered():
    pairs = list(graded_results({"results": [{"scenario_name": "a"}, {"scenario_name": "b"}]}, "r.json"))
    assert [(i, r.scenario_name) for i, r in pairs] == [(0, "a"), (1, "b")]
    assert all(isinstance(r, Result) for _, r in pairs)


@pytest.mark.parametrize("bench", ["jacite", "iustitia", "icj"])
def test_each_exporter_names_the_file_result_and_field_and_writes_nothing(tmp_path, capsys, bench):
    results = run(tmp_path, results=[{"scenario_name": "Q - u1", "judgment": ["not", "an", "object"]}])
    out = tmp_path / "out.json"
    assert main(["export", bench, str(results), "--out", str(out)]) == 2
    assert capsys.readouterr().err == ("auditpacks: error: m.json result #0: field judgment is ['not', 'an', "
                                       "'object'], not an object\n")
    assert not out.exists()


def test_export_refuses_a_run_of_another_benchmark(tmp_path, capsys):
    from tests.support.hand_runs import write_run
    from tests.support.tiny_pack import write_pack

    pack = write_pack(tmp_path / "p.json", 1)
    record = write_run(tmp_path / "run", "m", pack, "grounding", [])   # a jacite judge
    out = tmp_path / "predictions.jsonl"
    assert main(["export", "iustitia", str(record.with_name("m.json")), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("auditpacks: error: m.json: a run of the jacite benchmark (pack p.json, judge grounding), "
                   "not of iustitia; export it with `auditpacks export jacite`")
    assert not out.exists()


def test_a_record_named_on_the_command_line_is_read_wherever_it_lies(tmp_path):
    (tmp_path / "runs").mkdir()
    results = run(tmp_path / "runs", model="beside")
    (tmp_path / "elsewhere").mkdir()
    run(tmp_path / "elsewhere", model="named")
    named = tmp_path / "elsewhere" / "m.run.json"
    assert record_of(results, named).model == "named" and read_run(results, named)[1] == "named"
    (tmp_path / "runs" / "m.run.json").unlink()   # nothing beside the results: the named record still counts
    assert record_of(results, named).model == "named"
    with pytest.raises(UserError):
        record_of(results, tmp_path / "missing.run.json")   # a named record must exist


def ran(tmp_path, judge: str, builder):
    results = run(tmp_path)
    record = json.loads((tmp_path / "m.run.json").read_text(encoding="utf-8"))
    record["judge"], record["pack"]["builder"] = judge, builder
    (tmp_path / "m.run.json").write_text(json.dumps(record), encoding="utf-8")
    return results


@pytest.mark.parametrize("judge, builder, benchmark", [
    ("checklist", {"name": "jacite"}, "jacite"),      # a general judge on a jacite pack: the pack's builder says
    ("checklist", "iustitia", "iustitia"),            # a builder recorded by name
    ("citations", "tests", "icj"),                    # a pack no benchmark built: the judge only icj has
    ("grounding", None, "jacite"),
])
def test_a_run_is_exported_by_its_own_benchmark_only(tmp_path, judge, builder, benchmark):
    results = ran(tmp_path, judge, builder)
    check_benchmark(results, benchmark)
    other = "icj" if benchmark != "icj" else "jacite"
    with pytest.raises(PackError) as err:
        check_benchmark(results, other)
    assert str(err.value) == (f"m.json: a run of the {benchmark} benchmark (pack p.json, judge {judge}), not of "
                              f"{other}; export it with `auditpacks export {benchmark}`")


def test_a_general_judge_on_a_pack_no_benchmark_built_or_no_record_passes(tmp_path):
    check_benchmark(ran(tmp_path, "checklist", "tests"), "icj")
    check_benchmark(tmp_path / "nothing" / "m.json", "icj")


def test_a_bad_result_is_named_by_its_source_and_index():
    bad = {"results": [{"scenario_name": "a"}, {"scenario_name": "b", "judgment": "text"}]}
    with pytest.raises(UserError) as err:
        list(graded_results(bad, "r.json"))
    assert str(err.value) == "r.json result #1: field judgment is 'text', not an object"
    with pytest.raises(UserError) as err:
        list(graded_results(iter([{"scenario_name": "a"}]), "r.json"))
    assert str(err.value) == "r.json result #0: not a checked result"
