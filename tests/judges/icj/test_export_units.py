"""The ICJ export's parts on hand-made results: its flags, which rounds it exports, each record's fields and
answer, and what the command says."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from auditpacks.core.errors import PackError
from auditpacks.core.runs.record import PackRef, Round, RunRecord
from auditpacks.judges.icj import export as icj_export
from auditpacks.judges.icj.export import add_arguments, export_records, rounds_to_export

EMPTY = {"citation_case_ids": [], "citation_provision_keys": [], "citation_resolution_symbols": []}


def test_the_command_s_flags():
    parser = argparse.ArgumentParser(prog="auditpacks export icj")
    add_arguments(parser)
    flags = {a.dest: (a.required, a.type, a.help) for a in parser._actions if a.dest != "help"}
    assert flags == {
        "results": (True, Path, "RESULTS.json written by a run (simpleaudit AuditResults)"),
        "run": (False, Path, "the run file (default: RESULTS.run.json beside it, when present)"),
        "model_id": (False, None, "model id to record (default: the run file's model)"),
        "condition": (False, None, "condition to record (default: the scenario's, else parametric)"),
        "round": (False, int, "export only RESULTS.json, as this round (default: every round the run file lists, "
                              "each with its number)"),
        "errors_as_empty": (False, None, "export ERROR results as empty answers marked status 'error' (default: "
                                         "leave them out)"),
        "out": (True, Path, "predictions.jsonl to write"),
    }
    args = parser.parse_args(["r.json", "--out", "p.jsonl"])
    assert (args.errors_as_empty, args.round, args.run) == (False, None, None)


def _run(repeats, rounds):
    return RunRecord(model="m", provider="openai", judge="citations", pack=PackRef("icj.json", "0" * 64),
                     fingerprint="f", repeats=repeats, rounds=[Round(n, n - 1, name) for n, name in rounds])


REPEATED = _run(2, [(1, "m.json"), (2, "m.round2.json")])


@pytest.mark.parametrize("run, name, override, expected", [
    (None, "m.json", None, [(1, "m.json")]),
    (None, "m.json", 3, [(3, "m.json")]),
    (_run(1, [(2, "m.json")]), "m.json", None, [(2, "m.json")]),          # the round the run file gives it
    (_run(1, [(2, "m.json")]), "copy.json", None, [(1, "copy.json")]),    # a file the run file does not list
    (REPEATED, "m.json", None, [(1, "m.json"), (2, "m.round2.json")]),
    (REPEATED, "m.round2.json", 2, [(2, "m.round2.json")]),
])
def test_the_rounds_exported(tmp_path, run, name, override, expected):
    assert rounds_to_export(tmp_path / name, run, override) == [(n, tmp_path / f) for n, f in expected]


def test_a_file_a_repeated_run_does_not_list_is_refused_naming_the_ones_it_does(tmp_path):
    with pytest.raises(PackError, match=r"^copy\.json: not one of the run's results files \(m\.json, "
                                        r"m\.round2\.json\)$"):
        rounds_to_export(tmp_path / "copy.json", REPEATED, None)


def _result(name, judgment, reply=None, severity="pass"):
    conversation = [{"role": "user", "content": "q"}] + ([reply] if reply else [])
    return {"scenario_name": name, "severity": severity, "judgment": judgment, "conversation": conversation}


def _ids(target, **more):
    return {"case_id": "070", "target_document_id": target, **more}


def test_each_record_names_its_target_model_round_and_condition():
    results = {"results": [
        _result("a", _ids("t1", condition="graph", prediction=EMPTY, validation={"status": "valid", "issues": []})),
        _result("b", _ids("t2"), {"role": "assistant", "content": json.dumps(EMPTY), "finish_reason": "length"}),
        _result("c", {**_ids("t3"), "severity": "ERROR", "error": "HTTP 500"}, severity="ERROR"),
        _result("d", _ids("t4", prediction=EMPTY)),                    # a prediction without its validation
    ]}
    records, skipped = export_records(results, model_id="m", rnd=2)
    assert skipped == ["c"]
    assert [(r["target_document_id"], r["model_id"], r["round"], r["condition"]) for r in records] == [
        ("t1", "m", 2, "graph"), ("t2", "m", 2, "parametric"), ("t4", "m", 2, "parametric")]
    assert records[1]["validation"]["status"] == "truncated"          # the reply stopped at the token cap
    assert records[2]["validation"] != {}                              # read from the reply (none here)
    assert export_records(results, model_id="m", condition="cot")[0][0]["condition"] == "cot"


@pytest.mark.parametrize("judgment, issues", [({"error": "HTTP 500"}, ["HTTP 500"]),
                                               ({}, ["the scenario did not complete"])])
def test_an_error_exported_as_empty_says_why(judgment, issues):
    results = {"results": [_result("c", {**_ids("t3"), "severity": "ERROR", **judgment}, severity="ERROR")]}
    ((record,), skipped) = export_records(results, model_id="m", errors_as_empty=True)
    assert skipped == [] and record["validation"] == {"status": "error", "issues": issues}
    assert record["round"] == 1 and all(v == [] for v in record["prediction"].values())


@pytest.mark.parametrize("results, message", [
    ([_result("x", {"case_id": "070"})], r"^r\.json result #0 \('x'\): no case_id and target_document_id in its "
                                         r"judgment or name; not an ICJ pack run$"),
    ([_result("x", {"target_document_id": "t"})], r"^r\.json result #0 \('x'\): no case_id"),
    ([_result("x", _ids("t1")), _result("y", _ids("t1"))], r"^r\.json result #1 \('y'\): target t1 repeats "
                                                          r"result #0$"),
])
def test_results_of_no_icj_pack_or_a_target_twice_are_refused_naming_them(results, message):
    with pytest.raises(PackError, match=message):
        export_records({"results": results}, model_id="m", source="r.json")


def _write_run(folder, rounds):
    """A repeated run's results files (round N: ``rounds[N-1]``, a list of results) and its run file."""
    names = ["m.json"] + [f"m.round{n}.json" for n in range(2, len(rounds) + 1)]
    for name, results in zip(names, rounds):
        (folder / name).write_text(json.dumps({"results": results}), encoding="utf-8")
    _run(len(rounds), list(enumerate(names, 1))).save(folder / "m.run.json")
    return folder / "m.json"


