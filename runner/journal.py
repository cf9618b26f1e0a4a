"""The run journal: every finished scenario, appended and fsynced the moment it ends.

One JSON line per finished scenario, keyed by the scenario's content hash, so an
interrupted run loses nothing that finished and an edited scenario is run again
instead of reused. The first line records the run's fingerprint (model, judge,
parameters); a journal made with other settings is never mixed into this run.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Mapping


class JournalError(Exception):
    """A journal that cannot be used for this run (one line, names the file)."""


def scenario_key(scenario: Mapping[str, Any]) -> str:
    """A content hash of the scenario: any edit to it gives a new key."""
    blob = json.dumps(scenario, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class Journal:
    """Append-only JSONL of finished scenario results for one run."""

    def __init__(self, path: Path, fingerprint: str) -> None:
        self.path = Path(path)
        self.fingerprint = fingerprint
        self.done: dict[str, dict[str, Any]] = {}
        self._fh = None

    def open(self, *, resume: bool = True) -> "Journal":
        if self.path.exists() and resume:
            self._load()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps({"fingerprint": self.fingerprint}) + "\n", encoding="utf-8")
        self._fh = open(self.path, "a", encoding="utf-8")
        return self

    def _load(self) -> None:
        lines = self.path.read_text(encoding="utf-8").splitlines()
        try:
            header = json.loads(lines[0]) if lines else {}
        except json.JSONDecodeError:
            header = {}
        if header.get("fingerprint") != self.fingerprint:
            raise JournalError(
                f"{self.path.name}: made by a run with other settings (model, judge or parameters); "
                "use another --out folder or --fresh"
            )
        for number, line in enumerate(lines[1:], start=2):
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                if number == len(lines):  # a write cut short by a crash: that scenario did not finish
                    self._truncate_last_line()
                    break
                raise JournalError(f"{self.path.name}: line {number} is not valid JSON") from None
            self.done[entry["key"]] = entry["result"]

    def _truncate_last_line(self) -> None:
        data = self.path.read_bytes()
        cut = data.rstrip(b"\n").rfind(b"\n") + 1
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
