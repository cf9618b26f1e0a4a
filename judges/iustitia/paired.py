"""Iustitia's paired comparison: micro and macro agreement (bootstrap over judgments) and McNemar's exact test."""

from __future__ import annotations

from typing import Any, Mapping

from auditpacks.judges.statistics.compare import compare_choices, paired_row
from auditpacks.judges.iustitia.run_tasks import tasks_from_scenarios


def judgment(scenario: Mapping[str, Any]) -> Any:
    """The judgment a scenario's question is about: its source document (None: none named)."""
    return (scenario.get("metadata") or {}).get("verdict_id")


def question(scenario: Mapping[str, Any]) -> Any:
    """The question a scenario asks (its metadata's ``question_id``; None: none)."""
    return (scenario.get("metadata") or {}).get("question_id")


def cluster(scenario: Mapping[str, Any]) -> str:
    """The judgment a scenario asks about (the bootstrap's cluster), as :func:`tasks_from_scenarios` reads it."""
    meta = scenario.get("metadata") or {}
    return str(meta.get("verdict_id") or meta.get("task_id") or scenario["name"])


def compare(paired: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]) -> list[dict[str, Any]]:
    """Rows for (scenario, result A, result B) triples; scenarios without a reference answer are left out."""
    tasks = {t["task_id"]: t for t in tasks_from_scenarios(s for s, _, _ in paired)}
    rows = []
    for scenario, ra, rb in paired:
        task = tasks.get((scenario.get("metadata") or {}).get("task_id") or scenario["name"])
        if task is None:  # ungraded: no reference answer
            continue
        accepted = set(task["accepted_options"])
        rows.append({"cluster": task["verdict_id"], "question": task["question_id"],
                     "a": (ra.get("judgment") or {}).get("choice") in accepted,
                     "b": (rb.get("judgment") or {}).get("choice") in accepted})
    stats = compare_choices(rows)
    n = stats["clusters"]
    return [paired_row("micro agreement", stats["micro"], stats["mcnemar_p"], tested=True, clusters=n),
            paired_row("macro agreement", stats["macro"], clusters=n),
            {**paired_row("discordant tasks", {"a": stats["a_only"], "b": stats["b_only"]}, stats["mcnemar_p"],
                          tested=True, clusters=n), "note": "right only in A / right only in B"}]
