"""Decision targets in process: the target each kind makes (URL, key, limits, client), a decision target's request
through a stand-in model, the option count and the advice appended to each known error."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest

from auditpacks.runner.models.reply import Reply
from auditpacks.runner.systemone import decision
from auditpacks.runner.systemone.decision import (DecisionSetupError, SingleDecisionTarget, explain_decision_error,
                                                  make_decision_target, option_count, over_option_limit,
                                                  request_body)


@pytest.fixture
def clients(monkeypatch):
    """The bounded clients the targets are given: (origin, timeout, pooled) each."""
    made = []
    monkeypatch.setattr(decision.bounded_http, "async_client",
                        lambda origin, *, timeout, pooled: made.append((origin, timeout, pooled)) or len(made))
    return made


@pytest.mark.parametrize("base, url", [(None, "http://localhost:11434/v1/systemone"),
                                       ("http://h:1/v1/", "http://h:1/v1/systemone"),
                                       ("http://h:1/", "http://h:1/v1/systemone"),
                                       ("http://BOX", "http://BOX/v1/systemone")])
def test_an_ollama_target_serves_the_server_root(clients, base, url):
    target = make_decision_target("ollama", "clef", base_url=base, api_key="k", max_options=30, timeout=9.0)
    assert (target.url, target.model, target.headers, target.max_options, target.timeout) == (
        url, "clef", {"Authorization": "Bearer k"}, 30, 9.0)
    assert clients == [(url.removesuffix("/v1/systemone"), 9.0, False)] and target._client == 1


def test_the_defaults_are_26_options_and_five_minutes(clients, monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-env")
    for target in (make_decision_target("ollama", "clef"), make_decision_target("openrouter", "j"),
                   make_decision_target("url", "clef", url="http://h/x")):
        assert (target.max_options, target.timeout) == (26, 300.0)
    assert [timeout for _, timeout, _ in clients] == [300.0] * 3


@pytest.mark.parametrize("base, url", [("http://gw/api/v1/", "http://gw/api/v1/systemone"),
                                       ("http://gw/v1/systemone", "http://gw/v1/systemone"),
                                       ("http://GWX", "http://GWX/systemone")])
def test_an_openrouter_gateway_is_asked_at_its_systemone_path(clients, monkeypatch, base, url):
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-env")
    target = make_decision_target("openrouter", "j", base_url=base, max_options=40, timeout=5.0)
    assert (target.url, target.model, target.headers, target.max_options, target.timeout) == (
        url, "j", {"Authorization": "Bearer sk-env"}, 40, 5.0)
    assert clients[-1] == (base.rstrip("/"), 5.0, False) and target._client == 2
    given = make_decision_target("openrouter", "j", base_url=base, api_key="sk-given")
    assert given.headers == {"Authorization": "Bearer sk-given"}


def test_openrouter_itself_is_asked_with_the_key_given(clients, monkeypatch):
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    target = make_decision_target("openrouter", "j", api_key="sk-given", max_options=None, timeout=4.0)
    assert (target.model, target.headers, target.max_options, target.timeout, target._client) == (
        "j", {"Authorization": "Bearer sk-given"}, None, 4.0, 1)
    assert clients == [(None, 4.0, False)]
    with pytest.raises(DecisionSetupError, match=r"^OpenRouter needs a key: set OPENROUTER_API_KEY or pass "
                                                 r"--api-key$"):
        make_decision_target("openrouter", "j", base_url="http://gw/v1")


def test_a_url_target_is_asked_at_that_url(clients):
    target = make_decision_target("url", "clef", url="http://h/x", api_key="k", timeout=3.0)
    assert (target.url, target.model, target.headers, target.timeout, target._client) == (
        "http://h/x", "clef", {"Authorization": "Bearer k"}, 3.0, 1)
    assert clients == [("http://h/x", 3.0, False)]


@pytest.mark.parametrize("kind, model, message", [
    ("ollama", "", "a decision target needs a model name (--target)"),
    ("url", "clef", "--decision url needs --decision-url (the System One endpoint)"),
    ("grpc", "clef", "unknown decision endpoint 'grpc'; use one of ollama, openrouter, url"),
])
def test_a_target_that_cannot_be_made_says_why(kind, model, message):
    with pytest.raises(DecisionSetupError) as raised:
        make_decision_target(kind, model)
    assert str(raised.value) == message


class FakeModel:
    fatal = RuntimeError("stop")

    def __init__(self):
        self.requests, self.closed = [], False

    async def generate(self, request):
        self.requests.append(request)
        return Reply("b", input_tokens=7, output_tokens=1, decision={"choice": "b", "confidence": 0.9})

    async def aclose(self):
        self.closed = True


def test_a_decision_target_sends_one_turn_with_the_decision_and_documents():
    model = FakeModel()
    target = SingleDecisionTarget(make_decision_target("url", "clef", url="http://h/x"), model)
    target.repeat = 2
    context = SimpleNamespace(extra={"decision": {"id": "q"}}, trace_headers={"traceparent": "t"})
    history = [{"role": "user", "content": "u"}, {"role": "user", "content": "u", "documents": ["d"]}]
    response = asyncio.run(target.send(user="Which?", history=history, context=context))
    [request] = model.requests
    assert (request.messages, request.decision, request.repeat, dict(request.headers)) == (
        [{"role": "user", "content": "Which?", "documents": ["d"]}], {"id": "q"}, 2, {"traceparent": "t"})
    assert (response.content, response.input_tokens, response.output_tokens, response.decision) == (
        "b", 7, 1, {"choice": "b", "confidence": 0.9})
    assert response.raw == Reply("b", input_tokens=7, output_tokens=1,
                                 decision={"choice": "b", "confidence": 0.9}).record()
    assert target.max_turns == 1 and target.fatal is FakeModel.fatal
    asyncio.run(target.aclose())
    assert model.closed


def test_a_decision_target_sends_its_own_documents_and_no_headers_without_trace():
    model = FakeModel()
    target = SingleDecisionTarget(make_decision_target("url", "clef", url="http://h/x"), model)
    context = SimpleNamespace(extra={"decision": {"id": "q"}}, trace_headers=None)
    asyncio.run(target.send(user="Which?", documents=["own"], history=[{"documents": ["other"]}], context=context))
    asyncio.run(target.send(user="Which?", history=[{"role": "user"}], context=context))
    assert [r.messages for r in model.requests] == [[{"role": "user", "content": "Which?", "documents": ["own"]}],
                                                    [{"role": "user", "content": "Which?"}]]
    assert [dict(r.headers) for r in model.requests] == [{}, {}] and model.requests[0].repeat == 0


@pytest.mark.parametrize("context", [None, SimpleNamespace(extra={}, trace_headers=None)])
def test_a_scenario_without_a_decision_block_is_refused(context):
    target = SingleDecisionTarget(make_decision_target("url", "clef", url="http://h/x"), FakeModel())
    with pytest.raises(ValueError, match="^a decision target needs a scenario with a 'decision' block$"):
        asyncio.run(target.send(user="u", context=context))


@pytest.mark.parametrize("scenario, count", [({}, 0), ({"decision": None}, 0), ({"decision": {"criteria": None}}, 0),
                                             ({"decision": {"criteria": {"a": "A", "b": "B"}}}, 2)])
def test_options_are_counted_from_the_decision_block(scenario, count):
    assert option_count(scenario) == count
    assert over_option_limit(scenario, 1) is (count > 1) and over_option_limit(scenario, 2) is False


@pytest.mark.parametrize("error, advice", [
    ("decision 'q' has 30 options; this endpoint accepts 2–26", "at most 7 options per question by default"),
    ("request is 70000 bytes, over this endpoint's 65536-byte limit", "Ollama accepts at most 64 KiB"),
    ("HTTP 404: not found", "no System One endpoint there: Ollama serves /v1/systemone from 0.35.1 on"),
    ("HTTP 401: no", "the endpoint refused the key"),
    ("http 403: no", "the endpoint refused the key"),
    ("HTTP 413: big", "the request is too large for the server; the judgment is sent whole"),
    ("input too long", "does not fit the model's context; for Clef on Ollama create a 64K variant: printf 'FROM "
                       "clef\\nPARAMETER num_ctx 65536\\n' > Modelfile.clef-64k"),
    ("exceeds NUM_CTX", "does not fit the model's context"),
    ("the model returned no answer for 'q'", "the model answered another question id than the scenario's decision.id"),
    ("'z' which is not one of the options", "the model chose a key outside the question's options"),
    ("ConnectError: [Errno 111] Connection refused", "no server answered at that address"),
    ("Name or service not known", "is --base-url or --decision-url right?"),
])
def test_each_known_error_gets_its_advice_after_it(error, advice):
    explained = explain_decision_error(error, max_options=7)
    assert explained.startswith(f"{error} (") and explained.endswith(")") and advice in explained


def test_the_advice_names_the_default_limit_and_an_unknown_error_is_kept():
    assert "at most 26 options per question by default; run decision models on the le26 track (build --track " \
           "le26), or raise --max-options if the endpoint accepts more (Clef: 255))" in \
           explain_decision_error("decision 'q' has 30 options; this endpoint accepts 2–26")
    assert explain_decision_error("HTTP 500: oops") == "HTTP 500: oops"
    assert explain_decision_error("HTTP 413 and HTTP 404").endswith("check --base-url (the server root, e.g. "
                                                                    "http://localhost:11434) and that the model "
                                                                    "is pulled)")


QUESTION = {"id": "q", "instructions": "Pick one.", "criteria": {"a": "A", "b": "B"}}


def test_a_decision_without_state_sends_its_test_prompt_as_the_state():
    body = json.loads(request_body({"decision": QUESTION, "test_prompt": "Which?"},
                                   make_decision_target("url", "clef", url="http://h/x")))
    assert body == {"model": "clef", "state": "Which?", "questions": {"q": {
        "type": "choice", "instructions": "Pick one.", "criteria": {"a": "A", "b": "B"}}}}


def test_a_decision_without_state_or_test_prompt_sends_the_question_written_out():
    body = json.loads(request_body({"decision": QUESTION}, make_decision_target("url", "clef", url="http://h/x")))
    assert body["state"].startswith("Pick one.") and "- a: A\n- b: B" in body["state"]
