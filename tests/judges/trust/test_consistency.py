"""Judge-vs-code disagreement on hand-made transcripts: the judge's status of an expectation against the code
grader's verdict on the same reply."""

from __future__ import annotations

import pytest
from scipy.stats import binomtest

from auditpacks.judges.trust.consistency import judge_vs_code, summary_line
from tests.support.tiny_pack import tiny_scenario


def result(reply: str, status: str | None) -> dict:
    checklist = [] if status is None else [{"index": 1, "status": status}, {"index": 2, "status": "violated"}]
    return {"conversation": [{"role": "user", "content": "q"}, {"role": "assistant", "content": reply}],
            "judgment": {"checklist": checklist}}


def test_disagreements_are_counted_in_each_direction():
    scenario = tiny_scenario(0)          # accepts "guilty"
    pairs = [
        (scenario, result("guilty\nbecause", "met")),          # agree
        (scenario, result("acquitted\nbecause", "met")),       # judge met, code failed
        (scenario, result("guilty", "violated")),               # judge violated, code passed
        (scenario, result("dismissed", "violated")),            # agree
        (scenario, result("guilty", "not_applicable")),         # not compared
        (scenario, result("guilty", None)),                     # ungraded judgment: not compared
        (scenario, None),                                       # no result: not compared
    ]
    (row,) = judge_vs_code(pairs, {1: "choice_match"})
    assert (row["expectation"], row["grader"], row["compared"], row["disagree"]) == (1, "choice_match", 4, 2)
    assert (row["judge_met_code_failed"], row["judge_violated_code_passed"], row["rate"]) == (1, 1, 0.5)
    ci = binomtest(2, 4).proportion_ci(method="wilson")
    assert row["wilson95"] == pytest.approx([ci.low, ci.high], abs=1e-4)
    assert "disagree on 2 of 4 scenarios (50.0%" in summary_line(row)


def test_a_scenario_the_code_cannot_grade_is_left_out():
    no_decision = {k: v for k, v in tiny_scenario(0).items() if k != "decision"}
    (row,) = judge_vs_code([(no_decision, result("guilty", "met"))], {1: "choice_match"})
    assert (row["compared"], row["rate"], row["wilson95"]) == (0, None, None)
    assert summary_line(row).endswith("nothing to compare")
