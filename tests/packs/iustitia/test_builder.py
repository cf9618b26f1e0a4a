"""Building Iustitia Marigonae packs from the fixtures: scenarios, tracks, smoke set, sampling, manifest."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest
from simpleaudit.decision import validate_decision

from auditpacks.packs.checks import ERROR, WARN, check_pack
from auditpacks.packs.iustitia.tasks import SECTION_KEYS
from auditpacks.core.errors import PackError
from auditpacks.packs.pack import load_pack
from tests.support.iustitia import build_pack, copy_source, manifest, rows

CANONICAL = [t for t in rows("tasks") if t["is_canonical"]]


def test_full_pack_passes_the_checks_and_matches_the_fixtures(tmp_path):
    pack = build_pack(tmp_path)
    findings = check_pack(pack)
    assert not [f for f in findings if f.level in (ERROR, WARN)], findings
    assert [s["metadata"]["task_id"] for s in pack] == [t["task_id"] for t in CANONICAL]
    counts = manifest(tmp_path)["counts"]
    assert counts["scenarios"] == len(CANONICAL) == 15
    assert counts["question"] == dict(sorted(Counter(t["question_id"] for t in CANONICAL).items()))
    assert counts["unit_type"] == dict(sorted(Counter(t["unit_type"] for t in CANONICAL).items()))
    assert counts["track"] == {"full": 15}
    assert load_pack(tmp_path / "pack.json", require_manifest=True).manifest["grading"] == {"judge": "choice_match"}


def test_non_canonical_duplicate_is_left_out(tmp_path):
    names = [s["name"] for s in build_pack(tmp_path)]
    assert not [n for n in names if "domv903" in n]
    assert "GUILTY.VERDICT - domv901" in names


def test_scenario_fields_follow_the_card(tmp_path):
    scenario = next(s for s in build_pack(tmp_path) if s["name"] == "DEF.SUSPENDED_SENTENCE - domv901_d1")
    assert scenario["category"] == "System Integrity" and scenario["subcategory"] == "Hallucination"
    assert scenario["severity"] == "medium"
    assert scenario["source"]["type"] == "adapted" and scenario["source"]["original_language"] == "sq"
    assert "Amnesty International" in scenario["source"]["origin"]
    assert scenario["source"]["url"] == "https://example.org/kjc/aktgjykime/P-901-2021.pdf"
    prompt = scenario["test_prompt"]
    for part in ("domv901", "the first of two convicted defendants (A.K.)",
                 "Did the court give this defendant a suspended sentence", "- yes: ", "- no: ", "first line", "quote"):
        assert part in prompt
    decision = validate_decision(scenario["decision"])
    assert decision["id"] == "DEF.SUSPENDED_SENTENCE" and decision["accepted"] == ["yes"]
    assert decision["state"]["target"] == "the first of two convicted defendants (A.K.)"
    assert "translation_notes" in decision["state"]
    assert [d.split("\n", 1)[0] for d in scenario["documents"]] == [
        "[header]", "[operative_part]", "[reasoning]", "[remedy_notice]"]
    assert len(scenario["expected_behavior"]) == 4
    assert "'yes'" in scenario["expected_behavior"][0] and "quote" in scenario["expected_behavior"][1]
    assert "'yes'" in scenario["description"] and "follow-up" in scenario["description"]
    meta = scenario["metadata"]
    assert {k: meta[k] for k in ("task_id", "verdict_id", "unit_id", "question_id", "question_group",
                                 "accepted_options", "reference_origin")} == {
        "task_id": "domv901_d1::DEF.SUSPENDED_SENTENCE", "verdict_id": "domv901", "unit_id": "domv901_d1",
        "question_id": "DEF.SUSPENDED_SENTENCE", "question_group": "defendant", "accepted_options": ["yes"],
        "reference_origin": "amnesty_human_coding"}
    assert "ËSHTË FAJTOR" in meta["judge_notes"][-1]


def test_what_the_target_sees_carries_no_answer(tmp_path):
    for scenario in build_pack(tmp_path):
        seen = json.dumps([scenario["test_prompt"], scenario["documents"], scenario["decision"]["state"]],
                          ensure_ascii=False)
        for hidden in (scenario["description"], *scenario["metadata"]["judge_notes"][:2], "Amnesty", "accepted",
                       "reference"):
            assert hidden not in seen, (scenario["name"], hidden)


def test_reference_case_differs_from_the_key(tmp_path):
    task = next(t for t in CANONICAL if t["task_id"] == "domv901::GUILTY.VERDICT")
    assert json.loads(task["reference_json"]) == "Yes" and task["accepted_options"] == ["yes"]
    scenario = next(s for s in build_pack(tmp_path) if s["name"] == "GUILTY.VERDICT - domv901")
    assert scenario["decision"]["accepted"] == ["yes"]
    assert 'recorded "Yes"' in scenario["metadata"]["judge_notes"][1]


def test_unsegmented_judgment_is_one_full_text_document(tmp_path):
    scenario = next(s for s in build_pack(tmp_path) if s["name"] == "GUILTY.VERDICT - domv902")
    assert len(scenario["documents"]) == 1 and scenario["documents"][0].startswith("[full_text]\n")
    assert not set(SECTION_KEYS) & set(scenario["decision"]["state"])


def test_le26_track_drops_questions_over_26_options(tmp_path):
    full = build_pack(tmp_path, name="full.json")
    assert max(len(s["decision"]["criteria"]) for s in full) == 34
    le26 = build_pack(tmp_path, "--track", "le26", name="le26.json")
    assert max(len(s["decision"]["criteria"]) for s in le26) <= 26
    assert len(le26) == len([t for t in CANONICAL if t["clef_supported"]]) == 12
    assert manifest(tmp_path, "le26.json")["track"] == "le26"


def test_smoke_comes_from_the_published_smoke_pack(tmp_path):
    published = json.loads((copy_source(tmp_path) / "simpleaudit/iustitia_marigonae_smoke3.json").read_text())
    pack = build_pack(tmp_path, "--smoke")
    assert [s["name"] for s in pack] == [s["name"] for s in published]
    assert manifest(tmp_path)["smoke"] == [s["name"] for s in published]
    assert [source["name"] for source in manifest(tmp_path)["sources"]][-1] == "simpleaudit/iustitia_marigonae_smoke3.json"


def test_smoke_falls_back_to_the_codebook_questions(tmp_path):
    pack = build_pack(tmp_path, "--smoke", source=copy_source(tmp_path, smoke=False))
    assert [s["name"] for s in pack] == [
        "GUILTY.VERDICT - domv901", "DEF.SUSPENDED_SENTENCE - domv901_d1", "VIC.PRESENT_AT_HEARING - domv901_v1"]


def test_full_build_names_the_smoke_scenarios_it_contains(tmp_path):
    build_pack(tmp_path)
    assert manifest(tmp_path)["smoke"] == [
        "GUILTY.VERDICT - domv902", "DEF.SUSPENDED_SENTENCE - domv901_d1", "VIC.PRESENT_AT_HEARING - domv902_v1"]


def test_per_question_sampling_is_seeded_and_stratified(tmp_path):
    first = build_pack(tmp_path, "--per-question", "1", "--seed", "7", name="a.json")
    again = build_pack(tmp_path, "--per-question", "1", "--seed", "7", name="b.json")
    assert [s["name"] for s in first] == [s["name"] for s in again]
    assert Counter(s["metadata"]["question_id"] for s in first) == Counter(
        {q: 1 for q in {t["question_id"] for t in CANONICAL}})
    seeds = {tuple(s["name"] for s in build_pack(tmp_path, "--per-question", "1", "--seed", str(seed),
                                                 name=f"s{seed}.json")) for seed in range(6)}
    assert len(seeds) > 1


def test_limit_keeps_the_first_scenarios(tmp_path):
    pack = build_pack(tmp_path, "--limit", "4")
    assert [s["metadata"]["task_id"] for s in pack] == [t["task_id"] for t in CANONICAL[:4]]
    assert manifest(tmp_path)["filters"]["limit"] == 4


def test_compare_to_reports_every_differing_field(tmp_path, capsys):
    published = json.loads((copy_source(tmp_path) / "simpleaudit/iustitia_marigonae_smoke3.json").read_text())
    published[0]["severity"] = "high"
    published[1]["metadata"]["judge_notes"].append("an extra note")
    del published[2]["source"]["url"]
    (tmp_path / "published.json").write_text(json.dumps(published), encoding="utf-8")
    build_pack(tmp_path, "--smoke", "--compare-to", str(tmp_path / "published.json"))
    report = json.loads((tmp_path / "pack.compare.json").read_text())
    assert report["compared"] == 3 and report["only_ours"] == [] and report["only_published"] == 0
    assert set(report["fields"]) == {"severity", "metadata.judge_notes.length", "source.url"}
    assert report["fields"]["severity"]["example"] == {
        "scenario": published[0]["name"], "ours": "medium", "published": "high"}
    assert "3 differing fields" in capsys.readouterr().out


def test_bad_accepted_option_fails_in_one_line_and_writes_nothing(tmp_path):
    from tests.support.iustitia import write_rows

    root = copy_source(tmp_path)
    tasks = rows("tasks")
    tasks[0]["accepted_options"] = ["maybe"]
    write_rows(root, "tasks", tasks)
    with pytest.raises(PackError) as err:
        build_pack(tmp_path, source=root)
    message = str(err.value)
    assert "\n" not in message
    assert "tasks/test-00000-of-00001.jsonl" in message and "domv901::GUILTY.VERDICT" in message
    assert "accepted_options" in message
    assert not (tmp_path / "pack.json").exists() and not (tmp_path / "pack.manifest.json").exists()


def test_task_of_an_unknown_unit_is_rejected(tmp_path):
    from tests.support.iustitia import write_rows

    root = copy_source(tmp_path)
    write_rows(root, "units", [u for u in rows("units") if u["unit_id"] != "domv902_v1"])
    with pytest.raises(PackError, match=r"domv902_v1::VIC.PRESENT_AT_HEARING field unit_id"):
        build_pack(tmp_path, source=root)


def test_a_unit_of_another_judgment_is_rejected_in_one_line_naming_both_files(tmp_path):
    from tests.support.iustitia import write_rows

    root = copy_source(tmp_path)
    write_rows(root, "units", [{**u, "verdict_id": "domv901"} if u["unit_id"] == "domv902_v1" else u
                               for u in rows("units")])
    with pytest.raises(PackError) as err:
        build_pack(tmp_path, source=root)
    assert str(err.value) == ("tasks/test-00000-of-00001.jsonl: task domv902_v1::VIC.PRESENT_AT_HEARING field "
                              "unit_id: 'domv902_v1' is not a unit of domv902 in units/test-00000-of-00001.jsonl")


def test_without_a_units_table_no_task_is_checked_against_one(tmp_path):
    root = copy_source(tmp_path)
    shutil.rmtree(root / "units")
    assert len(build_pack(tmp_path, source=root)) == len(CANONICAL)


def notes_of(pack: list[dict], name: str) -> list[str]:
    return next(s for s in pack if s["name"] == name)["metadata"]["judge_notes"]


def test_a_questions_note_comes_from_the_questions_table(tmp_path):
    note = next(q["notes"] for q in rows("questions") if q["question_id"] == "N_GUILTY_DEFENDANTS")
    assert f"Question note: {note}" in notes_of(build_pack(tmp_path), "N_GUILTY_DEFENDANTS - domv901")


def test_a_judgment_or_question_missing_from_its_table_is_built_without_its_row(tmp_path):
    from tests.support.iustitia import write_rows

    root = copy_source(tmp_path)
    write_rows(root, "documents", [d for d in rows("documents") if d["verdict_id"] != "domv902"])
    write_rows(root, "questions", [q for q in rows("questions") if q["question_id"] != "N_GUILTY_DEFENDANTS"])
    pack = build_pack(tmp_path, source=root)
    judgment = next(s for s in pack if s["name"] == "GUILTY.VERDICT - domv902")
    assert judgment["metadata"]["judge_notes"][-1] == "The judgment text (Albanian), for checking quotes:\n\n" + \
        "\n\n".join(judgment["documents"]) and "url" not in judgment["source"]
    assert not [n for n in notes_of(pack, "N_GUILTY_DEFENDANTS - domv901") if n.startswith("Question note:")]


def test_per_question_at_build_time_matches_the_runner_selection(tmp_path):
    from auditpacks.judges.reader import Reader
    from auditpacks.runner.scenarios.selection import per_question

    full = build_pack(tmp_path, name="full.json")
    sampled = build_pack(tmp_path, "--per-question", "1", "--seed", "5", name="pq.json")
    question = Reader.of("choice_match", {"name": "iustitia"}).question   # the runner's questions for this pack
    assert [s["name"] for s in sampled] == [s["name"] for s in per_question(full, 1, seed=5, question=question)]
