"""A checklist run with several judges: each further judge grades the same transcripts, and the run reports
their agreement and the scenarios where they disagree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditpacks.core.runs.record import RunRecord
from auditpacks.runner.cli.main import main
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
