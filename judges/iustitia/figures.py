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
    return rows + _calibration(h.get("calibration"))


def _calibration(c: Any) -> list[Figure]:
    """Calibration of a decision run's probabilities (judges/calibration.py has the definitions)."""
    if not isinstance(c, Mapping):
        return []
    ci = c.get("ci") or {}
    return [Figure("calibration error (ECE)", number(c.get("ece")), interval=interval(ci.get("ece")),
                   interval_name="95% CI, bootstrap over judgments",
                   meaning=f"mean |agreement − confidence| over {c.get('binning', 'bins')}, weighted by tasks"),
            Figure("Brier score", number(c.get("brier")), "ratio", interval=interval(ci.get("brier")),
                   interval_name="95% CI, bootstrap over judgments",
                   meaning="mean (confidence − correct)²; 0 is perfect, a constant 0.5 scores 0.25"),
            *_automation((c.get("risk_coverage") or {}).get("automation"))]


def _automation(a: Any) -> list[Figure]:
    if not isinstance(a, Mapping):
        return []
    return [Figure(f"coverage at {100 * a.get('target', 0):.0f}% agreement", number(a.get("coverage")),
                   meaning=f"tasks answered with confidence ≥ {a.get('threshold', 0):.3g}, where agreement is "
                           f"{100 * (a.get('agreement') or 0):.1f}% (threshold chosen on this run)")]
