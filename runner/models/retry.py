"""The one retry layer for model calls: backoff with jitter, ``Retry-After``, a per-call timeout.

``call_with_retries(attempt, policy)`` runs ``attempt()`` (a coroutine factory) at most
``policy.max_retries + 1`` times. Retried: HTTP 408, 409, 429 and 5xx, time-outs,
dropped or refused connections and malformed (cut-off) response bodies. Anything else
(400, 401, 404, ...), a reply over the byte cap and a redirect to another host
(:mod:`auditpacks.core.bounded.http`) fail at once. The delay before retry ``k`` (0-based) is
``min(max_delay, backoff * 2**k)`` times a jitter factor in [0.5, 1); a ``Retry-After``
header in seconds replaces it, capped at ``retry_after_cap``. When every attempt fails,
:class:`CallFailed` says how many were made and what each one got. Each attempt is noted in
:mod:`~auditpacks.runner.models.waits` while it runs (for the progress heartbeat).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

import httpx

from auditpacks.core.bounded.http import budget_error
from auditpacks.runner.models import waits

RETRY_STATUS = {408, 409, 429}
_SDK_PREFIX = re.compile(r"^Error code: \d+ - ")


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 2
    backoff: float = 0.5
    max_delay: float = 30.0
    retry_after_cap: float = 60.0
    timeout: float | None = 600.0


class CallFailed(Exception):
    """A model call that did not succeed; the message lists every attempt."""

    def __init__(self, attempts: list[str], *, retryable: bool, status: int | None = None) -> None:
        self.attempts = attempts
        self.retryable = retryable  # the last failure was worth retrying (transport, 5xx, time-out, 408, 429)
        self.status = status        # the last attempt's HTTP status, if it got one
        if retryable:
            text = f"gave up after {len(attempts)} attempt{'s' * (len(attempts) > 1)}: " + "; ".join(attempts)
        else:
            prior = f" (after {len(attempts) - 1} retried failure(s): {'; '.join(attempts[:-1])})" if attempts[:-1] else ""
            text = f"{attempts[-1]} (not retried){prior}"
        super().__init__(text)


def status_of(exc: BaseException) -> int | None:
    """The HTTP status of an SDK error (OpenAI ``status_code``, ollama ``status_code``), if any."""
    for attr in ("status_code", "status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int):
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def retry_after(exc: BaseException) -> float | None:
    """Seconds from a ``Retry-After`` header (the seconds form only; dates are ignored)."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    value = headers.get("retry-after") if headers is not None else None
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and seconds >= 0 else None


def describe(exc: BaseException, timeout: float | None = None) -> tuple[str, bool]:
    """A one-line description of a failed attempt and whether it is worth retrying."""
    budget = budget_error(exc)  # a reply over the byte cap, a redirect to another host: never retried
    if budget is not None:
        return _first_line(str(budget)), False
    if isinstance(exc, asyncio.TimeoutError) or "timeout" in type(exc).__name__.lower():
        return (f"timed out after {timeout:g} s" if timeout else "timed out"), True
    status = status_of(exc)
    if status is not None:
        message = _SDK_PREFIX.sub("", _first_line(getattr(exc, "message", None) or str(exc)))
        return f"HTTP {status}: {message}", status in RETRY_STATUS or status >= 500
    name = type(exc).__name__
    if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError)) or name in ("APIResponseValidationError",):
        return f"malformed response body ({name}: {_first_line(str(exc))})", True
    if isinstance(exc, (httpx.TransportError, ConnectionError, OSError)) or name in ("APIConnectionError",):
        cause = exc.__cause__ or exc.__context__
        detail = f" ({type(cause).__name__})" if cause is not None else ""
        return f"connection failed: {_first_line(str(exc)) or name}{detail}", True
    return f"{name}: {_first_line(str(exc))}", False


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:300]


def delay_for(attempt: int, policy: RetryPolicy, exc: BaseException, rng: random.Random) -> float:
    """Seconds to wait before the next attempt (``attempt`` = failures so far, minus one)."""
    hinted = retry_after(exc)
    if hinted is not None:
        return min(hinted, policy.retry_after_cap)
    return min(policy.max_delay, policy.backoff * 2 ** attempt) * (0.5 + rng.random() / 2)


async def call_with_retries(
    attempt: Callable[[], Awaitable[Any]],
    policy: RetryPolicy,
    *,
    scrub: Callable[[str], str] = lambda text: text,
    rng: random.Random | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> Any:
    """The result of the first successful attempt, or :class:`CallFailed`."""
    rng = rng or random.Random()
    failures: list[str] = []
    key, since = id(failures), time.monotonic()   # this call's note in :mod:`waits`, for the progress heartbeat
    try:
        while True:
            waits.note(key, len(failures) + 1, policy.max_retries + 1, since, policy.timeout)
            try:
                if policy.timeout:
                    return await asyncio.wait_for(attempt(), policy.timeout)
                return await attempt()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - classified below; the rest re-raise as CallFailed
                text, retryable = describe(exc, policy.timeout)
                failures.append(scrub(text))
                if not retryable or len(failures) > policy.max_retries:
                    raise CallFailed(failures, retryable=retryable, status=status_of(exc)) from None
                await sleep(delay_for(len(failures) - 1, policy, exc, rng))
    finally:
        waits.clear(key)
