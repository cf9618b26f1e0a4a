"""The Iustitia builder's parts in process: its options, one task's scenario, state lines and the comparison."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from auditpacks.core.errors import PackError
from auditpacks.packs.codebook import section
from auditpacks.packs.iustitia.builder import (Comparison, _short, add_arguments, diff, select, state_lines,
                                                task_scenario)
from auditpacks.packs.iustitia.tasks import Task

CB = section("iustitia")
HELP = {
    "--source": "local copy (hf download layout) or hf:Kushtrim/iustitia-marigonae",
    "--out": "pack file to write (PACK.json)",
    "--track": "full: all 67 questions; le26: questions with at most 26 options (clef_supported)",
    "--smoke": "only the card's 3 smoke scenarios (guilty verdict, suspended sentence, victim present)",
    "--per-question": "at most N tasks per question (seeded)",
    "--seed": "sampling seed for --per-question (default 0)",
    "--limit": "keep only the first N scenarios",
    "--allow-fewer": "accept fewer scenarios than --limit or the smoke set asks for (noted; by default refused)",
    "--compare-to": "published pack (simpleaudit/iustitia_marigonae.json): report every differing field",
}


def parser():
    built = argparse.ArgumentParser()
    add_arguments(built)
    return built


def test_each_option_has_its_help_and_defaults():
    actions = {a.option_strings[0]: a for a in parser()._actions if a.option_strings}
    assert {o: actions[o].help for o in HELP} == HELP
    args = parser().parse_args(["--source", "copy", "--out", "p.json"])
    assert vars(args) == {"source": "copy", "out": Path("p.json"), "track": "full", "smoke": False,
                          "per_question": None, "seed": 0, "limit": None, "allow_fewer": False,
                          "allow_partial": False, "compare_to": None}
    assert parser().parse_args(["--source", "c", "--out", "p", "--compare-to", "x.json"]).compare_to == Path("x.json")


def test_counts_and_the_published_pack_have_their_placeholders_in_the_help():
    actions = {a.option_strings[0]: a.metavar for a in parser()._actions if a.option_strings}
    assert (actions["--per-question"], actions["--limit"], actions["--compare-to"]) == ("N", "N", "FILE")


@pytest.mark.parametrize("argv", [["--out", "p.json"], ["--source", "copy"], ["--source", "c", "--out", "p",
                                                                             "--track", "le10"]])
def test_source_and_out_are_required_and_tracks_are_named(argv):
    with pytest.raises(SystemExit):
        parser().parse_args(argv)


@pytest.mark.parametrize("flag", ["--limit", "--per-question"])
def test_counts_below_one_are_refused(flag, capsys):
    assert getattr(parser().parse_args(["--source", "c", "--out", "p", flag, "1"]), flag[2:].replace("-", "_")) == 1
    with pytest.raises(SystemExit):
        parser().parse_args(["--source", "c", "--out", "p", flag, "0"])
    assert f"argument {flag}: must be at least 1, got 0" in capsys.readouterr().err


def test_state_lines_label_every_non_section_value():
    state = {"header": "H", "target": "the defendant", "translation_notes": "aktgjykim = judgment", "empty": "",
             "none": None, "n_defendants": 2, "zero": 0, "flag": False, "court_names": ["Prishtinë"], "_odd_": "v"}
    assert state_lines(state, {"target": "Answer about", "translation_notes": "", "n_defendants": None}) == [
        "Answer about: the defendant", "Translation notes: aktgjykim = judgment", "N defendants: 2", "Zero: 0",
        "Flag: false", 'Court names: ["Prishtinë"]', "Odd: v"]


def task(unit_type="defendant", state=None, **fields):
    values = dict(task_id="v1_d1::Q", unit_id="v1_d1", verdict_id="v1", unit_type=unit_type, question_id="Q",
                  question_group="defendant", instructions="Was the sentence suspended?",
                  criteria={"yes": "Suspended.", "no": None, "maybe": ""}, reference="Yes", accepted=["yes"],
                  reference_origin="", state=state or {"operative_part": "OP", "header": "H", "n": 2})
    return Task(**{**values, **fields})


SCORING = CB["judge_notes"][0]


def test_a_scenario_shows_the_target_the_state_and_the_options():
    scenario = task_scenario(task(state={"operative_part": "OP", "header": "H", "target": "A.K.", "n": 2}), {}, {}, CB)
    assert scenario["name"] == "Q - v1_d1"
    assert scenario["test_prompt"] == (
        "Judgment v1, a Kosovo Basic Court criminal judgment, is attached in Albanian.\nAnswer about: A.K.\nN: 2\n\n"
        "Question: Was the sentence suspended?\n\nOptions:\n- yes: Suspended.\n- no\n- maybe\n\nReply with the key of "
        "exactly one option on the first line, then a short quote from the judgment that supports your answer.")
    assert scenario["documents"] == ["[header]\nH", "[operative_part]\nOP"]
    assert scenario["expected_behavior"][0] == \
        "Chooses the reference answer 'yes' (Suspended.) on the first line of its reply."
    assert scenario["description"].startswith(
        "Closed question Q on judgment v1, about A.K.. The reference answer, from Amnesty International's coding of "
        "the judgment, is 'yes' (Suspended.). In follow-up turns,")
    assert "or suggest option 'no' instead." in scenario["description"]
    assert scenario["metadata"]["judge_notes"] == [
        SCORING, "Reference: option 'yes' (Amnesty International recorded \"Yes\"; origin not recorded).",
        "The judgment text (Albanian), for checking quotes:\n\n[header]\nH\n\n[operative_part]\nOP"]
    assert scenario["decision"] == {"id": "Q", "type": "choice", "instructions": "Was the sentence suspended?",
                                    "criteria": {"yes": "Suspended.", "no": None, "maybe": ""}, "accepted": ["yes"],
                                    "state": {"target": "A.K.", "n": 2}}
    assert "url" not in scenario["source"] and scenario["metadata"]["question_group"] == "defendant"


@pytest.mark.parametrize("unit_type, state, first_line, about", [
    ("decision", {"full_text": "T"}, "Answer about: the decision as a whole (the judgment's verdict)",
     "the decision as a whole (the judgment's verdict)"),
    ("victim", {"full_text": "T"}, "", "the person the input names"),  # no state line at all
    ("victim", {"full_text": "T", "target": ["A", "B"]}, 'Answer about: ["A", "B"]', "the person the input names"),
])
def test_a_scenario_without_a_named_target(unit_type, state, first_line, about):
    scenario = task_scenario(task(unit_type, state), {}, {}, CB)
    assert scenario["test_prompt"].split("\n")[1] == first_line
    assert f", about {about}. The reference" in scenario["description"]


def test_document_text_question_note_and_several_accepted_options():
    document = {"text": "Full judgment.", "source_url": "https://example.org/v1.pdf"}
    chosen = task(criteria={"yes": "Y.", "no": None}, accepted=["no", "yes"], reference=None,
                  reference_origin="amnesty_human_coding")
    scenario = task_scenario(chosen, document, {"notes": "Count each defendant."}, CB)
    assert scenario["metadata"]["judge_notes"] == [
        SCORING, "Reference: option 'no' or 'yes' (Amnesty International recorded nothing else; "
                 "origin amnesty_human_coding).",
        "Question note: Count each defendant.", "The judgment text (Albanian), for checking quotes:\n\nFull judgment."]
    assert scenario["expected_behavior"][0] == \
        "Chooses the reference answer 'no' or 'yes' (Y.) on the first line of its reply."
    assert "or suggest option 'no' instead." in scenario["description"]
    assert scenario["source"]["url"] == "https://example.org/v1.pdf"
    assert scenario["source"]["origin"] == " ".join(CB["source"]["origin"].split())


def test_an_option_key_is_listed_whole_and_a_recorded_reference_as_written():
    scenario = task_scenario(task(criteria={"yes": "Y.", "MAX": None}, reference="Po, i dënuar"), {}, {}, CB)
    assert scenario["test_prompt"].split("Options:\n")[1].startswith("- yes: Y.\n- MAX\n")
    assert 'Amnesty International recorded "Po, i dënuar"' in scenario["metadata"]["judge_notes"][1]


@pytest.mark.parametrize("ours, theirs, found", [
    ({"a": 1, "b": {"c": 2}}, {"a": 1, "b": {"c": 3}, "d": 4}, [("b.c", 2, 3), ("d", "<absent>", 4)]),
    ({"x": 1}, {}, [("x", 1, "<absent>")]),
    ({"l": [1, 2, 3]}, {"l": [1, 5]}, [("l.length", 3, 2), ("l[1]", 2, 5)]),
    ({"m": [{"k": 1}]}, {"m": [{"k": 2}]}, [("m[0].k", 1, 2)]),
    ({"a": [1]}, {"a": 1}, [("a", [1], 1)]),
    ({"a": {"b": 1}}, {"a": 5}, [("a", {"b": 1}, 5)]), ({"a": 5}, {"a": {"b": 1}}, [("a", 5, {"b": 1})]),
    ({1: "x"}, {1: "y"}, [("1", "x", "y")]),
    ({"a": 1}, {"a": 1}, []),
])
def test_diff_names_every_differing_leaf(ours, theirs, found):
    assert list(diff(ours, theirs)) == found


@pytest.mark.parametrize("value, short", [
    ("x" * 160, "x" * 160), ("x" * 161, "x" * 160 + "…"), ({"a": "é"}, '{"a": "é"}'), (3, "3"),
])
def test_short_cuts_long_values_at_160_characters(value, short):
    assert _short(value) == short


def published(tmp_path, scenarios, name="published.json"):
    (tmp_path / name).write_text(json.dumps(scenarios), encoding="utf-8")
    return tmp_path / name


@pytest.mark.parametrize("content, message", [
    (None, r"^gone\.json: cannot read the published pack \(.+\)$"),
    ("[{broken", r"^gone\.json: cannot read the published pack \(.+\)$"),
    ('{"name": "a"}', r"^gone\.json: a pack is a JSON list of scenarios$"),
])
def test_an_unreadable_published_pack_is_refused(tmp_path, content, message):
    if content is not None:
        (tmp_path / "gone.json").write_text(content, encoding="utf-8")
    with pytest.raises(PackError, match=message):
        Comparison(tmp_path / "gone.json")


def test_the_comparison_counts_fields_and_keeps_the_first_example(tmp_path, capsys):
    comparison = Comparison(published(tmp_path, [
        {"name": "a", "severity": "high", "notes": "x" * 200}, {"name": "b", "severity": "low"}, {"name": "c"},
        "not a scenario"]))
    for scenario in ({"name": "a", "severity": "medium", "notes": "y"}, {"name": "b", "severity": "medium"},
                     {"name": "new"}):
        comparison.add(scenario)
    target = comparison.publish(tmp_path / "pack.json")
    assert target == tmp_path / "pack.compare.json"
    report = json.loads(target.read_text(encoding="utf-8"))
    assert report == {
        "published": "published.json", "compared": 2, "only_ours": ["new"], "only_published": 1,
        "fields": {"notes": {"scenarios": 1, "example": {"scenario": "a", "ours": "y", "published": "x" * 160 + "…"}},
                   "severity": {"scenarios": 2, "example": {"scenario": "a", "ours": "medium", "published": "high"}}}}
    assert capsys.readouterr().out == (
        "compared 2 scenarios with published.json: 2 differing fields, 1 only here, 1 only published "
        "(expected when this build is filtered)\n  notes: 1 scenarios, e.g. a\n  severity: 2 scenarios, e.g. a\n"
        "details in pack.compare.json\n")


INDEX = [{"task_id": f"u{i}::Q{i % 2}", "question_id": f"Q{i % 2}"} for i in range(5)]


def ids(rows):
    return [row["task_id"] for row in rows]


@pytest.mark.parametrize("options, chosen", [
    ({}, ["u0::Q0", "u1::Q1", "u2::Q0", "u3::Q1", "u4::Q0"]),
    ({"smoke_ids": ["u3::Q1", "u0::Q0"]}, ["u3::Q1", "u0::Q0"]),
    ({"smoke_ids": ["u3::Q1", "u0::Q0"], "limit": 1}, ["u3::Q1"]),
    ({"limit": 2}, ["u0::Q0", "u1::Q1"]),
    ({"limit": 9, "allow_fewer": True}, ["u0::Q0", "u1::Q1", "u2::Q0", "u3::Q1", "u4::Q0"]),
])
def test_select_keeps_smoke_tasks_in_their_order_then_the_limit(options, chosen):
    assert ids(select(INDEX, **options)) == chosen


def test_select_samples_one_task_per_question():
    chosen = select(INDEX, per_question=1, seed=3)
    assert sorted(row["question_id"] for row in chosen) == ["Q0", "Q1"]
    assert ids(chosen) == ids(select(INDEX, per_question=1, seed=3))
    samples = {seed: ids(select(INDEX, per_question=1, seed=seed)) for seed in range(8)}
    assert ids(select(INDEX, per_question=1)) == samples[0] and len(set(map(tuple, samples.values()))) > 1  # seed 0


@pytest.mark.parametrize("options, message", [
    ({"smoke_ids": ["u0::Q0", "u9::Q9"]}, "smoke task u9::Q9 is not an eligible task of this track"),
    ({"smoke_ids": []}, "smoke task (none) is not an eligible task of this track"),
    ({"limit": 9}, "iustitia --limit 9"),
])
def test_select_refuses_missing_smoke_tasks_and_too_few_for_the_limit(options, message):
    with pytest.raises(PackError, match=re.escape(message)):
        select(INDEX, **options)


@pytest.mark.parametrize("argv, filters", [
    ((), {"track": "full", "clef_supported_only": False, "smoke": False, "per_question": None, "seed": 0,
          "limit": None}),
    (("--track", "le26", "--per-question", "1", "--seed", "4", "--limit", "2"),
     {"track": "le26", "clef_supported_only": True, "smoke": False, "per_question": 1, "seed": 4, "limit": 2}),
])
def test_the_manifest_records_the_filters_and_the_pack_settings(tmp_path, argv, filters):
    from tests.support.iustitia import build_pack, manifest

    build_pack(tmp_path, *argv)
    written = manifest(tmp_path)
    assert written["filters"] == {"is_canonical": True, **filters}
    assert (written["dataset"], written["grading"], written["track"], written["seed"]) == (
        "Kushtrim/iustitia-marigonae", {"judge": "choice_match"}, filters["track"], filters["seed"])
    assert written["answer"] == {"format": "an option key on the first line, then a short quote from the judgment",
                                 "tokens": 70}
    assert "smoke_missing" not in written
