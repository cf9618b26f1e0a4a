"""Agreement scoring per the Iustitia card: micro, macro, coverage, judgment-bootstrap intervals."""

from __future__ import annotations

import argparse
import json

import pytest

from auditpacks.judges.iustitia import agreement as ag
from auditpacks.judges.iustitia.run_tasks import tasks_from_scenarios
from auditpacks.core.errors import PackError
from tests.support.iustitia import FIXTURE, build_pack, rows

CANONICAL = [t for t in rows("tasks") if t["is_canonical"]]
LE26 = [t for t in CANONICAL if t["clef_supported"]]


def score_args(tmp_path, predictions: list, *argv: str) -> argparse.Namespace:
    pred = tmp_path / "predictions.jsonl"
    pred.write_text("".join((p if isinstance(p, str) else json.dumps(p)) + "\n" for p in predictions), encoding="utf-8")
    parser = argparse.ArgumentParser()
    ag.add_arguments(parser)
    args = parser.parse_args(["--pred", str(pred), "--source", str(FIXTURE), *argv])
    args.cache_dir = str(tmp_path / "hf-cache")
    return args


def reference(tasks) -> list[dict]:
    return [{"task_id": t["task_id"], "choice": t["accepted_options"][0]} for t in tasks]


def test_reference_answers_score_100_percent(tmp_path, capsys):
    args = score_args(tmp_path, reference(CANONICAL), "--out", str(tmp_path / "scores.json"))
    assert ag.main(args) == 0
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert (scores["micro"], scores["macro"], scores["coverage"]) == (1.0, 1.0, 1.0)
    assert (scores["tasks"], scores["judgments"], scores["questions"]) == (15, 2, 6)
    assert scores["ci"]["micro"] == [1.0, 1.0]
    assert scores["track"] == "full"
    out = capsys.readouterr().out
    assert "tasks 15, judgments 2" in out and "micro    100.0%" in out


def test_le26_track(tmp_path):
    args = score_args(tmp_path, reference(LE26), "--track", "le26", "--out", str(tmp_path / "s.json"))
    ag.main(args)
    scores = json.loads((tmp_path / "s.json").read_text())
    assert scores["tasks"] == 12 and scores["micro"] == 1.0 and "DEF.TYPE" not in scores["per_question"]


def test_duplicate_task_id_fails_in_one_line(tmp_path):
    predictions = reference(CANONICAL)
    with pytest.raises(PackError) as err:
        ag.main(score_args(tmp_path, predictions + [predictions[3]]))
    assert str(err.value) == (f"predictions.jsonl: line 16: duplicate task_id {predictions[3]['task_id']!r} "
                              "(first on line 4)")


def test_unknown_task_id_fails_in_one_line(tmp_path):
    with pytest.raises(PackError) as err:
        ag.main(score_args(tmp_path, [{"task_id": "domv999::GUILTY.VERDICT", "choice": "yes"}]))
    assert str(err.value) == ("predictions.jsonl: line 1: unknown task_id 'domv999::GUILTY.VERDICT' "
                              "(not a task of the full track)")


def test_non_canonical_and_out_of_track_ids_are_unknown(tmp_path):
    with pytest.raises(PackError, match="unknown task_id 'domv903::GUILTY.VERDICT'"):
        ag.main(score_args(tmp_path, [{"task_id": "domv903::GUILTY.VERDICT", "choice": "yes"}]))
    with pytest.raises(PackError, match="not a task of the le26 track"):
        ag.main(score_args(tmp_path, [{"task_id": "domv901_d1::DEF.TYPE", "choice": "husband"}], "--track", "le26"))


def test_malformed_prediction_lines(tmp_path):
    with pytest.raises(PackError, match=r"line 2: invalid JSON"):
        ag.main(score_args(tmp_path, reference(CANONICAL)[:1] + ["{oops"]))
    with pytest.raises(PackError, match=r"line 1: expected"):
        ag.main(score_args(tmp_path, [{"id": "domv901::GUILTY.VERDICT", "choice": "yes"}]))


def test_missing_and_invalid_answers_count_as_incorrect():
    tasks = [dict(t) for t in CANONICAL]
    predictions = {t["task_id"]: t["accepted_options"][0] for t in tasks}
    del predictions["domv901::GUILTY.VERDICT"]              # missing
    predictions["domv902::GUILTY.VERDICT"] = "maybe"         # not an option
    predictions["domv902_d1::DEF.TYPE"] = None               # no parse
    predictions["domv901_d2::DEF.SUSPENDED_SENTENCE"] = "yes"  # wrong option
    scores = ag.agreement(tasks, predictions, b=200)
    assert scores["tasks"] == 15 and scores["correct"] == 11 and scores["answered"] == 12
    # the card: coverage = len(predictions) / n, invalid answers included (14 given, 2 of them invalid)
    assert (scores["predictions"], scores["invalid"]) == (14, 2)
    assert scores["micro"] == pytest.approx(11 / 15) and scores["coverage"] == pytest.approx(14 / 15)
    per = scores["per_question"]
    assert per["GUILTY.VERDICT"] == {"tasks": 2, "correct": 0, "agreement": 0.0}
    macro = sum(q["agreement"] for q in per.values()) / len(per)
    assert scores["macro"] == pytest.approx(macro)
    assert scores["ci"]["micro"][0] <= scores["micro"] <= scores["ci"]["micro"][1]


