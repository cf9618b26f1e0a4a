"""Model calls in flight, so progress can say what a waiting scenario waits for.

The retry layer (:func:`~auditpacks.runner.models.retry.call_with_retries`) notes each attempt here
(its number, how many it may make, when the call began and when this attempt times out) and
clears the note when the call ends; :func:`longest` is the call that has waited longest.
Thread-safe: the progress heartbeat reads it from its own thread.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Wait:
    attempt: int                 # 1-based
    attempts: int                # at most this many
    since: float                 # time.monotonic() when the call began
    deadline: float | None       # time.monotonic() when this attempt times out (None: no time-out)


_lock = threading.Lock()
_waits: dict[int, Wait] = {}


def note(key: int, attempt: int, attempts: int, since: float, timeout: float | None) -> None:
    deadline = time.monotonic() + timeout if timeout else None
    with _lock:
        _waits[key] = Wait(attempt, attempts, since, deadline)


def clear(key: int) -> None:
    with _lock:
        _waits.pop(key, None)


def longest() -> tuple[Wait | None, int]:
    """The call in flight that began first, and how many calls are in flight."""
    with _lock:
        waits = list(_waits.values())
    return (min(waits, key=lambda w: w.since) if waits else None), len(waits)
