"""Our own simpleaudit Targets, and which providers use them.

* providers whose row in :mod:`~auditpacks.runner.targets.providers` says ``openai``, and
  the embedded model, go through :class:`~runner.targets.openai_compat.OpenAICompatTarget`;
* ``ollama`` (given, or detected behind ``--base-url``: see
  :mod:`~auditpacks.runner.targets.ollama_detect`) goes through
  :class:`~runner.targets.ollama_native.OllamaTarget`;
* every other provider (anthropic, gemini, mistral, …) returns None here and keeps
  simpleaudit's ``ModelAuditor``/any-llm path.

Our targets send the prompt in the order ``--prompt-order`` names (``auto``: documents
first when the selection has documents; see :mod:`runner.targets.messages`) and pin
llama.cpp slots when the endpoint is llama.cpp (the embedded model, ``--provider
llamacpp``, or ``--slot-pinning``). :func:`chat_api` builds the same clients for judge
and auditor-model calls, so those share the cache and the retry layer.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from auditpacks.runner.execution.cache import ResponseCache
from auditpacks.runner.execution.config import RunConfig, RunError
from auditpacks.runner.execution.retry import RetryPolicy
from auditpacks.runner.targets import providers
from auditpacks.runner.targets.messages import DOCUMENT_FIRST, LAYOUTS, STOCK
from auditpacks.runner.targets.providers import ollama_host, openai_base_url


def owns(config: RunConfig) -> bool:
    """Whether this run's target is one of ours (else simpleaudit's any-llm path)."""
    return config.decision is None and (config.embedded or providers.ours(config.provider))


def resolve_prompt_order(config: RunConfig, scenarios: list[dict[str, Any]]) -> str | None:
    """The layout our chat targets use for this selection (None for decision runs, which send no chat)."""
    if config.decision:
        return None
    order = config.prompt_order
    if order == "auto":
        return DOCUMENT_FIRST if owns(config) and any(s.get("documents") for s in scenarios) else STOCK
    if order not in LAYOUTS:
        raise RunError(f"--prompt-order {order!r}: choose auto, {', '.join(LAYOUTS)}")
    if order != STOCK and not owns(config):
        raise RunError(f"--prompt-order {order} needs one of our chat targets (OpenAI-compatible providers, "
                       f"ollama or the embedded model); provider {config.provider!r} goes through simpleaudit")
    return order


def resolve_slot_pinning(config: RunConfig) -> bool:
    """Whether to send llama.cpp's ``id_slot``: asked for, else for the embedded model and ``llamacpp``."""
    chat = owns(config) and (config.embedded or config.provider != "ollama")
    if config.slot_pinning and not chat:
        raise RunError("--slot-pinning needs an OpenAI-compatible llama.cpp endpoint (not ollama, a decision "
                       "endpoint or a simpleaudit provider)")
    if config.slot_pinning is not None:
        return config.slot_pinning
    return chat and (config.embedded or config.provider == "llamacpp")


def _layout(config: RunConfig) -> str:
    """The resolved prompt order (``auto`` left unresolved, outside a run, means stock)."""
    return config.prompt_order if config.prompt_order in LAYOUTS else STOCK


def retry_policy(config: RunConfig) -> RetryPolicy:
    return RetryPolicy(max_retries=config.max_retries, backoff=config.retry_backoff, timeout=config.timeout)


def api_key(config: RunConfig) -> str:
    key = config.target_key()
    if key:
        return key
    if providers.provider(config.provider).keyless or config.embedded or config.cache_only:
        return "local"
    raise RunError(f"provider {config.provider!r} needs a key: --api-key or ${config.key_variable() or 'its key'}")


def resolve_provider(config: RunConfig, scenarios: list[dict[str, Any]], cache: ResponseCache | None) -> RunConfig:
    """The run's provider after asking a given ``--base-url`` whether it is Ollama.

    Provider left at its default: an Ollama server switches the run to the native API.
    ``--provider openai`` given: kept, with one warning naming the prompts at risk.
    """
    from auditpacks.runner.targets import ollama_detect

    if config.decision or config.embedded or not config.base_url or config.provider != "openai":
        return config
    version = ollama_detect.ollama_version(config.base_url, cache)
    if version is None:
        return config
    if config.provider_given:
        estimates = ollama_detect.prompt_estimates(scenarios, config.system_prompt)
        ollama_detect.warn(ollama_detect.truncation_warning(config.base_url, version, estimates))
        return config
    return dataclasses.replace(config, provider="ollama", detected_ollama=version)


def make_target(config: RunConfig, *, model: str, base_url: str | None, cache: ResponseCache | None,
                embedded_identity: dict[str, Any] | None = None, preflight=None):
    """The Target for this run, or None when simpleaudit's own ModelAuditor path should be used."""
    if not owns(config):
        return None
    note = (f"{ollama_host(base_url)} answers Ollama's /api/version ({config.detected_ollama}): native API, "
            "num_ctx fitted to each prompt") if config.detected_ollama else None
    return chat_api(config.provider if not config.embedded else "llamacpp", model=model, base_url=base_url,
                    api_key=api_key(config), policy=retry_policy(config), cache=cache,
                    identity=embedded_identity, preflight=preflight, layout=_layout(config),
                    slot_pinning=bool(config.slot_pinning), max_tokens=config.max_tokens, note=note,
                    embedded=config.embedded)


def chat_api(provider: str, *, model: str, base_url: str | None, api_key: str, policy: RetryPolicy,
             cache: ResponseCache | None, identity: dict[str, Any] | None = None, preflight=None,
             layout: str = STOCK, slot_pinning: bool = False, max_tokens: int | None = None,
             note: str | None = None, embedded: bool = False):
    """Our client for one model endpoint (a target, a judge or an auditor model), given only its own settings."""
    if providers.provider(provider).api == providers.OLLAMA and not embedded:
        from auditpacks.runner.targets.ollama_native import OllamaTarget

        return OllamaTarget(model=model, host=ollama_host(base_url), policy=policy, cache=cache,
                            max_tokens=max_tokens, layout=layout, note=note)
    from auditpacks.runner.targets.openai_compat import OpenAICompatTarget

    url = (base_url or "http://embedded.invalid/v1") if embedded else openai_base_url(provider, base_url)
    return OpenAICompatTarget(
        model=model, base_url=url, api_key=api_key, policy=policy, cache=cache,
        identity=identity or {"base_url": url.rstrip("/")},
        token_param="max_completion_tokens" if providers.official_openai(provider, url) else "max_tokens",
        preflight=preflight, layout=layout, slot_pinning=slot_pinning,
    )