def test_bootstrap_resamples_judgments_and_is_seeded():
    tasks = [{"task_id": f"v{v}::q{q}", "verdict_id": f"v{v}", "question_id": f"q{q}", "accepted_options": ["a"]}
             for v in range(40) for q in range(5)]
    # Whole judgments right or wrong: the interval is as wide as 40 clusters allow, not 200 tasks.
    predictions = {t["task_id"]: "a" if int(t["verdict_id"][1:]) % 2 else "b" for t in tasks}
    one = ag.agreement(tasks, predictions, seed=3, b=500)
    assert one == ag.agreement(tasks, predictions, seed=3, b=500)
    low, high = one["ci"]["micro"]
    assert one["micro"] == 0.5 and high - low > 0.2  # about ±0.15 for 40 judgments; ±0.07 if the 200 tasks were independent
    assert one["warnings"] == []


def test_predictions_from_results_give_the_same_figures(tmp_path):
    scenarios = build_pack(tmp_path)
    results = {"results": [{"scenario_name": s["name"], "judgment": {"choice": s["decision"]["accepted"][0]}}
                           for s in scenarios]}
    results["results"][0]["judgment"] = {"severity": "ERROR", "error": "timeout"}
    predictions = ag.predictions_from_results(results, scenarios)
    scores = ag.agreement(tasks_from_scenarios(scenarios), predictions, b=200)
    assert scores["micro"] == pytest.approx(14 / 15) and scores["coverage"] == pytest.approx(14 / 15)
    assert scores["judgments"] == 2
    pairs = list(zip(scenarios, results["results"]))
    head = ag.headline(pairs)
    assert set(head) == set(ag.HEADLINE_KEYS) | {"skipped"} and head["micro"] == scores["micro"]
    assert head["skipped"] == 0


def test_results_for_unknown_or_repeated_scenarios_are_rejected(tmp_path):
    scenarios = build_pack(tmp_path)
    with pytest.raises(PackError, match="is not a scenario of the pack"):
        ag.predictions_from_results({"results": [{"scenario_name": "X - y", "judgment": {}}]}, scenarios)
    twice = [{"scenario_name": scenarios[0]["name"], "judgment": {"choice": "yes"}}] * 2
    with pytest.raises(PackError, match="appears twice"):
        ag.predictions_from_results({"results": twice}, scenarios)


def test_headline_without_answer_keys():
    assert ag.headline([({"name": "a - b", "decision": {"instructions": "?", "criteria": {"x": None, "y": None}}},
                         {"judgment": {"choice": "x"}})]) == {"tasks": 0}


def _card_figures(tasks: list[dict], lines: list[str]) -> tuple[float, float, int]:
    """The card's scoring code, line for line (coverage, micro, n), as an independent reference."""
    predictions = {}
    for line in lines:
        p = json.loads(line)
        assert p["task_id"] not in predictions
        predictions[p["task_id"]] = p["choice"]
    correct = sum(predictions.get(t["task_id"]) in t["accepted_options"] for t in tasks)
    n = len(tasks)
    return len(predictions) / n, correct / n, n


def test_score_command_coverage_is_the_card_formula_with_invalid_answers(tmp_path, capsys):
    lines = [json.dumps(p) for p in reference(CANONICAL)[:10]]
    lines[0] = json.dumps({"task_id": CANONICAL[0]["task_id"], "choice": "maybe"})   # invalid key
    lines[1] = json.dumps({"task_id": CANONICAL[1]["task_id"], "choice": None})      # no answer, still a line
    args = score_args(tmp_path, lines, "--out", str(tmp_path / "s.json"))
    assert ag.main(args) == 0
    scores = json.loads((tmp_path / "s.json").read_text())
    coverage, micro, n = _card_figures(CANONICAL, lines)
    assert (scores["coverage"], scores["micro"], scores["tasks"]) == (coverage, micro, n) == (10 / 15, 8 / 15, 15)
    assert (scores["predictions"], scores["invalid"]) == (10, 2)
    assert "10 predictions for 15 tasks, 2 invalid" in capsys.readouterr().out


def test_run_headline_counts_skipped_scenarios_in_coverage(tmp_path):
    scenarios = build_pack(tmp_path)
    over = [s for s in scenarios if len(s["decision"]["criteria"]) > 26]   # DEF.TYPE: 34 options
    pairs = [(s, None if s in over else {"scenario_name": s["name"], "severity": "pass",
                                         "judgment": {"choice": s["decision"]["accepted"][0]}}) for s in scenarios]
    head = ag.headline(pairs)
    # the headline is the ≤26-option track (the 12 the endpoint could take); the full track beside it
    assert len(over) == 3 and head["skipped"] == 3 and head["tasks"] == 12 and head["track"] == "le26"
    assert head["coverage"] == 1.0 and head["micro"] == 1.0
    assert head["predictions"] == 12 and head["invalid"] == 0
    full = head["full_track"]
    assert full["tasks"] == 15
    assert full["coverage"] == pytest.approx(12 / 15) and full["micro"] == pytest.approx(12 / 15)


def test_summary_table_shows_invalid_and_skipped():
    from auditpacks.judges.reader import Reader

    head = {"micro": 0.5, "macro": 0.5, "coverage": 0.75, "ci": {}, "tasks": 4, "judgments": 2,
            "invalid": 1, "skipped": 1}
    shown = {f.name: f.value for f in Reader.of("choice_match").figures(head)}
    assert (shown["coverage"], shown["invalid"], shown["skipped"]) == (0.75, 1, 1)
