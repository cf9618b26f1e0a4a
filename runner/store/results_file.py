"""The results file written one result at a time, and results read back lazily, for runs of any size.

simpleaudit's ``AuditResults.save`` needs every result in memory. :func:`write_results`
writes the same file (byte for byte: the same keys, order and indentation) from
results fetched one at a time: the header (``timestamp``, ``summary``, ``issues``,
``recommendations``) is computed by simpleaudit's own ``AuditResults`` over the results
without their documents (:func:`slim_result`), then each whole result is written in turn.
A file that would pass the size limit Studio's viewer and ``AuditResults.load`` need is
written split instead (documents stored once, results in parts:
:mod:`auditpacks.core.runs.results_layout`).
:class:`Pairs` gives a grader's ``headline`` its (scenario, result) pairs afresh on every
pass (scenarios read back from the pack), so pooled figures need no copy of the pack.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from auditpacks.core.errors import UserError
from auditpacks.core.io import new_temp, writing
from auditpacks.core.runs.results_layout import LIMIT_BYTES, layout
from auditpacks.runner.store.results_split import SplitWriter, entry_bytes, head_bytes, header_dict


def slim_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """A result without the documents in its transcript (and without ``expected_behavior``): what counts,
    verdicts, scores, token totals and the graders' headlines read, a few kilobytes instead of a judgment."""
    conversation = [{k: v for k, v in entry.items() if k != "documents"} if isinstance(entry, dict) else entry
                    for entry in result.get("conversation") or []]
    return {**result, "conversation": conversation, "expected_behavior": None}


def write_results(path: str | os.PathLike, slim: list[dict[str, Any]], whole: Iterable[Mapping[str, Any]], *,
                  limit: int | None = None) -> list[Path]:
    """Write an ``AuditResults`` file: the header from ``slim``, then each of ``whole`` (same order), atomically;
    the files written. One that would pass ``limit`` bytes (default
    :data:`~auditpacks.core.runs.results_layout.LIMIT_BYTES`) is written split instead
    (:mod:`~auditpacks.runner.store.results_split`); files of an earlier split write left over are removed."""
    path, limit = Path(path), LIMIT_BYTES if limit is None else limit
    with writing(path):
        return _write(path, slim, whole, limit)


def _write(path: Path, slim: list[dict[str, Any]], whole: Iterable[Mapping[str, Any]], limit: int) -> list[Path]:
    path.parent.mkdir(parents=True, exist_ok=True)
    earlier = _split_files(path)
    head = head_bytes(header_dict(slim))
    fd, tmp = new_temp(path.parent, path.name)
    split: SplitWriter | None = None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(head)
            size, spans = len(head), []
            for result in whole:
                if split is None:
                    text = entry_bytes(result)
                    sep = b"[\n    " if not spans else b",\n    "
                    if size + len(sep) + len(text) + len(_CLOSE) <= limit:
                        fh.write(sep + text)
                        spans.append((size + len(sep), size + len(sep) + len(text)))
                        size = spans[-1][1]
                        continue
                    fh.flush()
                    split = SplitWriter(path, slim, limit)
                    _move(tmp, spans, split)
                split.add(result)
            if split is None:
                fh.write(_CLOSE if spans else b"[]\n}")
                fh.flush()
                os.fsync(fh.fileno())
        count = sum(part.count for part in split.parts) if split else len(spans)
        if count != len(slim):
            raise RuntimeError(f"{path.name}: {count} results written for {len(slim)} expected")
        if split is None:
            os.replace(tmp, path)
            written = [path]
        else:
            Path(tmp).unlink()
            written = split.finish()
        for old in earlier - set(written):
            old.unlink(missing_ok=True)
        print(f"✓ Results saved to {path}", file=sys.stderr)  # simpleaudit's line; stdout is the summary's
        return written
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        if split is not None:
            split.abandon()
        raise


_CLOSE = b"\n  ]\n}"


def _move(tmp: str, spans: list[tuple[int, int]], split: SplitWriter) -> None:
    """The results already written plainly, read back one at a time into the split writer."""
    with open(tmp, "rb") as fh:
        for start, end in spans:
            fh.seek(start)
            split.add(json.loads(fh.read(end - start)))


def _split_files(path: Path) -> set[Path]:
    """The parts and documents file an earlier write of ``path`` left (none when it was not split)."""
    try:
        found = layout(path) if path.is_file() else None
    except (UserError, OSError):
        return set()
    if found is None:
        return set()
    return set(found.parts[1:]) | ({found.documents} if found.documents is not None else set())


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
