"""Progress that talks while a scenario waits, and a pace and ETA that read well at slow speeds."""

from __future__ import annotations

import asyncio
import io
import re
import time
from types import SimpleNamespace

import pytest

from auditpacks.runner.display import progress as progress_module
from auditpacks.runner.display.heartbeat import Heartbeat, waiting_line
from auditpacks.runner.display.progress import ProgressPrinter
from auditpacks.runner.models import waits
from auditpacks.runner.models.retry import RetryPolicy, call_with_retries


def test_the_waiting_line_names_the_attempt_the_wait_and_the_deadline():
    now = time.monotonic()
    waits.note(1, 2, 3, since=now - 95, timeout=505)
    waits.note(2, 1, 3, since=now - 5, timeout=600)
    try:
        line = waiting_line(now)
    finally:
        waits.clear(1)
        waits.clear(2)
    assert re.fullmatch(r"waiting 95 s · attempt 2 of 3 · this attempt times out in 50[45] s · 2 calls in flight",
                        line), line
    assert waiting_line() is None   # nothing in flight


def test_a_call_that_waits_gets_heartbeat_lines_and_its_note_goes_when_it_ends():
    async def slow():
        await asyncio.sleep(1.2)
        return "ok"

    stream = io.StringIO()
    with ProgressPrinter(5, stream=stream, show=True, heartbeat_s=0.3) as progress:
        progress.start([])
        assert asyncio.run(call_with_retries(slow, RetryPolicy(max_retries=2, timeout=600))) == "ok"
    lines = stream.getvalue().splitlines()
    assert lines and all(re.fullmatch(r"\[0/5\] waiting \d+ s · attempt 1 of 3 · this attempt times out in "
                                      r"\d+ s", line) for line in lines), lines
    assert waits.longest() == (None, 0)


def test_a_quiet_run_prints_no_heartbeat():
    stream = io.StringIO()
    waits.note(3, 1, 1, since=time.monotonic(), timeout=None)
    try:
        with ProgressPrinter(5, stream=stream, show=False, heartbeat_s=0.1):
            time.sleep(0.4)
    finally:
        waits.clear(3)
    assert stream.getvalue() == ""


def test_a_slow_run_shows_seconds_per_scenario_and_an_eta_once_one_finished(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    progress = ProgressPrinter(5, stream=io.StringIO(), show=False)
    progress.start([])
    clock[0] += 30
    assert progress.info() == "first scenario running · 0 errors · 0 tokens · eta after the first scenario"
    progress.update({})
    clock[0] += 10    # 1 scenario in 40 s: 40 s each, 4 to go = 160 s
    assert progress.info() == "40.0 s/scenario · 0 errors · 0 tokens · eta 0:02:40"
    for _ in range(3):
        progress.update({})
    clock[0] = 1000.0 + 2    # 4 scenarios in 2 s: 2 a second, 1 to go
    assert progress.info() == "2.00/s · 0 errors · 0 tokens · eta 0:00:00"


def test_the_line_is_read_at_the_time_given_and_a_passed_deadline_shows_as_0_s():
    now = time.monotonic()
    waits.note(4, 1, 2, since=now - 5, timeout=10)
    try:
        line = waiting_line(now + 1000)   # asked long after the attempt's deadline
    finally:
        waits.clear(4)
    assert line == "waiting 1005 s · attempt 1 of 2 · this attempt times out in 0 s"


class _Stop:
    """A stop event that is not set for ``rounds`` waits, recording the longest each wait may take."""

    def __init__(self, rounds: int) -> None:
        self.rounds, self.timeouts = rounds, []

    def wait(self, timeout: float) -> bool:
        self.timeouts.append(timeout)
        return len(self.timeouts) > self.rounds


@pytest.mark.parametrize("every, quiet_for, in_flight, lines, checks_every", [
    (30.0, 30.0, True, ["waiting 95 s · attempt 2 of 3 · this attempt times out in 505 s"], 1.0),
    (30.0, 29.5, True, [], 1.0),      # printed to half a second ago: not yet
    (0.25, 0.25, True, ["waiting 95 s · attempt 2 of 3 · this attempt times out in 505 s"], 0.25),
    (30.0, 60.0, False, [], 1.0),     # quiet, but no model call waits
])
def test_a_beat_prints_the_waiting_line_once_the_progress_was_quiet_for_its_period(
        monkeypatch, every, quiet_for, in_flight, lines, checks_every):
    monkeypatch.setattr(time, "monotonic", lambda: 1000.0)
    if in_flight:
        waits.note(5, 2, 3, since=1000.0 - 95, timeout=505)
    emitted = []
    beat = Heartbeat(emitted.append, lambda: 1000.0 - quiet_for, every=every)
    beat._stop = _Stop(rounds=1)
    try:
        beat._beat()
    finally:
        waits.clear(5)
    assert emitted == lines and beat._stop.timeouts == [checks_every, checks_every]


def test_the_beat_runs_in_a_named_daemon_thread_and_stop_waits_for_it_at_most_5_s():
    Heartbeat(print, time.monotonic).stop()    # never started: nothing to wait for
    beat = Heartbeat(print, time.monotonic).start()
    thread = beat._thread
    assert (thread.name, thread.daemon) == ("auditpacks-heartbeat", True)   # never keeps a finished run alive
    beat.stop()
    assert not thread.is_alive()
    joined = []
    beat._thread = SimpleNamespace(join=lambda timeout: joined.append(timeout))
    beat.stop()
    assert joined == [5]
