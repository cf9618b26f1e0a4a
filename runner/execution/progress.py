"""Progress of a run: a live bar on a terminal, plain lines elsewhere (CI logs).

Scenarios reused from the journal count as done from the start (and their errors
and tokens are counted); the rate and the ETA use only the scenarios run now. With a
``plan`` path, each start writes there how many scenarios the run has to finish, how many
were reused and when it started: with the journal, that is what ``auditpacks status`` reads.
``log=True`` (``--log-progress``) is for job logs: plain lines stamped with the UTC time, every
5% and at least once a minute while scenarios finish, even with ``--quiet`` or on a terminal.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from auditpacks.core.numbers import token_count
from auditpacks.core.run_files import is_error
from auditpacks.core.io import atomic_write_text

LOG_EVERY_S = 60.0  # --log-progress: the longest gap between two lines while scenarios finish


class ProgressPrinter:
    """Counts finished scenarios, errors, skips and tokens; shows rate and ETA."""

    def __init__(self, total: int, *, show: bool | None = None, stream=None, plan: Path | None = None,
                 log: bool = False) -> None:
        self.total = total
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

    def __enter__(self) -> "ProgressPrinter":
        if self.live and self.total:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._bar = Progress(TextColumn("[bold]run"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[info]}"), TimeRemainingColumn(), transient=True)
            self._bar.start()
            self._task = self._bar.add_task("run", total=self.total, info="")
        return self

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

    def info(self) -> str:
        skipped = f" · {self.skipped} skipped" if self.skipped else ""
        return f"{self.rate():.2f}/s · {self.errors} errors{skipped} · {self.tokens} tokens"

    def update(self, result: dict[str, Any] | None) -> None:
        """One scenario finished (``None``: skipped)."""
        self._count(result)
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, info=self.info())
        elif not self.quiet and (self.done >= self._next_line or self.done == self.total
                                 or (self.log and time.monotonic() - self._last_line >= LOG_EVERY_S)):
            rate = self.rate()
            eta = (self.total - self.done) / rate if rate else 0.0
            self._line(f"[{self.done}/{self.total}] {self.info()} · eta {eta:.0f}s")
            self._next_line = self.done + max(1, self.total // 20)

    def _line(self, text: str) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ ", time.gmtime()) if self.log else ""
        print(stamp + text, file=self.stream, flush=True)
        self._last_line = time.monotonic()

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.stop()
