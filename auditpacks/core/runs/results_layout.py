"""The split layout of a results file too big for one file: documents stored once, results in parts.

SimpleAudit Studio lists results files up to 100 MB, and ``AuditResults.load`` parses a
file whole. A run whose results file would pass :data:`LIMIT_BYTES` is written split
(:mod:`auditpacks.runner.store.results_file`), still in simpleaudit's format:

* each scenario's documents (the same judgment for every question about it) are stored
  once, in ``<name>.documents.jsonl`` (one line ``{"key", "documents"}`` per distinct list);
  a conversation entry holds ``"documents_ref": key`` where it held ``"documents"``;
* the results are cut into parts of at most :data:`LIMIT_BYTES` each: the results file
  itself, then ``<name>.part2.json``, ``<name>.part3.json``, … (names from
  :func:`auditpacks.core.runs.run_files.split_name`); each part is a whole ``AuditResults`` file
  with its own header.

The first part's header names the other parts (``"parts"``) and every part's header its
documents file (``"documents"``): top-level keys, which ``AuditResults.load`` ignores.
:func:`layout` reads a results file's header to find them, and :class:`DocumentStore`
gives back stored documents by key, so readers see each result as it was run
(:func:`restore`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from auditpacks.core.errors import FormatError, PackError
from auditpacks.core.io import read_json
from auditpacks.core.runs.run_files import RESULTS_SUFFIX, split_name

#: The largest results file written (bytes); Studio's own limit is 100 MB.
LIMIT_BYTES = 50_000_000
PARTS, DOCUMENTS, DOCUMENTS_REF = "parts", "documents", "documents_ref"
RESULTS_LINES = (b'  "results": [', b'  "results": []')
_PART = re.compile(r"\.part\d+\.json$")


def viewer_command(folder: str | os.PathLike) -> str:
    """The command that opens a results folder in SimpleAudit Studio's viewer (simpleaudit 0.4.x)."""
    return f"uvx simpleaudit-studio --visualize-only --results_dir {shlex.quote(str(folder))}"


class LayoutError(PackError, FormatError):
    """A split results file whose parts or documents are missing or malformed (one line)."""


