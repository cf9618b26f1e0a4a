"""A System One client for conformance probes: one POST at a time, within a request count and a deadline.

Every request the probes send goes through :meth:`ProbeClient.post`, which counts it and raises
:class:`BudgetSpent` before a request that would exceed ``max_requests`` or start after the
deadline. A transport failure is a :class:`Reply` with ``status`` 0 and the error, never an
exception, so a probe records it and goes on.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Mapping

import httpx

from auditpacks.core.bounded import http as bounded_http
from auditpacks.core.redact import redact
from auditpacks.runner.models import waits


class BudgetSpent(RuntimeError):
    """The probe's request count or time budget is used up."""


@dataclass(frozen=True)
class Reply:
    status: int             # HTTP status; 0 when no answer came (the error says why)
    data: Any               # the parsed JSON body (None when it was not JSON)
    seconds: float
    error: str | None = None
    request_bytes: int = 0

    @property
    def ok(self) -> bool:
        return self.status == 200 and isinstance(self.data, Mapping)

    def why(self) -> str:
        """One line saying why the request failed."""
        if self.error:
            return self.error
        detail = self.data.get("error") if isinstance(self.data, Mapping) else self.data
        return redact(f"HTTP {self.status}: {str(detail)[:200]}")


class ProbeClient:
    """POSTs JSON to one System One URL; ``requests`` counts what was sent."""

    def __init__(self, url: str, *, headers: Mapping[str, str] | None = None, timeout: float = 30.0,
                 max_requests: int = 60, seconds: float = 180.0) -> None:
        self.url, self.timeout, self.max_requests = url, timeout, max_requests
        self.headers = {**(headers or {}), "Content-Type": "application/json"}
        self.deadline = time.monotonic() + seconds
        self.requests = 0
        self._client = bounded_http.client(url, timeout=timeout)

    def post(self, body: Mapping[str, Any]) -> Reply:
        if self.requests >= self.max_requests:
            raise BudgetSpent(f"the probe's budget of {self.max_requests} requests is spent")
        if time.monotonic() >= self.deadline:
            raise BudgetSpent("the probe's time budget is spent")
        self.requests += 1
        payload = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        started, key = time.monotonic(), id(payload)
        waits.note(key, 1, 1, started, self.timeout)   # for the progress heartbeat
        try:
            response = self._client.post(self.url, content=payload, headers=self.headers)
        except httpx.HTTPError as exc:
            error = redact(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": "))
            return Reply(0, None, time.monotonic() - started, error, len(payload))
        finally:
            waits.clear(key)
        try:
            data = response.json()
        except ValueError:
            data = response.text[:300]
        return Reply(response.status_code, data, time.monotonic() - started, None, len(payload))

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> "ProbeClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
