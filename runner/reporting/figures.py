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
from auditpacks.judges.figures import figures
from auditpacks.judges.iustitia.agreement import tasks_from_scenarios
from auditpacks.judges.stats import cluster_bootstrap, ratio_bootstrap
from auditpacks.packs.icj.targets import FAMILIES
from auditpacks.runner.reporting.pairing import citation_counts
from auditpacks.runner.reporting.runs import LoadedRun


def headline_rows(run: LoadedRun, round_index: int = 0) -> list[dict[str, Any]]:
    """The run summary's figure rows (``judges.figures``) for the judge's own headline; ICJ F1 gains an
    interval that resamples targets (the headline has none)."""
    icj = icj_f1_intervals(run, round_index) if run.kind == "icj" else {}
    rows = []
    for f in figures(run.judge, run.headline(round_index)):
        interval, interval_name = f.interval, f.interval_name or ""
        if f.name == "F1" and f.group in icj and interval is None:
            interval, interval_name = icj[f.group], "95% CI, bootstrap over targets"
        ok = interval is not None and all(math.isfinite(x) for x in interval)
        rows.append({"figure": f.name + (f" ({f.group.replace('_', ' ')})" if f.group else ""), "value": f.value,
                     "unit": f.unit, "interval": list(interval) if ok else None,
                     "interval_name": interval_name if ok else "", "meaning": f.meaning})
    return rows


def icj_target_counts(run: LoadedRun, round_index: int = 0) -> dict[str, dict[str, Any]]:
    """Per target, the TP/FP/FN of each family (ERROR results left out, as in the headline)."""
    out = {}
    for scenario, result in run.pairs(round_index):
        if result.get("severity") == "ERROR" or (result.get("judgment") or {}).get("severity") == "ERROR":
            continue
        counts = citation_counts(scenario, result)
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
    """Agreement per question (correct ÷ tasks, as the card's micro) with a percentile interval that
    resamples the question's judgments (``ratio_bootstrap``: B = 2,000, seed 0), and coverage."""
    pairs = run.pairs(round_index)
    by_id = {(s.get("metadata") or {}).get("task_id") or s["name"]: r for s, r in pairs}
    cells: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for task in tasks_from_scenarios(s for s, _ in pairs):
        choice = (by_id[task["task_id"]].get("judgment") or {}).get("choice")
        valid = isinstance(choice, str) and (task["options"] is None or choice in task["options"])
        cell = cells[task["question_id"]][task["verdict_id"]]
        cell[0] += valid and choice in task["accepted_options"]
        cell[1] += 1
        cell[2] += valid
    rows = []
    for question, judgments in sorted(cells.items()):
        counts = [judgments[v] for v in sorted(judgments)]
        point, low, high = ratio_bootstrap([c[0] for c in counts], [c[1] for c in counts])
        tasks = sum(c[1] for c in counts)
        rows.append({"question": question, "tasks": tasks, "correct": sum(c[0] for c in counts),
                     "agreement": point, "ci": [low, high], "coverage": sum(c[2] for c in counts) / tasks})
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
