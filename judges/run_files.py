"""What the exporters read: a run's results, streamed as typed views, and the model id its run record names."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, Mapping

from auditpacks.core.errors import PackError
from auditpacks.core.record import RunRecord
from auditpacks.core.results import Result, iter_results, typed
from auditpacks.core.run_files import is_error, record_for

__all__ = ["graded_results", "is_error", "model_of", "read_run", "record_for"]


def model_of(results_path: Path, run_path: Path | None = None, model_id: str | None = None) -> str:
    """``model_id``, else the model of the run record (``run_path``, or the one beside the results file)."""
    if model_id:
        return model_id
    record_path = run_path or record_for(results_path)
    if run_path or record_path.is_file():
        return RunRecord.load(record_path).model
    raise PackError(f"{results_path.name}: no model id; pass --model-id or a run record with a model field")


def read_run(results_path: Path, run_path: Path | None = None,
             model_id: str | None = None) -> tuple[Iterator[Result], str]:
    """(the results, streamed one at a time; the model id): see :func:`model_of`."""
    model = model_of(results_path, run_path, model_id)
    return iter_results(results_path), model


def graded_results(results: Mapping[str, Any] | Iterator[Result], source: str) -> Iterator[tuple[int, Result]]:
    """(index, result) for every result, each checked (:meth:`Result.read`)."""
    return enumerate(typed(results, source))
