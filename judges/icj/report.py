"""ICJ's report section: precision, recall and F1 per citation family and round, and F1 intervals over targets."""

from __future__ import annotations

import math
from typing import Any, Mapping

from auditpacks.core.runs.run_files import is_error
from auditpacks.judges.statistics.compare import f1_score
from auditpacks.judges.figures import Cell, Column, Figure, Plot, RunView, Section, Table
from auditpacks.judges.icj.figures import figures
from auditpacks.judges.icj.paired import case, citation_counts, target_of
from auditpacks.judges.statistics.stats import cluster_bootstrap
from auditpacks.packs.icj.targets import FAMILIES

COLUMNS = [Column("Round"), Column("Family"), Column("TP", md=""), Column("FP", md=""), Column("FN", md=""),
           Column("Precision"), Column("Recall"), Column("F1")]


def headline(run: RunView, round_index: int = 0) -> list[Figure]:
    """The headline figures; each family's pooled F1 gains an interval that resamples targets."""
    intervals = f1_intervals(run, round_index)
    rows = figures(run.headline(round_index).values)  # fresh rows: intervals are added to them
    for f in rows:
        if f.name == "F1" and f.group in intervals and f.interval is None and f.value is not None:
            low, high = intervals[f.group]
            if math.isfinite(low) and math.isfinite(high):
                f.interval, f.interval_name = (low, high), "95% CI, bootstrap over targets"
    return rows


def target_counts(run: RunView, round_index: int = 0) -> dict[str, dict[str, Any]]:
    """Per target, the TP/FP/FN of each family (ERROR results left out, as in the headline)."""
    out = {}
    for scenario, result in run.pairs(round_index):
        if is_error(result):
            continue
        counts = citation_counts(scenario, result)
        if counts:
            out[target_of(scenario)] = counts
    return out


def f1_intervals(run: RunView, round_index: int = 0) -> dict[str, list[float]]:
    """A percentile interval for each family's pooled F1, resampling targets."""
    counts = target_counts(run, round_index)
    out = {}
    for family in FAMILIES:
        def stat(drawn, family=family):
            return f1_score(*(sum(c[family][k] for c in drawn) for k in ("tp", "fp", "fn")))
        _, low, high = cluster_bootstrap(counts, stat)
        out[family] = [low, high]
    return out


def per_family(run: RunView) -> list[dict[str, Any]]:
    """P/R/F1 per family and round, from each round's headline."""
    rows = []
    for index in range(len(run.rounds)):
        h = run.headline(index).values
        for family in FAMILIES:
            if isinstance(h.get(family), Mapping):
                rows.append({"round": index + 1, "family": family.replace("_", " "), **h[family]})
    return rows


def section(run: RunView, round_index: int = 0) -> Section:
    """Every round's families in one table (so no per-round headline table besides it)."""
    rows = per_family(run)
    table = Table("Per family and round", COLUMNS, [
        [Cell(r["round"], "count"), Cell(r["family"]), Cell(r["tp"], "count"), Cell(r["fp"], "count"),
         Cell(r["fn"], "count"), Cell(r["precision"], "%"), Cell(r["recall"], "%"), Cell(r["f1"], "%")]
        for r in rows])
    rounds = len({r["round"] for r in rows}) > 1
    labels = [r["family"] + (f" r{r['round']}" if rounds else "") for r in rows]
    series = {m: ([r[m] for r in rows], [None] * len(rows)) for m in ("precision", "recall", "f1")}
    plots = [Plot("bars", labels, series, "pooled over targets", 1.0)] if rows else []
    return Section(tables=[table], plots=plots, per_round=False)


def answer(judgment: Mapping[str, Any]) -> str | None:
    """The predicted citations per family and the reply's F1 (None: no citations judgment)."""
    if not isinstance(judgment.get("prediction"), Mapping):
        return None
    parts = [f"{k.removeprefix('citation_').replace('_', ' ')}: {', '.join(v) or 'none'}"
             for k, v in judgment["prediction"].items() if isinstance(v, list)]
    f1 = judgment.get("f1_all")
    return "; ".join(parts) + f" (F1 {'n/a' if f1 is None else f'{f1:.3f}'})"


def group(scenario: Mapping[str, Any]) -> str:
    """The case a target belongs to."""
    return str(case(scenario) or scenario.get("name"))
