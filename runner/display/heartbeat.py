"""A progress line while a scenario waits: which attempt, how long it has waited, when this attempt times out.

While no scenario has finished and no line was printed for :data:`EVERY_S` seconds, :class:`Heartbeat`
prints (through the progress printer) the model call that has waited longest, from
:mod:`~auditpacks.runner.models.waits`::

    [3/20] waiting 95 s · attempt 2 of 3 · this attempt times out in 505 s

so a run whose server answers slowly (or not at all) says so instead of staying silent for the
length of its time-outs.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from auditpacks.runner.models import waits

EVERY_S = 30.0


def waiting_line(now: float | None = None) -> str | None:
    """What the longest-waiting model call waits for (None when no call is in flight)."""
    now = time.monotonic() if now is None else now
    wait, count = waits.longest()
    if wait is None:
        return None
    parts = [f"waiting {now - wait.since:.0f} s", f"attempt {wait.attempt} of {wait.attempts}"]
    if wait.deadline is not None:
        parts.append(f"this attempt times out in {max(0.0, wait.deadline - now):.0f} s")
    if count > 1:
        parts.append(f"{count} calls in flight")
    return " · ".join(parts)


class Heartbeat:
    """A daemon thread calling ``emit(line)`` when ``quiet_since()`` (a monotonic time) is ``every`` seconds ago."""

    def __init__(self, emit: Callable[[str], None], quiet_since: Callable[[], float], every: float = EVERY_S) -> None:
        self.emit, self.quiet_since, self.every = emit, quiet_since, every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "Heartbeat":
        self._thread = threading.Thread(target=self._beat, name="auditpacks-heartbeat", daemon=True)
        self._thread.start()
        return self

    def _beat(self) -> None:
        while not self._stop.wait(min(self.every, 1.0)):
            if time.monotonic() - self.quiet_since() >= self.every:
                line = waiting_line()
                if line:
                    self.emit(line)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
