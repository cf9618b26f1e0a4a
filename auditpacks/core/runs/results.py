"""A results file read as typed :class:`Result` views, one result at a time.

A simpleaudit results file (``AuditResults``) is one JSON object whose ``results`` list
holds one object per scenario. Results files are written with two-space indentation
(simpleaudit's ``AuditResults.save`` and the runner's own writer alike): the ``"results"``
list opens on its own line and each result starts on a line ``    {`` and ends on a line
``    }``, and the list closes on a line ``  ]`` (a string never holds a raw newline, so no
line inside a result can look like any of these). :func:`raw_results` walks those lines once and parses one result at a time, with
its byte range; a file laid out otherwise is read whole, with the same outcome. A results file written split
(parts, documents stored once: :mod:`auditpacks.core.runs.results_layout`) reads as the one file it stands for.

:meth:`Result.read` checks the fields every reader relies on and names the file, the
result (``#index``) and the field in one line when one is wrong.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, NamedTuple

from auditpacks.core.errors import FormatError, PackError
from auditpacks.core.io import parse_json, read_json
from auditpacks.core.runs.results_layout import DocumentStore, LayoutError, layout, restore
from auditpacks.core.runs.run_files import is_error

_OPEN, _EMPTY = b'  "results": [', b'  "results": []'
_START, _END, _CLOSE = b"    {", b"    }", b"  ]"
TOKEN_FIELDS = ("target_input_tokens", "target_output_tokens")


class ResultsError(PackError, FormatError):
    """A results file, or one result in it, that is not in simpleaudit's format (one line)."""


@dataclass(frozen=True)
class Result:
    """One result, checked: the fields readers use, typed, and the whole dict as read (``raw``)."""

    scenario_name: str
    severity: str | None
    judgment: Mapping[str, Any]
    conversation: list[Any]
    target_input_tokens: int
    target_output_tokens: int
    raw: Mapping[str, Any]

    @property
    def is_error(self) -> bool:
        """Whether this result is an ERROR (:func:`auditpacks.core.runs.run_files.is_error`)."""
        return is_error(self.raw)

    @property
    def tokens(self) -> int:
        return self.target_input_tokens + self.target_output_tokens

    def to_dict(self) -> dict[str, Any]:
        return dict(self.raw)

    @classmethod
    def read(cls, data: Any, *, source: str = "results", index: int = 0) -> "Result":
        """``data`` as a :class:`Result`; a :class:`ResultsError` naming ``source``, ``#index`` and the field."""
        where = f"{source} result #{index}"
        if not isinstance(data, Mapping) or not isinstance(data.get("scenario_name"), str):
            raise ResultsError(f"{where}: field scenario_name is missing or not a string")
        severity = data.get("severity")
        if severity is not None and not isinstance(severity, str):
            raise ResultsError(f"{where}: field severity is {_shown(severity)}, not a string")
        judgment, conversation = data.get("judgment"), data.get("conversation")
        if judgment is not None and not isinstance(judgment, Mapping):
            raise ResultsError(f"{where}: field judgment is {_shown(judgment)}, not an object")
        if conversation is not None and not isinstance(conversation, list):
            raise ResultsError(f"{where}: field conversation is {_shown(conversation)}, not a list")
        tokens = []
        for name in TOKEN_FIELDS:
            value = data.get(name)
            if value is not None and (type(value) is not int or value < 0):
                raise ResultsError(f"{where}: field {name} is {_shown(value)}, not a count")
            tokens.append(value or 0)
        return cls(scenario_name=data["scenario_name"], severity=severity, judgment=judgment or {},
                   conversation=conversation or [], target_input_tokens=tokens[0], target_output_tokens=tokens[1],
                   raw=data)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def results_list(data: Any, source: str) -> list[Any]:
    """The ``results`` list of a results file's content; a :class:`ResultsError` when there is none."""
    if not isinstance(data, Mapping) or not isinstance(data.get("results"), list):
        raise ResultsError(f"{source}: not a simpleaudit results file (no results list)")
    return data["results"]


