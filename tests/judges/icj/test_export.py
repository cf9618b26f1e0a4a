"""Export round trip: fixture pack + canned replies -> simpleaudit AuditResults file -> predictions -> scores."""

from __future__ import annotations

import argparse
import json

import pytest
from simpleaudit import AuditResult, AuditResults

from auditpacks.judges.icj import export as icj_export
from auditpacks.runner.cli.main import main as cli
from auditpacks.judges.icj.citations import headline, make_judge
from auditpacks.core.io import read_jsonl
from auditpacks.core.runs.record import PackRef, Round, RunRecord
from auditpacks.judges.icj.score import score_files
from auditpacks.packs.icj import builder as icj
from auditpacks.core.errors import PackError
from auditpacks.packs.pack import load_pack
from tests.support.paths import FIXTURES

FIX = FIXTURES / "icj"
TEST = FIX / "data" / "test.jsonl"

# One canned reply per fixture target (pack order: 001, 003, 070, 131, 187).
REPLIES = [
    '```json\n{"citation_case_ids": [], "citation_provision_keys": ["statute:article_48", "statute:article_53"], '
    '"citation_resolution_symbols": []}\n```',
    '<think>Article 4 of the Charter.</think>{"citation_case_ids": ["1"], "citation_provision_keys": '
    '["charter:article_4"], "citation_resolution_symbols": []}',
    'The decision cites: {"citation_case_ids": ["001", "064"], "citation_provision_keys": ["charter:article_51"], '
    '"citation_resolution_symbols": ["A/RES/2625(XXV)"]} That is my answer.',
    "I cannot answer that.",
    '{"citation_case_ids": ["095"], "citation_provision_keys": ["statute:article_65"]}',
]


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    parser = argparse.ArgumentParser()
    icj.add_arguments(parser)
    out = tmp_path_factory.mktemp("pack") / "icj.json"
    return load_pack(icj.build(parser.parse_args(["--source", str(FIX), "--out", str(out)])))


def audit_result(scenario, reply, judge):
    """What the engine stores for one scenario graded in code (see simpleaudit's run_scenario)."""
    conversation = [{"role": "user", "content": scenario["test_prompt"]}, {"role": "assistant", "content": reply}]
    meta = {"severity": scenario["severity"], "category": scenario["category"], "metadata": scenario["metadata"]}
    j = judge["grade"](conversation=conversation, expected_behavior=scenario["expected_behavior"], scenario_meta=meta)
    return AuditResult(
        scenario_name=scenario["name"], scenario_description=scenario["description"], conversation=conversation,
        severity=j["severity"], issues_found=j["issues_found"], positive_behaviors=j["positive_behaviors"],
        summary=j["summary"], recommendations=j["recommendations"],
        expected_behavior=scenario["expected_behavior"], judgment=j,
    )


def error_result(scenario):
    judgment = {"severity": "ERROR", "issues_found": ["Scenario execution failed: TimeoutError: "],
                "summary": "Scenario did not complete", "recommendations": [], "error": "TimeoutError: "}
    return AuditResult(scenario_name=scenario["name"], scenario_description=scenario["description"],
                       conversation=[], severity="ERROR", issues_found=judgment["issues_found"], positive_behaviors=[],
                       summary=judgment["summary"], recommendations=[], judgment=judgment)


@pytest.fixture()
def run_dir(tmp_path, pack):
    """DIR/<model>.json and DIR/<model>.run.json as the runner writes them."""
    judge = make_judge(pack.manifest)
    AuditResults([audit_result(s, r, judge) for s, r in zip(pack.scenarios, REPLIES)]).save(
        str(tmp_path / "smollm2.json"))
    RunRecord(model="smollm2", provider="openai", pack=PackRef(name=pack.name, sha256=pack.sha256),
              judge="citations", fingerprint="f", parameters={"temperature": 0},
              rounds=[Round(round=1, seed=0, results="smollm2.json")]).save(tmp_path / "smollm2.run.json")
    return tmp_path


