"""Export a run of an ICJ pack as prediction records the benchmark's scorer reads.

``auditpacks export icj RESULTS.json [--run RUN.json] [--model-id ID] [--condition C] [--round N] --out P.jsonl``

A run with ``--repeats N`` is exported whole: one record per target and round, from
each round's results file the run record lists, so ``score icj`` gives the mean
and sample standard deviation over rounds as the card does.

Reads a simpleaudit ``AuditResults`` file and writes one record per result in
the dataset card's format (``case_id``, ``target_document_id``, ``model_id``,
``condition``, ``round``, ``prediction``) plus ``validation`` {status, issues}.
The prediction comes from the ``citations`` judgment, or is parsed from the
last reply when another judge graded the run. ERROR results are left out (the
scorer then reports the gap) unless ``--errors-as-empty`` is given.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterator, Mapping

from auditpacks.core.errors import PackError
from auditpacks.core.io import atomic_write_text
from auditpacks.core.runs.record import RunRecord
from auditpacks.core.runs.results import Result, iter_results, typed
from auditpacks.judges.base import last_reply
from auditpacks.judges.icj.citations import read_answer
from auditpacks.judges.run_reader import model_of, record_of
from auditpacks.packs.icj.builder import parse_scenario_name
from auditpacks.packs.icj.targets import FAMILIES, PRED_FIELDS

DEFAULT_CONDITION = "parametric"


def rounds_to_export(results: Path, run: RunRecord | None, round_override: int | None) -> list[tuple[int, Path]]:
    """(round, results file) pairs: every round of a repeated run, else the one file given (its round from
    the run record, or ``--round``, or 1)."""
    if run is not None and run.repeats > 1 and round_override is None:
        if results.name not in {r.results for r in run.rounds}:
            raise PackError(f"{results.name}: not one of the run's results files "
                            f"({', '.join(r.results for r in run.rounds)})")
        return [(r.round, results.with_name(r.results)) for r in run.rounds]
    own = next((r.round for r in (run.rounds if run else []) if r.results == results.name), 1)
    return [(round_override or own, results)]


def _answer(result: Result, errors_as_empty: bool) -> tuple | None:
    """(prediction, validation) for one result; None for an ERROR result that is left out."""
    judgment = result.judgment
    if result.is_error:
        if not errors_as_empty:
            return None
        reason = str(judgment.get("error") or "the scenario did not complete")
        return {PRED_FIELDS[f]: [] for f in FAMILIES}, {"status": "error", "issues": [reason]}
    if isinstance(judgment.get("prediction"), Mapping) and isinstance(judgment.get("validation"), Mapping):
        return dict(judgment["prediction"]), dict(judgment["validation"])
    reply = last_reply(result.conversation)
    return read_answer(reply.get("content"), reply.get("finish_reason"))


def export_records(
    results: Mapping[str, Any] | Iterator[Result],
    *,
    model_id: str,
    rnd: int = 1,
    condition: str | None = None,
    errors_as_empty: bool = False,
    source: str = "results",
) -> tuple[list[dict[str, Any]], list[str]]:
    """Prediction records for a results file's content (or its results streamed by
    :func:`~auditpacks.core.runs.results.iter_results`), and the names of the ERROR results left out."""
    records, skipped, seen = [], [], {}
    for i, result in enumerate(typed(results, source)):
        name, judgment = result.scenario_name, result.judgment
        label = f"{source} result #{i} ({name!r})"
        from_name = parse_scenario_name(name) or {}
        case_id = judgment.get("case_id") or from_name.get("case_id")
        doc_id = judgment.get("target_document_id") or from_name.get("target_document_id")
        if not case_id or not doc_id:
            raise PackError(f"{label}: no case_id and target_document_id in its judgment or name; not an ICJ pack run")
        if doc_id in seen:
            raise PackError(f"{label}: target {doc_id} repeats result #{seen[doc_id]}")
        seen[doc_id] = i
        answer = _answer(result, errors_as_empty)
        if answer is None:
            skipped.append(name)
            continue
        records.append({
            "case_id": case_id,
            "target_document_id": doc_id,
            "model_id": model_id,
            "condition": condition or judgment.get("condition") or from_name.get("condition") or DEFAULT_CONDITION,
            "round": rnd,
            "prediction": answer[0],
            "validation": answer[1],
        })
    return records, skipped


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", type=Path, help="RESULTS.json written by a run (simpleaudit AuditResults)")
    parser.add_argument("--run", type=Path, help="the run file (default: RESULTS.run.json beside it, when present)")
    parser.add_argument("--model-id", help="model id to record (default: the run file's model)")
    parser.add_argument("--condition", help="condition to record (default: the scenario's, else parametric)")
    parser.add_argument("--round", type=int, help="export only RESULTS.json, as this round (default: every round "
                                                  "the run file lists, each with its number)")
    parser.add_argument("--errors-as-empty", action="store_true",
                        help="export ERROR results as empty answers marked status 'error' (default: leave them out)")
    parser.add_argument("--out", type=Path, required=True, help="predictions.jsonl to write")


def main(args: argparse.Namespace) -> int:
    run = record_of(args.results, args.run)
    model = model_of(args.results, run, args.model_id)
    if args.round is not None and args.round < 1:
        raise PackError(f"--round {args.round}: must be at least 1")
    records, skipped = [], []
    for rnd, path in rounds_to_export(args.results, run, args.round):
        got, left_out = export_records(
            iter_results(path), model_id=model, rnd=rnd, condition=args.condition,
            errors_as_empty=args.errors_as_empty, source=path.name,
        )
        records += got
        skipped += left_out
    atomic_write_text(args.out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    rounds = sorted({r["round"] for r in records})
    print(f"wrote {len(records)} prediction records to {args.out}" + (f" ({len(rounds)} rounds)" if len(rounds) > 1 else ""))
    if skipped:
        print(f"warning: left out {len(skipped)} ERROR results (first: {skipped[0]}); rerun them, or pass "
              "--errors-as-empty; the scorer needs --allow-partial meanwhile", file=sys.stderr)
    return 0
