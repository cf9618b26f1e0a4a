"""Recognising an Ollama server behind an OpenAI-style base URL, and what to do about it.

People point the OpenAI-compatible path at Ollama (``--base-url http://localhost:11434/v1
--api-key local``). That path sends no ``num_ctx``, and Ollama then silently cuts the
front off every prompt longer than its default context. So when a base URL is given,
the server is asked for Ollama's native ``GET /api/version`` (one short request; the
answer is remembered in the response cache, so a warm rerun asks nothing):

* provider left at its default: the run switches to the native API
  (:class:`~auditpacks.runner.models.providers.ollama_native.OllamaChatAPI`, ``num_ctx`` fitted
  per prompt) and the summary says so;
* ``--provider openai`` given explicitly: the OpenAI path is kept, with one warning
  listing how many prompts are estimated above Ollama's default context.
"""

from __future__ import annotations

import sys
from typing import Any, Iterable

import httpx

from auditpacks.core.bounded import http as bounded_http

from auditpacks.runner.models.providers import context_fit
from auditpacks.runner.models.providers.messages import flat_messages, stock_messages

#: Ollama's default context when no num_ctx is sent (2,048 tokens before 0.6; 4,096 since).
OLLAMA_DEFAULT_CONTEXT = 2048
PROBE_TIMEOUT = 3.0
#: Largest /api/version answer read (a real one is a few dozen bytes).
PROBE_MAX_BYTES = 64 * 1024
_REMEMBERED = "server-kind"


def ollama_root(base_url: str) -> str:
    return base_url.rstrip("/").removesuffix("/v1")


def probe_version(base_url: str, timeout: float = PROBE_TIMEOUT) -> str | None:
    """Ollama's version when ``base_url`` is an Ollama server, else None (any failure: not Ollama)."""
    try:
        with bounded_http.client(base_url, timeout=timeout, max_bytes=PROBE_MAX_BYTES) as client:
            response = client.get(ollama_root(base_url) + "/api/version")
        data = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) and version else None


def ollama_version(base_url: str, cache: Any = None) -> str | None:
    """:func:`probe_version`, remembered per base URL in the response cache (``--cache-only``: never asked)."""
    root = ollama_root(base_url)
    if cache is not None:
        known = cache.recall_model(root, _REMEMBERED)
        if known is not None:
            return known.get("ollama")
        if cache.only:
            return None
    version = probe_version(base_url)
    if cache is not None:
        cache.remember_model(root, _REMEMBERED, {"ollama": version})
    return version


def prompt_estimates(scenarios: Iterable[dict[str, Any]], system: str | None) -> list[int]:
    """Estimated first-turn prompt tokens per scenario (the same upper estimate the native target uses)."""
    estimates = []
    for scenario in scenarios:
        prompt = scenario.get("test_prompt") or scenario.get("description") or ""
        own = (scenario.get("metadata") or {}).get("system_prompt")  # a scenario's own system message wins
        messages = stock_messages(system=own or system, user=prompt, documents=scenario.get("documents"))
        estimates.append(context_fit.estimate_tokens(flat_messages(messages)))
    return estimates


def truncation_warning(base_url: str, version: str, estimates: list[int]) -> str:
    """The one warning for ``--provider openai`` against Ollama."""
    risky = [e for e in estimates if e > OLLAMA_DEFAULT_CONTEXT]
    sizes = (f"{len(risky)} of {len(estimates)} prompts are estimated above {OLLAMA_DEFAULT_CONTEXT:,} tokens "
             f"(largest about {max(risky):,})" if risky else
             f"none of the {len(estimates)} prompts is estimated above {OLLAMA_DEFAULT_CONTEXT:,} tokens")
    return (f"{base_url} is an Ollama server ({version}) and --provider openai sends no num_ctx, so Ollama may "
            f"cut the start of prompts longer than its default context: {sizes}; leave out --provider (or use "
            "--provider ollama) to send num_ctx fitted to each prompt")


def warn(message: str) -> None:
    print(f"auditpacks: warning: {message}", file=sys.stderr)
