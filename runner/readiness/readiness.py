"""Inference servers that are still starting: wait for them, let late ones join, and know what they serve.

A server is ready when ``GET {base_url}/models`` answers 200 (vLLM listens only once its
model is loaded; llama.cpp answers 503 while loading), or, where that path is missing,
``GET /health`` on its root answers 200. ``--wait-ready SECONDS`` makes a run wait up to that
long for the first ready endpoint (:func:`wait_first`); in a pool, the endpoints not ready
then are taken out and probed in the background until the time-out, each joining the pool
the moment it is ready (:func:`join_late`).

:func:`served_identity` is what a run's fingerprint records of its endpoints: the model the
server says it serves (its id and, where reported, its root, digest and weights metadata),
not the URL, so a server restarted under another host name resumes the same run.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

import httpx

from auditpacks.core.bounded import http as bounded_http

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.providers.checks import served_entry

PROBE_TIMEOUT_S = 5.0
INTERVAL_S = 2.0


def probe(base_url: str, *, timeout: float = PROBE_TIMEOUT_S) -> tuple[str | None, dict[str, Any] | None]:
    """(None, the /models listing) when the server is ready, else (why not, None)."""
    try:
        with bounded_http.client(base_url, timeout=timeout) as client:
            return _probe(client, base_url)
    except httpx.TimeoutException:
        return f"no answer within {timeout:g} s", None
    except httpx.HTTPError as exc:
        return (str(exc) or type(exc).__name__).splitlines()[0], None


def _probe(client: httpx.Client, base_url: str) -> tuple[str | None, dict[str, Any] | None]:
    answer = client.get(base_url.rstrip("/") + "/models")
    if answer.status_code == 200:
        try:
            listing = answer.json()
        except ValueError:
            listing = None
        return None, listing if isinstance(listing, dict) else None
    if answer.status_code == 404:
        root = base_url.rstrip("/").removesuffix("/v1")
        health = client.get(root + "/health")
        if health.status_code == 200:
            return None, None
        return f"/health answers HTTP {health.status_code}", None
    return f"/models answers HTTP {answer.status_code}", None


def wait_first(urls: list[str], seconds: float, *, interval: float = INTERVAL_S) -> list[str]:
    """Wait up to ``seconds`` for at least one of ``urls`` to be ready; the ready ones (RunError if none)."""
    deadline = time.monotonic() + seconds
    reported = False
    while True:
        why = {url: probe(url)[0] for url in urls}
        ready = [url for url in urls if why[url] is None]
        if ready:
            return ready
        if time.monotonic() >= deadline:
            raise RunError(f"no endpoint ready within {seconds:g} s (--wait-ready): "
                           + "; ".join(f"{url}: {reason}" for url, reason in why.items()))
        if not reported:
            print(f"auditpacks: waiting up to {seconds:g} s for {' '.join(urls)} to be ready", file=sys.stderr,
                  flush=True)
            reported = True
        time.sleep(min(interval, max(0.0, deadline - time.monotonic())))


def join_late(pool: Any, seconds: float, *, interval: float = INTERVAL_S) -> threading.Thread | None:
    """Take out the pool's endpoints that are not ready now and probe them in a background thread for up to
    ``seconds``: each joins the pool (the scheduler places the waiting documents again) once ready."""
    waiting = []
    for endpoint in pool.live:
        reason = probe(endpoint.url)[0]
        if reason is not None:
            pool.take_out(endpoint, f"not ready: {reason}; it joins when ready")
            waiting.append(endpoint)
    if not waiting:
        return None
    deadline = time.monotonic() + seconds

    def watch() -> None:
        while waiting and time.monotonic() < deadline:
            time.sleep(interval)
            for endpoint in list(waiting):
                if probe(endpoint.url)[0] is None:
                    waiting.remove(endpoint)
                    endpoint.failed = None
                    print(f"auditpacks: endpoint {endpoint.url} is ready and joins the pool", file=sys.stderr,
                          flush=True)

    thread = threading.Thread(target=watch, name="auditpacks-join-late", daemon=True)
    thread.start()
    return thread


def served_identity(urls: list[str], model: str) -> dict[str, Any] | None:
    """What the servers at ``urls`` serve as ``model`` (the first that answers); None when none says."""
    for url in urls:
        entry = served_entry(probe(url)[1], model)
        if entry is not None:
            return entry
    return None


def gate(config: Any) -> None:
    """``--wait-ready``: before the run builds its targets, wait for the first of its endpoints to be ready."""
    target, execution = config.target, config.execution
    if execution.wait_ready and target.base_url and not execution.cache_only:
        wait_first([target.base_url, *target.more_base_urls], execution.wait_ready)


def endpoint_identity(config: Any, model: str, digest: str | None, cache: Any = None) -> dict[str, Any] | None:
    """The fingerprint's endpoint: the served model (its digest where the server gives one, else what
    ``/models`` says of it), remembered in the response cache (a warm rerun and ``--cache-only`` ask no server);
    None (the URLs count instead) for the embedded model, decision runs, and servers that say nothing."""
    target = config.target
    if target.embedded or target.decision or not target.base_url:
        return None
    if digest:
        return {"id": model, "digest": digest}
    key = f"{model}\n/models"  # the cache's entry for what the servers said they serve
    known = ((cache.recall_model(target.base_url, key) if cache is not None else None) or {}).get("served")
    if known or config.execution.cache_only:  # as the cached answers, the cached identity holds until --cache changes
        return known
    served = served_identity([target.base_url, *target.more_base_urls], model)
    if served is not None and cache is not None:
        cache.remember_model(target.base_url, key, {"served": served})
    return served
