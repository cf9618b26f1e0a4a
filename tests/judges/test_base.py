"""How a grader plugs into simpleaudit: the last reply of a transcript and the designed severity ceiling."""

import pytest

from auditpacks.judges.base import designed_severity, last_reply


def test_last_reply_is_the_last_assistant_message():
    conversation = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a1"},
                    {"role": "user", "content": "again"}, {"role": "assistant", "content": "a2", "decision": {}},
                    {"role": "user", "content": "no answer yet"}]
    assert last_reply(conversation) == {"role": "assistant", "content": "a2", "decision": {}}
    assert last_reply([{"role": "user", "content": "q"}]) == {}
    assert last_reply([]) == {} and last_reply(None) == {}


@pytest.mark.parametrize("severity, ceiling", [("low", "low"), ("critical", "critical"), ("high", "high"),
                                               (None, "medium"), ("severe", "medium"), ("", "medium")])
def test_designed_severity(severity, ceiling):
    assert designed_severity({"severity": severity}) == ceiling
    assert designed_severity({}) == "medium"


def test_the_pass_rate_is_over_graded_scenarios_with_its_wilson_interval():
    from scipy.stats import binomtest

    from auditpacks.judges.base import pass_rate, pass_rate_figures

    # 3 pass, 1 low, 1 ungraded, 1 ERROR, 1 skipped: 4 graded, 3 of them pass
    severities = ["pass", "pass", "low", "ungraded", "pass", "ERROR", None]
    pooled = pass_rate([({"name": str(i)}, None if s is None else {"severity": s}) for i, s in enumerate(severities)])
    assert pooled["verdicts"] == {"pass": 3, "low": 1, "ungraded": 1, "ERROR": 1, "skipped": 1}
    assert pooled["graded"] == 4 and pooled["pass_rate"] == 0.75
    low, high = binomtest(3, 4).proportion_ci(method="wilson")
    assert pooled["pass_wilson95"] == pytest.approx([low, high], abs=1e-4)
    rows = pass_rate_figures(pooled, {"low": "a real but unasked answer"})
    assert [(f.name, f.value) for f in rows] == [("pass rate", 0.75), ("verdict pass", 3), ("verdict low", 1),
                                                 ("verdict ungraded", 1), ("verdict ERROR", 1), ("verdict skipped", 1)]
    assert rows[0].meaning == "verdict pass ÷ graded scenarios (4 graded)"
    assert rows[2].meaning == "a real but unasked answer"
    assert pass_rate([]) == {"verdicts": {}, "graded": 0, "pass_rate": None, "pass_wilson95": None}
    assert [f.name for f in pass_rate_figures({"n": 2})] == ["n"]   # another shape: its numeric leaves


def test_a_code_judge_grades_the_last_reply_with_its_verdict_function():
    from auditpacks.judges.base import code_judge

    seen = []

    def verdict(scenario, reply):
        seen.append((scenario, reply))
        return {"severity": "pass"}

    config = code_judge("exact", "Exact match.", verdict)
    assert {k: v for k, v in config.items() if k != "grade"} == {
        "name": "exact", "description": "Exact match.", "output": "binary",
        "judge_prompt": "Graded in code by auditpacks (exact); no judge model is called."}
    conversation = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "A"}]
    assert config["grade"](conversation=conversation, scenario_meta={"severity": "high"}) == {"severity": "pass"}
    assert config["grade"](conversation=conversation, expected_behavior=["x"]) == {"severity": "pass"}
    assert seen == [({"severity": "high"}, {"role": "assistant", "content": "A"}),
                    ({}, {"role": "assistant", "content": "A"})]


def test_pass_rate_figures_carry_the_interval_and_which_way_is_better():
    from auditpacks.judges.base import pass_rate_figures

    rate, count = pass_rate_figures({"pass_rate": 0.5, "pass_wilson95": [0.2, 0.8], "verdicts": {"pass": 1}})
    assert (rate.unit, rate.interval, rate.interval_name, rate.better) == ("%", (0.2, 0.8), "95% Wilson interval",
                                                                            "higher")
    assert rate.meaning == "verdict pass ÷ graded scenarios (0 graded)"
    assert (count.name, count.value, count.unit, count.meaning, count.better) == ("verdict pass", 1, "count", "", "")
    none = pass_rate_figures({"pass_rate": None, "pass_wilson95": None, "graded": 0, "verdicts": None})
    assert [(f.name, f.value, f.interval) for f in none] == [("pass rate", None, None)]
