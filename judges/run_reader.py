"""What the exporters read: a run's results, streamed as typed views, and the model id its run record names."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator, Mapping

from auditpacks.core.errors import PackError
from auditpacks.core.runs.record import RunRecord
from auditpacks.core.registry import BENCHMARKS
from auditpacks.core.runs.results import Result, iter_results, typed
from auditpacks.core.runs.run_files import record_for

__all__ = ["check_benchmark", "graded_results", "model_of", "record_of", "read_run",
           "record_for"]  # record_for: the one in core.run_files


def record_of(results_path: Path, run_path: Path | None = None) -> RunRecord | None:
    """The run record ``run_path``, else the one beside the results file when there is one."""
    path = run_path or record_for(results_path)
    return RunRecord.load(path) if run_path or path.is_file() else None


def check_benchmark(results_path: Path, benchmark: str) -> None:
    """Refuse the results of a run of another benchmark: its pack's builder, else a judge only that benchmark
    has, as the run record beside the results names them (results without a record, or a general judge, pass)."""
    record = record_of(results_path)
    if record is None:
        return
    builder = record.pack.builder
    name = builder.get("name") if isinstance(builder, Mapping) else builder
    ran = name if name in BENCHMARKS else next((n for n, b in BENCHMARKS.items() if record.judge in b.judges), None)
    if ran is not None and ran != benchmark:
        raise PackError(f"{results_path.name}: a run of the {ran} benchmark (pack {record.pack.name}, judge "
                        f"{record.judge}), not of {benchmark}; export it with `auditpacks export {ran}`")


def model_of(results_path: Path, record: RunRecord | None, model_id: str | None = None) -> str:
    """``model_id``, else the run record's model; refused in one line when there is neither."""
    if model_id:
        return model_id
    if record is None:
        raise PackError(f"{results_path.name}: no model id; pass --model-id or a run record with a model field")
    return record.model


def read_run(results_path: Path, run_path: Path | None = None,
             model_id: str | None = None) -> tuple[Iterator[Result], str]:
    """(the results, streamed one at a time; the model id): ``model_id``, else the run record's
    (:func:`record_of`)."""
    record = None if model_id else record_of(results_path, run_path)
    return iter_results(results_path), model_of(results_path, record, model_id)


def graded_results(results: Mapping[str, Any] | Iterator[Result], source: str) -> Iterator[tuple[int, Result]]:
    """(index, result) for every result, each checked (:meth:`Result.read`)."""
    return enumerate(typed(results, source))
