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


# -- in-process: the functions on fakes, without a server ---------------------------------------------------------

JUDGE = {"model": "jm", "provider": "openai", "base_url": "http://judge.test/v1", "api_key": "k"}
WHO = {"model": "jm", "provider": "openai", "base_url": "http://judge.test/v1"}


class FakeJudge:
    def record(self) -> dict:
        return dict(JUDGE)


def record(judge: str = "checklist", builder: str | None = "iustitia") -> RunRecord:
    from auditpacks.core.runs.record import PackRef

    made = RunRecord(model="m", provider="openai", judge=judge, pack=PackRef("p.json", "0" * 64, builder=builder),
                     fingerprint="f")
    made.summary.headline = {"score": 0.5}
    return made


def qualify(folder: Path, benchmark: str = "iustitia", **fields) -> None:
    from auditpacks.judges.trust import qualification_store

    qualification_store.save(folder, JUDGE, benchmark, {"qualified": True, "created": "2026-12-01", **fields})


@pytest.mark.parametrize("manifest, expected", [
    (None, None), ({}, None), ({"builder": {"name": "iustitia"}}, "iustitia"), ({"builder": "jacite"}, "jacite"),
    ({"builder": {"name": "icj"}}, None),  # icj has no calibration items
    ({"builder": {"name": "nope"}}, None)])
def test_benchmark_of_is_the_builder_with_calibration_items(manifest, expected):
    from auditpacks.runner.trust.judge_checks import benchmark_of

    assert benchmark_of(manifest) == expected


def test_an_unchecked_judge_has_its_identity_and_line_only(tmp_path):
    from auditpacks.runner.trust.judge_checks import qualification

    qualify(tmp_path)   # no file is looked up when the pack names no benchmark, not even one stored without one
    qualify(tmp_path, None)
    assert qualification(JUDGE, None, tmp_path) == {
        "status": "unchecked", "benchmark": None, "judge": WHO,
        "line": "judge jm: unchecked (the pack names no benchmark with calibration items)"}
    assert qualification(JUDGE, "jacite", tmp_path)["status"] == "unchecked"


@pytest.mark.parametrize("qualified, status", [(True, "qualified"), (False, "not qualified")])
def test_a_checked_judge_carries_its_file_figures_agreement_and_flip_rates(tmp_path, qualified, status):
    from auditpacks.runner.trust.judge_checks import qualification

    qualify(tmp_path, qualified=qualified, reasons=["kappa 0.10 below 0.60"], bar={"kappa": 0.6}, kappa=0.1,
            ungraded_share=0.05, skipped_probes=["length"], not_measured=["x"],
            expectations=[{"kind": "reference answer", "agreement": 0.9}, {"kind": "quote", "agreement": 0.5}],
            bias=[{"probe": "position", "flip_rate": 0.25}])
    found = qualification(JUDGE, "iustitia", tmp_path)
    assert found["status"] == status and found["benchmark"] == "iustitia" and found["judge"] == WHO
    assert found["file"].endswith(".iustitia.qualification.json") and found["created"] == "2026-12-01"
    assert (found["reasons"], found["bar"], found["kappa"]) == (["kappa 0.10 below 0.60"], {"kappa": 0.6}, 0.1)
    assert (found["ungraded_share"], found["skipped_probes"]) == (0.05, ["length"])
    assert found["agreement"] == {"reference answer": 0.9, "quote": 0.5}
    assert found["flip_rate"] == {"position": 0.25}
    assert "not_measured" not in found and found["line"].startswith(f"judge jm: {'qualified' if qualified else 'NOT'}")


def test_a_checked_judge_without_expectations_or_probes(tmp_path, monkeypatch):
    from auditpacks.runner.trust.judge_checks import qualification

    monkeypatch.chdir(tmp_path)
    qualify(tmp_path / "results" / "judges")   # the default folder, under the working directory
    found = qualification(JUDGE, "iustitia")
    assert found["status"] == "qualified" and found["agreement"] == {} and found["flip_rate"] == {}
    assert found["reasons"] is None and found["kappa"] is None


@pytest.mark.parametrize("judge, client", [("choice_match", FakeJudge()), ("checklist", None)])
def test_attach_leaves_a_code_judged_or_clientless_run_alone(tmp_path, capsys, judge, client):
    from auditpacks.runner.trust.judge_checks import attach

    made = record(judge)
    before = made.to_dict()
    attach(made, manifest={"builder": {"name": "iustitia"}}, judge=judge, judge_client=client, scenarios=[],
           results=[], folder=tmp_path, panel={"judges": ["a"], "krippendorff_alpha": 1.0, "disagreements": [],
                                               "scenarios": 0})
    assert made.to_dict() == before and capsys.readouterr().err == ""


@pytest.fixture(scope="module")
def iustitia_scenarios(tmp_path_factory) -> list[dict]:
    from tests.support.iustitia import build_pack

    return build_pack(tmp_path_factory.mktemp("iustitia"))