def export(*argv):
    """``auditpacks export icj ARGV``: the exit code (errors are reported by the command, as users see them)."""
    return cli(["export", "icj", *map(str, argv)])


def test_round_trip_scores_by_hand(run_dir, pack):
    assert AuditResults.load(str(run_dir / "smollm2.json")).results  # simpleaudit can still read the file
    out = run_dir / "predictions.jsonl"
    assert export(run_dir / "smollm2.json", "--out", out) == 0
    records = [r for _, r in read_jsonl(out)]
    assert [r["case_id"] for r in records] == ["001", "003", "070", "131", "187"]
    assert {(r["model_id"], r["condition"], r["round"]) for r in records} == {("smollm2", "parametric", 1)}
    assert [r["validation"]["status"] for r in records] == ["valid", "valid", "valid", "partial", "partial"]
    scores = score_files(out, TEST)
    entry = scores["results"]["smollm2"]["parametric"]
    got = {f: (entry[f]["tp"][0], entry[f]["fp"][0], entry[f]["fn"][0]) for f in ("case_ids", "provision_keys",
                                                                                   "resolution_symbols")}
    # cases:       003 "1" -> 001 is not gold (FP 1); 070 001+064 (TP 2); 131 FN 2; 187 095 (TP 1) FN 2
    # provisions:  001 TP 2 FN 3; 003 TP 1 FN 5; 070 TP 1 FN 3; 131 FN 4; 187 TP 1 FN 1 -> TP 5, FN 16
    # resolutions: 070 TP 1 FN 1; 131 FN 4; 187 FN 1 (field missing: partial)   -> TP 1, FN 6
    assert got == {"case_ids": (3, 1, 4), "provision_keys": (5, 0, 16), "resolution_symbols": (1, 0, 6)}
    assert entry["case_ids"]["f1"]["mean"] == 6 / 11  # 2*3 / (6 + 1 + 4)
    assert entry["provision_keys"]["f1"]["mean"] == 5 / 13  # 10 / (10 + 0 + 16)
    assert entry["resolution_symbols"]["recall"]["mean"] == 1 / 7
    # the run headline pools the same counts
    pairs = list(zip(pack.scenarios, json.loads((run_dir / "smollm2.json").read_text())["results"]))
    head = headline(pairs)
    assert (head["scored"], head["valid"], head["partial"], head["errors"]) == (5, 3, 2, 0)
    assert head["case_ids"]["f1"] == 6 / 11 and head["provision_keys"]["recall"] == 5 / 21


def test_overrides(run_dir):
    out = run_dir / "p.jsonl"
    assert export(run_dir / "smollm2.json", "--model-id", "m2", "--condition", "closed_book", "--round", 3,
                  "--out", out) == 0
    assert {(r["model_id"], r["condition"], r["round"]) for _, r in read_jsonl(out)} == {("m2", "closed_book", 3)}


def test_error_results(run_dir, pack, capsys):
    judge = make_judge(pack.manifest)
    results = [audit_result(s, r, judge) for s, r in zip(pack.scenarios[:4], REPLIES)] + [error_result(pack.scenarios[4])]
    AuditResults(results).save(str(run_dir / "smollm2.json"))
    out = run_dir / "p.jsonl"
    assert export(run_dir / "smollm2.json", "--out", out) == 0
    assert "left out 1 ERROR results" in capsys.readouterr().err
    assert len(read_jsonl(out)) == 4
    with pytest.raises(ValueError, match="answers 4 of 5 targets"):
        score_files(out, TEST)
    assert score_files(out, TEST, allow_partial=True)["results"]["smollm2"]["parametric"]["missing"] == [1]
    assert export(run_dir / "smollm2.json", "--errors-as-empty", "--out", out) == 0
    last = read_jsonl(out)[-1][1]
    assert last["validation"] == {"status": "error", "issues": ["TimeoutError: "]}
    assert score_files(out, TEST)["validation"] == {"error": 1, "partial": 1, "valid": 3}


