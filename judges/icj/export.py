"""Export a run of an ICJ pack as prediction records the benchmark's scorer reads.

``auditpacks export icj RESULTS.json [--run RUN.json] [--model-id ID] [--condition C] [--round N] --out P.jsonl``

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
from typing import Any, Mapping

from auditpacks.judges.base import last_reply
from auditpacks.judges.icj.citations import parse_prediction
from auditpacks.packs.icj.builder import parse_scenario_name
from auditpacks.packs.icj.targets import FAMILIES, PRED_FIELDS

from auditpacks.core.errors import PackError
from auditpacks.core.io import atomic_write_text, read_json

DEFAULT_CONDITION = "parametric"


def run_settings(run: Mapping[str, Any] | None, name: str = "run.json") -> tuple[str | None, int]:
    """The model id and round a run file records (``model``, ``repeat``; round 1 when unset)."""
    run = run or {}
    model, rnd = run.get("model"), run.get("repeat", 1)
    if model is not None and (not isinstance(model, str) or not model):
        raise PackError(f"{name}: field model is {model!r}, not a model id")
    if type(rnd) is not int or rnd < 1:
        raise PackError(f"{name}: field repeat is {rnd!r}, not a positive integer")
    return model, rnd


def _answer(result: Mapping[str, Any], judgment: Mapping[str, Any], errors_as_empty: bool) -> tuple | None:
    """(prediction, validation) for one result; None for an ERROR result that is left out."""
    if judgment.get("severity") == "ERROR" or result.get("severity") == "ERROR":
        if not errors_as_empty:
            return None
        reason = str(judgment.get("error") or "the scenario did not complete")
        return {PRED_FIELDS[f]: [] for f in FAMILIES}, {"status": "error", "issues": [reason]}
    if isinstance(judgment.get("prediction"), Mapping) and isinstance(judgment.get("validation"), Mapping):
        return dict(judgment["prediction"]), dict(judgment["validation"])
    prediction, issues = parse_prediction(last_reply(result.get("conversation") or []).get("content"))
    return prediction, {"status": "partial" if issues else "valid", "issues": issues}


def export_records(
    results: Any,
    *,
    model_id: str,
    rnd: int = 1,
    condition: str | None = None,
    errors_as_empty: bool = False,
    source: str = "results",
) -> tuple[list[dict[str, Any]], list[str]]:
    """Prediction records for an AuditResults dict, and the names of the ERROR results left out."""
    if not isinstance(results, Mapping) or not isinstance(results.get("results"), list):
        raise PackError(f"{source}: not a simpleaudit results file (no results list)")
    records, skipped, seen = [], [], {}
    for i, result in enumerate(results["results"]):
        name = result.get("scenario_name") if isinstance(result, Mapping) else None
        label = f"{source} result #{i} ({name!r})"
        if not isinstance(name, str):
            raise PackError(f"{source} result #{i}: field scenario_name is missing or not a string")
        judgment = result.get("judgment") or {}
        from_name = parse_scenario_name(name) or {}
        case_id = judgment.get("case_id") or from_name.get("case_id")
        doc_id = judgment.get("target_document_id") or from_name.get("target_document_id")
        if not case_id or not doc_id:
            raise PackError(f"{label}: no case_id and target_document_id in its judgment or name; not an ICJ pack run")
        if doc_id in seen:
            raise PackError(f"{label}: target {doc_id} repeats result #{seen[doc_id]}")
        seen[doc_id] = i
        answer = _answer(result, judgment, errors_as_empty)
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
    parser.add_argument("--round", type=int, help="round to record (default: the run file's repeat, else 1)")
    parser.add_argument("--errors-as-empty", action="store_true",
                        help="export ERROR results as empty answers marked status 'error' (default: leave them out)")
    parser.add_argument("--out", type=Path, required=True, help="predictions.jsonl to write")


def main(args: argparse.Namespace) -> int:
    results = read_json(args.results, "results file")
    run_path = args.run or args.results.with_name(args.results.name.removesuffix(".json") + ".run.json")
    run = read_json(run_path, "run file") if args.run or run_path.is_file() else None
    model, rnd = run_settings(run, run_path.name)
    model = args.model_id or model
    if not model:
        raise PackError(f"{args.results.name}: no model id; pass --model-id or a run file with a model field")
    if args.round is not None and args.round < 1:
        raise PackError(f"--round {args.round}: must be at least 1")
    records, skipped = export_records(
        results, model_id=model, rnd=args.round or rnd, condition=args.condition,
        errors_as_empty=args.errors_as_empty, source=args.results.name,
    )
    atomic_write_text(args.out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    print(f"wrote {len(records)} prediction records to {args.out}")
    if skipped:
        print(f"warning: left out {len(skipped)} ERROR results (first: {skipped[0]}); rerun them, or pass "
              "--errors-as-empty; the scorer needs --allow-partial meanwhile", file=sys.stderr)
    return 0
