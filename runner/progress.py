"""Progress of a run: a live bar on a terminal, plain lines elsewhere (CI logs)."""

from __future__ import annotations

import sys
import time
from typing import Any


class ProgressPrinter:
    """Counts finished scenarios, errors and tokens; shows rate and ETA."""

    def __init__(self, total: int, *, show: bool | None = None, stream=None) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if show is None else show and self.stream.isatty()
        self.quiet = show is False
        self.done = self.errors = self.tokens = 0
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

    def update(self, result: dict[str, Any]) -> None:
        self.done += 1
        self.errors += result.get("severity") == "ERROR"
        self.tokens += int(result.get("target_input_tokens") or 0) + int(result.get("target_output_tokens") or 0)
        elapsed = time.monotonic() - self._start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        info = f"{rate:.2f}/s · {self.errors} errors · {self.tokens} tokens"
        if self._bar is not None:
            self._bar.update(self._task, advance=1, info=info)
        elif not self.quiet and (self.done >= self._next_line or self.done == self.total):
            eta = (self.total - self.done) / rate if rate else 0.0
            print(f"[{self.done}/{self.total}] {info} · eta {eta:.0f}s", file=self.stream, flush=True)
            self._next_line = self.done + max(1, self.total // 20)

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.stop()
