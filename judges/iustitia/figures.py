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
    full = h.get("full_track") if h.get("track") == "le26" else None
    group = f"≤{h.get('max_options', 26)}-option track" if isinstance(full, Mapping) else ""
    rows = _agreement(h, group)
    rows += [Figure(key, number(h.get(key)), "count", meaning=meaning, group=group) for key, meaning in (
        ("invalid", "predictions that are not one of the question's options (covered, but wrong)"),) if key in h]
    if group:
        over = h.get("skipped_over_limit")
        rows += _agreement(full, "full track", f"; the {number(over)} questions over {h.get('max_options', 26)} "
                                               "options have no answer and count as wrong")
        rows.append(Figure("skipped", number(h.get("skipped")), "count", group="full track",
                           meaning=f"questions the endpoint could not take ({number(over)} over its option limit: "
                                   "left out of the headline track, counted wrong on the full track)"))
    elif "skipped" in h:
        rows.append(Figure("skipped", number(h.get("skipped")), "count",
                           meaning="questions the endpoint could not take: no answer, counted wrong"))
    return rows + _calibration(h.get("calibration"))


def _agreement(h: Mapping[str, Any], group: str, note: str = "") -> list[Figure]:
    """Agreement, coverage and the counts of one track."""
    rows = [Figure(label, number(h.get(key)), interval=interval((h.get("ci") or {}).get(key)),
                   interval_name="95% CI, bootstrap over judgments", meaning=meaning + note, group=group,
                   better="higher")
            for key, label, meaning in AGREEMENT]
    return rows + [Figure("tasks", number(h.get("tasks")), "count", meaning="questions graded", group=group),
                   Figure("judgments", number(h.get("judgments")), "count", group=group,
                          meaning="documents the questions come from (the bootstrap's clusters)")]


def _calibration(c: Any) -> list[Figure]:
    """Calibration of a decision run's probabilities (judges/statistics/calibration.py has the definitions)."""
    if not isinstance(c, Mapping):
        return []
    ci = c.get("ci") or {}
    return [Figure("calibration error (ECE)", number(c.get("ece")), interval=interval(ci.get("ece")),
                   interval_name="95% CI, bootstrap over judgments",
                   meaning=f"mean |agreement − confidence| over {c.get('binning', 'bins')}, weighted by tasks",
                   better="lower"),
            Figure("Brier score", number(c.get("brier")), "ratio", interval=interval(ci.get("brier")),
                   interval_name="95% CI, bootstrap over judgments",
                   meaning="mean (confidence − correct)²; 0 is perfect, a constant 0.5 scores 0.25", better="lower"),
            *_automation((c.get("risk_coverage") or {}).get("automation"))]


def _automation(a: Any) -> list[Figure]:
    if not isinstance(a, Mapping):
        return []
    return [Figure(f"coverage at {100 * a.get('target', 0):.0f}% agreement", number(a.get("coverage")),
                   meaning=f"tasks answered with confidence ≥ {a.get('threshold', 0):.3g}, where agreement is "
                           f"{100 * (a.get('agreement') or 0):.1f}% (threshold chosen on this run)", better="higher")]
