"""Iustitia's report section: agreement and coverage per question, with judgment-bootstrap intervals, and its plot.

A question answered in fewer than three judgments has its interval withheld (``n/a``), and the section
says which questions (a bootstrap over one or two judgments says almost nothing).

Coverage is the card's (``len(predictions) / n``: predictions given, valid or not, ÷ tasks;
:func:`~auditpacks.judges.iustitia.run_tasks.prediction_given`), as in the headline; the
share of answers that are one of the question's options is shown apart as valid answers.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Mapping

from auditpacks.judges.figures import Cell, Column, Figure, Plot, RunView, Section, Table, question_group
from auditpacks.judges.iustitia.paired import question
from auditpacks.judges.iustitia.run_tasks import prediction_given, task_id_of, tasks_from_scenarios
from auditpacks.judges.statistics.sample_size import FEW_CLUSTERS
from auditpacks.judges.statistics.stats import ratio_bootstrap

COLUMNS = [Column("Question"), Column("Tasks"), Column("Correct"), Column("Agreement"),
           Column("Judgment bootstrap 95%"), Column("Coverage", md=""), Column("Valid answers", md="")]


def headline(run: RunView, round_index: int = 0) -> list[Figure]:
    return run.headline(round_index).figures


def per_question(run: RunView, round_index: int = 0) -> list[dict[str, Any]]:
    """Agreement per question (correct ÷ tasks, as the card's micro) with a percentile interval that
    resamples the question's judgments (``ratio_bootstrap``: B = 2,000, seed 0), coverage (predictions
    given ÷ tasks) and valid answers (answers that are one of the options ÷ tasks)."""
    pairs = run.pairs(round_index)
    by_id = {task_id_of(s): r for s, r in pairs}
    cells: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0, 0]))
    for task in tasks_from_scenarios(s for s, _ in pairs):
        result = by_id[task["task_id"]]
        choice = (result.get("judgment") or {}).get("choice")
        valid = isinstance(choice, str) and (task["options"] is None or choice in task["options"])
        cell = cells[task["question_id"]][task["verdict_id"]]
        cell[0] += valid and choice in task["accepted_options"]
        cell[1] += 1
        cell[2] += valid
        cell[3] += prediction_given(result)
    rows = []
    for question, judgments in sorted(cells.items()):
        counts = [judgments[v] for v in sorted(judgments)]
        point, low, high = ratio_bootstrap([c[0] for c in counts], [c[1] for c in counts])
        tasks = sum(c[1] for c in counts)
        rows.append({"question": question, "tasks": tasks, "correct": sum(c[0] for c in counts),
                     "agreement": point, "judgments": len(counts),
                     "ci": [low, high] if len(counts) >= FEW_CLUSTERS else None,   # withheld: too few to resample
                     "coverage": sum(c[3] for c in counts) / tasks, "valid": sum(c[2] for c in counts) / tasks})
    return rows


def section(run: RunView, round_index: int = 0) -> Section:
    rows = per_question(run, round_index)
    table = Table("Per question", COLUMNS, [
        [Cell(r["question"]), Cell(r["tasks"], "count"), Cell(r["correct"], "count"), Cell(r["agreement"], "%"),
         Cell(r["ci"], "interval"), Cell(r["coverage"], "%"), Cell(r["valid"], "%")] for r in rows])
    plots = [Plot("dots", [r["question"] for r in rows], {"agreement": ([r["agreement"] for r in rows],
                                                                       [r["ci"] for r in rows])},
                  "agreement with the reference (95% interval, judgments resampled)", 1.0)] if rows else []
    few = [r for r in rows if r["judgments"] < FEW_CLUSTERS]
    withheld = [f"per question: {len(few)} of {len(rows)} questions rest on fewer than {FEW_CLUSTERS} judgments "
                f"({', '.join(r['question'] for r in few[:5])}{' …' if len(few) > 5 else ''}); their intervals are "
                "withheld"] if few else []
    return Section(tables=[table], plots=plots,
                   warnings=run.headline(round_index).warnings + withheld)


def answer(judgment: Mapping[str, Any]) -> str | None:
    """The option read from the reply, and how it was read."""
    choice = judgment.get("choice")
    how = judgment.get("choice_method") or judgment.get("choice_source")
    return ("no choice read" if choice is None else f"chose {choice}") + (f" ({how})" if how else "")


def group(scenario: Mapping[str, Any]) -> str:
    """The question a scenario asks."""
    return question_group(scenario, question)
