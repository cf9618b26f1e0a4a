"""Score Iustitia Marigonae predictions: agreement with the reference coding, per the benchmark card.

Micro agreement (correct ÷ eligible tasks), macro agreement (mean of per-question
agreement), coverage as the card's scoring code computes it (``len(predictions) / n``:
predictions given, valid or not, ÷ eligible tasks) with the count of invalid answers
beside it, and the numbers of judgments and tasks, each rate with a 95% interval from a
seeded bootstrap that resamples whole judgments. Missing or invalid answers count as
incorrect; duplicate or unknown task ids are rejected. The same figures come from a
prediction file (``auditpacks score iustitia``) or from a run's results (:func:`headline`),
where a scenario with no result (skipped for an option or size limit), an ERROR result and
a reply with no readable choice are eligible tasks without a prediction. A run whose answers carry
probabilities (decision models) also gets ``calibration`` (:mod:`~auditpacks.judges.iustitia.calibration`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from auditpacks.core.errors import PackError
from auditpacks.core.io import atomic_write_json
from auditpacks.judges.iustitia.calibration import calibration
from auditpacks.judges.iustitia.run_tasks import choice_of, prediction_given, task_id_of, tasks_from_scenarios
from auditpacks.judges.statistics.stats import cluster_bootstrap

HEADLINE_KEYS = ("tasks", "judgments", "questions", "predictions", "invalid", "answered", "correct", "micro", "macro",
                 "coverage", "ci", "warnings")
#: The full track's figures a run that headlines the ≤26-option track gives beside it.
FULL_TRACK_KEYS = ("tasks", "judgments", "micro", "macro", "coverage", "ci")
#: Below this many judgments, percentile intervals are known to under-cover.
FEW_CLUSTERS = 30


def agreement(tasks: Iterable[Mapping[str, Any]], predictions: Mapping[str, Any], *, seed: int = 0,
              b: int = 2000, alpha: float = 0.05) -> dict[str, Any]:
    """Agreement of ``predictions`` (task_id → chosen key or None) with the tasks' accepted options.

    ``tasks`` are rows with task_id, verdict_id, question_id, accepted_options and
    optionally options (option keys, or ``{"key": ...}`` dicts): an answer outside
    them (or not a string) is invalid. A task without a prediction counts as incorrect
    and uncovered; an invalid one as incorrect but covered (the card: ``len(predictions) / n``).
    """
    rows = _tasks(tasks)
    unknown = sorted(set(predictions) - set(rows))
    if unknown:
        raise PackError(f"predictions: unknown task_id {unknown[0]!r} ({len(unknown)} unknown)")
    if not rows:
        raise PackError("no tasks to score")
    questions = sorted({t["question_id"] for t in rows.values()})
    column = {q: i for i, q in enumerate(questions)}
    clusters: dict[str, np.ndarray] = {}  # verdict → [correct, tasks, valid, given] per question
    for task_id, task in rows.items():
        choice = predictions.get(task_id)
        valid = isinstance(choice, str) and (task["options"] is None or choice in task["options"])
        cell = clusters.setdefault(task["verdict_id"], np.zeros((4, len(questions))))
        cell[:, column[task["question_id"]]] += (valid and choice in task["accepted"], 1, valid, task_id in predictions)
    per = np.sum(list(clusters.values()), axis=0)
    intervals = {name: cluster_bootstrap(clusters, statistic, b=b, seed=seed, alpha=alpha)
                 for name, statistic in (("micro", _micro), ("macro", _macro), ("coverage", _coverage))}
    warnings = []
    if len(clusters) < FEW_CLUSTERS:
        warnings.append(f"only {len(clusters)} judgments: judgment-bootstrap intervals under-cover with few clusters")
    return {
        "tasks": len(rows),
        "judgments": len(clusters),
        "questions": len(questions),
        "predictions": int(per[3].sum()),
        "invalid": int(per[3].sum() - per[2].sum()),
        "answered": int(per[2].sum()),
        "correct": int(per[0].sum()),
        **{name: point for name, (point, _, _) in intervals.items()},
        "ci": {name: [low, high] for name, (_, low, high) in intervals.items()},
        "ci_method": {"method": "percentile bootstrap resampling whole judgments", "b": b, "seed": seed,
                      "level": 1 - alpha},
        "per_question": {q: {"tasks": int(per[1, i]), "correct": int(per[0, i]),
                             "agreement": float(per[0, i] / per[1, i])} for q, i in column.items()},
        "warnings": warnings,
    }


def _micro(clusters: list[np.ndarray]) -> float:
    total = np.sum(clusters, axis=0)
    return float(total[0].sum() / total[1].sum())


def _macro(clusters: list[np.ndarray]) -> float:
    total = np.sum(clusters, axis=0)
    present = total[1] > 0
    return float(np.mean(total[0, present] / total[1, present]))


def _coverage(clusters: list[np.ndarray]) -> float:
    total = np.sum(clusters, axis=0)
    return float(total[3].sum() / total[1].sum())


def _tasks(tasks: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """task_id → {verdict_id, question_id, accepted, options}; duplicate ids raise."""
    out: dict[str, dict[str, Any]] = {}
    for task in tasks:
        task_id = task["task_id"]
        if task_id in out:
            raise PackError(f"tasks: duplicate task_id {task_id!r}")
        options = task.get("options")
        out[task_id] = {
            "verdict_id": task["verdict_id"],
            "question_id": task["question_id"],
            "accepted": set(task["accepted_options"]),
            "options": None if options is None else {o["key"] if isinstance(o, Mapping) else o for o in options},
        }
    return out


def read_predictions(path: str | Path, task_ids: set[str], *, track: str = "full") -> dict[str, Any]:
    """The card's predictions file, ``{"task_id": ..., "choice": ...}`` per line, checked line by line."""
    path = Path(path)
    first_line: dict[str, int] = {}
    out: dict[str, Any] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError(f"{path.name}: cannot read ({exc})") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path.name}: line {number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise PackError(f"{where}: invalid JSON ({exc.msg})") from None
        if not isinstance(record, dict) or not isinstance(record.get("task_id"), str) or "choice" not in record:
            raise PackError(f'{where}: expected {{"task_id": "...", "choice": "..."}}')
        task_id = record["task_id"]
        if task_id in first_line:
            raise PackError(f"{where}: duplicate task_id {task_id!r} (first on line {first_line[task_id]})")
        if task_id not in task_ids:
            raise PackError(f"{where}: unknown task_id {task_id!r} (not a task of the {track} track)")
        first_line[task_id] = number
        out[task_id] = record["choice"]
    return out


def predictions_from_results(results: Mapping[str, Any] | list, scenarios: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """task_id → choice from a run's results (AuditResults JSON, matched to scenarios by name);
    results without a prediction (ERROR, no readable choice) are left out."""
    by_name = {s["name"]: task_id_of(s) for s in scenarios}
    entries = results.get("results", []) if isinstance(results, Mapping) else results
    out: dict[str, Any] = {}
    seen: set[str] = set()
    for i, result in enumerate(entries):
        name = result.get("scenario_name")
        if name not in by_name:
            raise PackError(f"results: record #{i} field scenario_name: {name!r} is not a scenario of the pack")
        if by_name[name] in seen:
            raise PackError(f"results: record #{i} field scenario_name: {name!r} appears twice")
        seen.add(by_name[name])
        if prediction_given(result):
            out[by_name[name]] = choice_of(result)
    return out


def headline(pairs: list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]) -> dict[str, Any]:
    """The agreement figures of a run: pairs of (scenario, result dict, or None for a scenario that was
    skipped, e.g. over a decision endpoint's option or size limit). Skipped scenarios are eligible tasks
    with no prediction: they lower coverage and count as incorrect; ``skipped`` says how many.

    When some skipped tasks have more options than the codebook's ``max_options`` (the card's 26), the run
    could not take that track's questions at all: the figures are the ≤26-option track's (``track``
    ``le26``, the tasks within the limit), and the full track's, with those tasks counted wrong, are given
    beside them (``full_track``), as the card asks to score every model on one track."""
    tasks = tasks_from_scenarios(s for s, _ in pairs)
    if not tasks:
        return {"tasks": 0}
    graded = {t["task_id"] for t in tasks}
    predictions = {task_id_of(s): choice_of(r) for s, r in pairs if task_id_of(s) in graded and prediction_given(r)}
    skipped = [task_id_of(s) for s, r in pairs if r is None and task_id_of(s) in graded]
    limit = max_options()
    within = [t for t in tasks if len(t["options"] or ()) <= limit]
    over_limit = set(skipped) - {t["task_id"] for t in within}
    scores = agreement(tasks, predictions)
    figures = {**{key: scores[key] for key in HEADLINE_KEYS}, "skipped": len(skipped)}
    if over_limit and within:
        track = agreement(within, {k: v for k, v in predictions.items() if k not in over_limit})
        figures = {**{key: track[key] for key in HEADLINE_KEYS}, "track": "le26", "max_options": limit,
                   "skipped": len(skipped), "skipped_over_limit": len(over_limit),
                   "full_track": {key: scores[key] for key in FULL_TRACK_KEYS}}
    calibrated = calibration(pairs)
    return {**figures, "calibration": calibrated} if calibrated else figures


def choice_headline(pairs: list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]) -> dict[str, Any]:
    """The agreement figures of a run graded by ``choice``, and how its choices were read (``choice_methods``)."""
    from auditpacks.judges.choice import methods  # simpleaudit's parser: loaded only for choice runs

    return {**headline(pairs), "choice_methods": methods(pairs)}


