"""A results file read one result at a time: each result's byte range and its slim copy, whole ones read back.

Results files are written with two-space indentation (simpleaudit's ``AuditResults.save``
and :func:`~runner.execution.results_file.write_results` alike): the ``"results"`` list
opens on its own line and each result starts on a line ``    {`` and ends on a line
``    }`` (a string never holds a raw newline, so no line inside a result can look like
either). :func:`scan_results` walks the lines once, keeping only byte ranges and slim
results; :meth:`ResultsIndex.load` reads one whole result back by its range. A file laid
out otherwise is read whole, with the same outcome.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditpacks.runner.execution.results_file import slim_result

_OPEN, _EMPTY = b'  "results": [', b'  "results": []'
_START, _END = b"    {", b"    }"


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

    Raises ``ValueError`` (or ``KeyError``) when the file is not a results file."""
    index = ResultsIndex(path)
    slim: list[dict[str, Any]] = []
    with open(path, "rb") as fh:
        offset, start, inside, lines = 0, None, False, []
        for line in fh:
            text = line.rstrip(b"\r\n")
            if not inside:
                if text == _EMPTY:
                    return index, slim
                inside = text == _OPEN
            elif text == _START:
                start, lines = offset + 4, []
            if start is not None:
                lines.append(text)
                if text in (_END, _END + b","):
                    index.ranges.append((start, offset + len(_END)))
                    slim.append(slim_result(json.loads(b"\n".join(lines).strip().rstrip(b","))))
                    start = None
            offset += len(line)
    if start is not None:
        raise ValueError("the file ends inside a result")
    if not inside:  # another layout: read it whole
        index.whole = json.loads(path.read_text(encoding="utf-8"))["results"]
        slim = [slim_result(r) for r in index.whole]
    return index, slim
