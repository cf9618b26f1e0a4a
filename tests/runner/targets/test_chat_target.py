"""A chat model as a run target: the layout, the scenario's lane, reasoning kept apart, the reply logged."""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.runner.models.model import Model, ModelAPI
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.targets import scenario_log
from auditpacks.runner.targets.chat_target import ChatTarget, chat_response, document_of
from auditpacks.runner.models.providers.context_fit import PromptTooLong


class Recorder(ModelAPI):
    """Answers every request with ``reply`` (or refuses it) and keeps the requests."""

    def __init__(self, reply: Reply | None = None) -> None:
        self.reply, self.requests = reply, []

    def build(self, request: Request) -> Request:
        if self.reply is None:
            raise PromptTooLong("the prompt needs 9000 tokens; the model holds 4096")
        self.requests.append(request)
        return request

    def cache_key(self, body, request):
        return {}

    async def call(self, body, request) -> Reply:
        return self.reply


def send(target: ChatTarget, **log) -> tuple[object, scenario_log.ScenarioLog]:
    async def go():
        scenario = scenario_log.begin(**log)
        return await target.send(system="Be brief.", user="Guilty?", documents=["The judgment."],
                                 params={"temperature": 0.0}), scenario
    return asyncio.run(go())


def test_the_answer_goes_to_simpleaudit_and_the_reply_with_its_facts_to_the_scenario():
    api = Recorder(Reply("<think>The record.</think>guilty", reasoning="First.", finish_reason="length",
                         input_tokens=40, output_tokens=0))
    response, log = send(ChatTarget(Model(api, policy=RetryPolicy()), layout="document-first"), lane=2)
    assert (response.content, response.input_tokens, response.output_tokens) == ("guilty", 40, None)
    assert (response.reply.content, response.reply.reasoning, response.reply.truncated) == \
        ("guilty", "First.\n\nThe record.", True)
    assert log.replies == [response.reply]
    request = api.requests[0]
    assert (request.lane, request.prompt_order, request.repeat) == (2, "document-first", 0)
    assert request.messages[1]["content"].startswith("--- DOCUMENT 1 ---")   # documents before the question


def test_the_stock_layout_adds_nothing_to_the_cache_key_and_the_round_does():
    api = Recorder(Reply("ok"))
    target = ChatTarget(Model(api, policy=RetryPolicy()))
    target.repeat = 3
    send(target)
    assert (api.requests[0].prompt_order, api.requests[0].repeat, api.requests[0].lane) == (None, 3, None)


def test_a_prompt_too_long_is_noted_for_skip_oversize_and_still_raised():
    async def go():
        log = scenario_log.begin()
        with pytest.raises(PromptTooLong):
            await ChatTarget(Model(Recorder(None), policy=RetryPolicy())).send(user="long")
        return log

    assert asyncio.run(go()).oversize.startswith("the prompt needs 9000 tokens")



def test_with_several_endpoints_a_request_is_placed_by_its_group_else_its_documents():
    import hashlib
    import json

    from auditpacks.runner.models.endpoints import EndpointPool

    first, second = Recorder(Reply("ok")), Recorder(Reply("ok"))
    target = ChatTarget(Model(EndpointPool([("http://a/v1", first), ("http://b/v1", second)]), policy=RetryPolicy()))
    assert target.placement is target.model.pool
    send(target, group="doc:judgment-7")
    send(target)
    routes = [r.route for r in first.requests + second.requests]
    digest = hashlib.sha256(json.dumps(["The judgment."], sort_keys=True).encode()).hexdigest()
    assert sorted(routes) == sorted(["doc:judgment-7", "documents:" + digest])
    alone = Recorder(Reply("ok"))
    send(ChatTarget(Model(alone, policy=RetryPolicy())), group="doc:judgment-7")
    assert alone.requests[0].route is None  # one endpoint: nothing to place


def test_a_scenarios_own_system_message_is_sent_in_the_system_role():
    api = Recorder(Reply("guilty"))
    send(ChatTarget(Model(api, policy=RetryPolicy())), system="You cite ICJ cases.")
    assert api.requests[0].messages[0] == {"role": "system", "content": "You cite ICJ cases."}  # not the run's
    assert api.requests[0].messages[1]["role"] == "user" and "You cite" not in str(api.requests[0].messages[1])
    api = Recorder(Reply("guilty"))
    send(ChatTarget(Model(api, policy=RetryPolicy())))  # none of its own: the run's system prompt
    assert api.requests[0].messages[0] == {"role": "system", "content": "Be brief."}


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def placed(documents, history, log) -> str:
    """``document_of`` inside a scenario begun with ``log`` (outside any scenario when ``log`` is None)."""
    def go():
        if log is not None:
            scenario_log.begin(**log)
        return document_of(documents, history, "Guilty?")
    return contextvars.copy_context().run(go)


