"""How far runs have come, read from their folders while they run (``auditpacks status``).

A run folder holds, per model, a journal (one line per finished scenario, appended as it
ends), a progress file (how many scenarios the run has to finish, how many it reused, when it
started; written at each start) and, once the run ended, its run file. Reading them takes no
lock and writes nothing, so a running shard is never disturbed; a last journal line still
being written is left out. A run that has not finished and whose folder lock no live process
holds was cancelled or failed: it is *stopped*, with no rate and no ETA. Done counts the journal's scenarios (a later line for the same
key replaces an earlier one); the rate counts only those finished since the run (re)started.
Run files are read under budgets (:mod:`auditpacks.core.bounded.lines`): a journal line at most
:data:`LINE_BYTES` (a longer one is skipped like a damaged one), a progress file at most
:data:`PROGRESS_BYTES`, and a journal that is not a regular file (a link to ``/dev/zero``, a pipe)
is refused in one line naming it.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from auditpacks.core.bounded.lines import Overlong, file_lines, read_capped
from auditpacks.core.errors import UserError
from auditpacks.core.runs.run_files import (JOURNAL_SUFFIX, OLD_PROGRESS_SUFFIX, existing, is_error, progress_name,
                                      record_name, stem_of)
from auditpacks.runner.store.lock import held


@dataclass
class Progress:
    """One run's (or, added up, several runs') progress; ``None``: not known yet."""

    name: str
    done: int
    total: int | None
    errors: int
    rate: float | None       # scenarios per second since the run (re)started
    eta: float | None        # seconds left at that rate
    finished: bool
    stopped: bool = False    # not finished and no process writes it any more (cancelled or failed)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


LINE_BYTES = 64 * 2**20
JOURNAL_BYTES = 64 * 2**30   # far above any run's journal; only a file that never ends reaches it
PROGRESS_BYTES = 2**20


def journal_counts(path: Path) -> tuple[int, int]:
    """(finished scenarios, of which ERROR) in a journal; a damaged, half-written or over-long line is skipped."""
    latest: dict[str, bool] = {}
    lines = file_lines(path, max_line=LINE_BYTES, max_total=JOURNAL_BYTES, what="journal")
    for number, line in enumerate(lines):
        if number == 0 or isinstance(line, Overlong):  # the header; a line too long to be a result read here
            continue
        try:
            entry = json.loads(line)
            latest[entry["key"]] = is_error(entry["result"])
        except (ValueError, KeyError, TypeError, RecursionError):
            continue
    return len(latest), sum(latest.values())


def _plan(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(read_capped(path, PROGRESS_BYTES, what="progress file"))
    except (OSError, ValueError, RecursionError, UserError):
        return {}
    return data if isinstance(data, dict) else {}


def run_progress(journal: Path, name: str, *, now: float | None = None) -> Progress:
    """The progress of the run whose journal is ``journal``."""
    now = time.time() if now is None else now
    stem = stem_of(journal)
    done, errors = journal_counts(journal)
    plan = _plan(existing(journal.parent, progress_name(stem), stem + OLD_PROGRESS_SUFFIX))
    total = plan.get("total") if isinstance(plan.get("total"), int) else None
    record = journal.with_name(record_name(stem))
    finished = record.is_file() and record.stat().st_mtime >= journal.stat().st_mtime
    rate = eta = None
    stopped = not finished and not held(journal.parent)
    started, resumed = plan.get("started"), plan.get("resumed", 0)
    if not finished and not stopped and isinstance(started, (int, float)) and now > started:
        rate = max(0, done - resumed) / (now - started)
        if total is not None and rate > 0:
            eta = max(0, total - done) / rate
    return Progress(name, done, total, errors, rate, eta, finished, stopped)


def folder_progress(folder: Path, *, now: float | None = None) -> list[Progress]:
    """One entry per run in ``folder`` (its name, or name/model when the folder holds several); a folder that
    does not exist yet, or holds no journal, is a run that has not started."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{folder}: not a folder")
    journals = sorted(folder.glob("*" + JOURNAL_SUFFIX)) if folder.exists() else []
    if not journals:
        return [Progress(folder.name, 0, None, 0, None, None, False)]  # not started yet (a shard still queued)
    named = (lambda j: folder.name) if len(journals) == 1 else (lambda j: f"{folder.name}/{stem_of(j)}")
    return [run_progress(j, named(j), now=now) for j in journals]


def overall(rows: list[Progress]) -> Progress:
    """The runs added up: rates add (they run side by side), the ETA is the slowest left over at that."""
    total = None if any(r.total is None for r in rows) else sum(r.total for r in rows)
    running = [r.rate for r in rows if r.rate is not None]
    rate = sum(running) if running else None
    eta = None
    if total is not None and rate:
        eta = max(r.eta or 0.0 for r in rows) if all(r.finished or r.eta is not None for r in rows) else None
    return Progress("total", sum(r.done for r in rows), total, sum(r.errors for r in rows), rate, eta,
                    all(r.finished for r in rows))
