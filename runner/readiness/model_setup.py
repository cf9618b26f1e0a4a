"""A run's model calls from its options: the target, its endpoints, and the judge and auditor models.

Our OpenAI-compatible and native Ollama clients (and the embedded model) are "ours":
they send the prompt in the order ``--prompt-order`` names (``auto``: documents first
when the selection has documents; see :mod:`runner.models.providers.messages`), pin llama.cpp
slots when the endpoint is llama.cpp (the embedded model, ``--provider llamacpp``, or
``--slot-pinning``) and take a response cache. A provider that caches up to a marked block
(Anthropic) also takes the prompt order, its document block marked for its prompt cache. Every provider, ours or any-llm's, goes
through one :class:`~auditpacks.runner.models.model.Model`, so every call gets the
retry layer, failover over several endpoints, redaction and token counts (and the cache
where the run has one). The targets receive only their own settings, never the
:class:`RunConfig`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from auditpacks.core.bounded_http import role_reply_bytes
from auditpacks.core.redact import public_url
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.providers import EMBEDDED_MODEL
from auditpacks.runner.settings.config import RunConfig
from auditpacks.runner.readiness.early import api_key, owns
from auditpacks.runner.models.providers.checks import check_reachable, missing_extra
from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.endpoints import EndpointPool
from auditpacks.runner.models.model import Model, ModelAPI
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.models.providers.factory import chat_api, chat_model
from auditpacks.runner.models import providers
from auditpacks.runner.targets.chat_target import ChatTarget
from auditpacks.runner.targets.roles import Roles
from auditpacks.runner.models.providers.messages import DOCUMENT_FIRST, LAYOUTS, STOCK
from auditpacks.runner.targets.model_client import RoleModel, RoleSettings
from auditpacks.runner.models.providers import ollama_host


def resolve_prompt_order(config: RunConfig, scenarios: list[dict[str, Any]]) -> str | None:
    """The layout our chat targets use for this selection (None for decision runs, which send no chat)."""
    if config.decision:
        return None
    order = config.prompt_order
    ordered = owns(config) or providers.provider(config.provider).cache_marks
    if order == "auto":
        return DOCUMENT_FIRST if ordered and any(s.get("documents") for s in scenarios) else STOCK
    if order not in LAYOUTS:
        raise RunError(f"--prompt-order {order!r}: choose auto, {', '.join(LAYOUTS)}")
    if order != STOCK and not ordered:
        raise RunError(f"--prompt-order {order} needs one of our chat targets (OpenAI-compatible providers, "
                       f"ollama, anthropic or the embedded model); provider {config.provider!r} goes through "
                       "simpleaudit")
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


def retry_policy(config: RunConfig, timeout: float | None = None) -> RetryPolicy:
    return RetryPolicy(max_retries=config.max_retries, backoff=config.retry_backoff, timeout=timeout or config.timeout)


def resolve_provider(config: RunConfig, scenarios: list[dict[str, Any]], cache: ResponseCache | None) -> RunConfig:
    """The run's provider after asking a given ``--base-url`` whether it is Ollama.

    Provider left at its default: an Ollama server switches the run to the native API.
    ``--provider openai`` given: kept, with one warning naming the prompts at risk.
    """
    from auditpacks.runner.models.providers import ollama_detect

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
                embedded_identity: dict[str, Any] | None = None, preflight=None) -> ChatTarget:
    """The chat target for this run (any provider; decision targets are made in :mod:`runner.run.run`)."""
    note = (f"{ollama_host(base_url)} answers Ollama's /api/version ({config.detected_ollama}): native API, "
            "num_ctx fitted to each prompt") if config.detected_ollama else None
    api = _chat_api(config, model=model, base_url=base_url, identity=embedded_identity, preflight=preflight)
    return ChatTarget(Model(api, policy=retry_policy(config), cache=cache), layout=_layout(config), note=note)


def _chat_api(config: RunConfig, *, model: str, base_url: str | None, identity: dict[str, Any] | None = None,
              preflight=None) -> ModelAPI:
    """The target's provider at one endpoint; an any-llm client is made now, so a missing SDK or key fails
    before the run, in one line."""
    api = chat_api(config.provider if not config.embedded else "llamacpp", model=model, base_url=base_url,
                   api_key=api_key(config), timeout=config.timeout, identity=identity, preflight=preflight,
                   slot_pinning=bool(config.slot_pinning), max_tokens=config.max_tokens, embedded=config.embedded,
                   prompt_cache=config.prompt_cache)
    if not owns(config):
        _connect(config, api)
    return api


def _connect(config: RunConfig, api: Any) -> None:
    """Make an any-llm client now, so a missing SDK or key fails before the run, in one line."""
    try:
        api.client
    except ImportError:
        raise RunError(missing_extra(config.provider)) from None
    except Exception as exc:  # missing keys and unknown providers come from any-llm
        raise RunError(f"cannot set up provider {config.provider!r}: {type(exc).__name__}: {exc}") from None


def make_pool(config: RunConfig, *, model: str, cache: ResponseCache | None) -> ChatTarget:
    """One chat target whose model has one provider per endpoint (``config.base_url`` and
    ``config.more_base_urls``); an endpoint that does not answer now is taken out before the run (with a
    warning)."""
    urls = [config.base_url, *config.more_base_urls]
    if config.decision or not owns(config) or config.embedded:
        raise RunError("several endpoints work with --target on an OpenAI-compatible provider or ollama")
    if len(set(urls)) != len(urls):
        raise RunError(f"endpoint {next(u for u in urls if urls.count(u) > 1)} is given twice")
    pool = EndpointPool([(url, _chat_api(config, model=model, base_url=url)) for url in urls],
                        assignment=config.endpoint_assignment, seed=config.seed)
    chat = Model(pool, policy=retry_policy(config), cache=cache)
    if not config.cache_only:
        if config.wait_ready:  # endpoints still loading: taken out now, each joins once ready
            from auditpacks.runner.readiness.readiness import join_late

            join_late(pool, config.wait_ready)
        for endpoint in pool.endpoints:
            try:
                if config.provider == "ollama":
                    chat.prepare_api(endpoint.api)
                else:
                    check_reachable(url=endpoint.url)
            except RunError as exc:
                pool.take_out(endpoint, str(exc))
        if not pool.live:
            raise RunError("no endpoint answers: " + "; ".join(e.failed or "" for e in pool.endpoints))
    return ChatTarget(chat, layout=_layout(config))


def uses_embedded(config: RunConfig) -> bool:
    """Whether the judge or the auditor is the embedded local model."""
    return providers.EMBEDDED in (config.judge_model, config.auditor_model)


def build_roles(config: RunConfig, *, model_judge: bool, embedded_url: str | None,
                embedded_identity: dict[str, Any] | None, cache: ResponseCache | None) -> Roles:
    """The judge model (for a model judge) and the auditor model (when follow-up turns are written).

    ``embedded`` as the model name means the embedded local model, on the same server as an embedded
    target. A judge base URL that answers Ollama's ``/api/version`` is used through the native API."""
    roles = Roles()
    if model_judge and config.judge_model:
        roles.judge = _role("judge", config, config.judge_model, config.judge_provider, config.judge_base_url,
                            config.judge_api_key, config.judge_max_tokens, embedded_url, embedded_identity, cache)
    auditor_model = config.auditor_model or (config.judge_model if model_judge else None)
    if auditor_model and config.max_turns > 1:
        same = config.auditor_model is None
        roles.auditor = _role(
            "auditor", config, auditor_model,
            config.judge_provider if same else (config.auditor_provider or config.judge_provider),
            config.judge_base_url if same else (config.auditor_base_url or config.judge_base_url),
            config.judge_api_key, config.auditor_max_tokens, embedded_url, embedded_identity, cache)
    return roles


