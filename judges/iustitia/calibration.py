"""Calibration and selective automation of a decision run on Iustitia-style closed questions.

From a run's (scenario, result) pairs: each graded task whose result holds a prediction with a
probability gives a confidence (the chosen option's probability, ``probabilities[choice]``; the
answer's ``confidence`` field only where no probabilities were given, since some servers report
a rescaled confidence) and whether the choice is an accepted option. The judgment is the
cluster. Figures and their definitions: :mod:`auditpacks.judges.statistics.calibration`. Tasks with no
prediction are outside the calibration figures, but count in the risk–coverage table's
denominator (all eligible tasks).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from auditpacks.judges.statistics.calibration import BINNING, reliability, risk_coverage, scores
from auditpacks.judges.iustitia.run_tasks import choice_of, prediction_given, task_id_of, tasks_from_scenarios

#: Bootstrap replicates per question (the run's own figures use 2000): many questions, each cheap to show.
PER_QUESTION_B = 500
CONFIDENCE = "the chosen option's probability (the answer's confidence field where no probabilities were given)"


def confidence(result: Mapping[str, Any] | None) -> float | None:
    """The probability the result gave its own choice (None when it gave none)."""
    judgment = (result or {}).get("judgment") or {}
    probabilities, choice = judgment.get("probabilities"), judgment.get("choice")
    value = probabilities.get(choice) if isinstance(probabilities, Mapping) else None
    if value is None:
        value = judgment.get("confidence")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        return None
    return float(value)


def observations(pairs: list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
                 ) -> tuple[list[dict[str, Any]], int]:
    """(one row per task with a confidence: verdict, question, p, y; the number of eligible tasks)."""
    tasks = {t["task_id"]: t for t in tasks_from_scenarios(s for s, _ in pairs)}
    rows = []
    for scenario, result in pairs:
        task = tasks.get(task_id_of(scenario))
        p = confidence(result) if task is not None and prediction_given(result) else None
        if p is not None:
            rows.append({"verdict": task["verdict_id"], "question": task["question_id"], "p": p,
                         "y": int(choice_of(result) in set(task["accepted_options"]))})
    return rows, len(tasks)


def calibration(pairs: list[tuple[Mapping[str, Any], Mapping[str, Any] | None]], *, b: int = 2000,
                seed: int = 0) -> dict[str, Any] | None:
    """The run's calibration figures, reliability bins and risk–coverage table, overall and per question
    (None when no prediction carries a probability, as with chat models)."""
    rows, eligible = observations(pairs)
    if not rows:
        return None
    p, y = np.array([r["p"] for r in rows]), np.array([r["y"] for r in rows])
    verdict, question = np.array([r["verdict"] for r in rows]), np.array([r["question"] for r in rows])
    per_question = {}
    for q in sorted(set(question.tolist())):
        mine = question == q
        per_question[q] = scores(p[mine], y[mine], verdict[mine], b=min(b, PER_QUESTION_B), seed=seed)
    return {
        "binning": BINNING, "confidence": CONFIDENCE, "eligible": eligible,
        **scores(p, y, verdict, b=b, seed=seed),
        "reliability": reliability(p, y),
        "risk_coverage": risk_coverage(p, y, verdict, eligible, b=b, seed=seed),
        "per_question": per_question,
    }
