"""Decision-model targets: System One endpoints (Ollama, OpenRouter, any URL) through simpleaudit.

A decision model (Clef, Jev) answers a scenario's ``decision`` block with a choice,
a confidence and a probability per option; simpleaudit's ``DecisionTarget`` sends
the request and keeps that answer in the transcript, and ``choice_match`` copies
choice, confidence and probabilities into the judgment. This module picks the
endpoint, tells the runner which scenarios an endpoint cannot take (over its option
limit, over Ollama's 64 KiB body limit) and turns endpoint errors into advice.
"""

from __future__ import annotations

import json
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

from auditpacks.core import bounded_http
from auditpacks.core.defaults import MAX_OPTIONS
from auditpacks.core.numbers import token_count
from auditpacks.runner.serving.systemone import ChoiceQuestion, DecisionRequest, SystemOneError, check_response
from auditpacks.runner.targets.contract import RunTarget

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
    """A ``DecisionTarget`` under the run's contract: one question per request, one turn."""

    max_turns = 1

    def __init__(self, inner: DecisionTarget) -> None:
        self.inner = inner

    async def send(self, **kwargs: Any) -> Any:
        return checked_response(await self.inner.send(**kwargs), kwargs.get("context"))


def check_answer(decision: Mapping[str, Any], answer: Any) -> None:
    """Raise ``RuntimeError`` (the scenario's recorded error) unless ``answer`` is a valid System One answer
    to ``decision``: a choice among its options, a confidence and probabilities in [0, 1] summing to 1."""
    question = ChoiceQuestion(str(decision["id"]), str(decision.get("instructions") or ""),
                              {key: str(text or "") for key, text in dict(decision["criteria"]).items()})
    try:
        check_response({"answers": {question.id: answer}}, DecisionRequest("", "", (question,)))
    except SystemOneError as exc:
        raise RuntimeError(f"decision endpoint sent an invalid answer: {exc}") from None


def checked_response(response: TargetResponse, context: Any) -> TargetResponse:
    """``response`` once its answer is checked against the scenario's decision block (:func:`check_answer`)
    and its token counts are valid or unknown."""
    decision = (context.extra if context is not None else {}).get("decision")
    if decision is not None:
        check_answer(decision, response.decision)
    response.input_tokens = token_count(response.input_tokens)
    response.output_tokens = token_count(response.output_tokens)
    return response


def option_count(scenario: Mapping[str, Any]) -> int:
    return len(((scenario.get("decision") or {}).get("criteria")) or {})


def over_option_limit(scenario: Mapping[str, Any], max_options: int | None) -> bool:
    """Whether a decision endpoint with this option limit cannot take the scenario (it is skipped and counted)."""
    return max_options is not None and option_count(scenario) > max_options


def request_body(scenario: Mapping[str, Any], target: DecisionTarget) -> bytes:
    """The exact System One request ``target`` would send for the scenario's first turn."""
    decision = public_decision(validate_decision(scenario["decision"]))
    prompt = scenario.get("test_prompt") or render_decision_prompt(decision)
    body = target.build_request(decision, prompt, scenario.get("documents"))
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def check_body_size(scenario: Mapping[str, Any], target: DecisionTarget) -> str | None:
    """Why the endpoint cannot take this scenario (option or body limit), or None when it can."""
    try:
        size = len(request_body(scenario, target))
    except ValueError as exc:
        return f"{scenario.get('name')}: {explain_decision_error(str(exc))}"
    if target.max_body_bytes is not None and size > target.max_body_bytes:
        error = (f"request is {size} bytes, over this endpoint's {target.max_body_bytes}-byte limit; "
                 "the documents are not shortened")
        return f"{scenario.get('name')}: {explain_decision_error(error)}"
    return None


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
