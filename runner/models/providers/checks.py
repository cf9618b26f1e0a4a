"""The cheap request before a run that each provider class answers for itself (``ModelAPI.check``).

Our OpenAI-compatible clients: ``GET {base}/models`` with the key (any answer but 401 or 403 proves a
server that takes the key, even 404); any-llm providers: the SDK's model list, authenticated as the run's
calls are (providers whose SDK lists no models are not checked); a bare address (``check_reachable``):
any HTTP answer. Connection failures and time-outs fail at once (no retries).
"""

from __future__ import annotations

from typing import Any, Mapping

import httpx

from auditpacks.core.bounded import http as bounded_http
from auditpacks.core.redact import public_url, redact
from auditpacks.runner.models.errors import RunError

PREFLIGHT_TIMEOUT_S = 10.0
REFUSED = (401, 403)


def check_reachable(url: str, *, timeout: float = PREFLIGHT_TIMEOUT_S, who: str | None = None,
                    suffix: str = "/models") -> None:
    """Raise :class:`RunError` naming ``url`` when nothing answers at ``url`` + ``suffix``.

    Any HTTP answer (even 401 or 404) proves a server is listening; only
    connection failures and time-outs count as unreachable.
    """
    _get(url.rstrip("/") + suffix if suffix else url, url, who=who, timeout=timeout)


def check_openai(url: str, key: str | None, *, who: str | None = None, hint: str = "",
                 timeout: float = PREFLIGHT_TIMEOUT_S) -> None:
    """One authenticated ``GET {url}/models``: nothing listening, or the key refused, is a :class:`RunError`."""
    headers = {"Authorization": f"Bearer {key}"} if key and key != "local" else {}
    answer = _get(url.rstrip("/") + "/models", url, who=who, timeout=timeout, headers=headers)
    if answer.status_code in REFUSED:
        raise RunError(f"{who + ': ' if who else ''}{public_url(url)} refuses the key (HTTP {answer.status_code})"
                       + (f": check {hint}" if hint else ""))


def missing_extra(provider: str) -> str:
    """The line for an any-llm provider whose SDK is not installed: which package to install."""
    from auditpacks.runner.models.providers import extra_package

    return f"provider {provider!r} needs its SDK: pip install '{extra_package(provider)}'"


#: The fields of a /models entry that name the weights; others (``created``: the time of the request) vary.
IDENTITY_FIELDS = ("id", "root", "parent", "digest", "meta")


def served_entry(listing: Any, model: str) -> dict[str, Any] | None:
    """What a ``/models`` listing says is served as ``model``: the entry of that id, or the only entry (a server of
    one model, such as llama.cpp, whatever name is asked for), reduced to :data:`IDENTITY_FIELDS`; None when it
    does not tell."""
    data = listing.get("data") if isinstance(listing, dict) else None
    entries = [e for e in data or [] if isinstance(e, dict)]
    entry = next((e for e in entries if e.get("id") == model), entries[0] if len(entries) == 1 else None)
    return None if entry is None else {k: entry[k] for k in IDENTITY_FIELDS if entry.get(k) is not None} or None


def served_model(url: str, key: str | None, model: str, *, timeout: float = PREFLIGHT_TIMEOUT_S) -> dict | None:
    """:func:`served_entry` of ``GET {url}/models`` (with the key); None when the list cannot be read."""
    headers = {"Authorization": f"Bearer {key}"} if key and key != "local" else {}
    try:
        answer = _get(url.rstrip("/") + "/models", url, who=None, timeout=timeout, headers=headers)
        return served_entry(answer.json(), model) if answer.status_code == 200 else None
    except (RunError, ValueError):
        return None


def _get(address: str, url: str, *, who: str | None, timeout: float,
         headers: Mapping[str, str] | None = None) -> httpx.Response:
    prefix = f"{who}: " if who else ""
    shown = public_url(url)
    try:
        with bounded_http.client(address, timeout=timeout) as client:  # a byte cap and one total deadline
            return client.get(address, headers=dict(headers or {}))
    except httpx.ConnectError as exc:
        raise RunError(redact(f"{prefix}cannot reach {shown}: {_reason(exc)}")) from None
    except httpx.TimeoutException:
        raise RunError(f"{prefix}cannot reach {shown}: no answer within {timeout:g} s") from None
    except httpx.HTTPError as exc:
        raise RunError(redact(f"{prefix}cannot reach {shown}: {type(exc).__name__}: {_reason(exc)}")) from None


def _reason(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0]