@pytest.mark.parametrize("documents, history, log, expected", [
    (["d"], None, {"group": "doc:7", "key": "s1"}, "doc:7"),   # the executor's group first
    ([{"b": "é", "a": 1}], None, {"key": "s1"}, "documents:" + digest('[{"a": 1, "b": "é"}]')),
    ([Path("a.pdf")], None, {}, "documents:" + digest('["a.pdf"]')),
    (None, ["text", {"role": "user"}, {"documents": ["d"]}, {"documents": ["e"]}], {"key": "s1"},
     "documents:" + digest('["d"]')),   # the transcript's first documents
    (None, [{"role": "user"}], {"key": "s1"}, "scenario:s1"),
    ([], None, None, "prompt:" + digest("Guilty?")),
    (None, None, {}, "prompt:" + digest("Guilty?")),   # a log without a key or group
])
def test_a_request_is_placed_by_its_group_documents_scenario_or_prompt(documents, history, log, expected):
    assert placed(documents, history, log) == expected


def test_the_response_carries_the_replys_record_and_both_token_counts():
    response = chat_response(Reply("yes", input_tokens=12, output_tokens=3, finish_reason="stop"))
    assert (response.input_tokens, response.output_tokens) == (12, 3)
    assert response.raw == {"content": "yes", "reasoning": None, "input_tokens": 12, "output_tokens": 3,
                            "finish_reason": "stop"}


def test_a_turn_hands_the_layout_every_part_and_the_request_its_settings():
    """History, file, documents and the provider's cache marks reach the layout; the rest reaches the request."""
    api = Recorder(Reply("ok"))
    api.cache_marks = True
    target, laid = ChatTarget(Model(api, policy=RetryPolicy())), {}
    target.layout = lambda **parts: laid.update(parts) or [{"role": "user", "content": "laid out"}]

    async def go():
        scenario_log.begin(lane=1, group="doc:7")
        await target.send(system="Be brief.", user="Guilty?", history=[{"role": "user", "content": "Before."}],
                          file_uri="file:///j.pdf", documents=["The judgment."], response_format={"type": "json"},
                          params={"seed": 3}, context=SimpleNamespace(trace_headers={"traceparent": "00-ab"}))
    asyncio.run(go())
    assert laid == {"system": "Be brief.", "user": "Guilty?", "history": [{"role": "user", "content": "Before."}],
                    "file_uri": "file:///j.pdf", "documents": ["The judgment."], "mark": True}
    request = api.requests[0]
    assert request.messages == [{"role": "user", "content": "laid out"}]
    assert (request.params, request.response_format, request.headers) == \
        ({"seed": 3}, {"type": "json"}, {"traceparent": "00-ab"})
    assert (request.lane, request.group) == (1, "doc:7")


def test_outside_a_scenario_a_turn_has_no_lane_group_or_headers():
    api = Recorder(Reply("ok"))

    async def go():
        return await ChatTarget(Model(api, policy=RetryPolicy())).send(user="Guilty?")
    contextvars.copy_context().run(asyncio.run, go())
    request = api.requests[0]
    assert (request.lane, request.group, request.headers, request.params) == (None, None, {}, {})


@pytest.mark.parametrize("note, notes", [("context cut to 8192 tokens", ["context cut to 8192 tokens"]),
                                         (None, []), ("", [])])
def test_the_targets_note_is_its_only_note(note, notes):
    assert ChatTarget(Model(Recorder(Reply("ok")), policy=RetryPolicy()), note=note).notes() == notes


def test_with_several_endpoints_a_turn_without_documents_is_placed_by_its_transcript_else_its_prompt():
    from auditpacks.runner.models.endpoints import EndpointPool

    first, second = Recorder(Reply("ok")), Recorder(Reply("ok"))
    target = ChatTarget(Model(EndpointPool([("http://a/v1", first), ("http://b/v1", second)]), policy=RetryPolicy()))

    async def go():
        await target.send(user="Guilty?", history=[{"role": "user", "content": "Before.", "documents": ["d"]}])
        await target.send(user="Guilty?")
    contextvars.copy_context().run(asyncio.run, go())
    assert sorted(r.route for r in first.requests + second.requests) == \
        sorted(["documents:" + digest('["d"]'), "prompt:" + digest("Guilty?")])
