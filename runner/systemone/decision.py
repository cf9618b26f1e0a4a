"""Decision-model targets: System One endpoints (Ollama, OpenRouter, any URL) through simpleaudit.

A decision model (Clef, Jev) answers a scenario's ``decision`` block with a choice,
a confidence and a probability per option; simpleaudit's ``DecisionTarget`` describes
the endpoint and builds the request, :class:`SingleDecisionTarget` sends it through the
one model-call path (:mod:`runner.systemone.api`), simpleaudit keeps the answer
in the transcript, and ``choice_match`` copies choice, confidence and probabilities into
the judgment. This module picks the endpoint, tells the runner which scenarios an
endpoint cannot take (over its option limit, over Ollama's 64 KiB body limit) and turns
endpoint errors into advice.
"""

from __future__ import annotations

import os
import re
from typing import Any, Mapping

from simpleaudit import DecisionTarget
from simpleaudit.targets import TargetResponse
from simpleaudit.decision import (
    public_decision,
    render_decision_prompt,
    validate_decision,
)

from auditpacks.core.bounded import http as bounded_http
from auditpacks.core.defaults import MAX_OPTIONS
from auditpacks.runner.models.model import Model
from auditpacks.runner.models.reply import Request
from auditpacks.runner.targets.contract import RunTarget
from auditpacks.runner.systemone.api import compact, over_body_limit

KINDS = ("ollama", "openrouter", "url")
OLLAMA_BASE_URL = "http://localhost:11434"


class DecisionSetupError(ValueError):
    """A decision target cannot be made from the options given."""


def make_decision_target(kind: str, model: str, *, base_url: str | None = None, url: str | None = None,
                         api_key: str | None = None, max_options: int | None = MAX_OPTIONS,
                         timeout: float = 300.0) -> DecisionTarget:
    """A ``DecisionTarget`` for ``--decision ollama|openrouter`` or ``--decision-url URL`` (kind ``url``)."""
    if not model:
        raise DecisionSetupError("a decision target needs a model name (--target)")
    if kind == "ollama":
        base = (base_url or OLLAMA_BASE_URL).rstrip("/").removesuffix("/v1")  # the OpenAI-style URL also works
        return DecisionTarget.ollama(model, base_url=base, api_key=api_key, max_options=max_options, timeout=timeout,
                                     client=_client(base, timeout))
    if kind == "openrouter":
        target = DecisionTarget.openrouter(model, api_key=api_key, max_options=max_options, timeout=timeout,
                                           client=_client(None, timeout))
        if base_url:  # an OpenRouter-compatible gateway or a local stand-in: {base}/systemone
            base = base_url.rstrip("/")
            target = DecisionTarget(base if base.endswith("/systemone") else base + "/systemone", model,
                                    api_key=api_key or os.environ.get("OPENROUTER_API_KEY"),
                                    max_options=max_options, timeout=timeout, client=_client(base, timeout))
        if "Authorization" not in target.headers:
            raise DecisionSetupError("OpenRouter needs a key: set OPENROUTER_API_KEY or pass --api-key")
        return target
    if kind == "url":
        if not url:
            raise DecisionSetupError("--decision url needs --decision-url (the System One endpoint)")
        return DecisionTarget(url, model, api_key=api_key, max_options=max_options, timeout=timeout,
                              client=_client(url, timeout))
    raise DecisionSetupError(f"unknown decision endpoint {kind!r}; use one of {', '.join(KINDS)}")


def _client(url: str | None, timeout: float):
    """The bounded client a decision target sends with (a connection per request: runs open more than one loop)."""
    return bounded_http.async_client(url, timeout=timeout, pooled=False)


