"""A run's figures for people: headline rows (value, one named interval, what it means) and detail tables.

Headline values come from the judge's own ``headline(pairs)``, the function the run
summary uses; the detail tables add per-question, per-language and per-family
breakdowns with intervals that resample the same clusters as the headline's.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Mapping

from auditpacks.judges.compare import f1_score
from auditpacks.judges.iustitia.agreement import agreement, tasks_from_scenarios
from auditpacks.judges.stats import cluster_bootstrap, ratio_bootstrap
from auditpacks.packs.icj.targets import FAMILIES
from auditpacks.runner.reporting.pairing import _counts
from auditpacks.runner.reporting.runs import LoadedRun

MEANING = {
    "micro": "Share of graded tasks where the model chose the reference answer (missing or invalid answers count "
             "as wrong).",
    "macro": "Mean over questions of each question's agreement: every question weighs the same.",
    "coverage": "Share of tasks answered with one of the task's own options.",
    "invented": "Cited article mentions that do not exist in the question's law ÷ all cited mentions.",
    "gold": "Share of answered questions whose citations include the article asked about.",
    "f1": "Exact set match of predicted citations against the reference, TP/FP/FN pooled over targets.",
}
JUDGMENT_BOOTSTRAP = "judgment bootstrap 95%"


def row(figure: str, value: Any, interval: Any = None, interval_name: str = "", meaning: str = "",
        count: str = "", *, rate: bool = True) -> dict[str, Any]:
    """One headline figure; ``rate``: shown as a percentage (else as a plain number)."""
    ok = isinstance(interval, (list, tuple)) and all(isinstance(x, (int, float)) and math.isfinite(x)
                                                   for x in interval)
    return {"figure": figure, "value": value, "interval": list(interval) if ok else None,
            "interval_name": interval_name if ok else "", "meaning": meaning, "count": count,
            "rate": rate and isinstance(value, float)}


def headline_rows(run: LoadedRun, round_index: int = 0) -> list[dict[str, Any]]:
    h = run.headline(round_index)
    if run.kind == "choice":
        if not h.get("tasks"):
            return [row("graded tasks", None, meaning="No scenario of this run has a reference answer.")]
        ci = h.get("ci") or {}
        count = f"{h['correct']}/{h['tasks']} tasks, {h['judgments']} judgments, {h['questions']} questions"
        return [row("micro agreement", h["micro"], ci.get("micro"), JUDGMENT_BOOTSTRAP, MEANING["micro"], count),
                row("macro agreement", h["macro"], ci.get("macro"), JUDGMENT_BOOTSTRAP, MEANING["macro"]),
                row("coverage", h["coverage"], ci.get("coverage"), JUDGMENT_BOOTSTRAP, MEANING["coverage"],
                    f"{h['answered']}/{h['tasks']} answered")]
    if run.kind == "jacite":
        rows = []
        for lang, g in h.items():
            if lang == "ja_vs_en" or not isinstance(g, Mapping):
                continue
            rows.append(row(f"invented rate ({lang})", g.get("invented_rate"), g.get("invented_bootstrap95"),
                            "question bootstrap 95%", MEANING["invented"], f"{g['invented']}/{g['cited']} mentions"))
            rows.append(row(f"gold article cited ({lang})", g.get("gold_hit_rate"), g.get("gold_hit_wilson95"),
                            "Wilson 95%", MEANING["gold"], f"{g['gold_hit']}/{g['answered']} answers"))
        versus = h.get("ja_vs_en")
        if isinstance(versus, Mapping):
            rows.append(row("JA vs EN invented, Fisher p", versus.get("fisher_p"),
                            meaning="Two-sided Fisher exact test on invented vs other mentions, Japanese vs English "
                                    "(treats mentions as independent).",
                            count=f"rate ratio {_plain(versus.get('rate_ratio'))}", rate=False))
        return rows
    if run.kind == "icj":
        intervals = icj_f1_intervals(run, round_index)
        return [row(f"F1 {family.replace('_', ' ')}", h[family]["f1"], intervals.get(family),
                    "target bootstrap 95%", MEANING["f1"],
                    f"TP {h[family]['tp']}, FP {h[family]['fp']}, FN {h[family]['fn']}")
                for family in FAMILIES if isinstance(h.get(family), Mapping)]
    return [row(str(key), value, rate=False) for key, value in h.items()]


def _plain(value: Any) -> str:
    return "n/a" if value is None else f"{value:.3g}" if isinstance(value, float) else str(value)


def icj_target_counts(run: LoadedRun, round_index: int = 0) -> dict[str, dict[str, Any]]:
    """Per target, the TP/FP/FN of each family (ERROR results left out, as in the headline)."""
    out = {}
    for scenario, result in run.pairs(round_index):
        if result.get("severity") == "ERROR" or (result.get("judgment") or {}).get("severity") == "ERROR":
            continue
        counts = _counts(scenario, result)
        if counts:
            out[(scenario.get("metadata") or {}).get("target_document_id") or scenario["name"]] = counts
    return out


def icj_f1_intervals(run: LoadedRun, round_index: int = 0) -> dict[str, list[float]]:
    """A percentile interval for each family's pooled F1, resampling targets."""
    counts = icj_target_counts(run, round_index)
    out = {}
    for family in FAMILIES:
        def stat(drawn, family=family):
            return f1_score(*(sum(c[family][k] for c in drawn) for k in ("tp", "fp", "fn")))
        _, low, high = cluster_bootstrap(counts, stat)
        out[family] = [low, high]
    return out


