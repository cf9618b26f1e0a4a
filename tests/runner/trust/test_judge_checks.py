"""A checklist run finds its judge's qualification, warns when the judge is not qualified or unchecked, records
it, and reports how often the judge disagrees with choice_match on the reference-answer expectation."""

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


def run(pack: Path, server: FakeOpenAI, judge: str, out: Path, *extra: str) -> int:
    return main(["run", "--pack", str(pack), "--target", "m", "--base-url", server.base_url, "--out", str(out),
                 "--judge", "checklist", "--judge-model", judge, "--judge-base-url", server.base_url, "--quiet",
                 *extra])


def code_failures(pack: Path, out: Path) -> int:
    """Scenarios whose reply's first line is not an accepted option (choice_match's rule, read independently)."""
    accepted = {s["name"]: s["decision"]["accepted"] for s in json.loads(pack.read_text(encoding="utf-8"))}
    results = json.loads((out / "m.json").read_text(encoding="utf-8"))["results"]
    return sum(r["conversation"][-1]["content"].splitlines()[0] not in accepted[r["scenario_name"]] for r in results)


def test_a_judge_below_the_bar_is_warned_about_and_recorded(pack, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)   # qualification files live in results/judges
    with FakeOpenAI(answer=answer) as server:
        assert main(["judge-check", "--pack", str(pack), "--judge-model", "judge-pass", "--judge-base-url",
                     server.base_url]) == 4
        capsys.readouterr()
        assert run(pack, server, "judge-pass", tmp_path / "out") == 0
    err = capsys.readouterr().err
    assert "warning: judge judge-pass: NOT qualified on iustitia: agreement on" in err
    record = RunRecord.load(tmp_path / "out" / "m.run.json")
    found = record.judge_qualification
    assert found["status"] == "not qualified" and found["benchmark"] == "iustitia" and found["reasons"]
    assert found["file"].endswith(".iustitia.qualification.json") and found["agreement"]["fabricated quote"] == 0.0
    assert found["line"] in record.summary.notes
    (row,) = record.summary.headline["judge_vs_code"]
    failures = code_failures(pack, tmp_path / "out")
    # the always-pass judge meets expectation 1 everywhere: it disagrees exactly where choice_match fails
    assert (row["compared"], row["disagree"], row["judge_met_code_failed"]) == (15, failures, failures) and failures
    assert any(note.startswith("judge vs choice_match on expectation 1: disagree on") for note in record.summary.notes)
    # the report shows the qualification beside the checklist figures, and the disagreement as a figure
    assert main(["report", str(tmp_path / "out"), "--pack", str(pack), "--format", "md",
                 "--out", str(tmp_path / "report.md")]) == 0
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert f"Judge qualification: {found['line']}" in report
    rate = f"{100 * failures / 15:.1f}%"
    assert "judge vs choice_match disagreement" in report and rate in report


def test_an_unchecked_then_qualified_judge(pack, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with FakeOpenAI(answer=answer) as server:
        assert run(pack, server, "judge-correct", tmp_path / "before") == 0
        assert "judge judge-correct: unchecked on iustitia" in capsys.readouterr().err
        assert main(["judge-check", "--pack", str(pack), "--judge-model", "judge-correct", "--judge-base-url",
                     server.base_url]) == 0
        capsys.readouterr()
        assert run(pack, server, "judge-correct", tmp_path / "after", "--json") == 0
        printed = capsys.readouterr()
    assert "warning" not in printed.err
    assert any("judge judge-correct: qualified on iustitia" in n for n in json.loads(printed.out)["notes"])
    before = RunRecord.load(tmp_path / "before" / "m.run.json")
    after = RunRecord.load(tmp_path / "after" / "m.run.json")
    assert before.judge_qualification["status"] == "unchecked" and after.judge_qualification["status"] == "qualified"
    assert after.summary.headline["judge_vs_code"][0]["disagree"] == 0   # the correct judge reads choices as code does


def test_a_code_judged_run_records_no_qualification(pack, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with FakeOpenAI(answer=answer) as server:
        assert main(["run", "--pack", str(pack), "--target", "m", "--base-url", server.base_url, "--out",
                     str(tmp_path / "out"), "--quiet", "--limit", "2"]) == 0
    record = RunRecord.load(tmp_path / "out" / "m.run.json")
    assert record.judge == "choice_match" and record.judge_qualification is None
    assert "judge_vs_code" not in record.summary.headline