def _role(role: str, config: RunConfig, model: str, provider: str, base_url: str | None, key: str | None,
          max_tokens: int, embedded_url: str | None, embedded_identity: dict[str, Any] | None,
          cache: ResponseCache | None) -> RoleModel:
    policy = retry_policy(config, config.judge_timeout)
    settings = dict(role=role, temperature=config.judge_temperature, max_tokens=max_tokens, timeout=policy.timeout)
    replay = cache is not None and cache.only
    if model == providers.EMBEDDED:
        if embedded_url is None and not replay:
            raise RunError(f"--{role}-model embedded: the embedded local model is not running")
        chat = chat_model("llamacpp", model=EMBEDDED_MODEL, base_url=embedded_url, api_key="local", policy=policy,
                          cache=cache, identity=embedded_identity, embedded=True, max_bytes=role_reply_bytes())
        return RoleModel(chat, RoleSettings(model=EMBEDDED_MODEL, provider="embedded", base_url=None,
                                            bounded_schema=True, **settings))
    if base_url and provider == "openai":
        from auditpacks.runner.models.providers.ollama_detect import ollama_version

        if ollama_version(base_url, cache):
            provider = "ollama"
    key = key or providers.key_from_environment(provider)
    row = providers.provider(provider)
    if providers.ours(provider) and not key and not (base_url or row.keyless or replay):
        raise RunError(f"{role} provider {provider!r} needs a key: ${row.key_variable or 'its key variable'}")
    if not providers.ours(provider) and not key and row.key_variable and not base_url and not replay:
        raise RunError(f"{role} provider {provider!r} needs a key: ${row.key_variable}")
    chat = chat_model(provider, model=model, base_url=base_url,
                      api_key=(key or "local") if providers.ours(provider) else key, policy=policy, cache=cache,
                      max_bytes=role_reply_bytes())   # a verdict or a question: kilobytes, capped far below a target's
    return RoleModel(chat, RoleSettings(model=model, provider=provider, base_url=public_url(base_url),
                                        bounded_schema=row.grammar, **settings))
