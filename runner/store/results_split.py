"""Writing a results file in the split layout: documents stored once, results in parts under a size limit.

:func:`~auditpacks.runner.store.results_file.write_results` switches to this writer when
the one file would pass the limit (the layout: :mod:`auditpacks.core.runs.results_layout`). Results
come one at a time; each part's results go to a temporary body first, since a part's header
(simpleaudit's summary of that part, computed by ``AuditResults`` over the slim copies) and the
first part's list of parts are known only at the end. The documents file and the later parts
are put in place before the first part, so a reader never finds a part named that is not there.
A part takes the next result only while its body and a bound on its header (the summary of all
results, the part's own issues and recommendations, the first part's list of parts: at most one
per result) stay within the limit; a result too big for any part is written alone, with a warning.
The bound is a few dozen bytes over the header it stands for (``SUMMARY_SLACK`` and a few bytes
a list), never under it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Mapping

from simpleaudit import AuditResult, AuditResults

from auditpacks.core.io import new_temp
from auditpacks.core.runs.results_layout import DOCUMENTS, PARTS, stored
from auditpacks.core.runs.run_files import split_name

#: Bytes a part's summary may take beyond that of all results (its score and timestamp can be longer).
SUMMARY_SLACK = 32


def entry_bytes(result: Mapping[str, Any]) -> bytes:
    """One result as it stands in a results file's list (simpleaudit's indentation)."""
    return json.dumps(result, indent=2, ensure_ascii=False).replace("\n", "\n    ").encode("utf-8")


def header_dict(slim: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """simpleaudit's header (timestamp, summary, issues, recommendations) over ``slim``, ``extra`` keys, then
    an empty ``results``."""
    header = AuditResults([AuditResult(**r) for r in slim]).to_dict()
    header.pop("results", None)
    return {**header, **extra, "results": []}


def head_bytes(header: Mapping[str, Any]) -> bytes:
    """A header as the start of a results file, up to the opening of its results list."""
    text = json.dumps(header, indent=2, ensure_ascii=False)
    assert text.endswith('"results": []\n}')
    return text[: -len("[]\n}")].encode("utf-8")


def _sync(fh: Any) -> None:
    fh.flush()
    os.fsync(fh.fileno())


def _listed(items: Any) -> list[str]:
    return [json.dumps(item, ensure_ascii=False) for item in items or []]


class _Part:
    """A part being written: its body's size and a bound on its header's (its own issues and recommendations)."""

    def __init__(self, folder: Path, name: str, first: int, head: int) -> None:
        fd, self.tmp = new_temp(folder, name)
        self.fh, self.first, self.count, self.size = os.fdopen(fd, "wb"), first, 0, 0
        self.head, self.listed = head, {"issues": set(), "recommendations": set()}

    def head_growth(self, slim: Mapping[str, Any]) -> tuple[int, dict[str, set[str]]]:
        """How much this result's new issues and recommendations add to the header, and those items."""
        grow, new = 0, {}
        for field, source in (("issues", "issues_found"), ("recommendations", "recommendations")):
            new[field] = set(_listed(slim.get(source))) - self.listed[field]
            grow += sum(len(item.encode("utf-8")) + 6 for item in new[field]) + (8 if new[field] else 0)
        return grow, new

    def take(self, text: bytes, grow: int, new: Mapping[str, set[str]]) -> None:
        self.fh.write(text if self.count == 0 else b",\n    " + text)
        self.count += 1
        self.size += len(text) + 6
        self.head += grow
        for field, items in new.items():
            self.listed[field] |= items


class SplitWriter:
    """Results added one at a time; :meth:`finish` puts the parts and the documents file in place."""

    def __init__(self, path: Path, slim: list[dict[str, Any]], limit: int) -> None:
        self.path, self.slim, self.limit = Path(path), slim, limit
        self.parts: list[_Part] = []
        self.assembled: list[str] = []   # the whole parts' temporary files, made by finish
        self.keys: set[str] = set()
        self.store_name = split_name(self.path.name)
        # a part's header, less its issues and recommendations, is at most that of all results (counts and token
        # sums only grow) with the documents file named; the first part's also lists the others, at most one
        # part per result
        bare = [{**r, "issues_found": [], "recommendations": []} for r in slim]
        self.head = len(head_bytes(header_dict(bare, **{DOCUMENTS: self.store_name}))) + SUMMARY_SLACK
        names = [split_name(self.path.name, k) for k in range(2, len(slim) + 2)]
        self.first_head = len(head_bytes(header_dict(bare, **{DOCUMENTS: self.store_name, PARTS: names})))
        self.first_head += SUMMARY_SLACK
        fd, self.store_tmp = new_temp(self.path.parent, self.store_name)
        self.store = os.fdopen(fd, "wb")

    def _document(self, key: str, documents: Any) -> None:
        line = json.dumps({"key": key, DOCUMENTS: documents}, ensure_ascii=False, separators=(",", ":"))
        self.store.write(line.encode("utf-8") + b"\n")

    def add(self, result: Mapping[str, Any]) -> None:
        text = entry_bytes(stored(result, self.keys, self._document))
        part = self.parts[-1] if self.parts else None
        index = part.first + part.count if part else 0
        slim = self.slim[index]
        grow, new = part.head_growth(slim) if part else (0, {})
        if part is None or (part.count and part.head + grow + part.size + len(text) + 12 > self.limit):
            part = _Part(self.path.parent, self.path.name, index, self.first_head if part is None else self.head)
            self.parts.append(part)
            grow, new = part.head_growth(slim)
        part.take(text, grow, new)

    def finish(self) -> list[Path]:
        """Write every part with its header and the documents file; the paths written (the first part last)."""
        _sync(self.store)
        self.store.close()
        names = [self.path.name] + [split_name(self.path.name, k) for k in range(2, len(self.parts) + 1)]
        extra = {DOCUMENTS: self.store_name} if self.keys else {}
        finals: list[tuple[str, Path]] = []
        for k, (name, part) in enumerate(zip(names, self.parts)):
            _sync(part.fh)
            part.fh.close()
            more = {PARTS: names[1:]} if k == 0 else {}
            head = head_bytes(header_dict(self.slim[part.first: part.first + part.count], **extra, **more))
            fd, tmp = new_temp(self.path.parent, name)
            self.assembled.append(tmp)
            with os.fdopen(fd, "wb") as out, open(part.tmp, "rb") as body:
                out.write(head + b"[\n    ")
                while chunk := body.read(1 << 20):
                    out.write(chunk)
                out.write(b"\n  ]\n}")
                _sync(out)
                if out.tell() > self.limit:   # only a part of one result: no part can hold it under the limit
                    print(f"auditpacks: warning: {name} is {out.tell():,} bytes, over the {self.limit:,}-byte "
                          f"limit: result {part.first + 1} ({self.slim[part.first].get('scenario_name')}) is too "
                          f"big for any part", file=sys.stderr)
            Path(part.tmp).unlink()
            finals.append((tmp, self.path.with_name(name)))
        store = [(self.store_tmp, self.path.with_name(self.store_name))] if self.keys else []
        if not self.keys:
            Path(self.store_tmp).unlink()
        for tmp, final in store + finals[1:] + finals[:1]:
            os.replace(tmp, final)
        return [final for _, final in store + finals]

    def abandon(self) -> None:
        """Remove every temporary file (the write failed), those :meth:`finish` made included."""
        for part in self.parts:
            part.fh.close()
            Path(part.tmp).unlink(missing_ok=True)
        for tmp in self.assembled:
            Path(tmp).unlink(missing_ok=True)
        self.store.close()
        Path(self.store_tmp).unlink(missing_ok=True)
