"""The OpenAI-compatible provider: its body, its cache address, and one reply with its facts."""

from __future__ import annotations

import asyncio

from auditpacks.runner.models.reply import Request
from auditpacks.runner.models.providers import slots
from auditpacks.runner.models.providers.openai_compat import OpenAIChatAPI
from tests.support.fake_openai import FakeOpenAI

MESSAGES = [{"role": "user", "content": "Is it guilty?"}]


def test_the_official_endpoint_gets_max_completion_tokens_and_others_max_tokens():
    official = OpenAIChatAPI(model="gpt", base_url="https://api.openai.com/v1", api_key="k",
                             token_param="max_completion_tokens")
    request = Request(messages=MESSAGES, params={"max_tokens": 5, "extra_headers": {"x": "y"}},
                      response_format={"type": "json_object"})
    assert official.build(request) == {"model": "gpt", "messages": MESSAGES, "max_completion_tokens": 5,
                                       "response_format": {"type": "json_object"}}
    local = OpenAIChatAPI(model="m", base_url="http://h/v1/", api_key="k")
    assert local.build(request)["max_tokens"] == 5


def test_the_cache_key_names_model_server_messages_parameters_round_and_a_non_stock_layout():
    api = OpenAIChatAPI(model="m", base_url="http://h/v1/", api_key="secret-key")
    request = Request(messages=MESSAGES, params={"temperature": 0.0}, lane=3, repeat=2)
    key = api.cache_key(api.build(request), request)
    assert key == {"api": "openai-chat", "model": "m", "base_url": "http://h/v1", "messages": MESSAGES,
                   "params": {"temperature": 0.0}, "repeat": 2}   # no lane, no key
    ordered = Request(messages=MESSAGES, prompt_order="document-first")
    assert api.cache_key(api.build(ordered), ordered)["prompt_order"] == "document-first"


def answer(model, messages):
    return {"content": "guilty and", "reasoning_content": "Because.", "finish_reason": "length"}


def test_one_call_returns_the_reply_with_its_reasoning_tokens_and_finish_reason():
    with FakeOpenAI(answer=answer) as server:
        api = OpenAIChatAPI(model="m", base_url=server.base_url, api_key="k")
        request = Request(messages=MESSAGES, params={"temperature": 0.0}, headers={"traceparent": "00-ab-cd-01"})

        async def go():
            try:
                return await api.call(api.build(request), request)
            finally:
                await api.aclose()

        reply = asyncio.run(go())
        sent, headers = server.bodies[0], server.headers[0]
    assert (reply.content, reply.reasoning, reply.finish_reason, reply.truncated) == \
        ("guilty and", "Because.", "length", True)
    assert (reply.input_tokens, reply.output_tokens) == (3 + 5, 2)   # the fake: words sent + 5, words answered
    assert sent["messages"] == MESSAGES and "id_slot" not in sent and headers["traceparent"] == "00-ab-cd-01"


def test_a_pinned_request_carries_its_lanes_slot(monkeypatch):
    monkeypatch.setattr(slots, "server_slots", lambda base_url, **kw: 4)
    with FakeOpenAI() as server:
        api = OpenAIChatAPI(model="m", base_url=server.base_url, api_key="k", slot_pinning=True)

        async def go():
            for lane in (1, 6):
                request = Request(messages=MESSAGES, lane=lane)
                await api.call(api.build(request), request)
            await api.aclose()

        asyncio.run(go())
        assert [body["id_slot"] for body in server.bodies] == [1, 6 % 4]
