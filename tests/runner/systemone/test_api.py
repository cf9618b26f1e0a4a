"""The System One provider under the one model-call path: the request simpleaudit builds, retries, limits, errors."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from simpleaudit import DecisionTarget

from auditpacks.runner.models.model import Model
from auditpacks.runner.models.retry import CallFailed, RetryPolicy
from auditpacks.runner.systemone.decision import SingleDecisionTarget
from auditpacks.runner.systemone.api import SystemOneAPI, decision_reply
from tests.support.stub_http import StubHTTP

KEY = "sk-decision-SECRET-0123456789"
DECISION = {"id": "GUILTY", "type": "choice", "instructions": "Was the defendant found guilty?",
            "criteria": {"yes": "Found guilty", "no": ""}}
ANSWER = {"choice": "yes", "confidence": 0.75, "probabilities": {"yes": 0.875, "no": 0.125}}
POLICY = RetryPolicy(max_retries=2, backoff=0.0, timeout=10.0)


def ask(url: str, *, documents=None, **spec) -> tuple:
    inner = DecisionTarget(url, "clef", api_key=KEY, **spec)
    target = SingleDecisionTarget(inner, Model(SystemOneAPI(inner), policy=POLICY))

    async def go():
        try:
            return await target.send(user="Read the judgment.", documents=documents,
                                     context=SimpleNamespace(extra={"decision": DECISION}, trace_headers={}))
        finally:
            await target.aclose()
    return asyncio.run(go()), target.model.counts


def serve(*script):
    """A System One stand-in answering each POST with the next (status, payload) of ``script``."""
    answers = list(script)
    return StubHTTP(lambda method, path, headers, body: answers.pop(0))


def test_the_answer_names_the_chosen_option_and_keeps_its_probabilities():
    with serve((200, {"answers": {"GUILTY": ANSWER}, "usage": {"input_tokens": 40, "output_tokens": 2}})) as server:
        response, counts = ask(server.url + "/v1/systemone", documents=["The court found him guilty."])
        _, _, headers, body = server.requests[0]
        auth = headers.get("Authorization")
    assert response.content == "yes: Found guilty" and response.decision == ANSWER
    assert (response.input_tokens, response.output_tokens) == (40, 2)
    assert counts["requests"] == 1 and counts["input_tokens"] == 40
    assert auth == f"Bearer {KEY}"
    assert body == {"model": "clef", "state": {"documents": ["The court found him guilty."]},
                    "questions": {"GUILTY": {"type": "choice", "instructions": DECISION["instructions"],
                                             "criteria": DECISION["criteria"]}}}


def test_a_server_error_is_retried_and_a_rejected_request_is_not():
    with serve((503, {"error": "loading"}), (200, {"answers": {"GUILTY": {"choice": "no", "confidence": 0.5}}})) as server:
        response, _ = ask(server.url)
        assert len(server.requests) == 2
    assert response.content == "no"  # an option without a description is named alone
    with serve((404, {"error": f"no such route, key {KEY}"}), (200, {})) as server:
        with pytest.raises(CallFailed) as failed:
            ask(server.url)
        assert len(server.requests) == 1
    assert "HTTP 404" in str(failed.value) and "not retried" in str(failed.value)
    assert KEY not in str(failed.value)


def test_a_body_over_the_limit_is_refused_before_anything_is_sent():
    with serve() as server:
        with pytest.raises(ValueError, match="over this endpoint's 200-byte limit"):
            ask(server.url, documents=["x" * 400], max_body_bytes=200)
        assert server.requests == []


def test_an_answer_outside_the_options_or_missing_is_an_error():
    with pytest.raises(RuntimeError, match="field choice: 'maybe' is not one of the options"):
        decision_reply(DECISION, {"answers": {"GUILTY": {"choice": "maybe"}}})
    with pytest.raises(RuntimeError, match="no answer for 'GUILTY'"):
        decision_reply(DECISION, {"answers": {"OTHER": ANSWER}})
    assert decision_reply(DECISION, {"answers": {"GUILTY": ANSWER}}).input_tokens is None  # no usage given
