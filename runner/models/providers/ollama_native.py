"""The native Ollama provider (``/api/chat``), which never lets a prompt be cut.

Before the first request, :meth:`OllamaChatAPI.prepare` asks ``show`` for the model's
context length and digest (the weights' sha256, read from the modelfile's ``FROM``
line, else from ``list``); the digest is part of every cache key. Each request then
gets a ``num_ctx`` that fits its prompt, or is refused (see
:mod:`runner.models.providers.context_fit`); ``--max-tokens`` becomes ``num_predict``.
Ollama's ``thinking`` field is kept apart from the answer.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from auditpacks.core.bounded import http as bounded_http
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.model import ModelAPI
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.models.providers import context_fit
from auditpacks.runner.models.providers.messages import flat_messages

OPTION_KEYS = ("temperature", "seed", "top_p", "top_k", "min_p", "stop", "repeat_penalty", "num_predict")
_DIGEST = re.compile(r"sha256[-:]([0-9a-f]{64})")


def ollama_format(response_format: Mapping[str, Any] | None) -> Any:
    """Ollama's ``format`` for an OpenAI ``response_format`` (a JSON schema, ``"json"`` or None)."""
    if not response_format:
        return None
    if response_format.get("type") == "json_schema":
        return (response_format.get("json_schema") or {}).get("schema") or "json"
    return "json"


def model_facts(show: Any, listed: Any, model: str) -> dict[str, Any]:
    """``{"digest", "context_length"}`` from ``show`` (and ``list`` when the modelfile names no blob)."""
    info = dict(getattr(show, "modelinfo", None) or {})
    lengths = [v for k, v in info.items() if k.endswith(".context_length") and isinstance(v, int)]
    found = _DIGEST.search(getattr(show, "modelfile", None) or "")
    digest = found.group(1) if found else None
    if digest is None and listed is not None:
        for entry in getattr(listed, "models", None) or []:
            if entry.model in (model, f"{model}:latest"):
                digest = (entry.digest or "").removeprefix("sha256:") or None
    if not lengths:
        raise RunError(f"ollama show {model}: no context length in model_info")
    return {"digest": digest, "context_length": max(lengths)}


class OllamaChatAPI(ModelAPI):
    """One ``chat`` call to an Ollama server through the ``ollama`` AsyncClient."""

    needs_facts = True

    def __init__(self, *, model: str, host: str, timeout: float | None = None, max_tokens: int | None = None,
                 max_bytes: int | None = None) -> None:
        self.model, self.host, self.timeout, self.max_tokens = model, host.rstrip("/"), timeout, max_tokens
        self.max_bytes = max_bytes
        self.address = self.host
        self._client = None

    def prepare(self) -> dict[str, Any]:
        """Read the model's digest and context length from the server."""
        import ollama

        timeout = min(self.timeout or 60.0, 60.0)
        client = ollama.Client(host=self.host, timeout=timeout,
                               transport=bounded_http.BoundedTransport(deadline=timeout, origin=self.host))
        try:
            show = client.show(self.model)
            listed = None if _DIGEST.search(show.modelfile or "") else client.list()
        except ollama.ResponseError as exc:
            raise RunError(f"ollama at {self.host}: {self.model}: {exc.error} (HTTP {exc.status_code})") from None
        except Exception as exc:  # connection refused, time-out
            raise RunError(f"cannot reach ollama at {self.host}: {type(exc).__name__}: {exc}") from None
        return model_facts(show, listed, self.model)

    def build(self, request: Request) -> tuple[dict[str, Any], int]:
        """The ``chat`` arguments and the prompt's token estimate (:class:`~context_fit.PromptTooLong`
        when no ``num_ctx`` the model has fits the prompt)."""
        messages = flat_messages(request.messages)
        params = dict(request.params)
        if "max_tokens" in params:
            params["num_predict"] = params.pop("max_tokens")
        elif self.max_tokens is not None:
            params["num_predict"] = self.max_tokens
        unknown = sorted(set(params) - set(OPTION_KEYS) - {"extra_headers"})
        if unknown:
            raise ValueError(f"ollama target: unsupported parameter(s) {', '.join(unknown)}")
        options = {k: params[k] for k in OPTION_KEYS if k in params}
        estimate = context_fit.estimate_tokens(messages)
        options["num_ctx"] = context_fit.choose_num_ctx(estimate, options.get("num_predict"),
                                                        self.facts["context_length"])
        body = {"model": self.model, "messages": messages, "options": options, "stream": False}
        fmt = ollama_format(request.response_format)
        if fmt is not None:
            body["format"] = fmt
        return body, estimate

    def cache_key(self, built: tuple[dict[str, Any], int], request: Request) -> dict[str, Any]:
        body, _ = built
        # the served model's digest, not the host: replicas of one model share replies, other models never do
        key = {"api": "ollama-chat", "digest": self.facts["digest"],
               **{k: v for k, v in body.items() if k != "stream"}, "repeat": request.repeat}
        if request.prompt_order:
            key["prompt_order"] = request.prompt_order
        return key

    async def call(self, built: tuple[dict[str, Any], int], request: Request) -> Reply:
        body, estimate = built
        response = await self.client.chat(**body)
        options = body["options"]
        context_fit.check_prompt_tokens(response.prompt_eval_count, estimate=estimate, num_ctx=options["num_ctx"],
                                        output_budget=options.get("num_predict"))
        return Reply(content=response.message.content or "", reasoning=response.message.thinking or None,
                     input_tokens=response.prompt_eval_count, output_tokens=response.eval_count,
                     finish_reason=response.done_reason)

    @property
    def client(self):
        if self._client is None:
            import ollama

            self._client = ollama.AsyncClient(host=self.host, timeout=self.timeout, transport=bounded_http.
                                              BoundedAsyncTransport(deadline=self.timeout, origin=self.host,
                                                                    max_bytes=self.max_bytes))
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client._client.aclose()
            self._client = None