def typed(results: Mapping[str, Any] | Iterator[Result], source: str = "results") -> Iterator[Result]:
    """The results of a results file's content (a mapping, checked one by one), or of an iterator of
    results already read (:func:`iter_results`)."""
    if not isinstance(results, Iterator):
        for i, data in enumerate(results_list(results, source)):
            yield Result.read(data, source=source, index=i)
        return
    for i, result in enumerate(results):
        if not isinstance(result, Result):
            raise ResultsError(f"{source} result #{i}: not a checked result")
        yield result


class Location(NamedTuple):
    """Where a result lies: its file (a part, for a split results file), its index there and byte range."""

    file: Path
    index: int
    span: tuple[int, int] | None

    @property
    def name(self) -> str:
        return f"{self.file.name} result #{self.index}"


def raw_results(path: str | os.PathLike, *, documents: bool = True) -> Iterator[tuple[Location, dict[str, Any]]]:
    """``(location, result dict)`` for each result of a results file, one at a time: every part of a split
    file in order (:mod:`auditpacks.core.runs.results_layout`), stored documents put back unless ``documents`` is
    False (then a result keeps its ``documents_ref``)."""
    path = Path(path)
    if not path.is_file():
        yield from ((Location(path, i, span), data) for i, (span, data) in enumerate(_raw_file(path)))
        return
    try:
        found = layout(path)
    except PackError as exc:
        raise ResultsError(str(exc)) from None
    store = DocumentStore(found.documents) if documents and found.documents is not None else None
    for part in found.parts:
        for i, (span, data) in enumerate(_raw_file(part)):
            where = Location(part, i, span)
            try:
                data = restore(data, store, where.name) if documents else data
            except LayoutError as exc:
                raise ResultsError(str(exc)) from None
            yield where, data


def _raw_file(path: Path) -> Iterator[tuple[tuple[int, int] | None, dict[str, Any]]]:
    """``(byte range, result dict)`` for each result of one file, in file order, one at a time (the range is
    ``None`` for a file laid out otherwise, which is read whole)."""
    inside, closed, start, lines, offset = False, False, None, [], 0
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        raise ResultsError(f"{path.name}: results file not found") from None
    except IsADirectoryError:
        raise ResultsError(f"{path.name}: results file is a folder, not a file") from None
    with fh:
        for line in fh:
            text = line.rstrip(b"\r\n")
            if not inside:
                if text == _EMPTY:
                    return
                inside = text == _OPEN
            elif text == _START:
                start, lines = offset + 4, []
            elif start is None and text == _CLOSE:
                closed = True
                break
            if start is not None:
                lines.append(text)
                if text in (_END, _END + b","):
                    yield (start, offset + len(_END)), _parse(path, b"\n".join(lines).strip().rstrip(b","))
                    start = None
            offset += len(line)
    if start is not None:
        raise ResultsError(f"{path.name}: the file ends inside a result")
    if inside and not closed:
        raise ResultsError(f"{path.name}: the file ends inside the results list")
    if not inside:
        try:
            content = read_json(path, "results file")
        except PackError as exc:
            raise ResultsError(str(exc)) from None
        for data in results_list(content, path.name):
            yield None, data


def _parse(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        return parse_json(raw, f"{path.name}: a result", ResultsError)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResultsError(f"{path.name}: a result that is not valid JSON ({exc})") from None


def iter_results(path: str | os.PathLike, *, documents: bool = True) -> Iterator[Result]:
    """Each result of a results file (every part of a split one) as a :class:`Result`, streamed (one whole
    result in memory at a time); ``documents=False`` leaves stored documents where they are."""
    for where, data in raw_results(path, documents=documents):
        yield Result.read(data, source=where.file.name, index=where.index)