class SingleDecisionTarget(RunTarget):
    """A decision endpoint under the run's contract: one question per request, one turn, each request through
    ``model`` (a :class:`~auditpacks.runner.systemone.api.SystemOneAPI` under a ``Model``)."""

    max_turns = 1

    def __init__(self, inner: DecisionTarget, model: Model) -> None:
        self.inner, self.model = inner, model  # inner: the endpoint's specification (URL, key, limits)

    async def send(self, *, user: str, history: list[dict[str, Any]] | None = None, documents: Any = None,
                   context: Any = None, **_: Any) -> TargetResponse:
        decision = (context.extra if context is not None else {}).get("decision")
        if decision is None:
            raise ValueError("a decision target needs a scenario with a 'decision' block")
        if not documents:  # the auditor attaches a scenario's documents to the first user turn
            documents = next((m["documents"] for m in history or [] if m.get("documents")), None)
        turn = {"role": "user", "content": user, **({"documents": documents} if documents else {})}
        reply = await self.model.generate(Request(
            messages=[turn], decision=decision, repeat=self.repeat,
            headers=dict((context.trace_headers if context is not None else None) or {})))
        return TargetResponse(content=reply.content, raw=reply.record(), input_tokens=reply.input_tokens,
                              output_tokens=reply.output_tokens, decision=reply.decision)

    @property
    def fatal(self) -> BaseException | None:
        return self.model.fatal

    async def aclose(self) -> None:
        await self.model.aclose()


def option_count(scenario: Mapping[str, Any]) -> int:
    return len(((scenario.get("decision") or {}).get("criteria")) or {})


def over_option_limit(scenario: Mapping[str, Any], max_options: int | None) -> bool:
    """Whether a decision endpoint with this option limit cannot take the scenario (it is skipped and counted)."""
    return max_options is not None and option_count(scenario) > max_options


def request_body(scenario: Mapping[str, Any], target: DecisionTarget) -> bytes:
    """The exact System One request ``target`` would send for the scenario's first turn."""
    decision = public_decision(validate_decision(scenario["decision"]))
    prompt = scenario.get("test_prompt") or render_decision_prompt(decision)
    return compact(target.build_request(decision, prompt, scenario.get("documents")))


def check_body_size(scenario: Mapping[str, Any], target: DecisionTarget) -> str | None:
    """Why the endpoint cannot take this scenario (option or body limit), or None when it can."""
    try:
        error = over_body_limit(request_body(scenario, target), target.max_body_bytes)
    except ValueError as exc:
        error = str(exc)
    return f"{scenario.get('name')}: {explain_decision_error(error)}" if error else None


#: (pattern in a DecisionTarget or transport error, advice) — first match wins.
_ADVICE = (
    (r"has (\d+) options; this endpoint accepts",
     "System One endpoints take at most {max} options per question by default; run decision models on the "
     "le26 track (build --track le26), or raise --max-options if the endpoint accepts more (Clef: 255)"),
    (r"request is (\d+) bytes, over this endpoint's (\d+)-byte limit",
     "Ollama accepts at most 64 KiB per System One request, and the judgment is sent whole, never shortened; "
     "this scenario cannot run on it: serve the model behind an endpoint without that limit (--decision-url) "
     "or leave the scenario out"),
    (r"HTTP 404", "no System One endpoint there: Ollama serves /v1/systemone from 0.35.1 on; check --base-url "
                  "(the server root, e.g. http://localhost:11434) and that the model is pulled"),
    (r"HTTP 40[13]", "the endpoint refused the key: set OPENROUTER_API_KEY or pass --api-key"),
    (r"HTTP 413", "the request is too large for the server; the judgment is sent whole"),
    (r"context|num_ctx|too long", "the judgment does not fit the model's context; for Clef on Ollama create a "
                                  "64K variant: printf 'FROM clef\\nPARAMETER num_ctx 65536\\n' > Modelfile.clef-64k "
                                  "&& ollama create clef-64k -f Modelfile.clef-64k"),
    (r"returned no answer for", "the model answered another question id than the scenario's decision.id"),
    (r"which is not one of the options", "the model chose a key outside the question's options"),
    (r"ConnectError|Connection refused|connection attempts failed|Name or service not known",
     "no server answered at that address; is it running, and is --base-url or --decision-url right?"),
)


def explain_decision_error(error: str, *, max_options: int | None = MAX_OPTIONS) -> str:
    """A DecisionTarget error message with what to do about it appended (unchanged when unknown)."""
    for pattern, advice in _ADVICE:
        if re.search(pattern, error, re.IGNORECASE):
            return f"{error} ({advice.format(max=max_options)})"
    return error
