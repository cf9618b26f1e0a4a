"""jacite's report section: invented and real-but-not-gold rates per language, with question-bootstrap intervals."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Mapping

from auditpacks.core.runs.run_files import is_error
from auditpacks.judges.figures import Cell, Column, Figure, Plot, RunView, Section, Table, question_group
from auditpacks.judges.jacite.paired import question
from auditpacks.judges.statistics.stats import ratio_bootstrap

COLUMNS = [Column("Language"), Column("Questions", md=""), Column("Cited mentions"), Column("Invented", md=""),
           Column("Invented rate", md="Invented rate (question bootstrap 95%)"), Column("Real but not gold", md=""),
           Column("Real-not-gold rate", md="Real-not-gold rate (question bootstrap 95%)")]
NOTE = ('Rates are per cited mention; intervals resample whole questions. "Real but not gold": the article exists '
        'but is not the one asked about.')


def headline(run: RunView, round_index: int = 0) -> list[Figure]:
    return run.headline(round_index).figures


def per_language(run: RunView, round_index: int = 0) -> list[dict[str, Any]]:
    """Invented and real-but-wrong rates per mention, per language, with question-bootstrap intervals."""
    groups: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for scenario, result in run.pairs(round_index):
        j = result.get("judgment") or {}
        if not isinstance(j.get("n_cited"), int) or is_error(result):
            continue
        meta = scenario.get("metadata") or {}
        cell = groups[str(meta.get("language") or j.get("language") or "?")][str(question(scenario))]
        gold = sum(1 for key in j.get("cited") or [] if key == meta.get("gold_article"))
        cell[0] += j["n_invented"]
        cell[1] += j["n_cited"] - j["n_invented"] - gold
        cell[2] += j["n_cited"]
    rows = []
    for language, questions in sorted(groups.items()):
        cells = list(questions.values())
        den = [c[2] for c in cells]
        row: dict[str, Any] = {"language": language, "questions": len(cells), "cited": sum(den)}
        for name, index in (("invented", 0), ("real_not_gold", 1)):
            rate, low, high = ratio_bootstrap([c[index] for c in cells], den)
            row[name] = sum(c[index] for c in cells)
            row[name + "_rate"] = rate if math.isfinite(rate) else None
            row[name + "_ci"] = [low, high] if math.isfinite(low) else None
        rows.append(row)
    return rows


def section(run: RunView, round_index: int = 0) -> Section:
    rows = per_language(run, round_index)
    table = Table("Per language", COLUMNS, [
        [Cell(r["language"]), Cell(r["questions"], "count"), Cell(r["cited"], "count"), Cell(r["invented"], "count"),
         Cell(r["invented_rate"], "rate", r["invented_ci"], 2), Cell(r["real_not_gold"], "count"),
         Cell(r["real_not_gold_rate"], "rate", r["real_not_gold_ci"], 2)] for r in rows], note=NOTE)
    series = {"invented": ([r["invented_rate"] for r in rows], [r["invented_ci"] for r in rows]),
              "real but not the gold article": ([r["real_not_gold_rate"] for r in rows],
                                                [r["real_not_gold_ci"] for r in rows])}
    plots = [Plot("bars", [r["language"].upper() for r in rows], series, "share of cited mentions")] if rows else []
    return Section(tables=[table], plots=plots)


def answer(judgment: Mapping[str, Any]) -> str | None:
    """The article mentions cited, and those that do not exist (None: no grounding judgment)."""
    if "cited" not in judgment:
        return None
    cited = ", ".join(judgment.get("cited") or []) or "none"
    invented = ", ".join(judgment.get("invented") or [])
    return f"cited {cited}" + (f"; invented {invented}" if invented else "")


def group(scenario: Mapping[str, Any]) -> str:
    """The question a scenario asks."""
    return question_group(scenario, question)
