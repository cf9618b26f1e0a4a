"""Which provider class carries a provider's calls: :func:`chat_api` picks it from the provider table
(:mod:`auditpacks.runner.models.providers`), :func:`chat_model` puts it under a :class:`Model`. The provider
classes are imported when first asked for, so the command line's ``--help`` never loads httpx."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from auditpacks.runner.models.providers import ANYLLM, OLLAMA, official_openai, ollama_host, openai_base_url, provider

if TYPE_CHECKING:  # the model path imports httpx; the command line's --help does not need it
    from auditpacks.runner.models.cache import ResponseCache
    from auditpacks.runner.models.model import Model, ModelAPI
    from auditpacks.runner.models.retry import RetryPolicy

EMBEDDED_URL = "http://embedded.invalid/v1"   # the embedded model's stand-in address when it is not running


def chat_api(name: str, *, model: str, base_url: str | None, api_key: str | None, timeout: float | None,
             identity: dict[str, Any] | None = None, preflight=None, slot_pinning: bool = False,
             max_tokens: int | None = None, embedded: bool = False, max_bytes: int | None = None,
             prompt_cache: bool | None = None) -> ModelAPI:
    """The provider class for one endpoint of a target, a judge or an auditor model (``max_bytes``: the cap on
    its replies' bodies, None: the reply cap). ``prompt_cache``: send each document's ``prompt_cache_key``
    and Anthropic's cache marks (True: to any compatible endpoint; None: the key to OpenAI's own URL only,
    the marks to any Anthropic endpoint; False: neither)."""
    row = provider(name)
    if row.api == OLLAMA and not embedded:
        from auditpacks.runner.models.providers.ollama_native import OllamaChatAPI

        return OllamaChatAPI(model=model, host=ollama_host(base_url), timeout=timeout, max_tokens=max_tokens,
                             max_bytes=max_bytes)
    if row.api == ANYLLM and not embedded:
        from auditpacks.runner.models.providers.anyllm_api import AnyLLMChatAPI

        return AnyLLMChatAPI(name, model=model, base_url=base_url, api_key=api_key, timeout=timeout,
                             max_bytes=max_bytes, cache_marks=row.cache_marks and prompt_cache is not False)
    from auditpacks.runner.models.providers.openai_compat import OpenAIChatAPI

    url = (base_url or EMBEDDED_URL) if embedded else openai_base_url(name, base_url)
    return OpenAIChatAPI(
        model=model, base_url=url, api_key=api_key or "local", timeout=timeout,
        identity=identity if identity or not embedded else {"base_url": url.rstrip("/")},
        token_param="max_completion_tokens" if official_openai(name, url) else "max_tokens",
        preflight=preflight, slot_pinning=slot_pinning,
        prompt_cache_key=not embedded and (official_openai(name, url) if prompt_cache is None else prompt_cache),
        max_bytes=max_bytes,
    )


def chat_model(name: str, *, policy: RetryPolicy, cache: ResponseCache | None, **settings: Any) -> Model:
    """The model for one endpoint: :func:`chat_api`'s provider (``settings``) under a Model."""
    from auditpacks.runner.models.model import Model

    return Model(chat_api(name, timeout=policy.timeout, **settings), policy=policy, cache=cache)
