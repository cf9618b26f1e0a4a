"""How often the checklist judge disagrees with a code grader that assesses the same thing: a free, live
measure of judge error on every checklist run.

A benchmark names the checklist expectations a code grader also decides (its calibration
module's ``CODE_CHECKS``: e.g. an expectation "chooses the reference answer" is what
``choice_match`` grades). For each graded scenario the judge's status of that
expectation (met or violated; not applicable is left out) is set against the code grader's
verdict on the same transcript (pass or not; ungraded is left out).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from auditpacks.judges.statistics.stats import wilson_interval


def judge_vs_code(pairs: Iterable[tuple[Mapping[str, Any], Mapping[str, Any] | None]], checks: Mapping[int, str],
                  manifest: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Per checked expectation: scenarios compared, disagreements (in each direction), the disagreement rate
    and its 95% Wilson interval. ``checks``: expectation number (1-based) → code judge name."""
    graders = {number: code_grader(name, manifest) for number, name in checks.items()}
    rows = {number: {"expectation": number, "grader": name, "compared": 0, "disagree": 0,
                     "judge_met_code_failed": 0, "judge_violated_code_passed": 0} for number, name in checks.items()}
    for scenario, result in pairs:
        judgment = (result or {}).get("judgment") or {}
        statuses = {item.get("index"): item.get("status") for item in judgment.get("checklist") or []
                    if isinstance(item, Mapping)}
        for number, grade in graders.items():
            judge_met = {"met": True, "violated": False}.get(statuses.get(number))
            code_passed = grade(scenario, result.get("conversation") or []) if judge_met is not None else None
            if code_passed is None:
                continue
            row = rows[number]
            row["compared"] += 1
            if judge_met != code_passed:
                row["disagree"] += 1
                row["judge_met_code_failed" if judge_met else "judge_violated_code_passed"] += 1
    for row in rows.values():
        n = row["compared"]
        row["rate"] = row["disagree"] / n if n else None
        row["wilson95"] = list(wilson_interval(row["disagree"], n)) if n else None
    return list(rows.values())


def code_grader(name: str, manifest: Mapping[str, Any] | None):
    """``(scenario, conversation) -> True | False | None``: the code judge ``name``'s verdict (None: ungraded)."""
    from simpleaudit.decision import validate_decision
    from simpleaudit.judges import get_judge

    from auditpacks.core.registry import judge_module

    grade = get_judge(judge_module(name).make_judge(manifest))["grade"]

    def verdict(scenario: Mapping[str, Any], conversation: list[dict[str, Any]]) -> bool | None:
        if not scenario.get("decision") or not conversation:
            return None
        meta = {"severity": scenario.get("severity"), "category": scenario.get("category"),
                "metadata": scenario.get("metadata") or {}, "decision": validate_decision(scenario["decision"])}
        severity = grade(conversation=conversation, expected_behavior=scenario.get("expected_behavior"),
                         scenario_meta=meta).get("severity")
        return None if severity in ("ungraded", "ERROR", None) else severity == "pass"

    return verdict


def summary_line(row: Mapping[str, Any]) -> str:
    """One line for the run's summary."""
    if not row["compared"]:
        return f"judge vs {row['grader']} on expectation {row['expectation']}: nothing to compare"
    low, high = row["wilson95"]
    return (f"judge vs {row['grader']} on expectation {row['expectation']}: disagree on {row['disagree']} of "
            f"{row['compared']} scenarios ({row['rate']:.1%}, 95% Wilson {low:.1%}–{high:.1%}; judge met where "
            f"code failed {row['judge_met_code_failed']}, judge violated where code passed "
            f"{row['judge_violated_code_passed']})")