def reply(first_line: str, met: str) -> dict:
    """A result whose reply starts with ``first_line`` and whose judge marks expectation 1 ``met``."""
    return {"conversation": [{"role": "user", "content": "q"}, {"role": "assistant", "content": f"{first_line}\nq"}],
            "judgment": {"checklist": [{"index": 1, "status": met}, {"index": 2, "status": "violated"}]}}


def test_attach_records_a_qualified_judge_and_its_disagreement_with_code(tmp_path, capsys, iustitia_scenarios):
    from auditpacks.runner.trust.judge_checks import attach

    scenarios = [s for s in iustitia_scenarios if "'yes'" in s["expected_behavior"][0]][:3]
    qualify(tmp_path)
    made = record()
    names = iter(scenarios)
    # the judge says met on all three; code passes only the first ("yes" is the reference answer)
    attach(made, manifest={"builder": {"name": "iustitia"}}, judge="checklist", judge_client=FakeJudge(),
           scenarios=[s["name"] for s in scenarios], results=[reply("yes", "met"), reply("no", "met"),
                                                                 reply("no", "met")],
           load=lambda name: next(names), folder=tmp_path)
    assert capsys.readouterr().err == ""
    assert made.judge_qualification["status"] == "qualified"
    (row,) = made.summary.headline["judge_vs_code"]
    assert made.summary.headline["score"] == 0.5   # the grader's figures stay
    assert (row["expectation"], row["grader"], row["compared"], row["disagree"]) == (1, "choice_match", 3, 2)
    assert (row["judge_met_code_failed"], row["judge_violated_code_passed"]) == (2, 0)
    assert made.summary.notes[0] == made.judge_qualification["line"]
    assert made.summary.notes[1].startswith("judge vs choice_match on expectation 1: disagree on 2 of 3 scenarios")


def test_attach_warns_of_an_unchecked_judge_and_adds_a_panels_figures(tmp_path, capsys):
    from auditpacks.runner.trust.judge_checks import attach

    made = record(builder="jacite")
    panel = {"judges": ["a", "b"], "krippendorff_alpha": 0.5, "scenarios": 4,
             "disagreements": [{"scenario": "s1", "verdicts": {"a": "pass", "b": None}}]}
    attach(made, manifest={"builder": {"name": "jacite"}}, judge="checklist", judge_client=FakeJudge(),
           scenarios=["s"], results=[reply("yes", "met")], folder=tmp_path, panel=panel)
    line = "judge jm: unchecked on jacite (run `auditpacks judge-check` to qualify it)"
    assert capsys.readouterr().err == f"auditpacks: warning: {line}\n"
    assert made.summary.headline == {"score": 0.5, "panel": panel}   # jacite names no code check: no judge_vs_code
    assert made.summary.notes == [
        "judge panel of 2: Krippendorff's alpha 0.50; judges disagree on 1 of 4 scenarios (listed in the run file "
        "under summary.headline.panel.disagreements)", "judges disagree on s1: a pass, b ungraded", line]
    assert made.judge_qualification["status"] == "unchecked"


def test_attach_of_a_pack_without_a_benchmark_warns_and_compares_nothing(tmp_path, capsys):
    from auditpacks.runner.trust.judge_checks import attach

    made = record(builder=None)
    attach(made, manifest=None, judge="checklist", judge_client=FakeJudge(), scenarios=["s"],
           results=[reply("yes", "met")], folder=tmp_path)
    line = "judge jm: unchecked (the pack names no benchmark with calibration items)"
    assert capsys.readouterr().err == f"auditpacks: warning: {line}\n"
    assert made.summary.notes == [line] and made.summary.headline == {"score": 0.5}


def test_attach_hands_the_manifest_to_the_code_graders_and_skips_a_benchmark_without_any(tmp_path, monkeypatch):
    from auditpacks.runner.trust import judge_checks

    seen = []
    monkeypatch.setattr(judge_checks, "judge_vs_code", lambda pairs, checks, manifest: seen.append(
        (list(pairs), checks, manifest)) or [])
    manifest = {"builder": {"name": "iustitia"}, "grading": {"judge": "checklist"}}
    judge_checks.attach(record(), manifest=manifest, judge="checklist", judge_client=FakeJudge(), scenarios=["s"],
                        results=[{"r": 1}], load=lambda name: {"name": name}, folder=tmp_path)
    assert seen == [([({"name": "s"}, {"r": 1})], {1: "choice_match"}, manifest)]
    # a benchmark whose calibration module declares no CODE_CHECKS: nothing to compare
    monkeypatch.setattr(judge_checks, "modules", lambda role: {"toy": "json"})
    made = record(builder="toy")
    judge_checks.attach(made, manifest={"builder": "toy"}, judge="checklist", judge_client=FakeJudge(),
                        scenarios=["s"], results=[{"r": 1}], folder=tmp_path)
    assert len(seen) == 1 and "judge_vs_code" not in made.summary.headline
