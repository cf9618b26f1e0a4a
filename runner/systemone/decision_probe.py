"""Conformance probes of a System One decision endpoint, run by ``auditpacks probe-decision URL`` and, in
short, before every decision run.

The full probe checks the response schema, option-order invariance, determinism, the option
and request-size limits the endpoint enforces, and its state window; the short one (before a
run) leaves out the two limit searches and places the canary only after as many characters
as the run's longest state. Every probe is bounded by a request count and a deadline; a
probe the budget does not reach is ``not run``. The result is a JSON-ready dict: it goes into
the run record (``decision_probe``), and each failed or inconclusive check becomes a warning
line in the run's summary.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Iterable, Mapping

from auditpacks.core.redact import redact
from auditpacks.runner.systemone import probe_checks, probe_limits
from auditpacks.runner.systemone.protocol import SystemOneError
from auditpacks.runner.systemone.probe_client import BudgetSpent, ProbeClient

PROBE_MODEL = "probe"
SHORT_REQUESTS, SHORT_SECONDS = 20, 60.0
FULL_REQUESTS, FULL_SECONDS = 80, 300.0
WINDOW_BOUND = 256 * 2**10
#: How many checks each probe makes (the short one leaves out the two limit searches).
CHECKS = {"full": 6, "short": 4}


def probe(url: str, *, model: str = PROBE_MODEL, headers: Mapping[str, str] | None = None, timeout: float = 30.0,
          short: bool = False, max_requests: int | None = None, seconds: float | None = None,
          max_options: int = 256, max_bytes: int = 4 * 2**20, window_chars: int = WINDOW_BOUND,
          on_check: Callable[[str, Mapping[str, Any]], None] | None = None) -> dict[str, Any]:
    """Probe the endpoint at ``url``; see the module doc. Never raises for what the endpoint does. ``on_check``
    gets each check's name and finding as it ends (progress; none when nothing answers)."""
    budget = (SHORT_REQUESTS, SHORT_SECONDS) if short else (FULL_REQUESTS, FULL_SECONDS)
    checks: dict[str, dict[str, Any]] = {}
    with ProbeClient(url, headers=headers, timeout=timeout, max_requests=max_requests or budget[0],
                     seconds=seconds or budget[1]) as client:
        def check(name: str, run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
            if checks.get("schema", {}).get("reachable") is False:
                checks[name] = {"status": "not run", "detail": "the endpoint did not answer"}
            else:
                try:
                    checks[name] = run()
                except BudgetSpent as exc:
                    checks[name] = {"status": "not run", "detail": str(exc)}
                except SystemOneError as exc:
                    checks[name] = {"status": "failed", "detail": str(exc)}
            found = checks[name]
            if name == "schema" and found["status"] == "failed" and found["detail"].startswith(
                    ("ConnectError", "ConnectTimeout")):
                found["reachable"] = False
            if on_check is not None and checks["schema"].get("reachable") is not False:
                on_check(name, found)
            return found

        check("schema", lambda: probe_checks.schema(client, model))
        check("option_order", lambda: probe_checks.option_order(client, model))
        noise = check("determinism", lambda: probe_checks.determinism(client, model)).get("max_probability_change", 0)
        window = {"bound": window_chars}
        if short:
            window["sizes"] = (window_chars,)
            window["steps"] = 4
        else:
            check("option_limit", lambda: probe_limits.option_limit(client, model, max_options))
            size = check("request_size_limit", lambda: probe_limits.request_size_limit(client, model, max_bytes))
            if size.get("refused_bytes"):  # keep the canary searches within what the endpoint accepts
                window["bound"] = min(window_chars, size["accepted_bytes"])
        check("state_window", lambda: probe_limits.state_window(client, model, noise=noise, **window))
        requests = client.requests
    return {"url": redact(url), "model": model, "mode": "short" if short else "full", "requests": requests,
            "checks": checks, "warnings": warnings(checks)}


def warnings(checks: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One line per failed or inconclusive check."""
    return [f"{name.replace('_', ' ')}: {c['status']}: {c.get('detail', '')}" for name, c in checks.items()
            if c.get("status") in ("failed", "inconclusive")]


def notes(result: Mapping[str, Any] | None) -> list[str]:
    """The summary's lines for a probe result (none when it found nothing)."""
    return [f"decision probe: {line}" for line in (result or {}).get("warnings", [])]


def longest_state(scenarios: Iterable[Mapping[str, Any]]) -> int:
    """Characters in the longest state of these scenarios (their documents together)."""
    longest = 0
    for scenario in scenarios:
        texts = [d if isinstance(d, str) else (d or {}).get("text") or (d or {}).get("content") or ""
                 for d in scenario.get("documents") or []]
        longest = max(longest, sum(len(t) for t in texts if isinstance(t, str)))
    return longest


def before_run(target: Any, scenarios: Iterable[Mapping[str, Any]], *, timeout: float) -> dict[str, Any]:
    """The short probe of a decision run's endpoint (``target``: its ``DecisionTarget``), its warnings
    printed on stderr; the canary goes as far into the state as the run's longest state reaches."""
    window = min(max(longest_state(scenarios), 1024), WINDOW_BOUND)
    result = probe(target.url, model=target.model, headers=target.headers, timeout=min(timeout, 60.0), short=True,
                   window_chars=window)
    for line in notes(result):
        print(redact(f"auditpacks: warning: {line}"), file=sys.stderr)
    return result
