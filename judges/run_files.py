"""What the exporters read: a run's results file and the model id its run record names."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator, Mapping

from auditpacks.core.errors import PackError
from auditpacks.core.io import read_json


def record_for(results_path: Path) -> Path:
    """The run record beside a results file: ``<stem>.run.json`` for ``<stem>.json`` and ``<stem>.round<N>.json``."""
    stem = re.sub(r"\.round\d+$", "", results_path.name.removesuffix(".json"))
    return results_path.with_name(stem + ".run.json")


def read_run(results_path: Path, run_path: Path | None = None, model_id: str | None = None) -> tuple[dict, str]:
    """(results dict, model id): the model from ``model_id``, else the run record beside the results."""
    results = read_json(results_path, "results file")
    if not isinstance(results, Mapping) or not isinstance(results.get("results"), list):
        raise PackError(f"{results_path.name}: not a simpleaudit results file (no results list)")
    record_path = run_path or record_for(results_path)
    model = model_id
    if model is None and (run_path or record_path.is_file()):
        record = read_json(record_path, "run record")
        model = record.get("model") if isinstance(record, Mapping) else None
        if model is not None and (not isinstance(model, str) or not model):
            raise PackError(f"{record_path.name}: field model is {model!r}, not a model id")
    if not model:
        raise PackError(f"{results_path.name}: no model id; pass --model-id or a run record with a model field")
    return dict(results), model


def graded_results(results: Mapping[str, Any], source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(index, result) for every result, checked to be an object with a scenario name."""
    for i, result in enumerate(results["results"]):
        if not isinstance(result, Mapping) or not isinstance(result.get("scenario_name"), str):
            raise PackError(f"{source} result #{i}: field scenario_name is missing or not a string")
        yield i, dict(result)


def is_error(result: Mapping[str, Any]) -> bool:
    return result.get("severity") == "ERROR" or (result.get("judgment") or {}).get("severity") == "ERROR"
