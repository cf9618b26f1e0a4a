"""The judge and auditor models of a run, as our own model clients.

Each role gets a :class:`~auditpacks.runner.targets.model_client.ModelClient` over the
client its provider row names (OpenAI-compatible, native Ollama, or any-llm), so its
calls share the response cache and the retry layer with the target's. ``embedded`` as
the model name means the embedded local model, on the same server as an embedded
target. A judge base URL that answers Ollama's ``/api/version`` is used through the
native API (Ollama's ``format`` for the schema, ``num_ctx`` fitted to the prompt).
Without ``--auditor-model`` the auditor is the judge's model, with the auditor's
settings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from auditpacks.runner.execution.cache import ResponseCache
from auditpacks.runner.execution.config import EMBEDDED_MODEL, RunConfig, RunError
from auditpacks.runner.execution.retry import RetryPolicy
from auditpacks.runner.targets import chat_api, providers
from auditpacks.runner.targets.model_client import ModelClient, RoleSettings


@dataclass
class Roles:
    judge: ModelClient | None = None
    auditor: ModelClient | None = None

    def clients(self) -> list[ModelClient]:
        return [c for c in (self.judge, self.auditor) if c is not None]

    def install(self, engine: Any, bound_judge_schema: Any = None) -> None:
        """Put our clients in place of the any-llm clients simpleaudit made for these roles. With
        ``bound_judge_schema`` (a judge's ``(schema, expected_behavior) -> schema``) and a judge server that
        enforces schemas, each scenario's judge call gets that scenario's bounded schema."""
        if self.judge is not None:
            engine.judge_client = self.judge
            if bound_judge_schema is not None and self.judge.settings.bounded_schema:
                bound_per_scenario(engine, bound_judge_schema)
        if self.auditor is not None:
            engine.auditor_client = self.auditor

    def record(self) -> dict[str, Any]:
        return {"judge": self.judge.record() if self.judge else None,
                "auditor": self.auditor.record() if self.auditor else None}

    async def aclose(self) -> None:
        for client in self.clients():
            await client.aclose()


def bound_per_scenario(engine: Any, bound: Any) -> None:
    """Have ``engine`` send each scenario's judge call ``bound(schema, expected_behavior)`` as its schema.

    simpleaudit picks a scenario's judge prompt, schema and post-processor in
    ``_resolve_judge_spec(prompt, schema, postprocess, requires_expected_behavior, expected_behavior)``
    (0.4.2), the one place that sees the scenario's expectations; it is wrapped on this engine only."""
    resolve = engine._resolve_judge_spec

    def resolve_bounded(prompt, schema, postprocess, requires_expected_behavior, expected_behavior):
        prompt, schema, postprocess, fell_back = resolve(prompt, schema, postprocess, requires_expected_behavior,
                                                         expected_behavior)
        if schema is not None and expected_behavior and not fell_back:
            schema = bound(schema, list(expected_behavior))
        return prompt, schema, postprocess, fell_back

    engine._resolve_judge_spec = resolve_bounded


def uses_embedded(config: RunConfig) -> bool:
    """Whether the judge or the auditor is the embedded local model."""
    return providers.EMBEDDED in (config.judge_model, config.auditor_model)


def build_roles(config: RunConfig, *, model_judge: bool, embedded_url: str | None,
                embedded_identity: dict[str, Any] | None, cache: ResponseCache | None) -> Roles:
    """The judge client (for a model judge) and the auditor client (when follow-up turns are written)."""
    roles = Roles()
    if model_judge and config.judge_model:
        roles.judge = _client("judge", config, config.judge_model, config.judge_provider, config.judge_base_url,
                              config.judge_api_key, config.judge_max_tokens, embedded_url, embedded_identity, cache)
    auditor_model = config.auditor_model or (config.judge_model if model_judge else None)
    if auditor_model and config.max_turns > 1:
        same = config.auditor_model is None
        roles.auditor = _client(
            "auditor", config, auditor_model,
            config.judge_provider if same else (config.auditor_provider or config.judge_provider),
            config.judge_base_url if same else (config.auditor_base_url or config.judge_base_url),
            config.judge_api_key, config.auditor_max_tokens, embedded_url, embedded_identity, cache)
    return roles


def _client(role: str, config: RunConfig, model: str, provider: str, base_url: str | None, key: str | None,
            max_tokens: int, embedded_url: str | None, embedded_identity: dict[str, Any] | None,
            cache: ResponseCache | None) -> ModelClient:
    policy = RetryPolicy(max_retries=config.max_retries, backoff=config.retry_backoff,
                         timeout=config.judge_timeout or config.timeout)
    settings = dict(role=role, temperature=config.judge_temperature, max_tokens=max_tokens, timeout=policy.timeout)
    if model == providers.EMBEDDED:
        if embedded_url is None and not (cache is not None and cache.only):
            raise RunError(f"--{role}-model embedded: the embedded local model is not running")
        api = chat_api("llamacpp", model=EMBEDDED_MODEL, base_url=embedded_url, api_key="local", policy=policy,
                       cache=cache, identity=embedded_identity, embedded=True)
        return ModelClient(api, RoleSettings(model=EMBEDDED_MODEL, provider="embedded", base_url=None,
                                             bounded_schema=True, **settings))
    if base_url and provider == "openai":
        from auditpacks.runner.targets.ollama_detect import ollama_version

        if ollama_version(base_url, cache):
            provider = "ollama"
    key = key or providers.key_from_environment(provider)
    if providers.ours(provider):
        if not key and not (base_url or providers.provider(provider).keyless or (cache is not None and cache.only)):
            raise RunError(f"{role} provider {provider!r} needs a key: "
                           f"${providers.provider(provider).key_variable or 'its key variable'}")
        api = chat_api(provider, model=model, base_url=base_url, api_key=key or "local", policy=policy, cache=cache)
    else:
        from auditpacks.runner.targets.anyllm_api import AnyLLMApi

        variable = providers.provider(provider).key_variable
        if not key and variable and not base_url and not (cache is not None and cache.only):
            raise RunError(f"{role} provider {provider!r} needs a key: ${variable}")

        api = AnyLLMApi(provider, model=model, base_url=base_url, api_key=key, policy=policy, cache=cache)
    return ModelClient(api, RoleSettings(model=model, provider=provider, base_url=_public(base_url),
                                         bounded_schema=providers.provider(provider).grammar, **settings))


def _public(url: str | None) -> str | None:
    from auditpacks.runner.execution.summary import public_url

    return public_url(url)