def test_results_graded_by_another_judge_are_parsed_from_replies(pack):
    results = {"results": [{"scenario_name": s["name"], "severity": "low", "judgment": {"severity": "low"},
                            "conversation": [{"role": "assistant", "content": r}]}
                           for s, r in zip(pack.scenarios, REPLIES)]}
    records, skipped = icj_export.export_records(results, model_id="m")
    assert skipped == [] and records[2]["prediction"]["citation_case_ids"] == ["001", "064"]
    assert records[2]["target_document_id"] == pack.scenarios[2]["metadata"]["target_document_id"]
    assert records[3]["validation"] == {"status": "partial", "issues": ["no JSON object in the reply"]}


def test_rejects_duplicates_and_foreign_results(pack):
    result = {"scenario_name": pack.scenarios[0]["name"], "judgment": {"severity": "pass"}, "conversation": []}
    with pytest.raises(PackError, match=r"^r\.json result #1 \('ICJ 001 .*'\): target ICJ_001_\S+ repeats result #0$"):
        icj_export.export_records({"results": [result, result]}, model_id="m", source="r.json")
    foreign = {"scenario_name": "Civil Code Article 1 (ja) - Statute citation grounding [q0000]", "judgment": {}}
    with pytest.raises(PackError, match=r"result #0 .*: no case_id and target_document_id .* not an ICJ pack run$"):
        icj_export.export_records({"results": [foreign]}, model_id="m", source="r.json")
    with pytest.raises(PackError, match="not a simpleaudit results file"):
        icj_export.export_records([], model_id="m")


def test_needs_a_model_id(tmp_path, run_dir, capsys):
    (run_dir / "smollm2.run.json").unlink()
    out = tmp_path / "p.jsonl"
    assert export(run_dir / "smollm2.json", "--out", out) == 2
    assert "no model id; pass --model-id" in capsys.readouterr().err and not out.exists()
    (run_dir / "other.run.json").write_text(json.dumps({"model": "x", "repeat": "2"}))
    assert export(run_dir / "smollm2.json", "--run", run_dir / "other.run.json", "--out", out) == 2
    assert "other.run.json: a run record from before record_version" in capsys.readouterr().err


EMPTY = '{"citation_case_ids": [], "citation_provision_keys": [], "citation_resolution_symbols": []}'


def test_a_repeated_run_exports_every_round_and_scores_mean_and_sample_sd(run_dir, pack):
    """Round 1 gives case-id F1 6/11 (see the round trip above); round 2 cites nothing, F1 0."""
    judge = make_judge(pack.manifest)
    AuditResults([audit_result(s, EMPTY, judge) for s in pack.scenarios]).save(str(run_dir / "smollm2.round2.json"))
    record = RunRecord.load(run_dir / "smollm2.run.json")
    record.repeats, record.rounds = 2, record.rounds + [Round(round=2, seed=1, results="smollm2.round2.json")]
    record.save(run_dir / "smollm2.run.json")
    out = run_dir / "rounds.jsonl"
    assert export(run_dir / "smollm2.round2.json", "--out", out) == 0  # either round's file names the run
    records = [r for _, r in read_jsonl(out)]
    assert [r["round"] for r in records] == [1] * 5 + [2] * 5
    f1 = score_files(out, TEST)["results"]["smollm2"]["parametric"]["case_ids"]["f1"]
    assert f1["per_round"] == [6 / 11, 0.0]
    assert f1["mean"] == pytest.approx(3 / 11) and f1["std"] == pytest.approx((6 / 11) / 2 ** 0.5)
    assert export(run_dir / "smollm2.round2.json", "--round", "2", "--out", out) == 0  # one file, as round 2
    assert {r["round"] for _, r in read_jsonl(out)} == {2} and len(read_jsonl(out)) == 5
