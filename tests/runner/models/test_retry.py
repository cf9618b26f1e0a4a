"""Retries and time-outs: one layer, at most max_retries + 1 requests per call, every scenario accounted for."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from auditpacks.core.bounded.http import RedirectRefused, ReplyTooLarge
from auditpacks.runner.models import waits
from auditpacks.runner.models.retry import CallFailed, RetryPolicy, call_with_retries, describe
from tests.support.fake_openai import FAULT_KINDS, FakeOpenAI
from tests.support.runs import results, run_file, run_here
from tests.support.tiny_pack import write_pack

FAST = ("--retry-backoff", "0.01", "--timeout", "1.5", "--concurrency", "8")


def test_twenty_percent_faults_end_answered_or_error_within_the_retry_limit(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 60)
    with FakeOpenAI() as clean:
        assert run_here(pack, tmp_path / "clean", clean.base_url) == 0
    expected = {r["scenario_name"]: r["severity"] for r in results(tmp_path / "clean")}

    with FakeOpenAI(fault_rate=0.2, seed=7, stall_s=2.0) as server:
        code = run_here(pack, tmp_path / "faulty", server.base_url, "--max-retries", "2", *FAST)
    got = results(tmp_path / "faulty")
    assert code == (3 if any(r["severity"] == "ERROR" for r in got) else 0)
    assert len(got) == 60
    assert set(server.faults_sent) == set(FAULT_KINDS)  # every kind of fault was exercised
    assert max(server.calls.values()) <= 3 and len(server.calls) == 60
    assert any(n > 1 for n in server.calls.values())
    errors = [r for r in got if r["severity"] == "ERROR"]
    for result in got:
        if result["severity"] == "ERROR":
            assert "gave up after 3 attempts: " in result["judgment"]["error"]
        else:  # a retried call that got through gives the same verdict as a clean run
            assert result["severity"] == expected[result["scenario_name"]]
    assert run_file(tmp_path / "faulty")["summary"]["errors"] == len(errors)


def test_max_retries_zero_makes_one_request_per_call(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 4)
    with FakeOpenAI(fault_rate=1.0, faults=("500",)) as server:
        assert run_here(pack, tmp_path / "out", server.base_url, "--max-retries", "0", *FAST) == 3
    assert set(server.calls.values()) == {1}
    errors = {r["judgment"]["error"] for r in results(tmp_path / "out")}
    assert errors == {"CallFailed: gave up after 1 attempt: HTTP 500: injected failure"}


def test_simpleaudit_adds_no_retry_layer_on_a_judge_free_run(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 3)
    with FakeOpenAI(fault_rate=1.0, faults=("500",)) as server:
        assert run_here(pack, tmp_path / "out", server.base_url, "--max-retries", "4", *FAST) == 3
    assert set(server.calls.values()) == {5}


class Status(Exception):
    def __init__(self, status: int, retry_after: str | None = None):
        super().__init__(f"status {status}")
        self.status_code = status
        headers = {"retry-after": retry_after} if retry_after is not None else {}
        self.response = httpx.Response(status, headers=headers)


def attempts_of(errors: list[BaseException], policy: RetryPolicy) -> tuple[list[float], object]:
    """Run a call that raises ``errors`` in turn, then succeeds; return the sleeps and the outcome."""
    sleeps: list[float] = []
    queue = list(errors)

    async def attempt():
        if queue:
            raise queue.pop(0)
        return "ok"

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async def go():
        try:
            return await call_with_retries(attempt, policy, sleep=sleep)
        except CallFailed as exc:
            return exc

    return sleeps, asyncio.run(go())


def test_retry_after_is_honoured_and_capped():
    policy = RetryPolicy(max_retries=3, backoff=0.5, retry_after_cap=20.0)
    sleeps, outcome = attempts_of([Status(429, "7"), Status(503, "3600"), Status(500, "soon")], policy)
    assert outcome == "ok"
    assert sleeps[:2] == [7.0, 20.0]
    assert 1.0 <= sleeps[2] < 2.0  # no usable Retry-After: backoff 0.5 * 2**2 with jitter in [0.5, 1)


def test_client_errors_are_not_retried_and_the_message_lists_attempts():
    sleeps, outcome = attempts_of([Status(502), Status(401)], RetryPolicy(max_retries=5, backoff=0.0))
    assert isinstance(outcome, CallFailed) and len(sleeps) == 1
    assert str(outcome) == "HTTP 401: status 401 (not retried) (after 1 retried failure(s): HTTP 502: status 502)"


@pytest.mark.parametrize("exc, text, retryable", [
    (asyncio.TimeoutError(), "timed out after 2 s", True),
    (httpx.ConnectError("refused"), "connection failed: refused", True),
    (ValueError("Expecting value"), "ValueError: Expecting value", False),
])
def test_describe(exc, text, retryable):
    assert describe(exc, 2.0) == (text, retryable)


def _raised_from(cause: BaseException) -> BaseException:
    """An SDK's connection error raised from ``cause``, as a client wraps a transport error."""
    try:
        raise RuntimeError("Connection error.") from cause
    except RuntimeError as exc:
        return exc


@pytest.mark.parametrize("exc, text", [
    (ReplyTooLarge("reply from h:1 over the 4 MiB cap\nsecond line"), "reply from h:1 over the 4 MiB cap"),
    (_raised_from(RedirectRefused("refused a redirect from http://a to http://b")),
     "refused a redirect from http://a to http://b"),
])
def test_a_broken_budget_is_its_own_first_line_and_never_retried(exc, text):
    assert describe(exc, 2.0) == (text, False)


@pytest.mark.parametrize("errors, status", [([Status(502), Status(404)], 404), ([Status(503)] * 2, 503),
                                            ([asyncio.TimeoutError()] * 2, None)])
def test_a_failed_call_keeps_its_last_attempts_http_status(errors, status):
    _, outcome = attempts_of(errors, RetryPolicy(max_retries=1, backoff=0.0))
    assert isinstance(outcome, CallFailed) and outcome.status == status


def test_each_attempt_is_noted_for_the_heartbeat_and_cleared_when_the_call_ends():
    """Two calls at once, in step: each notes its attempt number, its attempts, its start and its deadline."""
    seen: list[tuple] = []

    def flaky():
        calls = []

        async def attempt():
            wait, in_flight = waits.longest()
            seen.append((wait.attempt, wait.attempts, in_flight, wait.since <= time.monotonic() < wait.deadline))
            calls.append(wait.since)
            await asyncio.sleep(0)
            if len(calls) < 3:
                raise Status(503)
            return calls
        return attempt

    async def go():
        policy = RetryPolicy(max_retries=2, backoff=0.0, timeout=60.0)
        return await asyncio.gather(*(call_with_retries(flaky(), policy) for _ in range(2)))

    started = time.monotonic()
    for since in asyncio.run(go()):
        assert since[0] >= started and len(set(since)) == 1
    assert sorted(seen) == [(1, 3, 2, True)] * 2 + [(2, 3, 2, True)] * 2 + [(3, 3, 2, True)] * 2
    assert waits.longest() == (None, 0)


def test_a_per_call_timeout_ends_a_stalled_attempt():
    async def stall():
        await asyncio.sleep(5)

    async def go():
        with pytest.raises(CallFailed, match=r"gave up after 2 attempts: timed out after 0.05 s; timed out"):
            await call_with_retries(stall, RetryPolicy(max_retries=1, backoff=0.0, timeout=0.05))

    asyncio.run(go())
