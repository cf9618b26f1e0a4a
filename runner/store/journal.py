"""The run journal: every finished scenario, appended and fsynced the moment it ends.

One JSON line per finished scenario, keyed by the scenario's content hash, so an
interrupted run loses nothing that finished and an edited scenario is run again
instead of reused. The first line records the run's fingerprint (model, judge,
parameters); a journal made with other settings is never mixed into this run.

Crash safety (``kill -9`` at any instant): the header is written to a temporary
file and renamed into place, so the journal either has a whole header or does not
exist; each result is one ``write`` of a whole line followed by ``fsync``. On
reopening, a last line cut short is dropped (that scenario did not finish) and a
complete last line missing its newline gets one, so the next append starts clean.
A later line for the same key (a re-run ERROR) replaces the earlier one. Lines are read under a
cap (:data:`LINE_BYTES`): a longer one is read past in chunks, reported, and its scenario runs
again; a journal that is a link or not a regular file is refused.

Never discarded: a damaged header (or a damaged line before the last) stops the run
with one line saying what is damaged and how to keep the finished work (repair or
remove that line) or drop it (``--fresh``). While open, the journal holds its folder's
lock (:mod:`runner.store.lock`), so two runs never write one folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from auditpacks.core.bounded.lines import size_text
from auditpacks.core.errors import UserError
from auditpacks.core.io import appendable, atomic_write_text, parse_json, writing
from auditpacks.core.runs.run_files import ERROR, is_error
from auditpacks.runner.store.lock import FolderBusy, FolderLock


class JournalError(UserError):
    """A journal that cannot be used for this run (one line, names the file)."""


def scenario_key(scenario: Mapping[str, Any]) -> str:
    """A content hash of the scenario: any edit to it gives a new key (a stub carries its scenario's)."""
    precomputed = getattr(scenario, "content_key", None)
    if precomputed:
        return precomputed
    blob = json.dumps(scenario, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def round_key(key: str, round_number: int) -> str:
    """A scenario's journal key in one round of a repeated run (round 1 keeps the plain key)."""
    return key if round_number == 1 else f"{key}#round{round_number}"


@dataclass(frozen=True)
class JournalEntry:
    """One finished scenario, one journal line: its content key, its name and its result."""

    key: str
    name: str | None
    result: dict[str, Any]

    @property
    def severity(self) -> str | None:
        """The result's severity as text; ``ERROR`` for any ERROR result (:func:`~auditpacks.core.runs.run_files.is_error`)."""
        return severity_of(self.result)

    @classmethod
    def parse(cls, line: bytes, *, where: str) -> "JournalEntry":
        """The entry on one line; a :class:`JournalError` naming ``where`` (file and line, or file and key) and
        the field."""
        try:
            data = parse_json(line, where, JournalError)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise JournalError(f"{where}: not JSON ({type(exc).__name__})") from None
        if not isinstance(data, Mapping):
            raise JournalError(f"{where}: not a journal entry (a JSON object expected)")
        key, name, result = data.get("key"), data.get("name"), data.get("result")
        if not isinstance(key, str):
            raise JournalError(f"{where}: field key is missing or not a string")
        if name is not None and not isinstance(name, str):
            raise JournalError(f"{where}: field name is not a string")
        if not isinstance(result, dict):
            raise JournalError(f"{where}: field result is missing or not an object")
        return cls(key=key, name=name, result=result)


def unreadable(exc: JournalError) -> None:
    """Report a journal entry that cannot be replayed; the caller runs its scenario again."""
    print(f"auditpacks: warning: {exc}; that scenario runs again", file=sys.stderr)


def severity_of(result: Mapping[str, Any]) -> str | None:
    """A result's severity as the journal indexes it: ``ERROR`` for any ERROR result, else its own, as text."""
    if is_error(result):
        return ERROR
    severity = result.get("severity")
    return None if severity is None else str(severity)


class JournalIndex(Mapping):
    """Key → result of the finished scenarios; results stay on disk, read back (by offset) when asked for."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._where: dict[str, tuple[int, int, str | None]] = {}

    def put(self, key: str, offset: int, length: int, severity: str | None) -> None:
        self._where[key] = (offset, length, severity)

    def severity(self, key: str) -> str | None:
        return self._where[key][2]

    def __getitem__(self, key: str) -> dict[str, Any]:
        offset, length, _ = self._where[key]
        with open(self.path, "rb") as fh:
            fh.seek(offset)
            return JournalEntry.parse(fh.read(length), where=f"{self.path.name} key {key}").result

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)

    def __repr__(self) -> str:
        return f"<{len(self._where)} journaled results in {self.path.name}>"


class Journal:
    """Append-only JSONL of finished scenario results for one run (``done``: key → result, read from disk)."""

    def __init__(self, path: Path, fingerprint: str) -> None:
        self.path = Path(path)
        self.fingerprint = fingerprint
        self.done = JournalIndex(self.path)
        self._fh = None
        self._lock = FolderLock(self.path.parent)

    def open(self, *, resume: bool = True) -> "Journal":
        try:
            self._lock.acquire()
        except FolderBusy as exc:
            raise JournalError(str(exc)) from None
        try:
            appendable(self.path, "journal", JournalError)
            if not (resume and self.path.exists() and self._load()):
                self._start()
            self._fh = open(self.path, "ab")
        except BaseException:
            self._lock.release()
            raise
        return self

    def _start(self) -> None:
        """A new journal holding only the header, put in place atomically."""
        atomic_write_text(self.path, json.dumps({"fingerprint": self.fingerprint}) + "\n")
        self.done = JournalIndex(self.path)

    def _load(self) -> bool:
        """Index finished results, one line at a time; False when the file holds no entry at all (start
        afresh). A damaged header stops the run (finished work is never dropped silently); a damaged line
        further on is reported, left in place, and its scenario runs again."""
        with open(self.path, "rb") as fh:
            try:
                header = json.loads(fh.readline(HEADER_BYTES))
            except (json.JSONDecodeError, UnicodeDecodeError):
                header = None
            if not isinstance(header, dict) or not isinstance(header.get("fingerprint"), str):
                entries = 0
                while (found := _next_line(fh))[1]:
                    entries += found[0] is None or bool(found[0].strip())
                if not entries:
                    return False  # no finished scenario behind the header: nothing to lose
                raise JournalError(f"{self.path.name}: line 1 (the header) is damaged; it holds {entries} more "
                                   "line(s) of finished work: restore the header line to keep them, or use --fresh "
                                   "(or another --out) to drop them")
            if header.get("fingerprint") != self.fingerprint:
                raise JournalError(
                    f"{self.path.name}: made by a run with other settings (model, judge or parameters); "
                    "use another --out folder or --fresh"
                )
            number, offset = 1, fh.tell()
            while True:
                line, size = _next_line(fh)
                if not size:
                    break
                number += 1
                if line is None:   # over the cap: no result is that long; reported, its scenario runs again
                    unreadable(JournalError(f"{self.path.name} line {number}: {size} bytes, over the "
                                            f"{size_text(LINE_BYTES)} cap on a journal line"))
                    offset += size
                    continue
                if line.strip():
                    try:
                        entry = JournalEntry.parse(line, where=f"{self.path.name} line {number}")
                    except JournalError as exc:
                        if _only_space_left(fh):
                            self._cut_at(offset)  # the last line, cut short by a crash: it did not finish
                            return True
                        unreadable(exc)  # kept on disk, reported; its scenario simply runs again
                        offset += len(line)
                        continue
                    self.done.put(entry.key, offset, len(line), entry.severity)
                offset += len(line)
        if last_line_open(self.path):
            with open(self.path, "ab") as fh:
                fh.write(b"\n")
        return True

    def _cut_at(self, offset: int) -> None:
        with open(self.path, "r+b") as fh:
            fh.truncate(offset)

    def append(self, key: str, name: str, result: Mapping[str, Any]) -> None:
        line = (json.dumps({"key": key, "name": name, "result": result}, ensure_ascii=False) + "\n").encode("utf-8")
        offset = self._fh.tell()
        with writing(self.path):
            self._fh.write(line)
            self._fh.flush()
            os.fsync(self._fh.fileno())
        self.done.put(key, offset, len(line), severity_of(result))

    def close(self) -> None:
        fh, self._fh = self._fh, None
        try:
            if fh:
                with writing(self.path):   # a write refused at append is tried again here: name the file
                    fh.close()
        finally:
            self._lock.release()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


#: The longest journal line read (a result's strings are cut at 200,000 characters each: a few MB at most).
LINE_BYTES = 64 * 2**20
HEADER_BYTES = 2**20


def _next_line(fh) -> tuple[bytes | None, int]:
    """The next line and its length in bytes (0: the end); None for a line over :data:`LINE_BYTES`, read past in
    chunks and never held whole."""
    line = fh.readline(LINE_BYTES + 1)
    if len(line) <= LINE_BYTES or line.endswith(b"\n"):
        return line, len(line)
    size = len(line)
    while chunk := fh.readline(1 << 20):
        size += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return None, size


def _only_space_left(fh) -> bool:
    """Whether nothing but white space follows the file position (read in chunks, never all at once); the
    position is left where it was."""
    position = fh.tell()
    try:
        return not any(chunk.strip() for chunk in iter(lambda: fh.read(1 << 20), b""))
    finally:
        fh.seek(position)


def last_line_open(path: Path) -> bool:
    """Whether the file's last byte is not a newline (a complete last line missing it)."""
    size = path.stat().st_size
    if size == 0:
        return False
    with open(path, "rb") as fh:
        fh.seek(size - 1)
        return fh.read(1) != b"\n"
