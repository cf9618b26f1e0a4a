"""Iustitia tasks read from a run: the task rows of its scenarios, and the prediction each result holds.

Shared by the agreement figures, calibration, the report, the paired comparison and the export.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from auditpacks.core.runs.run_files import is_error


def tasks_from_scenarios(scenarios: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Task rows from scenarios with an answer key (ungraded ones are left out)."""
    out = []
    for scenario in scenarios:
        decision = scenario.get("decision") or {}
        meta = scenario.get("metadata") or {}
        accepted = decision.get("accepted") or meta.get("accepted_options")
        if not accepted:
            continue
        task_id = task_id_of(scenario)
        out.append({"task_id": task_id, "verdict_id": meta.get("verdict_id") or task_id,
                    "question_id": meta.get("question_id") or decision.get("id") or "answer",
                    "accepted_options": list(accepted), "options": list(decision.get("criteria") or []) or None})
    return out


def task_id_of(scenario: Mapping[str, Any]) -> str:
    """The task a scenario asks (its ``metadata.task_id``, else its name)."""
    return (scenario.get("metadata") or {}).get("task_id") or scenario["name"]


def choice_of(result: Mapping[str, Any] | None) -> Any:
    """The option a result's judgment read from the reply (None: none)."""
    return ((result or {}).get("judgment") or {}).get("choice")


def prediction_given(result: Mapping[str, Any] | None) -> bool:
    """Whether a run's result holds a prediction: it completed and a choice was read from the reply. Coverage,
    wherever it is shown, is the share of tasks with one (the card's ``len(predictions) / n``)."""
    if not result or is_error(result):
        return False
    return choice_of(result) is not None
