"""Export a run of an Iustitia pack as the card's ``predictions.jsonl`` (``{"task_id", "choice"}`` per line).

``auditpacks export iustitia RESULTS.json [--pack PACK.json] --out predictions.jsonl``

The task id is the scenario's ``metadata.task_id`` when the pack is given, else read
from the scenario name (``<question ID> - <unit ID>`` → ``<unit ID>::<question ID>``).
The choice is the judgment's. A result without a prediction
(:func:`~auditpacks.judges.iustitia.run_tasks.prediction_given`: no option could be read)
is left out, so the scorer's coverage is the run's; ERROR results are left out with a
warning. The scorer counts a missing task wrong and uncovered.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterator, Mapping

from auditpacks.core.errors import PackError
from auditpacks.core.io import atomic_write_text
from auditpacks.core.runs.results import Result, iter_results
from auditpacks.judges.iustitia.run_tasks import prediction_given
from auditpacks.judges.run_reader import graded_results

SEPARATOR = " - "


def task_id_from_name(name: str) -> str | None:
    question, sep, unit = name.partition(SEPARATOR)
    return f"{unit}::{question}" if sep and question and unit and SEPARATOR not in unit else None


def export_predictions(results: Mapping[str, Any] | Iterator[Result], task_ids: Mapping[str, str] | None = None,
                       *, source: str = "results") -> tuple[list[dict[str, Any]], list[str]]:
    """Prediction records, and the names of the ERROR results left out (``results``: a results file's
    content, or its results streamed by :func:`~auditpacks.core.runs.results.iter_results`)."""
    records, skipped, seen = [], [], {}
    for i, result in graded_results(results, source):
        name = result.scenario_name
        task_id = (task_ids or {}).get(name) or task_id_from_name(name)
        if not task_id:
            raise PackError(f"{source} result #{i}: scenario_name {name!r} names no task; pass --pack")
        if task_id in seen:
            raise PackError(f"{source} result #{i}: task {task_id} repeats result #{seen[task_id]}")
        seen[task_id] = i
        if result.is_error:
            skipped.append(name)
            continue
        if not prediction_given(result.raw):
            continue
        records.append({"task_id": task_id, "choice": result.judgment.get("choice")})
    return records, skipped


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", type=Path, help="RESULTS.json written by a run (simpleaudit AuditResults)")
    parser.add_argument("--pack", type=Path, help="the pack the run ran (task ids from metadata.task_id)")
    parser.add_argument("--out", type=Path, required=True, help="predictions.jsonl to write")


def main(args: argparse.Namespace) -> int:
    task_ids = None
    if args.pack:
        from auditpacks.packs.pack import load_pack

        task_ids = {s["name"]: (s.get("metadata") or {}).get("task_id") for s in load_pack(args.pack).scenarios}
    records, skipped = export_predictions(iter_results(args.results), task_ids, source=args.results.name)
    atomic_write_text(args.out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    print(f"wrote {len(records)} predictions to {args.out}")
    if skipped:
        print(f"warning: left out {len(skipped)} ERROR results (first: {skipped[0]}); the scorer counts them "
              "as unanswered", file=sys.stderr)
    return 0
