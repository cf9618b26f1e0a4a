"""Iustitia's pooled figures: agreement (micro, macro) and coverage with judgment-bootstrap intervals, and counts."""

from __future__ import annotations

from typing import Any, Mapping

from auditpacks.judges.figures import Figure, interval, leaves, number

#: Coverage as the card's scoring code computes it: ``len(predictions) / n``.
COVERAGE_MEANING = "predictions given, valid or not, ÷ questions (the card's len(predictions) / n)"
AGREEMENT = (
    ("micro", "agreement (micro)", "correct answers ÷ questions; unanswered count as wrong"),
    ("macro", "agreement (macro)", "mean of the per-question agreement: every question type weighs the same"),
    ("coverage", "coverage", COVERAGE_MEANING),
)


def figures(h: Mapping[str, Any]) -> list[Figure]:
    """The agreement headline (``agreement.headline``) as figures; another shape as its numeric leaves."""
    if not ("micro" in h and "ci" in h):
        return leaves(h)
    rows = [Figure(label, number(h.get(key)), interval=interval((h.get("ci") or {}).get(key)),
                   interval_name="95% CI, bootstrap over judgments", meaning=meaning)
            for key, label, meaning in AGREEMENT]
    rows += [Figure("tasks", number(h.get("tasks")), "count", meaning="questions graded"),
             Figure("judgments", number(h.get("judgments")), "count",
                    meaning="documents the questions come from (the bootstrap's clusters)")]
    rows += [Figure(key, number(h.get(key)), "count", meaning=meaning) for key, meaning in (
        ("invalid", "predictions that are not one of the question's options (covered, but wrong)"),
        ("skipped", "questions the endpoint could not take: no answer, counted wrong")) if key in h]
    return rows
