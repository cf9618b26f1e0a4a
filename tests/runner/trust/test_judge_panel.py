"""A checklist run with several judges: each further judge grades the same transcripts, and the run reports
their agreement and the scenarios where they disagree."""

from __future__ import annotations

import json
from types import SimpleNamespace
from pathlib import Path

import pytest

from auditpacks.core.runs.record import RunRecord
from auditpacks.runner.cli.main import main
from auditpacks.runner.trust import judge_panel
from auditpacks.runner.trust.judge_panel import Replayed, replayed, run_panel
from tests.support.run_config import run_config
from tests.support.fake_openai import FakeOpenAI
from tests.support.scripted_judge import answer
from tests.support.paths import FIXTURES



@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pack") / "iustitia.json"
    assert main(["build", "iustitia", "--source", str(FIXTURES / "iustitia"), "--out", str(out)]) == 0
    return out


def test_two_judges_report_agreement_and_disagreements(pack, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with FakeOpenAI(answer=answer) as server:
        assert main(["run", "--pack", str(pack), "--target", "m", "--base-url", server.base_url, "--out", "out",
                     "--judge", "checklist", "--judge-model", "judge-correct", "--judge-model", "judge-pass",
                     "--judge-base-url", server.base_url, "--quiet", "--json"]) == 0
        panel_requests = [b for b in server.bodies if b["model"] == "judge-pass"]
    summary = json.loads(capsys.readouterr().out)
    record = RunRecord.load(tmp_path / "out" / "m.run.json")
    results = json.loads((tmp_path / "out" / "m.json").read_text(encoding="utf-8"))["results"]
    panel = record.summary.headline["panel"]
    # the second judge graded the very transcripts the run stored: same replies, judged once each
    assert len(panel_requests) == len(results) == panel["scenarios"] == 15
    for body, result in zip(panel_requests, results):
        assert result["conversation"][-1]["content"] in body["messages"][-1]["content"]
    # judge-correct fails every scenario here (no reply quotes the judgment); judge-pass passes all of them
    assert {r["severity"] for r in results} != {"pass"}
    failing = [r["scenario_name"] for r in results if r["severity"] != "pass"]
    assert [row["scenario"] for row in panel["disagreements"]] == failing
    assert all(row["verdicts"] == {"judge-correct": "fail", "judge-pass": "pass"} for row in panel["disagreements"])
    (pair,) = panel["pairwise_kappa"]
    assert pair["judges"] == ["judge-correct", "judge-pass"] and pair["agree"] == 15 - len(failing)
    assert [j["model"] for j in panel["judges"]] == ["judge-correct", "judge-pass"]
    assert panel["krippendorff_alpha"] is not None and panel["krippendorff_alpha"] < 0.5
    notes = summary["notes"]
    assert any(n.startswith("judge panel of 2: Krippendorff's alpha") for n in notes)
    assert sum(n.startswith("judges disagree on ") for n in notes) == len(failing)
    assert record.parameters["panel_models"] == ["judge-pass"]


def turn(role: str, content) -> dict:
    return {"role": role, "content": content}


@pytest.mark.parametrize("conversation, replies, follow_ups", [
    ([turn("user", "q1"), turn("assistant", "a1"), turn("user", "q2"), turn("assistant", "a2"),
      turn("user", "q3"), turn("assistant", None)], ("a1", "a2", ""), ("q2", "q3")),
    ([turn("user", "q1"), "not a turn", turn("assistant", "a1"), turn("user", None), turn("assistant", "a2")],
     ("a1", "a2"), ("",)),
    ([turn("user", "q1"), turn("user", "q2"), turn("assistant", "a1")], None, None),   # turns that do not pair
    ([turn("user", "q1")], None, None),                                                  # no reply: an ERROR
])
def test_a_transcript_replays_its_replies_and_follow_up_turns(conversation, replies, follow_ups):
    """The first user turn is the scenario's prompt; the later ones are the follow-ups the judge sees again."""
    scenario = {"name": "S 1", "severity": "high"}
    found = replayed(scenario, {"conversation": conversation})
    assert found == (None if replies is None else Replayed("S 1", scenario, replies, follow_ups))


def test_each_further_judge_grades_alone_in_one_turn_and_is_weighed_by_its_qualification(monkeypatch):
    """Over fakes of the grading and the qualification (each judge's status names the benchmark it was read for)."""
    graded, figures = [], {}

    async def grade(transcripts, config, **kwargs):
        graded.append((config.roles, kwargs))
        return SimpleNamespace(judge={"model": config.roles.judge_model},
                               verdicts={t.id: "fail" for t in transcripts})

    monkeypatch.setattr(judge_panel, "grade", grade)
    monkeypatch.setattr(judge_panel, "qualification", lambda judge, bench: {"status": f"{judge['model']}@{bench}"})
    monkeypatch.setattr(judge_panel, "panel_figures", lambda *args: figures.setdefault("args", args))
    config = run_config(judge_model="j1", panel_models=("j2",), max_turns=3, auditor_model="aud")
    scenario = {"name": "S 1"}
    result = {"severity": "pass", "conversation": [turn("user", "q"), turn("assistant", "a")]}
    manifest = {"builder": {"name": "iustitia"}}
    run_panel(config, manifest=manifest, scenarios=[scenario], results=[result], first_judge={"model": "j1"},
              embedded_url="http://127.0.0.1:5/v1", embedded_identity={"e": 1}, cache="cache")
    [(roles, kwargs)] = graded
    assert (roles.judge_model, roles.panel_models, roles.max_turns, roles.auditor_model) == ("j2", (), 1, None)
    assert kwargs == {"manifest": manifest, "embedded_url": "http://127.0.0.1:5/v1", "embedded_identity": {"e": 1},
                      "cache": "cache"}
    assert figures["args"] == (["S 1"], ["j1", "j2"], [["pass"], ["fail"]], ["j1@iustitia", "j2@iustitia"])
