"""The any-llm provider, through any-llm's own OpenAI client against the fake server: one try per attempt."""

from __future__ import annotations

import asyncio

import pytest

from auditpacks.runner.models.model import Model
from auditpacks.runner.models.reply import Request
from auditpacks.runner.models.retry import CallFailed, RetryPolicy
from auditpacks.runner.models.providers.anyllm_api import AnyLLMChatAPI
from tests.support.fake_openai import FakeOpenAI

MESSAGES = [{"role": "user", "content": "Is it guilty?"}]


def test_the_cache_key_of_a_judge_call_is_the_earlier_one_and_a_round_adds_its_number():
    api = AnyLLMChatAPI("mistral", model="m", base_url=None, api_key="k")
    request = Request(messages=MESSAGES, params={"temperature": 0.0})
    assert api.cache_key(api.build(request), request) == {
        "api": "anyllm", "provider": "mistral", "base_url": None, "model": "m", "messages": MESSAGES,
        "params": {"temperature": 0.0, "stream": False}}
    second = Request(messages=MESSAGES, repeat=1)
    assert api.cache_key(api.build(second), second)["repeat"] == 1


def generate(model: Model):
    async def go():
        try:
            return await model.generate(Request(messages=MESSAGES, params={"max_tokens": 9}))
        finally:
            await model.aclose()
    return asyncio.run(go())


def test_a_reply_comes_back_with_its_facts():
    with FakeOpenAI(answer=lambda model, messages: {"content": "guilty", "finish_reason": "length"}) as server:
        model = Model(AnyLLMChatAPI("openai", model="m", base_url=server.base_url, api_key="k"),
                      policy=RetryPolicy(timeout=10.0))
        reply = generate(model)
        sent = server.bodies[0]
    assert sent["messages"] == MESSAGES and 9 in (sent.get("max_tokens"), sent.get("max_completion_tokens"))
    assert (reply.content, reply.finish_reason, reply.input_tokens, reply.output_tokens) == ("guilty", "length", 8, 1)


def test_the_sdk_does_not_retry_on_its_own_so_attempts_are_ours():
    with FakeOpenAI(fault_rate=1.0, faults=("500",)) as server:
        model = Model(AnyLLMChatAPI("openai", model="m", base_url=server.base_url, api_key="k", timeout=10.0),
                      policy=RetryPolicy(max_retries=1, backoff=0.0, timeout=10.0))
        with pytest.raises(CallFailed, match="gave up after 2 attempts"):
            generate(model)
        assert server.chat_requests == 2
