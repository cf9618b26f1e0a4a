"""Token counts through the any-llm path that are not counts (NaN, -5): the reply is kept, its counts unknown,
as on the OpenAI-compatible path, never an ERROR from the SDK's own checks."""

from __future__ import annotations

import asyncio

from auditpacks.runner.models.model import Model
from auditpacks.runner.models.reply import Request
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.models.providers.anyllm_api import AnyLLMChatAPI, checked_usage
from tests.support.fake_anthropic import FakeAnthropic


def ask(server):
    model = Model(AnyLLMChatAPI("anthropic", model="claude-test", base_url=server.url, api_key="sk-ant-test",
                                timeout=10.0), policy=RetryPolicy(max_retries=0, timeout=10.0))

    async def go():
        try:
            return await model.generate(Request(messages=[{"role": "user", "content": "q"}], params={"max_tokens": 8}))
        finally:
            await model.aclose()

    return asyncio.run(go())


def test_nan_and_negative_token_counts_leave_the_reply_with_unknown_counts():
    with FakeAnthropic(usage='{"input_tokens": NaN, "output_tokens": -5}') as server:
        reply = ask(server)
    assert reply.content == "民法第709条" and (reply.input_tokens, reply.output_tokens) == (None, None)


def test_good_counts_are_kept_after_a_reply_with_bad_ones():
    with FakeAnthropic(usage='{"input_tokens": 1e400, "output_tokens": 2}') as server:
        assert ask(server).input_tokens is None
    with FakeAnthropic() as server:
        assert (ask(server).input_tokens, ask(server).output_tokens) == (7, 3)


def test_a_body_without_bad_counts_is_handed_on_byte_for_byte():
    body = b'{"usage": {"input_tokens": 7, "cache_creation": {"ephemeral_5m_input_tokens": 0}}, "x": 1.5}'
    assert checked_usage(body) is body
    assert checked_usage(b"not json") == b"not json"
