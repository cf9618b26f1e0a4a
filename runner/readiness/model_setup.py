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

from auditpacks.core.bounded.http import role_reply_bytes
from auditpacks.core.redact import public_url
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.providers import EMBEDDED_MODEL
from auditpacks.runner.settings.config import ExecutionConfig, RolesConfig, RunConfig, TargetConfig
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
    if config.target.decision:
        return None
    order = config.execution.prompt_order
    ordered = owns(config) or providers.provider(config.target.provider).cache_marks
    if order == "auto":
        return DOCUMENT_FIRST if ordered and any(s.get("documents") for s in scenarios) else STOCK
    if order not in LAYOUTS:
        raise RunError(f"--prompt-order {order!r}: choose auto, {', '.join(LAYOUTS)}")
    if order != STOCK and not ordered:
        raise RunError(f"--prompt-order {order} needs one of our chat targets (OpenAI-compatible providers, "
                       f"ollama, anthropic or the embedded model); provider {config.target.provider!r} goes through "
                       "simpleaudit")
    return order


def resolve_slot_pinning(config: RunConfig) -> bool:
    """Whether to send llama.cpp's ``id_slot``: asked for, else for the embedded model and ``llamacpp``."""
    target, pinning = config.target, config.execution.slot_pinning
    chat = owns(config) and (target.embedded or target.provider != "ollama")
    if pinning and not chat:
        raise RunError("--slot-pinning needs an OpenAI-compatible llama.cpp endpoint (not ollama, a decision "
                       "endpoint or a simpleaudit provider)")
    if pinning is not None:
        return pinning
    return chat and (target.embedded or target.provider == "llamacpp")


def _layout(execution: ExecutionConfig) -> str:
    """The resolved prompt order (``auto`` left unresolved, outside a run, means stock)."""
    return execution.prompt_order if execution.prompt_order in LAYOUTS else STOCK


def retry_policy(execution: ExecutionConfig, timeout: float | None = None) -> RetryPolicy:
    return RetryPolicy(max_retries=execution.max_retries, backoff=execution.retry_backoff,
                       timeout=timeout or execution.timeout)


def role_policy(config: RunConfig) -> RetryPolicy:
    """The judge's and auditor's retry policy: the run's, each attempt bounded by ``--judge-timeout``."""
    return retry_policy(config.execution, config.roles.judge_timeout)


def resolve_provider(target: TargetConfig, scenarios: list[dict[str, Any]],
                     cache: ResponseCache | None) -> TargetConfig:
    """The target after asking a given ``--base-url`` whether it is Ollama.

    Provider left at its default: an Ollama server switches the run to the native API.
    ``--provider openai`` given: kept, with one warning naming the prompts at risk.
    """
    from auditpacks.runner.models.providers import ollama_detect

    if target.decision or target.embedded or not target.base_url or target.provider != "openai":
        return target
    version = ollama_detect.ollama_version(target.base_url, cache)
    if version is None:
        return target
    if target.provider_given:
        estimates = ollama_detect.prompt_estimates(scenarios, target.system_prompt)
        ollama_detect.warn(ollama_detect.truncation_warning(target.base_url, version, estimates))
        return target
    return dataclasses.replace(target, provider="ollama", detected_ollama=version)


def make_target(config: RunConfig, *, model: str, base_url: str | None, cache: ResponseCache | None,
                embedded_identity: dict[str, Any] | None = None, preflight=None) -> ChatTarget:
    """The chat target for this run (any provider; decision targets are made in :mod:`runner.run.run_target`)."""
    detected = config.target.detected_ollama
    note = (f"{ollama_host(base_url)} answers Ollama's /api/version ({detected}): native API, "
            "num_ctx fitted to each prompt") if detected else None
    api = _chat_api(config, model=model, base_url=base_url, identity=embedded_identity, preflight=preflight)
    return ChatTarget(Model(api, policy=retry_policy(config.execution), cache=cache), layout=_layout(config.execution),
                      note=note)


