"""``auditpacks export iustitia``: one ``{"task_id", "choice"}`` line per answered task, task ids from the pack's
metadata or else from the scenario name, replies with no readable option left out, ERROR results left out with a
warning, and a name naming no task or a task given twice refused."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from auditpacks.core.errors import PackError
from auditpacks.judges.iustitia.export import add_arguments, export_predictions, main, task_id_from_name
from auditpacks.packs.pack import PackWriter
from tests.support.hand_runs import choice_result, error_result, write_run
from tests.support.tiny_pack import tiny_scenario


def test_a_task_id_is_the_unit_then_the_question_of_a_name():
    assert task_id_from_name("Q1 - V0001") == "V0001::Q1"
    assert task_id_from_name("Tiny 0003 - Outcome of V0001") == "Outcome of V0001::Tiny 0003"
    for name in ("Q1-V0001", "Q1 V0001", " - V0001", "Q1 - ", "Q1 - V0001 - again", ""):
        assert task_id_from_name(name) is None, name


def scenarios(n=4):
    return [tiny_scenario(i) for i in range(n)]   # "Tiny 000i - Outcome of V0000" (V0001 from i = 3)


def test_answered_tasks_become_predictions_in_results_order():
    s = scenarios()
    results = [choice_result(s[0], "guilty"), choice_result(s[1], "maybe"),     # off the options: still a prediction
               choice_result(s[2], None), error_result(s[3])]                  # no option read; an ERROR
    records, skipped = export_predictions({"results": results})
    assert records == [{"task_id": "Outcome of V0000::Tiny 0000", "choice": "guilty"},
                       {"task_id": "Outcome of V0000::Tiny 0001", "choice": "maybe"}]
    assert skipped == ["Tiny 0003 - Outcome of V0001"]


def test_the_packs_task_ids_come_first_and_the_name_is_the_fallback():
    s = scenarios(2)
    ids = {s[0]["name"]: "V0000::q0", s[1]["name"]: None}
    records, _ = export_predictions({"results": [choice_result(x, "guilty") for x in s]}, ids)
    assert [r["task_id"] for r in records] == ["V0000::q0", "Outcome of V0000::Tiny 0001"]


def test_a_name_naming_no_task_is_refused_with_the_result_and_the_way_out():
    s = scenarios(2)
    odd = {**choice_result(s[1], "guilty"), "scenario_name": "free text"}
    with pytest.raises(PackError, match=r"^m\.json result #1: scenario_name 'free text' names no task; pass --pack$"):
        export_predictions({"results": [choice_result(s[0], "guilty"), odd]}, source="m.json")


def test_a_task_given_twice_is_refused_even_when_the_second_is_an_error():
    s = scenarios(1)
    twice = [choice_result(s[0], "guilty"), choice_result(s[0], "guilty"), error_result(s[0])]
    with pytest.raises(PackError, match=r"^results result #1: task Outcome of V0000::Tiny 0000 repeats result #0$"):
        export_predictions({"results": twice})
    with pytest.raises(PackError, match=r"result #1: task .* repeats result #0$"):
        export_predictions({"results": [error_result(s[0]), error_result(s[0])]})


def export(tmp_path, results, *flags):
    pack = tmp_path / "pack.json"
    with PackWriter(pack, builder="tests", extra={"grading": {"judge": "choice_match"}}) as writer:
        for i, scenario in enumerate(scenarios(len(results))):
            writer.add({**scenario, "metadata": {**scenario["metadata"], "task_id": f"Ü{i}::q{i}"}})
    write_run(tmp_path, "m", pack, "choice_match", results)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    out = tmp_path / "predictions.jsonl"
    args = parser.parse_args([str(tmp_path / "m.json"), "--out", str(out), *[str(pack) if f == "PACK" else f
                                                                             for f in flags]])
    return main(args), out


def test_the_command_writes_one_line_per_prediction_and_warns_of_errors(tmp_path, capsys):
    s = scenarios(3)
    code, out = export(tmp_path, [choice_result(s[0], "schuldig—ja"), error_result(s[1]), choice_result(s[2], "x")])
    assert code == 0
    assert out.read_text(encoding="utf-8") == (
        '{"task_id": "Outcome of V0000::Tiny 0000", "choice": "schuldig—ja"}\n'
        '{"task_id": "Outcome of V0000::Tiny 0002", "choice": "x"}\n')
    said = capsys.readouterr()
    assert said.out == f"wrote 2 predictions to {out}\n"
    assert said.err == ("warning: left out 1 ERROR results (first: Tiny 0001 - Outcome of V0000); the scorer counts "
                        "them as unanswered\n")


def test_the_command_reads_task_ids_from_the_pack_and_is_quiet_without_errors(tmp_path, capsys):
    s = scenarios(2)
    code, out = export(tmp_path, [choice_result(x, "guilty") for x in s], "--pack", "PACK")
    assert code == 0 and [json.loads(line)["task_id"] for line in out.read_text(encoding="utf-8").splitlines()] == \
        ["Ü0::q0", "Ü1::q1"]
    assert capsys.readouterr().err == ""


def test_a_name_naming_no_task_stops_the_command_naming_the_results_file(tmp_path):
    s = scenarios(1)
    with pytest.raises(PackError, match=r"^m\.json result #0: scenario_name 'free text' names no task"):
        export(tmp_path, [{**choice_result(s[0], "guilty"), "scenario_name": "free text"}])


def test_a_result_that_is_not_one_is_refused_naming_its_source():
    with pytest.raises(PackError, match=r"^m\.json result #0"):
        export_predictions({"results": [["not", "a", "result"]]}, source="m.json")


def test_the_options_and_their_help():
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["m.json"])   # --out is required
    args = parser.parse_args(["m.json", "--pack", "p.json", "--out", "p.jsonl"])
    assert (args.results, args.pack, args.out) == (Path("m.json"), Path("p.json"), Path("p.jsonl"))
    assert parser.parse_args(["m.json", "--out", "p.jsonl"]).pack is None
    assert {a.dest: a.help for a in parser._actions if a.dest != "help"} == {
        "results": "RESULTS.json written by a run (simpleaudit AuditResults)",
        "pack": "the pack the run ran (task ids from metadata.task_id)",
        "out": "predictions.jsonl to write"}
