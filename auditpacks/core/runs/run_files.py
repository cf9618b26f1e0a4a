"""What a run's files are called, what an ERROR result is and its cause in one line: each rule stated once.

A run writes, under one stem (the model's file name):

* ``<stem>.json``: simpleaudit ``AuditResults`` of round 1 (``<stem>.round<N>.json`` for round N);
* ``<stem>.run.json``: the run record;
* ``<stem>.journal.jsonl``: finished scenarios, for resuming;
* ``<stem>.progress.jsonl``: how many scenarios the run has to finish and when it (re)started, for
  ``auditpacks status``;
* a run under a tool condition also ``<stem>.traces.jsonl`` (every step of every scenario),
  ``<stem>.tools.jsonl`` (the condition's facts and counts) and ``<stem>.tools-journal.jsonl``.
* for a results file too big for one file (:mod:`auditpacks.core.runs.results_layout`): its further parts
  ``<stem>.part<K>.json`` (``<stem>.round<N>.part<K>.json``) and its documents, stored once,
  ``<stem>.documents.jsonl`` (``<stem>.round<N>.documents.jsonl``), named by :func:`split_name`.

Without ``--out``, each run has its own folder under the pack's folder, named by its run id
(:func:`run_id`: the model's stem, the judge or decision, the settings that set it apart, the start
time); the pack's folder keeps ``runs.jsonl``, the index of its runs and their settings, and
``latest``, a link to the run that finished last.

Only results files end in ``.json`` besides the run record (which holds no ``results`` list): the
progress file, the tool facts and the index are one JSON object on one line, named ``.jsonl``, so a
viewer that offers a folder's ``*.json`` files (SimpleAudit Studio) offers what opens in it. Their
earlier names (``.progress.json``, ``.tools.json``, ``runs.json``) are still read (:func:`existing`).

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
PROGRESS_SUFFIX, OLD_PROGRESS_SUFFIX = ".progress.jsonl", ".progress.json"
BATCHES_SUFFIX = ".batches.jsonl"
TRACES_SUFFIX, TOOLS_SUFFIX, TOOLS_JOURNAL_SUFFIX = ".traces.jsonl", ".tools.jsonl", ".tools-journal.jsonl"
OLD_TOOLS_SUFFIX = ".tools.json"
DOCUMENTS_SUFFIX = ".documents.jsonl"
ERROR = "ERROR"
INDEX_NAME, OLD_INDEX_NAME = "runs.jsonl", "runs.json"
LATEST_NAME = "latest"

_ROUND = re.compile(r"(?:\.round\d+)?(?:\.part\d+)?$")


def results_name(stem: str, round_number: int = 1) -> str:
    """The results file of one round: ``<stem>.json`` for round 1, ``<stem>.round<N>.json`` after."""
    return f"{stem}{RESULTS_SUFFIX}" if round_number == 1 else f"{stem}.round{round_number}{RESULTS_SUFFIX}"


def split_name(results_file: str, part: int | None = None) -> str:
    """A file of a results file's split layout: its part ``part`` (2 and up), ``<name>.part<K>.json``, or
    (``part`` None) its documents stored once, ``<name>.documents.jsonl``; ``results_file`` is the name of
    the results file (its first part)."""
    base = results_file[: -len(RESULTS_SUFFIX)] if results_file.endswith(RESULTS_SUFFIX) else results_file
    if part is None:
        return base + DOCUMENTS_SUFFIX
    if part < 2:
        raise ValueError(f"part {part}: the first part is the results file itself")
    return f"{base}.part{part}{RESULTS_SUFFIX}"


def record_name(stem: str) -> str:
    """The run record's file name."""
    return stem + RECORD_SUFFIX


def journal_name(stem: str) -> str:
    """The journal's file name."""
    return stem + JOURNAL_SUFFIX


def progress_name(stem: str) -> str:
    """The file that says how many scenarios a run has to finish and when it started."""
    return stem + PROGRESS_SUFFIX


def batches_name(stem: str) -> str:
    """The log of a ``--batch-api`` run's submitted batches and their downloaded results (for re-attaching)."""
    return stem + BATCHES_SUFFIX


def tool_run_names(stem: str) -> tuple[str, str, str]:
    """A tool run's traces, condition facts and journal file names."""
    return stem + TRACES_SUFFIX, stem + TOOLS_SUFFIX, stem + TOOLS_JOURNAL_SUFFIX


def run_id(stem: str, mode: str, settings: list[str], started: dt.datetime) -> str:
    """A run's folder name: ``smollm2-checklist-t0.7-1203-071530`` (model stem, judge or decision,
    the settings that set it apart, start time in UTC)."""
    parts = [stem, mode, *settings, started.astimezone(dt.timezone.utc).strftime("%m%d-%H%M%S")]
    return "-".join(re.sub(r"[^A-Za-z0-9._-]+", "_", p).strip("_") or "x" for p in parts)


def plain_name(value: Any) -> bool:
    """Whether ``value``, read from a run file (an index's run id), is a plain name of a file or folder inside
    its own folder: a non-empty string without a path separator, not ``.`` or ``..``, no NUL, not hidden."""
    return (isinstance(value, str) and 0 < len(value) <= 255 and Path(value).name == value and "\\" not in value
            and "\0" not in value and not value.startswith("."))


def stem_of(path: str | Path) -> str:
    """The run's stem from any of its files (results of any round or part, their documents, run record or
    journal)."""
    name = Path(path).name
    for suffix in (RECORD_SUFFIX, JOURNAL_SUFFIX, PROGRESS_SUFFIX, OLD_PROGRESS_SUFFIX, BATCHES_SUFFIX, TRACES_SUFFIX,
                   TOOLS_SUFFIX, OLD_TOOLS_SUFFIX, TOOLS_JOURNAL_SUFFIX, DOCUMENTS_SUFFIX, RESULTS_SUFFIX):
        if name.endswith(suffix):
            return _ROUND.sub("", name[: -len(suffix)])
    return name


def existing(folder: str | Path, name: str, old: str) -> Path:
    """``folder/name``, or ``folder/old`` (the file's earlier name) when only that one is there."""
    new, earlier = Path(folder) / name, Path(folder) / old
    return earlier if not new.exists() and earlier.exists() else new


def one_line_json(data: Any) -> str:
    """``data`` as one line of JSON with its newline: the whole of a ``.jsonl`` file holding one object."""
    import json

    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def record_for(path: str | Path) -> Path:
    """The run record beside any of a run's files."""
    return Path(path).with_name(record_name(stem_of(path)))


def is_error(result: Mapping[str, Any] | None) -> bool:
    """Whether a result is an ERROR: the scenario's severity, or its judgment's, is ``ERROR``."""
    if not isinstance(result, Mapping):
        return False
    judgment = result.get("judgment")
    return result.get("severity") == ERROR or (isinstance(judgment, Mapping) and judgment.get("severity") == ERROR)


def error_message(result: Mapping[str, Any]) -> str:
    """An ERROR result's cause in one line (its judgment's error, else its first issue)."""
    judgment = result.get("judgment") or {}
    text = judgment.get("error") or next(iter(result.get("issues_found") or []), "") or "unknown error"
    text = str(text).removeprefix("Scenario execution failed: ").strip().splitlines()
    line = text[0] if text else "unknown error"
    return line if len(line) <= 160 else line[:159] + "…"
