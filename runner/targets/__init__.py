"""Our own simpleaudit Targets, and which providers use them.

* OpenAI-compatible providers (``OPENAI_COMPATIBLE``) and the embedded model go through
  :class:`~runner.targets.openai_compat.OpenAICompatTarget`;
* ``--provider ollama`` goes through :class:`~runner.targets.ollama_native.OllamaTarget`;
* every other provider (anthropic, gemini, mistral, …) returns None here and keeps
  simpleaudit's ``ModelAuditor``/any-llm path.

Our targets send the prompt in the order ``--prompt-order`` names (``auto``: documents
first when the selection has documents; see :mod:`runner.targets.messages`) and pin
llama.cpp slots when the endpoint is llama.cpp (the embedded model, ``--provider
llamacpp``, or ``--slot-pinning``).
"""

from __future__ import annotations

import os
from typing import Any

from auditpacks.runner.execution.cache import ResponseCache
from auditpacks.runner.execution.config import RunConfig, RunError
from auditpacks.runner.execution.retry import RetryPolicy
from auditpacks.runner.targets.messages import DOCUMENT_FIRST, LAYOUTS, STOCK

#: Provider → default base URL of its OpenAI-compatible API.
OPENAI_COMPATIBLE = {
    "openai": "https://api.openai.com/v1",
    "vllm": "http://localhost:8000/v1",
    "llamacpp": "http://127.0.0.1:8080/v1",
    "openrouter": "https://openrouter.ai/api/v1",
    "lmstudio": "http://localhost:1234/v1",
    "deepseek": "https://api.deepseek.com/v1",
    "together": "https://api.together.xyz/v1",
    "groq": "https://api.groq.com/openai/v1",
}
#: Local servers that want no key (any placeholder is sent).
KEYLESS = {"vllm", "llamacpp", "lmstudio"}
OLLAMA_DEFAULT = "http://localhost:11434"


def owns(config: RunConfig) -> bool:
    """Whether this run's target is one of ours (else simpleaudit's any-llm path)."""
    return config.decision is None and (config.embedded or config.provider in OPENAI_COMPATIBLE
                                        or config.provider == "ollama")


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


def openai_base_url(config: RunConfig, base_url: str | None) -> str:
    if base_url:
        return base_url
    if config.provider == "openai" and os.environ.get("OPENAI_BASE_URL"):
        return os.environ["OPENAI_BASE_URL"]
    return OPENAI_COMPATIBLE[config.provider]


def ollama_host(base_url: str | None) -> str:
    """The Ollama root URL (``/v1``, the OpenAI layer, is dropped: the native API lives at the root)."""
    host = (base_url or os.environ.get("OLLAMA_HOST") or OLLAMA_DEFAULT).rstrip("/")
    if not host.startswith("http"):
        host = "http://" + host
    return host.removesuffix("/v1")


def api_key(config: RunConfig) -> str:
    key = config.target_key()
    if key:
        return key
    if config.provider in KEYLESS or config.embedded or config.cache_only:
        return "local"
    raise RunError(f"provider {config.provider!r} needs a key: --api-key or ${config.key_variable() or 'its key'}")


def make_target(config: RunConfig, *, model: str, base_url: str | None, cache: ResponseCache | None,
                embedded_identity: dict[str, Any] | None = None, preflight=None):
    """The Target for this run, or None when simpleaudit's own ModelAuditor path should be used."""
    if not owns(config):
        return None
    policy = retry_policy(config)
    if config.provider == "ollama" and not config.embedded:
        from auditpacks.runner.targets.ollama_native import OllamaTarget

        return OllamaTarget(model=model, host=ollama_host(base_url), policy=policy, cache=cache,
                            max_tokens=config.max_tokens, layout=_layout(config))
    from auditpacks.runner.targets.openai_compat import OpenAICompatTarget

    url = openai_base_url(config, base_url) if not config.embedded else (base_url or "http://embedded.invalid/v1")
    official = config.provider == "openai" and url.rstrip("/") == OPENAI_COMPATIBLE["openai"]
    return OpenAICompatTarget(
        model=model, base_url=url, api_key=api_key(config), policy=policy, cache=cache,
        identity=embedded_identity or {"base_url": url.rstrip("/")},
        token_param="max_completion_tokens" if official else "max_tokens", preflight=preflight,
        layout=_layout(config), slot_pinning=bool(config.slot_pinning),
    )
