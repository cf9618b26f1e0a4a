"""The System One provider in process: the body it builds, its cache key, the POST it sends, and what it reads back."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from simpleaudit import DecisionTarget

from auditpacks.runner.models.reply import Request
from auditpacks.runner.systemone import api
from auditpacks.runner.systemone.api import (DecisionHTTPError, SystemOneAPI, batch_reply, check_answer, compact,
                                             decision_reply, over_body_limit)

URL = "http://decide.test/v1/systemone"
KEY = "sk-decision-0123456789"
DECISION = {"id": "GUILTY", "type": "choice", "instructions": "Was the defendant found guilty?",
            "criteria": {"yes": "Found guilty", "no": ""}}
ANSWER = {"choice": "yes", "confidence": 0.75, "probabilities": {"yes": 0.875, "no": 0.125}}
BATCH = {"model": "clef", "state": "s", "questions": {"GUILTY": {k: DECISION[k] for k in ("type", "instructions",
                                                                                          "criteria")}}}


class Endpoint:
    """Answers every POST with ``status`` and ``payload``; ``seen`` keeps the requests, ``made`` the bounded
    clients asked for (origin and options) and the clients handed out."""

    def __init__(self, monkeypatch, status: int = 200, payload=None) -> None:
        self.status, self.payload = status, {"answers": {"GUILTY": ANSWER}} if payload is None else payload
        self.seen, self.made, self.clients = [], [], []
        monkeypatch.setattr(api.bounded_http, "async_client", self.bounded)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        return httpx.Response(self.status, json=self.payload)

    def client(self, **options) -> httpx.AsyncClient:
        self.clients.append(httpx.AsyncClient(transport=httpx.MockTransport(self.handle), **options))
        return self.clients[-1]

    def bounded(self, origin, **options) -> httpx.AsyncClient:
        self.made.append((origin, options))
        return self.client()


def question(**fields) -> Request:
    return Request(messages=[{"role": "user", "content": "Read the judgment."}], decision=DECISION, **fields)


def post(provider: SystemOneAPI, request: Request):
    return asyncio.run(provider.call(provider.build(request), request))


def test_a_body_is_compact_utf8_json():
    assert compact({"q": "Åé", "n": [1, 2]}) == '{"q":"Åé","n":[1,2]}'.encode("utf-8")


@pytest.mark.parametrize("size, limit, problem", [
    (10, 10, None), (11, None, None),
    (11, 10, "request is 11 bytes, over this endpoint's 10-byte limit; the documents are not shortened"),
])
def test_the_body_limit_counts_bytes_and_allows_exactly_the_limit(size, limit, problem):
    assert over_body_limit(b"x" * size, limit) == problem


@pytest.mark.parametrize("status, text, message", [
    (503, "", "HTTP 503"), (422, "bad field", "bad field"), (500, "e" * 300 + "f", "e" * 300)])
def test_an_http_error_says_the_start_of_the_body_or_its_status(status, text, message):
    error = DecisionHTTPError(status, text)
    assert str(error) == message and error.status_code == status


@pytest.mark.parametrize("spec, secret", [({"api_key": KEY}, KEY), ({}, None)])
def test_the_secret_is_the_bearer_key(spec, secret):
    assert SystemOneAPI(DecisionTarget(URL, "clef", **spec)).secret == secret


def test_the_body_is_simpleaudits_request_or_the_batch_as_it_is(monkeypatch):
    provider = SystemOneAPI(DecisionTarget("http://u:pw@decide.test/v1/systemone", "clef"))
    single = provider.build(question(repeat=2))
    assert single == compact({"model": "clef", "state": "Read the judgment.", "questions": BATCH["questions"]})
    assert provider.build(Request(messages=[], body=BATCH)) == compact(BATCH)
    assert provider.cache_key(single, question(repeat=2)) == {
        "api": "systemone", "url": URL, "body": {"model": "clef", "state": "Read the judgment.",
                                                 "questions": BATCH["questions"]}, "repeat": 2}


def test_the_post_goes_through_the_targets_own_client_which_stays_open(monkeypatch):
    endpoint = Endpoint(monkeypatch)
    provider = SystemOneAPI(DecisionTarget(URL, "clef", api_key=KEY, client=endpoint.client(timeout=30.0)))
    reply = post(provider, question(headers={"traceparent": "00-abc"}))
    post(provider, question(timeout=5.0))
    asyncio.run(provider.aclose())
    post(provider, question())
    first, limited, _ = endpoint.seen
    assert (str(first.url), first.headers["content-type"], first.headers["authorization"],
            first.headers["traceparent"]) == (URL, "application/json", f"Bearer {KEY}", "00-abc")
    assert first.extensions["timeout"]["read"] == 30.0 and set(limited.extensions["timeout"].values()) == {5.0}
    assert reply.content == "yes: Found guilty" and reply.decision == ANSWER
    assert endpoint.made == [] and not endpoint.clients[0].is_closed


def test_without_a_client_a_bounded_one_is_made_per_use_and_closed(monkeypatch):
    endpoint = Endpoint(monkeypatch)
    provider = SystemOneAPI(DecisionTarget(URL, "clef", timeout=12.0))
    post(provider, question())
    asyncio.run(provider.aclose())
    assert endpoint.made == [(URL, {"timeout": 12.0, "pooled": False})] and endpoint.clients[0].is_closed
    post(provider, question())
    assert len(endpoint.made) == 2


@pytest.mark.parametrize("status", [400, 401, 422, 503])
def test_an_http_error_status_is_raised_with_it(monkeypatch, status):
    Endpoint(monkeypatch, status, {"error": "refused"})
    with pytest.raises(DecisionHTTPError) as raised:
        post(SystemOneAPI(DecisionTarget(URL, "clef")), question())
    assert raised.value.status_code == status and "refused" in str(raised.value)


def test_a_batch_reply_is_handed_back_whole_with_its_usage(monkeypatch):
    payload = {"model": "clef", "answers": {"GUILTY": ANSWER}, "usage": {"input_tokens": 9, "output_tokens": 1}}
    Endpoint(monkeypatch, payload=payload)
    reply = post(SystemOneAPI(DecisionTarget(URL, "clef")), Request(messages=[], body=BATCH))
    assert (reply.content, reply.batch, reply.input_tokens, reply.output_tokens) == ("", payload, 9, 1)


@pytest.mark.parametrize("data, batch", [(["x"], {}), ({"usage": "many"}, {"usage": "many"}), (None, {})])
def test_a_batch_reply_that_is_not_an_object_or_has_no_usage_counts_nothing(data, batch):
    reply = batch_reply(data)
    assert (reply.content, reply.batch, reply.input_tokens, reply.output_tokens) == ("", batch, None, None)


def test_an_invalid_answer_is_named_by_its_question():
    with pytest.raises(RuntimeError) as raised:
        check_answer(DECISION, {"choice": "maybe", "confidence": 0.5})
    assert str(raised.value) == ("decision endpoint sent an invalid answer: answer 'GUILTY' field choice: "
                                 "'maybe' is not one of the options")


@pytest.mark.parametrize("data", [["GUILTY"], "yes", None])
def test_a_reply_that_is_not_an_object_has_no_answer(data):
    with pytest.raises(RuntimeError, match="^decision endpoint returned no answer for 'GUILTY'$"):
        decision_reply(DECISION, data)
