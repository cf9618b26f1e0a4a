"""Check before the first scenario that the endpoint answers, so a bad URL fails in one line."""

from __future__ import annotations

import httpx

from auditpacks.core import bounded_http

from auditpacks.runner.execution.config import RunError


def check_reachable(url: str, *, timeout: float = 10.0) -> None:
    """Raise :class:`RunError` naming ``url`` when nothing answers there.

    Any HTTP answer (even 401 or 404) proves a server is listening; only
    connection failures and time-outs count as unreachable.
    """
    try:
        with bounded_http.client(url, timeout=timeout) as client:
            client.get(url.rstrip("/") + "/models")
    except httpx.ConnectError as exc:
        raise RunError(f"cannot reach {url}: {_reason(exc)}") from None
    except httpx.TimeoutException:
        raise RunError(f"cannot reach {url}: no answer within {timeout:g} s") from None
    except httpx.HTTPError as exc:
        raise RunError(f"cannot reach {url}: {type(exc).__name__}: {_reason(exc)}") from None


def _reason(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0]