def per_question(run: LoadedRun, round_index: int = 0) -> list[dict[str, Any]]:
    """Iustitia-style: agreement per question with an interval resampling the question's judgments."""
    pairs = run.pairs(round_index)
    tasks = tasks_from_scenarios(s for s, _ in pairs)
    by_id = {(s.get("metadata") or {}).get("task_id") or s["name"]: r for s, r in pairs}
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for task in tasks:
        grouped[task["question_id"]].append(task)
    rows = []
    for question, q_tasks in sorted(grouped.items()):
        choices = {t["task_id"]: (by_id[t["task_id"]].get("judgment") or {}).get("choice") for t in q_tasks}
        scores = agreement(q_tasks, choices, b=1000)
        rows.append({"question": question, "tasks": scores["tasks"], "correct": scores["correct"],
                     "agreement": scores["micro"], "ci": scores["ci"]["micro"], "coverage": scores["coverage"]})
    return rows


def per_language(run: LoadedRun, round_index: int = 0) -> list[dict[str, Any]]:
    """jacite: invented and real-but-wrong rates per mention, per language, with question-bootstrap intervals."""
    groups: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for scenario, result in run.pairs(round_index):
        j = result.get("judgment") or {}
        if not isinstance(j.get("n_cited"), int) or result.get("severity") == "ERROR":
            continue
        meta = scenario.get("metadata") or {}
        cell = groups[str(meta.get("language") or j.get("language") or "?")][str(meta.get("question_id"))]
        gold = sum(1 for key in j.get("cited") or [] if key == meta.get("gold_article"))
        cell[0] += j["n_invented"]
        cell[1] += j["n_cited"] - j["n_invented"] - gold
        cell[2] += j["n_cited"]
    rows = []
    for language, questions in sorted(groups.items()):
        cells = list(questions.values())
        den = [c[2] for c in cells]
        figures = {"language": language, "questions": len(cells), "cited": sum(den)}
        for name, index in (("invented", 0), ("real_not_gold", 1)):
            rate, low, high = ratio_bootstrap([c[index] for c in cells], den)
            figures[name] = sum(c[index] for c in cells)
            figures[name + "_rate"] = rate if math.isfinite(rate) else None
            figures[name + "_ci"] = [low, high] if math.isfinite(low) else None
        rows.append(figures)
    return rows


def per_family(run: LoadedRun) -> list[dict[str, Any]]:
    """ICJ: P/R/F1 per family and round, from each round's headline."""
    rows = []
    for index in range(len(run.rounds)):
        h = run.headline(index)
        for family in FAMILIES:
            if isinstance(h.get(family), Mapping):
                rows.append({"round": index + 1, "family": family.replace("_", " "), **h[family]})
    return rows
