"""The System One provider: one decision request in, one reply out (the choice, its confidence and probabilities).

simpleaudit's ``DecisionTarget`` is the endpoint's specification here (URL, model, key,
option and body limits) and builds the request body itself, so requests stay exactly
what simpleaudit sends; :class:`SystemOneAPI` posts it under the
:class:`~auditpacks.runner.models.model.Model` (cache, retries, redaction, token counts).
A request breaking a limit is refused before anything is sent (``ValueError``); an
HTTP error carries its status, so the retry layer retries 408, 429 and 5xx and fails a
rejected request (404, 422, ...) at once; a reply without the question's answer, or
with a choice outside its options, is the scenario's error. A batch of questions
(``Request.body``, built by :mod:`runner.systemone.batching`) is posted as it is, within
the request's own time limit, and its reply (``Reply.batch``) is handed back unread: the
batch target checks each answer as its own scenario's.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from simpleaudit import DecisionTarget

from auditpacks.core.bounded import http as bounded_http
from auditpacks.core.redact import public_url
from auditpacks.runner.models.model import ModelAPI
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.models.simpleaudit_adapter import decision_client
from auditpacks.runner.systemone.protocol import ChoiceQuestion, DecisionRequest, SystemOneError, check_response


def compact(value: Any) -> bytes:
    """A request body as System One endpoints get it (and as their byte limits count it)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def over_body_limit(payload: bytes, limit: int | None) -> str | None:
    """Why ``payload`` is too large for an endpoint with this byte limit (None: it fits)."""
    if limit is None or len(payload) <= limit:
        return None
    return f"request is {len(payload)} bytes, over this endpoint's {limit}-byte limit; the documents are not shortened"


class DecisionHTTPError(RuntimeError):
    """The endpoint answered with an HTTP error (``status_code``; the message is the start of its body)."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(text[:300] or f"HTTP {status}")
        self.status_code = status


class SystemOneAPI(ModelAPI):
    """``POST`` one System One request as ``spec`` (a ``DecisionTarget``) builds it."""

    def __init__(self, spec: DecisionTarget) -> None:
        self.spec, self.model, self.address = spec, spec.model, spec.url
        self.secret = spec.headers.get("Authorization", "").removeprefix("Bearer ") or None
        self._given = self._client = decision_client(spec)  # the target's own client, kept open for its owner

    def build(self, request: Request) -> bytes:
        if request.body is not None:
            body = dict(request.body)
        else:
            turn = request.messages[-1]
            body = self.spec.build_request(request.decision, turn["content"], turn.get("documents"))
        payload = compact(body)
        problem = over_body_limit(payload, self.spec.max_body_bytes)
        if problem:
            raise ValueError(problem)
        return payload

    def cache_key(self, body: bytes, request: Request) -> dict[str, Any]:
        return {"api": "systemone", "url": public_url(self.spec.url), "body": json.loads(body),
                "repeat": request.repeat}

    async def call(self, body: bytes, request: Request) -> Reply:
        if self._client is None:  # the bounded client: a byte cap and one total deadline per request
            self._client = bounded_http.async_client(self.spec.url, timeout=self.spec.timeout, pooled=False)
        headers = {**self.spec.headers, "Content-Type": "application/json", **request.headers}
        limit = {"timeout": request.timeout} if request.timeout else {}
        response = await self._client.post(self.spec.url, content=body, headers=headers, **limit)
        if response.status_code >= 400:
            raise DecisionHTTPError(response.status_code, response.text)
        if request.body is not None:
            return batch_reply(response.json())
        return decision_reply(request.decision, response.json())

    async def aclose(self) -> None:
        if self._client is not None and self._client is not self._given:
            await self._client.aclose()
        self._client = self._given


def check_answer(decision: Mapping[str, Any], answer: Any) -> None:
    """Raise ``RuntimeError`` (the scenario's recorded error) unless ``answer`` is a valid System One answer
    to ``decision``: a choice among its options, a confidence and probabilities in [0, 1] summing to 1."""
    question = ChoiceQuestion(str(decision["id"]), str(decision.get("instructions") or ""),
                              {key: str(text or "") for key, text in dict(decision["criteria"]).items()})
    try:
        check_response({"answers": {question.id: answer}}, DecisionRequest("", "", (question,)))
    except SystemOneError as exc:
        raise RuntimeError(f"decision endpoint sent an invalid answer: {exc}") from None


def batch_reply(data: Any) -> Reply:
    """A batch's reply: the endpoint's answer kept whole (``batch``), its usage as the reply's tokens."""
    data = data if isinstance(data, dict) else {}
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return Reply(content="", input_tokens=usage.get("input_tokens"), output_tokens=usage.get("output_tokens"),
                 batch=data)


def decision_reply(decision: Mapping[str, Any], data: Any) -> Reply:
    """The reply to ``decision`` in an endpoint's answer: ``content`` names the chosen option."""
    answer = (data.get("answers") or {}).get(decision["id"]) if isinstance(data, dict) else None
    if not isinstance(answer, dict):
        raise RuntimeError(f"decision endpoint returned no answer for {decision['id']!r}")
    check_answer(decision, answer)
    choice = answer["choice"]
    description = decision["criteria"][choice]
    usage = data.get("usage") or {}
    return Reply(content=f"{choice}: {description}" if description else choice,
                 input_tokens=usage.get("input_tokens"), output_tokens=usage.get("output_tokens"), decision=answer)
