"""Our own simpleaudit Targets, and which providers use them.

* OpenAI-compatible providers (``OPENAI_COMPATIBLE``) and the embedded model go through
  :class:`~runner.targets.openai_compat.OpenAICompatTarget`;
* ``--provider ollama`` goes through :class:`~runner.targets.ollama_native.OllamaTarget`;
* every other provider (anthropic, gemini, mistral, …) returns None here and keeps
  simpleaudit's ``ModelAuditor``/any-llm path.
"""

from __future__ import annotations

import os
from typing import Any

from runner.cache import ResponseCache
from runner.config import RunConfig, RunError
from runner.retry import RetryPolicy

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
        from runner.targets.ollama_native import OllamaTarget

        return OllamaTarget(model=model, host=ollama_host(base_url), policy=policy, cache=cache,
                            max_tokens=config.max_tokens)
    from runner.targets.openai_compat import OpenAICompatTarget

    url = openai_base_url(config, base_url) if not config.embedded else (base_url or "http://embedded.invalid/v1")
    official = config.provider == "openai" and url.rstrip("/") == OPENAI_COMPATIBLE["openai"]
    return OpenAICompatTarget(
        model=model, base_url=url, api_key=api_key(config), policy=policy, cache=cache,
        identity=embedded_identity or {"base_url": url.rstrip("/")},
        token_param="max_completion_tokens" if official else "max_tokens", preflight=preflight,
    )
