"""Decision runs against sparrow-decider, a real third-party System One server: runs, batching, skipping,
resume and the report, on the Iustitia fixture pack."""

from __future__ import annotations

import json

import pytest

from auditpacks.runner.cli.main import main
from tests.support.runs import results, run_file
from tests.support.iustitia import build_pack

SLUG = "sparrow"
OVER_26 = 3  # the fixture's family-role scenarios have 34 options


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pack")
    scenarios = build_pack(folder)
    return folder / "pack.json", scenarios


def run(pack_path, out, url, *extra):
    return main(["run", "--pack", str(pack_path), "--decision-url", url, "--target", SLUG, "--out", str(out),
                 "--quiet", *extra])


def answers(out):
    return {r["scenario_name"]: r["conversation"][-1]["decision"] for r in results(out, SLUG)}


def test_a_decision_run_answers_every_scenario_within_the_option_limit(pack, sparrow_decider, tmp_path):
    path, scenarios = pack
    assert run(path, tmp_path, sparrow_decider.url, "--batch-questions", "1") == 0
    record = run_file(tmp_path, SLUG)
    summary = record["summary"]
    assert summary["skipped"] == {"over 26 options": OVER_26}
    assert summary["scenarios"] == summary["completed"] == len(scenarios) - OVER_26 and summary["errors"] == 0
    for name, decision in answers(tmp_path).items():
        scenario = next(s for s in scenarios if s["name"] == name)
        assert decision["choice"] in scenario["decision"]["criteria"]
        assert set(decision["probabilities"]) == set(scenario["decision"]["criteria"])
        assert abs(sum(decision["probabilities"].values()) - 1) < 0.01
    head = summary["headline"]  # the ≤26-option track it could take, the full track beside it
    assert head["track"] == "le26" and head["tasks"] == len(scenarios) - OVER_26 and head["skipped"] == OVER_26
    assert head["predictions"] == len(scenarios) - OVER_26 and head["full_track"]["tasks"] == len(scenarios)
    assert summary["tokens"]["target_input"] == 0  # sparrow-decider counts no tokens (usage 0)


def test_batched_requests_give_the_same_answers_as_single_ones(pack, sparrow_decider, tmp_path):
    path, _ = pack
    assert run(path, tmp_path / "single", sparrow_decider.url, "--batch-questions", "1") == 0
    assert run(path, tmp_path / "batched", sparrow_decider.url) == 0
    batching = run_file(tmp_path / "batched", SLUG)["performance"]["decision_batching"]
    single = answers(tmp_path / "single")
    assert batching["batches"] >= 1 and batching["requests"] < len(single)
    assert answers(tmp_path / "batched") == single  # a deterministic model: batching changes nothing


def test_raising_the_option_limit_runs_the_34_option_questions(pack, sparrow_decider, tmp_path):
    path, scenarios = pack
    assert run(path, tmp_path, sparrow_decider.url, "--max-options", "255", "--batch-questions", "1") == 0
    summary = run_file(tmp_path, SLUG)["summary"]
    assert summary["skipped"] == {} and summary["completed"] == len(scenarios)
    big = [d for name, d in answers(tmp_path).items()
           if len(next(s for s in scenarios if s["name"] == name)["decision"]["criteria"]) == 34]
    assert len(big) == OVER_26 and all(len(d["probabilities"]) == 34 for d in big)


def test_a_resumed_run_keeps_the_finished_scenarios(pack, sparrow_decider, tmp_path):
    path, scenarios = pack
    assert run(path, tmp_path, sparrow_decider.url, "--limit", "5") == 0
    first = answers(tmp_path)
    assert run(path, tmp_path, sparrow_decider.url) == 0
    summary = run_file(tmp_path, SLUG)["summary"]
    assert summary["resumed"] == len(first) > 0 and summary["completed"] == len(scenarios) - OVER_26
    assert {name: answers(tmp_path)[name] for name in first} == first


def test_the_report_of_a_sparrow_run(pack, sparrow_decider, tmp_path):
    path, scenarios = pack
    assert run(path, tmp_path / "run", sparrow_decider.url) == 0
    assert main(["report", str(tmp_path / "run"), "--pack", str(path), "--format", "md",
                 "--out", str(tmp_path / "report.md")]) == 0
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert SLUG in text and f"{len(scenarios)}" in text
    assert "| Answer only at confidence ≥ | Answered | Coverage (of all tasks) | Agreement |" in text
    assert f"Calibration ({len(scenarios) - OVER_26} answers with a probability of {len(scenarios)} tasks" in text
    assert main(["report", str(tmp_path / "run"), "--pack", str(path), "--out", str(tmp_path / "report.html")]) == 0
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Calibration and selective automation" in html and "Reliability: " in html


def test_calibration_uses_the_probability_of_the_chosen_option(pack, sparrow_decider, tmp_path, capsys):
    path, scenarios = pack
    assert run(path, tmp_path, sparrow_decider.url, "--no-probe", "--json") == 0
    shown = {f["name"]: f for f in json.loads(capsys.readouterr().out)["figures"]}
    accepted = {s["name"]: s["decision"]["accepted"] for s in scenarios}
    # sparrow-decider's confidence field is (n·p − 1)/(n − 1); the Brier score uses p itself
    squares = [(d["probabilities"][d["choice"]] - (d["choice"] in accepted[name])) ** 2
               for name, d in answers(tmp_path).items()]
    calibration = run_file(tmp_path, SLUG)["summary"]["headline"]["calibration"]
    assert calibration["n"] == len(squares) and calibration["brier"] == pytest.approx(sum(squares) / len(squares))
    assert shown["Brier score"]["value"] == calibration["brier"] and "calibration error (ECE)" in shown
    figures = json.loads(json.dumps(calibration))
    assert figures["risk_coverage"]["rows"][0]["coverage"] == pytest.approx(len(squares) / len(scenarios))
