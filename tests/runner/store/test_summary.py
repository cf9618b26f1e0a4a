"""A run's counts: an ERROR result is one whose severity, or whose judgment's, is ERROR (worked out by hand)."""

from __future__ import annotations

from auditpacks.judges.figures import Headline
from auditpacks.judges.reader import Reader
from auditpacks.runner.store.summary import summarize


def result(name: str, severity: str, judgment: dict) -> dict:
    return {"scenario_name": name, "scenario_description": "d", "conversation": [], "severity": severity,
            "issues_found": [], "positive_behaviors": [], "summary": "", "recommendations": [], "judgment": judgment}


def test_errors_completion_and_the_commonest_error():
    results = [result("a", "pass", {"severity": "pass"}),
               result("b", "ERROR", {"severity": "ERROR", "error": "TimeoutError: read"}),
               result("c", "medium", {"severity": "ERROR", "error": "TimeoutError: read"}),
               result("d", "medium", {"severity": "medium"})]
    summary = summarize([{"name": n} for n in "abcde"], results, Headline(), Reader("choice_match"))
    assert (summary.scenarios, summary.completed, summary.errors) == (5, 2, 2)
    assert summary.completion == 0.4  # 2 completed of 5 selected
    assert summary.commonest_error == {"message": "TimeoutError: read", "count": 2}
    assert summary.verdicts == {"ERROR": 1, "medium": 2, "pass": 1}  # simpleaudit's own severities, as written
