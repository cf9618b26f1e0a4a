"""Progress of a run (or of any command that waits on a model: ``what`` names its items, ``label`` its bar):
a live bar on a terminal, plain lines elsewhere (CI logs).

Scenarios reused from the journal count as done from the start (and their errors
and tokens are counted); the rate and the ETA use only the scenarios run now. With a
``plan`` path, each start writes there how many scenarios the run has to finish, how many
were reused and when it started: with the journal, that is what ``auditpacks status`` reads.
``log=True`` (``--log-progress``) is for job logs: plain lines stamped with the UTC time, every
5% and at least once a minute while scenarios finish, even with ``--quiet`` or on a terminal.

The pace reads well at any speed: scenarios per second from one a second up, else seconds per
scenario; the ETA is given once a scenario has finished in this run (before that, none is
known). While a scenario waits, a heartbeat line (:mod:`~auditpacks.runner.display.heartbeat`)
says which attempt it is on, how long it has waited and when the attempt times out.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from auditpacks.core.numbers import token_count
from auditpacks.core.runs.run_files import is_error
from auditpacks.core.io import atomic_write_text
from auditpacks.runner.display.heartbeat import EVERY_S, Heartbeat

LOG_EVERY_S = 60.0  # --log-progress: the longest gap between two lines while scenarios finish


class ProgressPrinter:
    """Counts finished scenarios, errors, skips and tokens; shows rate and ETA."""

    def __init__(self, total: int, *, show: bool | None = None, stream=None, plan: Path | None = None,
                 log: bool = False, heartbeat_s: float = EVERY_S, what: str = "scenario",
                 label: str = "run") -> None:
        self.total, self.what, self.label = total, what, label
        self.plan = plan
        self.log = log
        self.stream = stream or sys.stderr
        self.live = not log and (self.stream.isatty() if show is None else show and self.stream.isatty())
        self.quiet = show is False and not log
        self._last_line = time.monotonic()
        self.done = self.resumed = self.errors = self.skipped = self.tokens = 0
        self._start = time.monotonic()
        self._next_line = 0
        self._bar = None
        self._heartbeat = None if self.quiet else Heartbeat(self._beat, lambda: self._last_line, heartbeat_s)

    def __enter__(self) -> "ProgressPrinter":
        if self.live and self.total:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._bar = Progress(TextColumn(f"[bold]{self.label}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[info]}"), transient=True)
            self._bar.start()
            self._task = self._bar.add_task("run", total=self.total, info="")
        if self._heartbeat is not None:
            self._heartbeat.start()
        return self

    def _beat(self, line: str) -> None:
        if self._bar is not None:
            self._bar.console.print(f"[{self.done}/{self.total}] {line}", markup=False, highlight=False)
            self._last_line = time.monotonic()
        else:
            self._line(f"[{self.done}/{self.total}] {line}")

    def start(self, resumed: list[dict[str, Any]]) -> None:
        """Count the results reused from the journal."""
        for result in resumed:
            self._count(result)
        self.resumed = self.done
        self._start = time.monotonic()
        if self.plan is not None:
            atomic_write_text(self.plan, json.dumps({"total": self.total, "resumed": self.resumed,
                                                     "started": time.time()}) + "\n")
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, info=self.info())
        elif self.resumed and not self.quiet:
            self._line(f"[{self.done}/{self.total}] resumed from the journal")
        self._next_line = self.done + 1

    def _count(self, result: dict[str, Any] | None) -> None:
        self.done += 1
        if result is None:
            self.skipped += 1
            return
        self.errors += is_error(result)
        self.tokens += sum(token_count(result.get(f"target_{kind}_tokens")) or 0 for kind in ("input", "output"))

    def rate(self) -> float:
        elapsed = time.monotonic() - self._start
        return (self.done - self.resumed) / elapsed if elapsed > 0 else 0.0

    def pace(self) -> str:
        """Scenarios per second from one a second up, else seconds per scenario (none finished: no pace yet)."""
        rate = self.rate()
        if not rate:
            return f"first {self.what} running"
        return f"{rate:.2f}/s" if rate >= 1 else f"{1 / rate:.1f} s/{self.what}"

    def eta(self) -> str:
        rate = self.rate()
        if not rate:
            return f"eta after the first {self.what}"
        seconds = round((self.total - self.done) / rate)
        return f"eta {seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"

    def info(self) -> str:
        skipped = f" · {self.skipped} skipped" if self.skipped else ""
        return f"{self.pace()} · {self.errors} errors{skipped} · {self.tokens} tokens · {self.eta()}"

    def update(self, result: dict[str, Any] | None) -> None:
        """One scenario finished (``None``: skipped)."""
        self._count(result)
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, info=self.info())
        elif not self.quiet and (self.done >= self._next_line or self.done == self.total
                                 or (self.log and time.monotonic() - self._last_line >= LOG_EVERY_S)):
            self._line(f"[{self.done}/{self.total}] {self.info()}")
            self._next_line = self.done + max(1, self.total // 20)

    def _line(self, text: str) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ ", time.gmtime()) if self.log else ""
        print(stamp + text, file=self.stream, flush=True)
        self._last_line = time.monotonic()

    def __exit__(self, *exc) -> None:
        if self._heartbeat is not None:
            self._heartbeat.stop()
        if self._bar is not None:
            self._bar.stop()
