"""Model calls in flight, as the progress line reads them: each attempt noted under its call's key (its number, how
many it may make, when the call began, when this attempt times out), cleared when the call ends, and the call that
has waited longest with how many are in flight."""

from __future__ import annotations

import threading

import pytest

from auditpacks.runner.models import waits


@pytest.fixture(autouse=True)
def nothing_in_flight():
    waits._waits.clear()
    yield
    waits._waits.clear()


def test_nothing_in_flight():
    assert waits.longest() == (None, 0)


def test_an_attempt_times_out_its_time_out_from_now(monkeypatch):
    monkeypatch.setattr(waits.time, "monotonic", lambda: 1000.0)
    waits.note(1, 2, 3, since=990.0, timeout=30.0)
    assert waits.longest() == (waits.Wait(attempt=2, attempts=3, since=990.0, deadline=1030.0), 1)


@pytest.mark.parametrize("timeout", [None, 0, 0.0])
def test_without_a_time_out_there_is_no_deadline(timeout):
    waits.note(1, 1, 3, since=5.0, timeout=timeout)
    assert waits.longest()[0].deadline is None


def test_the_longest_wait_is_the_call_that_began_first_and_a_new_attempt_replaces_the_old(monkeypatch):
    monkeypatch.setattr(waits.time, "monotonic", lambda: 100.0)
    waits.note(1, 1, 3, since=50.0, timeout=10.0)
    waits.note(2, 1, 3, since=20.0, timeout=None)
    waits.note(3, 1, 3, since=70.0, timeout=10.0)
    assert waits.longest() == (waits.Wait(1, 3, 20.0, None), 3)
    waits.note(2, 2, 3, since=20.0, timeout=5.0)                   # the retry of call 2
    assert waits.longest() == (waits.Wait(2, 3, 20.0, 105.0), 3)
    waits.clear(2)
    assert waits.longest() == (waits.Wait(1, 3, 50.0, 110.0), 2)
    waits.clear(2)                                                 # clearing twice is harmless
    waits.clear(1)
    waits.clear(3)
    assert waits.longest() == (None, 0)


def test_a_wait_cannot_be_changed_once_noted():
    waits.note(1, 1, 1, since=0.0, timeout=None)
    with pytest.raises(AttributeError):
        waits.longest()[0].attempt = 2


def test_calls_noted_and_cleared_from_many_threads_are_all_counted():
    def work(base):
        for k in range(base, base + 200):
            waits.note(k, 1, 1, since=float(k), timeout=None)
        for k in range(base, base + 100):
            waits.clear(k)

    threads = [threading.Thread(target=work, args=(n * 1000,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wait, count = waits.longest()
    assert count == 400 and wait.since == 100.0
