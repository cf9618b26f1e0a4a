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
A later line for the same key (a re-run ERROR) replaces the earlier one.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Mapping

from auditpacks.core.errors import UserError


class JournalError(UserError):
    """A journal that cannot be used for this run (one line, names the file)."""


def scenario_key(scenario: Mapping[str, Any]) -> str:
    """A content hash of the scenario: any edit to it gives a new key."""
    blob = json.dumps(scenario, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def round_key(key: str, round_number: int) -> str:
    """A scenario's journal key in one round of a repeated run (round 1 keeps the plain key)."""
    return key if round_number == 1 else f"{key}#round{round_number}"


class Journal:
    """Append-only JSONL of finished scenario results for one run."""

    def __init__(self, path: Path, fingerprint: str) -> None:
        self.path = Path(path)
        self.fingerprint = fingerprint
        self.done: dict[str, dict[str, Any]] = {}
        self._fh = None

    def open(self, *, resume: bool = True) -> "Journal":
        if not (resume and self.path.exists() and self._load()):
            self._start()
        self._fh = open(self.path, "a", encoding="utf-8")
        return self

    def _start(self) -> None:
        """A new journal holding only the header, put in place atomically."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"fingerprint": self.fingerprint}) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)
        self.done = {}

    def _load(self) -> bool:
        """Read finished results; False when the file holds no header (start afresh)."""
        data = self.path.read_bytes()
        lines = data.decode("utf-8", errors="replace").split("\n")
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            return False
        if not isinstance(header, dict) or header.get("fingerprint") != self.fingerprint:
            raise JournalError(
                f"{self.path.name}: made by a run with other settings (model, judge or parameters); "
                "use another --out folder or --fresh"
            )
        body = lines[1:]
        while body and body[-1] == "":
            body.pop()
        for number, line in enumerate(body, start=2):
            try:
                entry = json.loads(line)
                key, result = entry["key"], entry["result"]
            except (json.JSONDecodeError, KeyError, TypeError):
                if number == len(body) + 1:  # the last line, cut short by a crash: it did not finish
                    self._cut_from(data, number)
                    break
                raise JournalError(f"{self.path.name}: line {number} is not a journal entry") from None
            self.done[key] = result
        else:
            if not data.endswith(b"\n"):
                with open(self.path, "ab") as fh:
                    fh.write(b"\n")
        return True

    def _cut_from(self, data: bytes, number: int) -> None:
        """Truncate the file just before line ``number`` (1-based)."""
        cut = 0
        for _ in range(number - 1):
            cut = data.index(b"\n", cut) + 1
        with open(self.path, "r+b") as fh:
            fh.truncate(cut)

    def append(self, key: str, name: str, result: Mapping[str, Any]) -> None:
        line = json.dumps({"key": key, "name": name, "result": result}, ensure_ascii=False)
        self._fh.write(line + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self.done[key] = dict(result)

    def close(self) -> None:
        if self._fh:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
