"""Model calls to any other any-llm provider (anthropic, gemini, mistral, ...) under our cache and retries.

simpleaudit creates these clients through any-llm; this wraps one such client in the
``complete(messages, params, response_format)`` interface our own chat APIs have, so
judge and auditor-model calls on these providers get the same response cache and the
same retry layer. The SDK's own retries are off where the provider table says the SDK
takes ``max_retries``.
"""

from __future__ import annotations

from typing import Any, Mapping

from auditpacks.runner.execution.cache import ResponseCache
from auditpacks.runner.execution.retry import RetryPolicy, call_with_retries
from auditpacks.runner.targets import providers


class AnyLLMApi:
    def __init__(self, provider: str, *, model: str, base_url: str | None, api_key: str | None,
                 policy: RetryPolicy, cache: ResponseCache | None = None) -> None:
        self.provider, self.model, self.base_url, self.policy, self.cache = provider, model, base_url, policy, cache
        self._api_key = api_key
        self._client = None

    @property
    def client(self):
        if self._client is None:
            from simpleaudit import ModelAuditor

            kwargs = {"max_retries": 0, "timeout": self.policy.timeout} if providers.provider(self.provider).sdk_retries \
                else None
            self._client = ModelAuditor._create_anyllm_client(self._api_key, self.base_url, self.provider, kwargs)
        return self._client

    async def complete(self, messages: list[dict[str, Any]], params: Mapping[str, Any] | None = None,
                       response_format: Mapping[str, Any] | None = None, **_: Any) -> tuple[dict[str, Any], bool]:
        body: dict[str, Any] = {**dict(params or {}), "model": self.model, "messages": messages, "stream": False}
        if response_format:
            body["response_format"] = dict(response_format)
        key = {"api": "anyllm", "provider": self.provider, "base_url": self.base_url, "model": self.model,
               "messages": messages, "params": {k: v for k, v in body.items() if k not in ("model", "messages")}}
        reply = self.cache.get(key) if self.cache is not None else None
        if reply is not None:
            return reply, True
        reply = await call_with_retries(lambda: self._call(body), self.policy)
        if self.cache is not None:
            self.cache.put(key, reply)
        return reply, False

    async def _call(self, body: dict[str, Any]) -> dict[str, Any]:
        response = await self.client.acompletion(**body)
        choice = response.choices[0]
        usage = getattr(response, "usage", None)
        return {"content": choice.message.content or "", "reasoning": None,
                "input_tokens": getattr(usage, "prompt_tokens", None),
                "output_tokens": getattr(usage, "completion_tokens", None),
                "finish_reason": getattr(choice, "finish_reason", None)}

    async def aclose(self) -> None:
        self._client = None
