"""A run's headline figures as rows people read: a name, a value, one named interval and what it means.

Each grader's ``headline`` returns its own shape (agreement with bootstrap intervals,
invented-citation rates per language, citation P/R/F1 per family, checklist counts);
:func:`figures` turns any of them into :class:`Figure` rows for the terminal table,
``--json`` and the report. A value that is undefined (nothing to divide by) stays
``None`` and is shown as ``n/a``. Verdict words (:func:`outcome`) say what a result
was (correct, wrong, invented, ungraded, error) instead of simpleaudit's severity.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Mapping

#: The verdict words, in the order they are shown.
OUTCOMES = ("correct", "wrong", "invented", "ungraded", "error")


@dataclass
class Figure:
    name: str
    value: float | int | None
    unit: str = "%"                 # % (a share, shown as a percentage), count, p (a p-value), ratio
    interval: tuple[float, float] | None = None
    interval_name: str | None = None
    meaning: str = ""
    group: str = ""                 # e.g. a language or a citation family

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["interval"] = list(self.interval) if self.interval else None
        return data


def outcome(result: Mapping[str, Any]) -> str:
    """One result's verdict word: error, ungraded, invented (cites something that does not exist),
    correct (simpleaudit's ``pass``) or wrong (any other severity)."""
    severity = result.get("severity")
    judgment = result.get("judgment") or {}
    if severity == "ERROR":
        return "error"
    if severity == "ungraded":
        return "ungraded"
    invented = judgment.get("n_invented")
    if isinstance(invented, int) and invented > 0:
        return "invented"
    return "correct" if severity == "pass" else "wrong"


def figures(judge: str, headline: Mapping[str, Any]) -> list[Figure]:
    """The headline figures of a run graded by ``judge`` (any unknown shape: its numeric leaves)."""
    if not headline or "error" in headline and len(headline) == 1:
        return []
    if "micro" in headline and "ci" in headline:
        return _agreement(headline)
    if judge == "citations" or "case_ids" in headline:
        return _citations(headline)
    if any(isinstance(v, Mapping) and "invented_rate" in v for v in headline.values()):
        return _grounding(headline)
    if "checklist items" in headline:
        return _checklist(headline)
    return _leaves(headline)


def _number(value: Any) -> float | int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if math.isfinite(value) else None


def _interval(pair: Any) -> tuple[float, float] | None:
    if isinstance(pair, (list, tuple)) and len(pair) == 2 and all(_number(v) is not None for v in pair):
        return float(pair[0]), float(pair[1])
    return None


AGREEMENT = (
    ("micro", "agreement (micro)", "correct answers ÷ questions; unanswered count as wrong"),
    ("macro", "agreement (macro)", "mean of the per-question agreement: every question type weighs the same"),
    ("coverage", "coverage", "predictions given, valid or not, ÷ questions (the card's len(predictions) / n)"),
)


def _agreement(h: Mapping[str, Any]) -> list[Figure]:
    rows = [Figure(label, _number(h.get(key)), interval=_interval((h.get("ci") or {}).get(key)),
                   interval_name="95% CI, bootstrap over judgments", meaning=meaning)
            for key, label, meaning in AGREEMENT]
    rows += [Figure("tasks", _number(h.get("tasks")), "count", meaning="questions graded"),
             Figure("judgments", _number(h.get("judgments")), "count",
                    meaning="documents the questions come from (the bootstrap's clusters)")]
    rows += [Figure(key, _number(h.get(key)), "count", meaning=meaning) for key, meaning in (
        ("invalid", "predictions that are not one of the question's options (covered, but wrong)"),
        ("skipped", "questions the endpoint could not take: no answer, counted wrong")) if key in h]
    return rows + _calibration(h.get("calibration"))


def _calibration(c: Any) -> list[Figure]:
    """Calibration of a decision run's probabilities (judges/calibration.py has the definitions)."""
    if not isinstance(c, Mapping):
        return []
    ci = c.get("ci") or {}
    return [Figure("calibration error (ECE)", _number(c.get("ece")), interval=_interval(ci.get("ece")),
                   interval_name="95% CI, bootstrap over judgments",
                   meaning=f"mean |agreement − confidence| over {c.get('binning', 'bins')}, weighted by tasks"),
            Figure("Brier score", _number(c.get("brier")), "ratio", interval=_interval(ci.get("brier")),
                   interval_name="95% CI, bootstrap over judgments",
                   meaning="mean (confidence − correct)²; 0 is perfect, a constant 0.5 scores 0.25"),
            *_automation((c.get("risk_coverage") or {}).get("automation"))]


def _automation(a: Any) -> list[Figure]:
    if not isinstance(a, Mapping):
        return []
    return [Figure(f"coverage at {100 * a.get('target', 0):.0f}% agreement", _number(a.get("coverage")),
                   meaning=f"tasks answered with confidence ≥ {a.get('threshold', 0):.3g}, where agreement is "
                           f"{100 * (a.get('agreement') or 0):.1f}% (threshold chosen on this run)")]


def _grounding(h: Mapping[str, Any]) -> list[Figure]:
    rows = []
    extractor = f"; {h['extractor']} extractor" if isinstance(h.get("extractor"), str) else ""
    for lang, g in h.items():
        if not (isinstance(g, Mapping) and "invented_rate" in g):
            continue
        boot = _interval(g.get("invented_bootstrap95"))
        rows += [
            Figure("invented rate", _number(g.get("invented_rate")),
                   interval=boot or _interval(g.get("invented_wilson95")),
                   interval_name="95% CI, bootstrap over questions" if boot else "95% Wilson interval",
                   meaning=f"cited article mentions that do not exist ({g.get('invented', 0)} of "
                           f"{g.get('cited', 0)}{extractor})", group=lang),
            *([Figure("real but not gold rate", _number(g.get("real_not_gold_rate")),
                      interval=_interval(g.get("real_not_gold_wilson95")), interval_name="95% Wilson interval",
                      meaning=f"cited mentions of existing articles other than the one asked about "
                              f"({g.get('real_not_gold', 0)} of {g.get('cited', 0)})", group=lang)]
              if "real_not_gold_rate" in g else []),
            Figure("gold article cited", _number(g.get("gold_hit_rate")),
                   interval=_interval(g.get("gold_hit_wilson95")), interval_name="95% Wilson interval",
                   meaning=f"answers citing the article asked about ({g.get('gold_hit', 0)} of "
                           f"{g.get('answered', 0)})", group=lang),
        ]
    pair = h.get("ja_vs_en")
    if isinstance(pair, Mapping):
        rows += [Figure("invented rate ratio", _number(pair.get("rate_ratio")), "ratio",
                        meaning="Japanese invented rate ÷ English", group="ja vs en"),
                 Figure("Fisher exact p", _number(pair.get("fisher_p")), "p",
                        meaning="two-sided test that the invented rates are equal", group="ja vs en")]
    return rows


def _citations(h: Mapping[str, Any]) -> list[Figure]:
    rows = []
    for family, c in h.items():
        if not (isinstance(c, Mapping) and "f1" in c):
            continue
        counts = f"pooled over targets (TP {c.get('tp', 0)}, FP {c.get('fp', 0)}, FN {c.get('fn', 0)})"
        rows += [Figure("F1", _number(c.get("f1")), meaning=counts, group=family),
                 Figure("precision", _number(c.get("precision")), meaning="cited items that are in the reference",
                        group=family),
                 Figure("recall", _number(c.get("recall")), meaning="reference items that were cited", group=family)]
    rows += [Figure("scored", _number(h.get("scored")), "count", meaning="targets with a parsed answer"),
             Figure("partial", _number(h.get("partial")), "count", meaning="answers with a missing or bad field")]
    rows += [Figure(key, _number(h.get(key)), "count", meaning=meaning) for key, meaning in (
        ("truncated", "answers cut off at the output-token limit (what came before the cut is scored)"),
        ("skipped", "targets not run")) if h.get(key)]
    return rows


CHECKLIST_STATUS = {"met": "expectations met", "violated": "expectations violated",
                    "not_applicable": "expectations not applicable"}
_VIOLATED = ("verified violations of required expectations; severity derived by simpleaudit, at most the "
             "scenario's designed severity")
VERDICT_MEANING = {
    "pass": "no verified violation of a required expectation",
    "low": _VIOLATED, "medium": _VIOLATED, "high": _VIOLATED, "critical": _VIOLATED,
    "ungraded": "the judge's reply could not grade the scenario (reasons below)",
    "ERROR": "the scenario failed (target or judge call); run again on resume",
    "skipped": "not run (the endpoint could not take it)",
}


def _checklist(h: Mapping[str, Any]) -> list[Figure]:
    rows = [Figure("pass rate", _number(h.get("pass_rate")), interval=_interval(h.get("pass_wilson95")),
                   interval_name="95% Wilson interval",
                   meaning=f"verdict pass ÷ graded scenarios ({h.get('graded', 0)} graded)")]
    rows += [Figure(f"verdict {severity}", _number(n), "count", meaning=VERDICT_MEANING.get(severity, ""))
             for severity, n in (h.get("verdicts") or {}).items()]
    rows += [Figure("nothing applicable", _number(h.get("all_not_applicable")), "count",
                    meaning="passes in which the judge found no required expectation applicable: check the judge")]
    rows += [Figure(CHECKLIST_STATUS.get(status, f"expectations {status}"), _number(n), "count",
                    meaning="checklist items the judge marked so, over all scenarios")
             for status, n in (h.get("checklist items") or {}).items()]
    rows += [Figure("ungraded", _number(n), "count", meaning=reason) for reason, n in (h.get("ungraded") or {}).items()]
    return rows


def _leaves(h: Mapping[str, Any], prefix: str = "") -> list[Figure]:
    rows = []
    for key, value in h.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            rows += _leaves(value, name + " ")
        elif value is None or _number(value) is not None:
            rows.append(Figure(name, _number(value), "count" if isinstance(value, int) else "ratio"))
    return rows