def _main(*argv):
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return icj_export.main(parser.parse_args([str(a) for a in argv]))


def test_the_command_says_how_many_records_and_rounds_and_which_errors_it_left_out(tmp_path, capsys):
    error = _result("c", {**_ids("t3"), "severity": "ERROR"}, severity="ERROR")
    answered = _result("a", _ids("t1", prediction={**EMPTY, "citation_case_ids": ["Genève"]},
                                 validation={"status": "valid", "issues": []}))
    results = _write_run(tmp_path, [[answered, error], [answered, error]])
    assert _main(results, "--out", tmp_path / "p.jsonl") == 0
    out, err = capsys.readouterr()
    assert out == f"wrote 2 prediction records to {tmp_path / 'p.jsonl'} (2 rounds)\n"
    assert err == ("warning: left out 2 ERROR results (first: c); rerun them, or pass --errors-as-empty; the scorer "
                   "needs --allow-partial meanwhile\n")
    assert "Genève" in (tmp_path / "p.jsonl").read_text(encoding="utf-8")   # written as it reads
    assert _main(results, "--round", 1, "--out", tmp_path / "one.jsonl") == 0
    assert capsys.readouterr().out == f"wrote 1 prediction records to {tmp_path / 'one.jsonl'}\n"


def test_a_round_below_1_is_refused(tmp_path):
    results = _write_run(tmp_path, [[]])
    with pytest.raises(PackError, match=r"^--round 0: must be at least 1$"):
        _main(results, "--round", 0, "--out", tmp_path / "p.jsonl")


def test_an_error_names_the_rounds_file(tmp_path):
    results = _write_run(tmp_path, [[], [_result("x", {})]])
    with pytest.raises(PackError, match=r"^m\.round2\.json result #0"):
        _main(results, "--out", tmp_path / "p.jsonl")


def test_a_name_the_builder_wrote_gives_the_case_target_and_condition():
    name = "ICJ 070 - Precedent citations, closed_book [ICJ_070_19860627_JUD]"
    ((record,), _) = export_records({"results": [_result(name, {"prediction": EMPTY, "validation": {}})]},
                                    model_id="m")
    assert (record["case_id"], record["target_document_id"], record["condition"]) == (
        "070", "ICJ_070_19860627_JUD", "closed_book")


@pytest.mark.parametrize("source, where", [({"source": "r.json"}, "r.json"), ({}, "results")])
def test_a_result_not_in_simpleaudits_format_names_its_file(source, where):
    with pytest.raises(ValueError, match=rf"^{re.escape(where)} result #0: field scenario_name is missing"):
        export_records({"results": [5]}, model_id="m", **source)