def max_options() -> int:
    """The option limit of the ≤26-option track (the codebook's ``max_options``)."""
    from auditpacks.packs.codebook import section

    return int(section("iustitia")["max_options"])


def format_scores(scores: Mapping[str, Any]) -> str:
    """The card's report lines: tasks and judgments, coverage, micro and macro with their intervals."""
    def pct(name: str) -> str:
        low, high = scores["ci"][name]
        return f"{scores[name]:.1%} (95% CI {low:.1%}–{high:.1%})"

    lines = [f"tasks {scores['tasks']}, judgments {scores['judgments']}, questions {scores['questions']}"
             + (f", track {scores['track']}" if "track" in scores else ""),
             f"coverage {pct('coverage')}: {scores['predictions']} predictions for {scores['tasks']} tasks, "
             f"{scores['invalid']} invalid", f"micro    {pct('micro')}", f"macro    {pct('macro')}"]
    return "\n".join(lines + [f"warning: {w}" for w in scores.get("warnings", [])])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pred", required=True, type=Path, help='predictions.jsonl: {"task_id", "choice"} per line')
    parser.add_argument("--source", required=True, help="local copy (hf download layout) or hf:Kushtrim/iustitia-marigonae")
    parser.add_argument("--track", choices=("full", "le26"), default="full")
    parser.add_argument("--out", type=Path, help="write the scores as JSON")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument("--bootstrap", type=int, default=2000, metavar="B", help="bootstrap replicates (default 2000)")


def main(args: argparse.Namespace) -> int:
    """``auditpacks score iustitia``: print the card's figures (and write them with --out)."""
    from auditpacks.packs.codebook import section
    from auditpacks.packs.iustitia.source import open_source

    source = open_source(args.source, cache_dir=getattr(args, "cache_dir", None))
    index = source.task_index(args.track, section("iustitia")["max_options"])
    tasks = [{"task_id": t["task_id"], "verdict_id": t["verdict_id"], "question_id": t["question_id"],
              "accepted_options": t["accepted_options"], "options": t["option_keys"]} for t in index]
    predictions = read_predictions(args.pred, {t["task_id"] for t in tasks}, track=args.track)
    scores = {"track": args.track, **agreement(tasks, predictions, seed=args.seed, b=args.bootstrap)}
    print(format_scores(scores))
    if args.out:
        atomic_write_json(args.out, scores)
    return 0
