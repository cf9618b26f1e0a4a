"""A simpleaudit Target for Ollama's native API (``/api/chat``) that never lets a prompt be cut.

Before the run, :meth:`OllamaTarget.prepare` asks ``show`` for the model's context
length and digest (the weights' sha256, read from the modelfile's ``FROM`` line, else
from ``list``). Each request then gets a ``num_ctx`` that fits its prompt, or is
refused (see :mod:`runner.targets.context_fit`); ``--max-tokens`` becomes
``num_predict``. Ollama's ``thinking`` field and ``<think>`` blocks are kept apart
from the answer and recorded. Same cache and retry layer and message layouts as the
OpenAI target (Ollama reuses a shared prompt prefix too).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from simpleaudit.targets import TargetContext, TargetResponse

from auditpacks.runner.execution.cache import ResponseCache
from auditpacks.runner.execution.config import RunError
from auditpacks.runner.execution.retry import RetryPolicy, call_with_retries
from auditpacks.runner.targets import context_fit
from auditpacks.runner.targets.contract import RunTarget
from auditpacks.runner.targets.messages import LAYOUTS, STOCK, flat_messages
from auditpacks.runner.targets.openai_compat import target_response
from auditpacks.runner.targets.turns import record_oversize

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


class OllamaTarget(RunTarget):
    """``send`` one chat turn to an Ollama server through the ``ollama`` AsyncClient."""

    def __init__(self, *, model: str, host: str, policy: RetryPolicy, cache: ResponseCache | None = None,
                 max_tokens: int | None = None, layout: str = STOCK, repeat: int = 0, note: str | None = None) -> None:
        self.model, self.host, self.policy, self.cache = model, host.rstrip("/"), policy, cache
        self.note = note
        self.max_tokens, self.layout_name, self.layout, self.repeat = max_tokens, layout, LAYOUTS[layout], repeat
        self.facts: dict[str, Any] | None = None
        self._client = None

    def prepare(self) -> dict[str, Any]:
        """Read (or, with ``--cache-only``, recall) the model's digest and context length."""
        if self.cache is not None and self.cache.only:
            self.facts = self.cache.recall_model(self.host, self.model)
            if self.facts is None:
                raise RunError(f"--cache-only: the cache holds no facts about {self.model} at {self.host}; "
                               "run once with the server")
            return self.facts
        import ollama

        client = ollama.Client(host=self.host, timeout=min(self.policy.timeout or 60.0, 60.0))
        try:
            show = client.show(self.model)
            listed = None if _DIGEST.search(show.modelfile or "") else client.list()
        except ollama.ResponseError as exc:
            raise RunError(f"ollama at {self.host}: {self.model}: {exc.error} (HTTP {exc.status_code})") from None
        except Exception as exc:  # connection refused, time-out
            raise RunError(f"cannot reach ollama at {self.host}: {type(exc).__name__}: {exc}") from None
        self.facts = model_facts(show, listed, self.model)
        if self.cache is not None:
            self.cache.remember_model(self.host, self.model, self.facts)
        return self.facts

    def notes(self) -> list[str]:
        return [self.note] if self.note else []

    def request(self, messages: list[dict[str, Any]], params: Mapping[str, Any] | None,
                response_format: Mapping[str, Any] | None, *, record: bool = True) -> tuple[dict[str, Any], int]:
        """The ``chat`` arguments for these messages and the prompt's token estimate."""
        params = dict(params or {})
        if "max_tokens" in params:
            params["num_predict"] = params.pop("max_tokens")
        elif self.max_tokens is not None:
            params["num_predict"] = self.max_tokens
        unknown = sorted(set(params) - set(OPTION_KEYS) - {"extra_headers"})
        if unknown:
            raise ValueError(f"ollama target: unsupported parameter(s) {', '.join(unknown)}")
        options = {k: params[k] for k in OPTION_KEYS if k in params}
        estimate = context_fit.estimate_tokens(messages)
        try:
            options["num_ctx"] = context_fit.choose_num_ctx(estimate, options.get("num_predict"),
                                                            self.facts["context_length"])
        except context_fit.PromptTooLong as exc:
            if record:
                record_oversize(str(exc))
            raise
        request = {"model": self.model, "messages": messages, "options": options, "stream": False}
        fmt = ollama_format(response_format)
        if fmt is not None:
            request["format"] = fmt
        return request, estimate

    async def send(self, *, system: str | None = None, user: str, history: list[dict[str, Any]] | None = None,
                   file_uri: Any = None, documents: list[Any] | None = None,
                   response_format: Mapping[str, Any] | None = None, params: Mapping[str, Any] | None = None,
                   context: TargetContext | None = None) -> TargetResponse:
        messages = self.layout(system=system, user=user, history=history, documents=documents, file_uri=file_uri)
        reply, _ = await self.complete(messages, params, response_format, target_turn=True)
        return target_response(reply)

    async def complete(self, messages: list[dict[str, Any]], params: Mapping[str, Any] | None = None,
                       response_format: Mapping[str, Any] | None = None, *, headers: Any = None,
                       target_turn: bool = False) -> tuple[dict[str, Any], bool]:
        """One ``/api/chat`` request through the cache and the retry layer: ``(reply, came_from_cache)``.

        Shared by target turns and judge or auditor-model calls; only a target turn's oversize
        prompt is noted for ``--skip-oversize``.
        """
        if self.facts is None:
            self.prepare()
        request, estimate = self.request(flat_messages(messages), params, response_format, record=target_turn)
        key = {"api": "ollama-chat", "base_url": self.host, "digest": self.facts["digest"],
               **{k: v for k, v in request.items() if k != "stream"}, "repeat": self.repeat}
        if self.layout_name != STOCK and target_turn:
            key["prompt_order"] = self.layout_name
        reply = self.cache.get(key) if self.cache is not None else None
        if reply is not None:
            return reply, True
        reply = await call_with_retries(lambda: self._chat(request, estimate), self.policy)
        if self.cache is not None:
            self.cache.put(key, reply)
        return reply, False

    async def _chat(self, request: dict[str, Any], estimate: int) -> dict[str, Any]:
        response = await self.client.chat(**request)
        options = request["options"]
        context_fit.check_prompt_tokens(response.prompt_eval_count, estimate=estimate, num_ctx=options["num_ctx"],
                                        output_budget=options.get("num_predict"))
        return {
            "content": response.message.content or "",
            "reasoning": response.message.thinking or None,
            "input_tokens": response.prompt_eval_count,
            "output_tokens": response.eval_count,
            "finish_reason": response.done_reason,
        }

    @property
    def client(self):
        if self._client is None:
            import ollama

            self._client = ollama.AsyncClient(host=self.host, timeout=self.policy.timeout)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client._client.aclose()
            self._client = None