def _chat_api(config: RunConfig, *, model: str, base_url: str | None, identity: dict[str, Any] | None = None,
              preflight=None) -> ModelAPI:
    """The target's provider at one endpoint; an any-llm client is made now, so a missing SDK or key fails
    before the run, in one line."""
    target, execution = config.target, config.execution
    api = chat_api(target.provider if not target.embedded else "llamacpp", model=model, base_url=base_url,
                   api_key=api_key(config), timeout=execution.timeout, identity=identity, preflight=preflight,
                   slot_pinning=bool(execution.slot_pinning), max_tokens=config.decoding.max_tokens,
                   embedded=target.embedded, prompt_cache=config.hosting.prompt_cache)
    if not owns(config):
        _connect(target.provider, api)
    return api


def _connect(provider: str, api: Any) -> None:
    """Make an any-llm client now, so a missing SDK or key fails before the run, in one line."""
    try:
        api.client
    except ImportError:
        raise RunError(missing_extra(provider)) from None
    except Exception as exc:  # missing keys and unknown providers come from any-llm
        raise RunError(f"cannot set up provider {provider!r}: {type(exc).__name__}: {exc}") from None


def make_pool(config: RunConfig, *, model: str, cache: ResponseCache | None) -> ChatTarget:
    """One chat target whose model has one provider per endpoint (the target's ``base_url`` and
    ``more_base_urls``); an endpoint that does not answer now is taken out before the run (with a
    warning)."""
    target, execution = config.target, config.execution
    urls = [target.base_url, *target.more_base_urls]
    if target.decision or not owns(config) or target.embedded:
        raise RunError("several endpoints work with --target on an OpenAI-compatible provider or ollama")
    if len(set(urls)) != len(urls):
        raise RunError(f"endpoint {next(u for u in urls if urls.count(u) > 1)} is given twice")
    pool = EndpointPool([(url, _chat_api(config, model=model, base_url=url)) for url in urls],
                        assignment=target.endpoint_assignment, seed=config.selection.seed)
    chat = Model(pool, policy=retry_policy(execution), cache=cache)
    if not execution.cache_only:
        if execution.wait_ready:  # endpoints still loading: taken out now, each joins once ready
            from auditpacks.runner.readiness.readiness import join_late

            join_late(pool, execution.wait_ready)
        for endpoint in pool.endpoints:
            try:
                if target.provider == "ollama":
                    chat.prepare_api(endpoint.api)
                else:
                    check_reachable(url=endpoint.url)
            except RunError as exc:
                pool.take_out(endpoint, str(exc))
        if not pool.live:
            raise RunError("no endpoint answers: " + "; ".join(e.failed or "" for e in pool.endpoints))
    return ChatTarget(chat, layout=_layout(execution))


def uses_embedded(roles: RolesConfig) -> bool:
    """Whether the judge or the auditor is the embedded local model."""
    return providers.EMBEDDED in (roles.judge_model, roles.auditor_model)


def build_roles(asked: RolesConfig, *, policy: RetryPolicy, model_judge: bool, embedded_url: str | None,
                embedded_identity: dict[str, Any] | None, cache: ResponseCache | None) -> Roles:
    """The judge model (for a model judge) and the auditor model (when follow-up turns are written), their
    calls under ``policy`` (:func:`role_policy`).

    ``embedded`` as the model name means the embedded local model, on the same server as an embedded
    target. A judge base URL that answers Ollama's ``/api/version`` is used through the native API."""
    roles = Roles()
    call = dict(temperature=asked.judge_temperature, policy=policy, embedded_url=embedded_url,
                embedded_identity=embedded_identity, cache=cache)
    if model_judge and asked.judge_model:
        roles.judge = _role("judge", asked.judge_model, asked.judge_provider, asked.judge_base_url,
                            asked.judge_api_key, asked.judge_max_tokens, **call)
    auditor_model = asked.auditor_model or (asked.judge_model if model_judge else None)
    if auditor_model and asked.max_turns > 1:
        same = asked.auditor_model is None
        roles.auditor = _role(
            "auditor", auditor_model,
            asked.judge_provider if same else (asked.auditor_provider or asked.judge_provider),
            asked.judge_base_url if same else (asked.auditor_base_url or asked.judge_base_url),
            asked.judge_api_key, asked.auditor_max_tokens, **call)
    return roles


def _role(role: str, model: str, provider: str, base_url: str | None, key: str | None, max_tokens: int, *,
          temperature: float, policy: RetryPolicy, embedded_url: str | None,
          embedded_identity: dict[str, Any] | None, cache: ResponseCache | None) -> RoleModel:
    settings = dict(role=role, temperature=temperature, max_tokens=max_tokens, timeout=policy.timeout)
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
