"""A results file read one result at a time: each result's byte range and its slim copy, whole ones read back.

:func:`scan_results` walks the file once (:func:`auditpacks.core.results.raw_results`),
checking each result (:class:`~auditpacks.core.results.Result`) and keeping only its
byte range and its slim copy; :meth:`ResultsIndex.load` reads one whole result back by
its range. A file laid out otherwise is read whole, with the same outcome.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditpacks.core.results import Result, raw_results
from auditpacks.runner.execution.results_file import slim_result


@dataclass
class ResultsIndex:
    """Where each result of one results file lies (``ranges``), or the results themselves (``whole``)."""

    path: Path
    ranges: list[tuple[int, int]] = field(default_factory=list)
    whole: list[dict[str, Any]] | None = None

    def __len__(self) -> int:
        return len(self.whole) if self.whole is not None else len(self.ranges)

    def load(self, index: int) -> dict[str, Any]:
        if self.whole is not None:
            return self.whole[index]
        start, end = self.ranges[index]
        with open(self.path, "rb") as fh:
            fh.seek(start)
            return json.loads(fh.read(end - start))


def scan_results(path: Path) -> tuple[ResultsIndex, list[dict[str, Any]]]:
    """The file's index and its results without documents (:func:`slim_result`), in file order.

    Raises :class:`~auditpacks.core.results.ResultsError` (a ``ValueError``) naming the file, the result
    and the field when the file, or a result in it, is not in simpleaudit's format."""
    index = ResultsIndex(Path(path))
    slim: list[dict[str, Any]] = []
    for i, (where, data) in enumerate(raw_results(path)):
        Result.read(data, source=index.path.name, index=i)
        if where is None:
            index.whole = [] if index.whole is None else index.whole
            index.whole.append(data)
        else:
            index.ranges.append(where)
        slim.append(slim_result(data))
    return index, slim
