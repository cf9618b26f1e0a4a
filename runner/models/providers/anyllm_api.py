"""The any-llm provider: every provider our own clients do not carry (anthropic, gemini, mistral, ...).

The client is the one simpleaudit would create through any-llm (see
:mod:`~auditpacks.runner.models.simpleaudit_adapter`), with the SDK's own retries off
where the provider table says the SDK takes ``max_retries`` and without the optional
parameters the table says the provider refuses (Anthropic: ``seed``). Where the table says the
provider caches up to a marked block (Anthropic), the chat target marks the document block with
``cache_control``, which any-llm passes on; the reply's prompt-cache reads and writes come back
inside any-llm's OpenAI-style usage and are read by :func:`~runner.models.usage.from_openai`. Where
the table names the SDK's keyword for an ``httpx.AsyncClient``, the SDK is given one of
:mod:`auditpacks.core.bounded.http` (:func:`sdk_options`), so a reply is read under the same byte
cap and total deadline as on our own clients, and with token counts that are not counts (NaN, -5)
taken out before the SDK's own checks would turn a good reply into an error (:func:`checked_usage`:
the reply's counts are then unknown, as on the OpenAI-compatible path). The
:class:`~auditpacks.runner.models.model.Model` around it adds the cache and our retry layer.
"""

from __future__ import annotations

import json
from contextvars import ContextVar
from typing import Any, Mapping

from auditpacks.core.bounded import http as bounded_http
from auditpacks.core.numbers import token_count
from auditpacks.core.redact import redact
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.model import ModelAPI
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.models.usage import from_openai
from auditpacks.runner.models import providers
from auditpacks.runner.models.providers.checks import PREFLIGHT_TIMEOUT_S, missing_extra


#: Set when the reply being read had token counts that are not counts (read back by the call that asked).
_UNKNOWN_USAGE: ContextVar[bool] = ContextVar("unknown_usage", default=False)


def _bad_counts(usage: Any) -> bool:
    """Set every number in ``usage`` that is not a token count to 0; whether there was one."""
    bad = False
    for key, value in (usage.items() if isinstance(usage, dict) else ()):
        if isinstance(value, dict):
            bad = _bad_counts(value) or bad
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and token_count(value) is None:
            usage[key], bad = 0, True
    return bad


def checked_usage(body: bytes) -> bytes:
    """A provider's reply with its token counts made counts (0 where NaN, negative, ...), noting that they were
    not, so that the call reports them unknown; any other body as it is."""
    if b'"usage"' not in body and b'"usageMetadata"' not in body:
        return body
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return body
    if not isinstance(data, dict) or not any(_bad_counts(data.get(k)) for k in ("usage", "usageMetadata")):
        return body
    _UNKNOWN_USAGE.set(True)
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def sdk_options(provider: str, base_url: str | None, timeout: float | None, *, pooled: bool = True,
                max_bytes: int | None = None) -> dict[str, Any] | None:
    """The keyword arguments the provider's SDK client is made with: its retries off and our time-out where it
    takes them, and a bounded ``httpx.AsyncClient`` where the table names its keyword (None: none of these)."""
    row = providers.provider(provider)
    options: dict[str, Any] = {"max_retries": 0, "timeout": timeout} if row.sdk_retries else {}
    if row.http_client:
        options[row.http_client] = bounded_http.async_client(base_url, timeout=timeout, pooled=pooled,
                                                             max_bytes=max_bytes, body_filter=checked_usage)
    return options or None


class AnyLLMChatAPI(ModelAPI):
    """One ``acompletion`` call to an any-llm provider."""

    def __init__(self, provider: str, *, model: str, base_url: str | None, api_key: str | None,
                 timeout: float | None = None, max_bytes: int | None = None, cache_marks: bool | None = None) -> None:
        self.provider, self.model, self.base_url, self.timeout = provider, model, base_url, timeout
        self.max_bytes = max_bytes
        self.secret = api_key
        self.cache_marks = providers.provider(provider).cache_marks if cache_marks is None else cache_marks
        self._client = None

    @property
    def client(self):
        """The any-llm client (made on first use; a missing SDK or key raises here)."""
        if self._client is None:
            from auditpacks.runner.models.simpleaudit_adapter import anyllm_client

            options = sdk_options(self.provider, self.base_url, self.timeout, max_bytes=self.max_bytes)
            self._client = anyllm_client(self.secret, self.base_url, self.provider, options)
        return self._client

    def check(self, *, who: str | None = None, hint: str = "") -> None:
        """The provider SDK's model list, one authenticated request with no retries."""
        check_anyllm(self.provider, base_url=self.base_url, api_key=self.secret, who=who)

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
        _UNKNOWN_USAGE.set(False)
        response = await self.client.acompletion(**body)
        choice = response.choices[0]
        raw = None if _UNKNOWN_USAGE.get() else getattr(response, "usage", None)
        usage = from_openai(raw)
        return Reply(content=choice.message.content or "", input_tokens=usage.input if raw is not None else None,
                     output_tokens=usage.output if raw is not None else None,
                     finish_reason=getattr(choice, "finish_reason", None),
                     cached_input_tokens=usage.cached_input or None, cache_write_tokens=usage.cache_write or None,
                     served_model=getattr(response, "model", None))

    async def aclose(self) -> None:
        self._client = None


def check_anyllm(provider: str, *, base_url: str | None, api_key: str | None, who: str | None = None,
                 timeout: float = PREFLIGHT_TIMEOUT_S) -> None:
    """The provider SDK's model list (one authenticated request, no retries) through a client of its own."""
    from auditpacks.runner.models.retry import describe
    from auditpacks.runner.models.simpleaudit_adapter import anyllm_client

    try:  # the sync model list runs on a loop of its own: a client that pools no connections across loops
        client = anyllm_client(api_key, base_url, provider, sdk_options(provider, base_url, timeout, pooled=False))
        if not getattr(client, "SUPPORTS_LIST_MODELS", False):
            return
        client.list_models()
    except ImportError:
        raise RunError(missing_extra(provider)) from None
    except Exception as exc:  # classified as a model call's failure is: HTTP status, connection, time-out
        text = describe(exc, timeout)[0]
        if api_key and len(api_key) >= 4:
            text = text.replace(api_key, "[api key]")
        raise RunError(redact(f"{who + ': ' if who else ''}provider {provider!r} does not answer the check before "
                              f"the run: {text}")) \
            from None
