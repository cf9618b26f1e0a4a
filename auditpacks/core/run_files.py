"""What a run's files are called and what an ERROR result is: each rule stated once.

A run writes, under one stem (the model's file name):

* ``<stem>.json``: simpleaudit ``AuditResults`` of round 1 (``<stem>.round<N>.json`` for round N);
* ``<stem>.run.json``: the run record;
* ``<stem>.journal.jsonl``: finished scenarios, for resuming;
* ``<stem>.progress.json``: how many scenarios the run has to finish and when it (re)started, for
  ``auditpacks status``.

Without ``--out``, each run has its own folder under the pack's folder, named by its run id
(:func:`run_id`: the model's stem, the judge or decision, the settings that set it apart, the start
time); the pack's folder keeps ``runs.json``, the index of its runs and their settings, and
``latest``, a link to the run started last.

A result is an ERROR when simpleaudit marked the scenario so or its judgment is one (a judge
call that failed): it is no answer, and every count, figure and export leaves it out the same way.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any, Mapping

RESULTS_SUFFIX = ".json"
RECORD_SUFFIX = ".run.json"
JOURNAL_SUFFIX = ".journal.jsonl"
PROGRESS_SUFFIX = ".progress.json"
ERROR = "ERROR"
INDEX_NAME = "runs.json"
LATEST_NAME = "latest"

_ROUND = re.compile(r"\.round\d+$")


def results_name(stem: str, round_number: int = 1) -> str:
    """The results file of one round: ``<stem>.json`` for round 1, ``<stem>.round<N>.json`` after."""
    return f"{stem}{RESULTS_SUFFIX}" if round_number == 1 else f"{stem}.round{round_number}{RESULTS_SUFFIX}"


def record_name(stem: str) -> str:
    """The run record's file name."""
    return stem + RECORD_SUFFIX


def journal_name(stem: str) -> str:
    """The journal's file name."""
    return stem + JOURNAL_SUFFIX


def progress_name(stem: str) -> str:
    """The file that says how many scenarios a run has to finish and when it started."""
    return stem + PROGRESS_SUFFIX


def run_id(stem: str, mode: str, settings: list[str], started: dt.datetime) -> str:
    """A run's folder name: ``smollm2-checklist-t0.7-1203-071530`` (model stem, judge or decision,
    the settings that set it apart, start time in UTC)."""
    parts = [stem, mode, *settings, started.astimezone(dt.timezone.utc).strftime("%m%d-%H%M%S")]
    return "-".join(re.sub(r"[^A-Za-z0-9._-]+", "_", p).strip("_") or "x" for p in parts)


def stem_of(path: str | Path) -> str:
    """The run's stem from any of its files (results of any round, run record or journal)."""
    name = Path(path).name
    for suffix in (RECORD_SUFFIX, JOURNAL_SUFFIX, PROGRESS_SUFFIX, RESULTS_SUFFIX):
        if name.endswith(suffix):
            return _ROUND.sub("", name[: -len(suffix)])
    return name


def record_for(path: str | Path) -> Path:
    """The run record beside any of a run's files."""
    return Path(path).with_name(record_name(stem_of(path)))


def is_error(result: Mapping[str, Any] | None) -> bool:
    """Whether a result is an ERROR: the scenario's severity, or its judgment's, is ``ERROR``."""
    if not isinstance(result, Mapping):
        return False
    judgment = result.get("judgment")
    return result.get("severity") == ERROR or (isinstance(judgment, Mapping) and judgment.get("severity") == ERROR)