def documents_key(documents: Any) -> str:
    """The key documents are stored under: 16 hex digits of the sha256 of their canonical JSON."""
    blob = json.dumps(documents, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def read_header(path: Path) -> dict[str, Any]:
    """A results file's top-level keys other than ``results`` (the lines before the results list; a file
    laid out otherwise is read whole)."""
    lines = []
    with open(path, "rb") as fh:
        for line in fh:
            text = line.rstrip(b"\r\n")
            if text in RESULTS_LINES:
                try:   # the lines so far end with a comma: an empty list closes them as the object they begin
                    head = json.loads(b"\n".join(lines) + b'\n  "results": []\n}')
                except (json.JSONDecodeError, UnicodeDecodeError):
                    break
                del head["results"]
                return head
            lines.append(text)
            if len(lines) == 1 and text != b"{":
                break
    data = read_json(path, "results file")
    return {k: v for k, v in data.items() if k != "results"} if isinstance(data, Mapping) else {}


@dataclass(frozen=True)
class Layout:
    """A results file's parts (the file itself first) and its documents file (None when not split)."""

    parts: list[Path]
    documents: Path | None


def _sibling(path: Path, name: Any, field: str, expected: str) -> Path:
    """The file ``name`` beside ``path``: a header is data, so only the name the writer gives is taken."""
    if not isinstance(name, str) or not name or Path(name).name != name or name in (".", ".."):
        raise LayoutError(f"{path.name}: field {field} holds {str(name)[:80]!r}, not a file name beside it")
    if name != expected:
        raise LayoutError(f"{path.name}: field {field} holds {name[:80]!r}, not this file's own {expected!r}")
    return path.with_name(name)


def layout(path: str | os.PathLike) -> Layout:
    """The parts and documents file a results file names in its header: exactly the names its writer gives
    them (:func:`~auditpacks.core.runs.run_files.split_name`), so a header never points at another run's files."""
    path = Path(path)
    header = read_header(path)
    names = header.get(PARTS) or []
    if not isinstance(names, list):
        raise LayoutError(f"{path.name}: field {PARTS} is not a list")
    parts = [path, *(_sibling(path, name, PARTS, split_name(path.name, k)) for k, name in enumerate(names, 2))]
    store = header.get(DOCUMENTS)
    first = _PART.sub(RESULTS_SUFFIX, path.name)   # a later part names its first part's documents file
    return Layout(parts, _sibling(path, store, DOCUMENTS, split_name(first)) if store is not None else None)


class DocumentStore:
    """The documents of a split results file, read by key (an index of byte ranges, one list in memory)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._index: dict[str, tuple[int, int]] | None = None
        self._last: tuple[str | None, Any] = (None, None)

    def _scan(self) -> dict[str, tuple[int, int]]:
        index, offset = {}, 0
        try:
            with open(self.path, "rb") as fh:
                for number, line in enumerate(fh, 1):
                    key = _key_of(line, self.path, number)
                    index[key] = (offset, len(line))
                    offset += len(line)
        except FileNotFoundError:
            raise LayoutError(f"{self.path.name}: documents file not found") from None
        return index

    def get(self, key: str, where: str) -> Any:
        """The documents stored under ``key``; ``where`` names the result asking, for the error line."""
        if self._last[0] == key:
            return self._last[1]
        self._index = self._scan() if self._index is None else self._index
        if key not in self._index:
            raise LayoutError(f"{where}: field {DOCUMENTS_REF} {key!r} is not in {self.path.name}")
        start, length = self._index[key]
        with open(self.path, "rb") as fh:
            fh.seek(start)
            documents = json.loads(fh.read(length))[DOCUMENTS]
        self._last = (key, documents)
        return documents


def _key_of(line: bytes, path: Path, number: int) -> str:
    try:
        entry = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise LayoutError(f"{path.name} line {number}: not valid JSON") from None
    if not isinstance(entry, dict) or not isinstance(entry.get("key"), str) or DOCUMENTS not in entry:
        raise LayoutError(f"{path.name} line {number}: field key or documents is missing")
    return entry["key"]


def stored(result: Mapping[str, Any], keep: set[str], write: Any) -> dict[str, Any]:
    """``result`` with each conversation entry's documents replaced by their key; ``write(key, documents)``
    is called for documents whose key is not in ``keep`` yet (which it joins)."""
    conversation = []
    for entry in result.get("conversation") or []:
        documents = entry.get(DOCUMENTS) if isinstance(entry, dict) else None
        if documents:
            key = documents_key(documents)
            if key not in keep:
                write(key, documents)
                keep.add(key)
            entry = {(DOCUMENTS_REF if k == DOCUMENTS else k): (key if k == DOCUMENTS else v) for k, v in entry.items()}
        conversation.append(entry)
    return {**result, "conversation": conversation} if "conversation" in result else dict(result)


def restore(result: dict[str, Any], store: DocumentStore | None, where: str) -> dict[str, Any]:
    """``result`` with stored documents put back where their keys stand (as it was run)."""
    conversation = result.get("conversation")
    if not isinstance(conversation, list) or not any(isinstance(e, dict) and DOCUMENTS_REF in e for e in conversation):
        return result
    if store is None:
        raise LayoutError(f"{where}: field {DOCUMENTS_REF} given, but the file names no documents file")
    out = []
    for entry in conversation:
        if isinstance(entry, dict) and DOCUMENTS_REF in entry:
            entry = {(DOCUMENTS if k == DOCUMENTS_REF else k): (store.get(v, where) if k == DOCUMENTS_REF else v)
                     for k, v in entry.items()}
        out.append(entry)
    return {**result, "conversation": out}
