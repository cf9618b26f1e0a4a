"""Run targets and role models over the one model-call path, and which provider class carries a provider.

* providers whose row in :mod:`~auditpacks.runner.targets.providers` says ``openai``, and
  the embedded model, go through :class:`~runner.targets.openai_compat.OpenAIChatAPI`;
* ``ollama`` (given, or detected behind a base URL: see
  :mod:`~auditpacks.runner.targets.ollama_detect`) goes through
  :class:`~runner.targets.ollama_native.OllamaChatAPI`;
* every other provider (anthropic, gemini, mistral, ...) goes through
  :class:`~runner.targets.anyllm_api.AnyLLMChatAPI`.

:func:`chat_api` makes the provider for one endpoint, given only its own settings;
:func:`chat_model` wraps it in a :class:`~auditpacks.runner.models.model.Model` (cache,
retries, failover over several endpoints, redaction, token counts); a run target is
a :class:`~runner.targets.chat_target.ChatTarget` over it, a judge or auditor a
:class:`~runner.targets.model_client.RoleModel`. How a run's options become these is
:mod:`runner.execution.model_setup`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from auditpacks.runner.targets import providers
from auditpacks.runner.targets.providers import ollama_host, openai_base_url

if TYPE_CHECKING:  # the model path imports httpx; the command line's --help does not need it
    from auditpacks.runner.models.cache import ResponseCache
    from auditpacks.runner.models.model import Model, ModelAPI
    from auditpacks.runner.models.retry import RetryPolicy

EMBEDDED_URL = "http://embedded.invalid/v1"   # the embedded model's stand-in address when it is not running


def chat_api(provider: str, *, model: str, base_url: str | None, api_key: str | None, timeout: float | None,
             identity: dict[str, Any] | None = None, preflight=None, slot_pinning: bool = False,
             max_tokens: int | None = None, embedded: bool = False, max_bytes: int | None = None) -> ModelAPI:
    """The provider class for one endpoint of a target, a judge or an auditor model (``max_bytes``: the cap on
    its replies' bodies, None: the reply cap)."""
    row = providers.provider(provider)
    if row.api == providers.OLLAMA and not embedded:
        from auditpacks.runner.targets.ollama_native import OllamaChatAPI

        return OllamaChatAPI(model=model, host=ollama_host(base_url), timeout=timeout, max_tokens=max_tokens,
                             max_bytes=max_bytes)
    if row.api == providers.ANYLLM and not embedded:
        from auditpacks.runner.targets.anyllm_api import AnyLLMChatAPI

        return AnyLLMChatAPI(provider, model=model, base_url=base_url, api_key=api_key, timeout=timeout,
                             max_bytes=max_bytes)
    from auditpacks.runner.targets.openai_compat import OpenAIChatAPI

    url = (base_url or EMBEDDED_URL) if embedded else openai_base_url(provider, base_url)
    return OpenAIChatAPI(
        model=model, base_url=url, api_key=api_key or "local", timeout=timeout,
        identity=identity or {"base_url": url.rstrip("/")},
        token_param="max_completion_tokens" if providers.official_openai(provider, url) else "max_tokens",
        preflight=preflight, slot_pinning=slot_pinning,
        prompt_cache_key=not embedded and providers.official_openai(provider, url), max_bytes=max_bytes,
    )


def chat_model(provider: str, *, policy: RetryPolicy, cache: ResponseCache | None, **settings: Any) -> Model:
    """The model for one endpoint: :func:`chat_api`'s provider (``settings``) under a Model."""
    from auditpacks.runner.models.model import Model

    return Model(chat_api(provider, timeout=policy.timeout, **settings), policy=policy, cache=cache)
