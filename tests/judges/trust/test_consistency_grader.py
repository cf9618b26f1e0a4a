"""The code grader of the judge-vs-code measure hands a code judge what a run hands it (the pack's manifest, the
transcript, the expected behaviour and the scenario's fields), and reads its verdict as pass, fail or ungraded;
the counts per expectation, worked out by hand on uneven data."""

from __future__ import annotations

import pytest
from simpleaudit.decision import validate_decision

from auditpacks.core import registry
from auditpacks.judges.trust.consistency import code_grader, judge_vs_code
from tests.support.tiny_pack import tiny_scenario

MANIFEST = {"builder": "tests", "name": "tiny"}


class SpyJudge:
    """A code judge module whose grade returns the severities given, in turn, and keeps what it was handed."""

    def __init__(self, *severities: str) -> None:
        self.severities, self.manifests, self.calls = list(severities), [], []

    def make_judge(self, manifest):
        self.manifests.append(manifest)

        def grade(**kwargs):
            self.calls.append(kwargs)
            return {"severity": self.severities.pop(0)}

        return {"name": "spy", "judge_prompt": "graded in code", "grade": grade}


@pytest.fixture()
def spy(monkeypatch):
    def install(*severities):
        judge = SpyJudge(*severities)
        monkeypatch.setattr(registry, "judge_module", lambda name: judge)
        return judge
    return install


def transcript(reply: str) -> list[dict]:
    return [{"role": "user", "content": "q"}, {"role": "assistant", "content": reply}]


def test_the_code_judge_gets_what_a_run_gives_it(spy):
    judge = spy("pass")
    scenario = {**tiny_scenario(0), "severity": "high", "category": "contract",
                "metadata": {"verdict_id": "V0"}, "expected_behavior": ["names the party"]}
    assert code_grader("spy", MANIFEST)(scenario, transcript("guilty")) is True
    assert judge.manifests == [MANIFEST]
    assert judge.calls == [{"conversation": transcript("guilty"), "expected_behavior": ["names the party"],
                            "scenario_meta": {"severity": "high", "category": "contract",
                                              "metadata": {"verdict_id": "V0"},
                                              "decision": validate_decision(scenario["decision"])}}]


def test_a_scenario_without_metadata_hands_an_empty_mapping(spy):
    judge = spy("high")
    scenario = {k: v for k, v in tiny_scenario(0).items() if k not in ("metadata", "expected_behavior")}
    assert code_grader("spy", None)(scenario, transcript("guilty")) is False
    assert judge.calls[0]["scenario_meta"]["metadata"] == {} and judge.calls[0]["expected_behavior"] is None


@pytest.mark.parametrize("severity, verdict", [("pass", True), ("medium", False), ("critical", False),
                                               ("ungraded", None), ("ERROR", None), (None, None)])
def test_the_code_verdict_is_pass_fail_or_ungraded(spy, severity, verdict):
    spy(severity)
    assert code_grader("spy", None)(tiny_scenario(0), transcript("x")) is verdict


def result(reply: str, *statuses: str | None) -> dict:
    return {"conversation": transcript(reply),
            "judgment": {"checklist": [{"index": i, "status": s} for i, s in enumerate(statuses, 1)]}}


def test_counts_per_expectation_on_uneven_data(spy):
    # the spy's verdicts, in call order: one per (scenario, expectation) the judge gave met or violated
    judge = spy("pass", "high", "pass", "high", "pass", "ERROR", "high", "high")
    s = tiny_scenario(0)
    pairs = [(s, result("a", "not_applicable", "met")),   # 1: not compared; 2: met / passed (agree)
             (s, result("b", "met", "violated")),         # 1: met / failed; 2: violated / passed
             (s, result("c", "violated", "met")),         # 1: violated / failed (agree); 2: met / passed (agree)
             (s, result("d", "met", "met")),              # 1: code ungraded (ERROR), not compared; 2: met / failed
             (s, result("e", "met"))]                     # 1: met / failed; 2: no status
    one, two = judge_vs_code(pairs, {1: "spy", 2: "spy"}, MANIFEST)
    assert judge.manifests == [MANIFEST, MANIFEST] and judge.severities == []
    assert one == {"expectation": 1, "grader": "spy", "compared": 3, "disagree": 2, "judge_met_code_failed": 2,
                   "judge_violated_code_passed": 0, "rate": pytest.approx(2 / 3), "wilson95": one["wilson95"]}
    assert two == {"expectation": 2, "grader": "spy", "compared": 4, "disagree": 2, "judge_met_code_failed": 1,
                   "judge_violated_code_passed": 1, "rate": 0.5, "wilson95": two["wilson95"]}
