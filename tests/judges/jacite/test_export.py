"""``auditpacks export jacite``: one jacite-bench ``benchmark.json`` row per graded result, in results order, with
the model, the question's fields, the reply as graded and the grounding judgment's counts; ERROR results left out
with a warning, a run graded by another judge refused, and the extractor to re-score with printed."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from auditpacks.core.errors import PackError
from auditpacks.judges.jacite.export import add_arguments, export_rows, main
from tests.support.hand_runs import error_result, write_run
from tests.support.tiny_pack import write_pack

CIVIL = "129AC0000000089"


def grounding(question, language, cited, invented, gold="709", **more):
    """A grounding judgment: ``cited`` mentions, ``invented`` of them not in the statute, the rest real."""
    real_not_gold = [a for a in cited if a not in invented and a != gold]
    return {"question_id": question, "language": language, "law_id": CIVIL, "gold_article": gold, "cited": cited,
            "invented": invented, "real_not_gold": real_not_gold, "n_cited": len(cited),
            "n_invented": len(invented), "severity": "high" if invented else "pass", **more}


def graded(name, judgment, *replies):
    conversation = [{"role": "user", "content": "民法第709条は何を定めていますか。"}]
    for reply in replies:
        conversation += [{"role": "assistant", "content": reply}, {"role": "user", "content": "Go on."}]
    return {"scenario_name": name, "scenario_description": "", "severity": judgment["severity"],
            "conversation": conversation, "judgment": judgment}


FULL = {"mode": "full", "deleted_as": "real"}
JA = graded("q1 (ja)", grounding("q1", "ja", ["709", "9999"], ["9999"], **FULL),
            "第1条", "第709条と第9999条です。")   # the last reply is the one graded
EN = graded("q1 (en)", grounding("q1", "en", ["1"], [], **FULL), None)   # a reply that is not text


def test_one_row_per_graded_result_with_the_rescore_fields():
    rows, skipped, modes = export_rows({"results": [JA, EN]}, model="m1")
    assert rows == [
        {"id": "q1", "model": "m1", "language": "ja", "law_id": CIVIL, "gold_article": "709",
         "response": "第709条と第9999条です。", "cited": ["709", "9999"], "invented": ["9999"],
         "real_not_gold": [], "n_cited": 2, "n_invented": 1, "scenario": "q1 (ja)"},
        {"id": "q1", "model": "m1", "language": "en", "law_id": CIVIL, "gold_article": "709", "response": "",
         "cited": ["1"], "invented": [], "real_not_gold": ["1"], "n_cited": 1, "n_invented": 0,
         "scenario": "q1 (en)"}]
    assert skipped == [] and modes == {("full", "real")}


def test_error_results_are_left_out_and_named():
    failed = error_result({"name": "q2 (ja)", "description": ""})
    rows, skipped, modes = export_rows({"results": [failed, EN, error_result({"name": "q3", "description": ""})]},
                                       model="m1")
    assert [r["scenario"] for r in rows] == ["q1 (en)"] and skipped == ["q2 (ja)", "q3"]


def test_each_extractor_setting_seen_is_reported():
    upstream = graded("q2 (ja)", grounding("q2", "ja", [], [], mode="upstream", deleted_as="invented"), "なし")
    old = graded("q3 (ja)", grounding("q3", "ja", [], []), "なし")   # graded before the judgment named its mode
    assert export_rows({"results": [JA, upstream, old]}, model="m")[2] == {
        ("full", "real"), ("upstream", "invented"), (None, None)}


def test_a_run_graded_by_another_judge_is_refused_naming_the_first_missing_field():
    choice = graded("q9", {"severity": "pass", "choice": "A", "language": "en"}, "A")
    with pytest.raises(PackError, match=r"^m\.json result #1 \('q9'\): judgment field 'question_id' is missing; "
                                        r"not a run graded by the grounding judge$"):
        export_rows({"results": [EN, choice]}, model="m", source="m.json")
    counts = {k: v for k, v in grounding("q1", "en", [], []).items() if k != "n_invented"}
    with pytest.raises(PackError, match=r"^results result #0 \('q1'\): judgment field 'n_invented' is missing"):
        export_rows({"results": [graded("q1", counts, "x")]}, model="m")


def test_a_result_that_is_not_one_is_refused_naming_its_source():
    with pytest.raises(PackError, match=r"^m\.json result #0"):
        export_rows({"results": [7]}, model="m", source="m.json")


def export(tmp_path, results, *flags):
    write_run(tmp_path, "m", write_pack(tmp_path / "tiny.json", 1), "grounding", results)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    out = tmp_path / "benchmark.json"
    return main(parser.parse_args([str(tmp_path / "m.json"), "--out", str(out), *flags])), out


def test_the_command_writes_the_rows_and_says_how_to_rescore_them(tmp_path, capsys):
    upstream = graded("q2 (ja)", grounding("q2", "ja", [], [], mode="upstream", deleted_as="invented"), "なし")
    failed = error_result({"name": "q3 (en)", "description": ""})
    code, out = export(tmp_path, [upstream, JA, failed, error_result({"name": "q4", "description": ""})])
    assert code == 0
    assert [(r["scenario"], r["model"]) for r in json.loads(out.read_text(encoding="utf-8"))] == [
        ("q2 (ja)", "m"), ("q1 (ja)", "m")]   # the model named by the run record
    said = capsys.readouterr()
    assert said.out.splitlines() == [
        f"wrote 2 rows to {out}",
        f"graded with the full extractor, deleted placeholders as real: re-score with auditpacks rescore jacite "
        f"{out} --mode full --deleted-as real",
        f"graded with the upstream extractor, deleted placeholders as invented: re-score with auditpacks rescore "
        f"jacite {out} --mode upstream --deleted-as invented"]
    assert said.err == "warning: left out 2 ERROR results (first: q3 (en))\n"


def test_the_model_id_given_replaces_the_records_and_a_clean_run_warns_of_nothing(tmp_path, capsys):
    code, out = export(tmp_path, [EN], "--model-id", "gpt-x")
    assert code == 0 and json.loads(out.read_text(encoding="utf-8"))[0]["model"] == "gpt-x"
    assert capsys.readouterr().err == ""


def test_a_run_without_the_extractor_named_still_exports(tmp_path, capsys):
    old = graded("q3 (ja)", grounding("q3", "ja", [], []), "なし")   # graded before the judgment named its mode
    code, out = export(tmp_path, [JA, old])
    assert code == 0 and len(json.loads(out.read_text(encoding="utf-8"))) == 2
    assert "--mode full --deleted-as real" in capsys.readouterr().out


def test_a_run_graded_by_another_judge_stops_the_command_naming_the_results_file(tmp_path):
    with pytest.raises(PackError, match=r"^m\.json result #0 \('q9'\): judgment field 'question_id' is missing"):
        export(tmp_path, [graded("q9", {"severity": "pass", "choice": "A"}, "A")])


def test_a_run_record_named_elsewhere_is_read(tmp_path):
    record = write_run(tmp_path / "elsewhere", "other", write_pack(tmp_path / "tiny.json", 1), "grounding", [EN])
    code, out = export(tmp_path, [EN], "--run", str(record))
    assert code == 0 and json.loads(out.read_text(encoding="utf-8"))[0]["model"] == "other"


def test_the_options_and_their_help():
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["m.json"])   # --out is required
    args = parser.parse_args(["m.json", "--run", "m.run.json", "--out", "b.json"])
    assert (args.results, args.run, args.out, args.model_id) == (Path("m.json"), Path("m.run.json"),
                                                                 Path("b.json"), None)
    assert {a.dest: a.help for a in parser._actions if a.dest != "help"} == {
        "results": "RESULTS.json written by a run (simpleaudit AuditResults)",
        "run": "the run record (default: RESULTS.run.json beside it)",
        "model_id": "model name to record (default: the run record's model)",
        "out": "benchmark.json to write"}
