"""The any-llm provider: every provider our own clients do not carry (anthropic, gemini, mistral, ...).

The client is the one simpleaudit would create through any-llm (see
:mod:`~auditpacks.runner.targets.simpleaudit_adapter`), with the SDK's own retries off
where the provider table says the SDK takes ``max_retries`` and without the optional
parameters the table says the provider refuses (Anthropic: ``seed``); the
:class:`~auditpacks.runner.models.model.Model` around it adds the cache and our retry layer.
"""

from __future__ import annotations

from typing import Any, Mapping

from auditpacks.runner.models.model import ModelAPI
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.targets import providers


class AnyLLMChatAPI(ModelAPI):
    """One ``acompletion`` call to an any-llm provider."""

    def __init__(self, provider: str, *, model: str, base_url: str | None, api_key: str | None,
                 timeout: float | None = None) -> None:
        self.provider, self.model, self.base_url, self.timeout = provider, model, base_url, timeout
        self.secret = api_key
        self._client = None

    @property
    def client(self):
        """The any-llm client (made on first use; a missing SDK or key raises here)."""
        if self._client is None:
            from auditpacks.runner.targets.simpleaudit_adapter import anyllm_client

            kwargs = {"max_retries": 0, "timeout": self.timeout} if providers.provider(self.provider).sdk_retries \
                else None
            self._client = anyllm_client(self.secret, self.base_url, self.provider, kwargs)
        return self._client

    def build(self, request: Request) -> dict[str, Any]:
        rejected = providers.provider(self.provider).rejects
        params = {k: v for k, v in request.params.items() if k not in rejected}
        body: dict[str, Any] = {**params, "model": self.model, "messages": request.messages, "stream": False}
        if request.response_format:
            body["response_format"] = dict(request.response_format)
        return body

    def cache_key(self, body: Mapping[str, Any], request: Request) -> dict[str, Any]:
        params = {k: v for k, v in body.items() if k not in ("model", "messages")}
        key = {"api": "anyllm", "provider": self.provider, "base_url": self.base_url, "model": self.model,
               "messages": body["messages"], "params": params}
        if request.repeat:  # judge and auditor keys (always round 1) stay as they were
            key["repeat"] = request.repeat
        if request.prompt_order:
            key["prompt_order"] = request.prompt_order
        return key

    async def call(self, body: dict[str, Any], request: Request) -> Reply:
        response = await self.client.acompletion(**body)
        choice = response.choices[0]
        usage = getattr(response, "usage", None)
        return Reply(content=choice.message.content or "", input_tokens=getattr(usage, "prompt_tokens", None),
                     output_tokens=getattr(usage, "completion_tokens", None),
                     finish_reason=getattr(choice, "finish_reason", None))

    async def aclose(self) -> None:
        self._client = None
