"""End to end on the real embedded model for the fixture-built ICJ and Iustitia packs.

Shape only: SmolLM2 is a plumbing model, so the figures are whatever it answers; what
is checked is that every stage (build, check, run, grade, export, score) joins up.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from simpleaudit import AuditResults

from auditpacks.runner.cli.main import main
from auditpacks.runner.systemone.serve_decision import DecisionServer
from tests.support.paths import FIXTURES

pytestmark = pytest.mark.model


def no_errors(out: Path) -> bool:
    """Every scenario answered: an ERROR (a failed call) is a failed end-to-end run, not a skipped one."""
    results = AuditResults.load(str(out / "smollm2.json"))
    errors = [r.judgment.get("error") for r in results if r.severity == "ERROR"]
    assert len(results) > 0 and not errors, errors
    return json.loads((out / "smollm2.run.json").read_text())["summary"]["errors"] == 0


def build(tmp_path: Path, bench: str, *argv: str) -> Path:
    pack = tmp_path / f"{bench}.json"
    assert main(["build", bench, "--source", str(FIXTURES / bench), "--out", str(pack), *argv]) == 0
    assert main(["check", str(pack), "--quiet"]) == 0
    return pack


def test_icj_run_is_exported_and_scored(tmp_path, embedded_model):
    pack = build(tmp_path, "icj")
    out = tmp_path / "run"
    assert main(["run", "--pack", str(pack), "--target", "smollm2", "--base-url", embedded_model.base_url,
                 "--max-tokens", "64", "--out", str(out), "--quiet"]) == 0
    results = AuditResults.load(str(out / "smollm2.json"))
    assert len(results) == 5 and no_errors(out)
    assert all("counts" in r.judgment for r in results)
    predictions = tmp_path / "predictions.jsonl"
    assert main(["export", "icj", str(out / "smollm2.json"), "--out", str(predictions)]) == 0
    scores = tmp_path / "scores.json"
    assert main(["score", "icj", "--pred", str(predictions), "--test", str(FIXTURES / "icj" / "data" / "test.jsonl"),
                 "--allow-partial", "--out", str(scores)]) == 0
    assert "smollm2" in scores.read_text()


def test_iustitia_chat_run_with_the_choice_judge(tmp_path, embedded_model):
    pack = build(tmp_path, "iustitia", "--smoke")
    out = tmp_path / "run"
    assert main(["run", "--pack", str(pack), "--judge", "choice", "--target", "smollm2", "--base-url",
                 embedded_model.base_url, "--max-tokens", "32", "--out", str(out), "--quiet"]) == 0
    run = json.loads((out / "smollm2.run.json").read_text())
    assert run["summary"]["scenarios"] == 3 and run["judge"] == "choice" and no_errors(out)
    for result in AuditResults.load(str(out / "smollm2.json")):
        assert "choice_method" in result.judgment


def test_iustitia_decision_run_through_the_local_decision_server(tmp_path, embedded_model):
    pack = build(tmp_path, "iustitia")
    out = tmp_path / "run"
    with DecisionServer(embedded_model.base_url, model="smollm2") as server:
        assert main(["run", "--pack", str(pack), "--decision-url", f"{server.url}/v1/systemone",
                     "--target", "smollm2", "--limit", "2", "--out", str(out), "--quiet",
                     "--no-probe"]) == 0  # the probe adds about a minute on the embedded model
    # two questions (2 and 4 options) on one state: the second reads it from the server's prompt cache
    assert no_errors(out)
    decided = AuditResults.load(str(out / "smollm2.json"))
    assert len(decided) == 2
    for result in decided:
        assert result.judgment["choice_source"] == "decision"
        assert abs(sum(result.judgment["probabilities"].values()) - 1) < 0.01
        assert result.conversation[-1]["decision"]["confidence"] == result.judgment["confidence"]
