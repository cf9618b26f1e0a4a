"""A results file read one result at a time: each result's byte range and its slim copy, whole ones read back.

:func:`scan_results` walks the file once (:func:`auditpacks.core.runs.results.raw_results`, every
part of a split file), checking each result (:class:`~auditpacks.core.runs.results.Result`) and
keeping only where it lies and its slim copy; :meth:`ResultsIndex.load` reads one whole
result back (its stored documents put back). A file laid out otherwise is read whole, with
the same outcome.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditpacks.core.runs.results import Location, Result, iter_results, raw_results
from auditpacks.core.runs.results_layout import DocumentStore, layout, restore
from auditpacks.runner.store.results_file import slim_result


@dataclass
class ResultsIndex:
    """Where each result of one results file lies (``ranges``), or the results themselves (``whole``)."""

    path: Path
    ranges: list[Location] = field(default_factory=list)
    whole: list[dict[str, Any]] | None = None
    store: DocumentStore | None = None

    def __len__(self) -> int:
        return len(self.whole) if self.whole is not None else len(self.ranges)

    def load(self, index: int) -> dict[str, Any]:
        if self.whole is not None:
            return self.whole[index]
        where = self.ranges[index]
        start, end = where.span
        with open(where.file, "rb") as fh:
            fh.seek(start)
            data = json.loads(fh.read(end - start))
        return restore(data, self.store, where.name)


def scan_results(path: Path) -> tuple[ResultsIndex, list[dict[str, Any]]]:
    """The file's index and its results without documents (:func:`slim_result`), in file order.

    Raises :class:`~auditpacks.core.runs.results.ResultsError` (a ``ValueError``) naming the file, the result
    and the field when the file, or a result in it, is not in simpleaudit's format."""
    index = ResultsIndex(Path(path))
    slim: list[dict[str, Any]] = []
    for where, data in raw_results(path, documents=False):
        Result.read(data, source=where.file.name, index=where.index)
        if where.span is None:
            index.whole = [] if index.whole is None else index.whole
            index.whole.append(data)
        else:
            index.ranges.append(where)
        slim.append(slim_result(data))
    documents = layout(path).documents
    index.store = DocumentStore(documents) if documents is not None else None
    if index.whole is not None:
        index.whole = [restore(data, index.store, path.name) for data in index.whole]
    return index, slim


def load_audit_results(path: Path) -> Any:
    """simpleaudit's ``AuditResults`` of a results file: ``AuditResults.load`` itself for one file, else every
    part in order with its stored documents put back."""
    from simpleaudit import AuditResult, AuditResults

    found = layout(path)
    if len(found.parts) == 1 and found.documents is None:
        return AuditResults.load(str(path))
    return AuditResults([AuditResult(**result.raw) for result in iter_results(path)])
