"""The results file written one result at a time, and results read back lazily, for runs of any size.

simpleaudit's ``AuditResults.save`` needs every result in memory. :func:`write_results`
writes the same file (byte for byte: the same keys, order and indentation) from
results fetched one at a time: the header (``timestamp``, ``summary``, ``issues``,
``recommendations``) is computed by simpleaudit's own ``AuditResults`` over the results
without their documents (:func:`slim_result`), then each whole result is written in turn.
:class:`Pairs` gives a grader's ``headline`` its (scenario, result) pairs afresh on every
pass (scenarios read back from the pack), so pooled figures need no copy of the pack.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from simpleaudit import AuditResult, AuditResults

from auditpacks.core.io import new_temp

def slim_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """A result without the documents in its transcript (and without ``expected_behavior``): what counts,
    verdicts, scores, token totals and the graders' headlines read, a few kilobytes instead of a judgment."""
    conversation = [{k: v for k, v in entry.items() if k != "documents"} if isinstance(entry, dict) else entry
                    for entry in result.get("conversation") or []]
    return {**result, "conversation": conversation, "expected_behavior": None}


def write_results(path: str | os.PathLike, slim: list[dict[str, Any]], whole: Iterable[Mapping[str, Any]]) -> None:
    """Write an ``AuditResults`` file: the header from ``slim``, then each of ``whole`` (same order), atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = AuditResults([AuditResult(**r) for r in slim]).to_dict()
    header["results"] = []
    head = json.dumps(header, indent=2, ensure_ascii=False)
    assert head.endswith('"results": []\n}')
    fd, tmp = new_temp(path.parent, path.name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(head[: -len("[]\n}")])
            count = 0
            for result in whole:
                fh.write("[\n    " if count == 0 else ",\n    ")
                fh.write(json.dumps(result, indent=2, ensure_ascii=False).replace("\n", "\n    "))
                count += 1
            fh.write("\n  ]\n}" if count else "[]\n}")
            fh.flush()
            os.fsync(fh.fileno())
        if count != len(slim):
            raise RuntimeError(f"{path.name}: {count} results written for {len(slim)} expected")
        os.replace(tmp, path)
        print(f"✓ Results saved to {path}", file=sys.stderr)  # simpleaudit's line; stdout is the summary's
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Pairs:
    """(scenario, result) pairs produced anew on every iteration, e.g. from a pack on disk and the journal."""

    def __init__(self, count: int, produce: Callable[[], Iterator[tuple[Any, Any]]]) -> None:
        self._count, self._produce = count, produce

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        return self._produce()

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        return f"<{self._count} (scenario, result) pairs>"
