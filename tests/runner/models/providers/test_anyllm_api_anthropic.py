"""The any-llm provider against a fake Anthropic Messages API: parameters Anthropic refuses are never sent."""

from __future__ import annotations

import asyncio

from auditpacks.runner.models.model import Model
from auditpacks.runner.models.reply import Request
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.models.providers.anyllm_api import AnyLLMChatAPI
from tests.support.fake_anthropic import FakeAnthropic

MESSAGES = [{"role": "user", "content": "Which article governs torts?"}]


def test_a_seeded_request_reaches_anthropic_without_the_seed():
    with FakeAnthropic(key="sk-ant-test") as server:
        model = Model(AnyLLMChatAPI("anthropic", model="claude-test", base_url=server.url, api_key="sk-ant-test",
                                    timeout=10.0), policy=RetryPolicy(max_retries=0, timeout=10.0))

        async def go():
            try:
                return await model.generate(Request(messages=MESSAGES,
                                                    params={"temperature": 0.0, "seed": 7, "max_tokens": 64}))
            finally:
                await model.aclose()

        reply = asyncio.run(go())
    assert reply.content == "民法第709条"
    assert (reply.input_tokens, reply.output_tokens) == (7, 3)
    [sent] = server.requests
    assert "seed" not in sent
    assert sent["temperature"] == 0.0 and sent["max_tokens"] == 64


def test_other_providers_keep_the_seed():
    api = AnyLLMChatAPI("mistral", model="m", base_url=None, api_key="k")
    assert api.build(Request(messages=MESSAGES, params={"seed": 7}))["seed"] == 7


def test_a_seeded_run_on_anthropic_checks_the_key_first_and_sends_no_seed(tmp_path):
    from tests.support.runs import results, run_here
    from tests.support.tiny_pack import write_pack

    pack = write_pack(tmp_path / "tiny.json", 2)
    with FakeAnthropic(key="sk-ant-test") as server:
        code = run_here(pack, tmp_path / "out", server.url, "--provider", "anthropic", "--api-key", "sk-ant-test",
                        "--seed", "7", "--quiet", target="claude-test")
        assert code == 0
        assert [p.split("?")[0] for p in server.paths][:1] == ["/v1/models"]   # the check before the run
    assert len(server.requests) == 2 and all("seed" not in body for body in server.requests)
    assert all(r["severity"] != "ERROR" for r in results(tmp_path / "out", slug="claude-test"))


def test_a_live_anthropic_run_marks_the_document_block_and_reads_the_prompt_cache(tmp_path):
    import auditpacks
    from tests.support.fake_hosted import FakeHosted
    from tests.support.hosted_pack import write_hosted_pack, write_prices

    pack, table = write_hosted_pack(tmp_path / "long.json"), write_prices(tmp_path / "prices.yaml")
    with FakeHosted() as server:
        record = auditpacks.run(pack, target="claude-sonnet-4-0", provider="anthropic", base_url=server.url,
                                api_key="sk-test", prices=table, out=tmp_path / "out", quiet=True)[1]
    assert server.submitted == [] and len(server.chat_requests) == 9
    for body in server.chat_requests:
        document, question = body["messages"][0]["content"]   # documents first, then the question
        assert document["cache_control"] == {"type": "ephemeral"} and "cache_control" not in question
        assert document["text"].startswith("--- DOCUMENT 1 ---") and question["text"].startswith("Case ")
        assert "seed" not in body
    assert record.summary.completed == 9 and record.summary.errors == 0
    incurred = record.cost["incurred"]
    assert {k: incurred[k] for k in server.bill} == server.bill
    # three documents, three questions each: each document written once and read by its two other questions
    assert incurred["cache_write"] > 0 and incurred["cached_input"] == 2 * incurred["cache_write"]


def test_a_stock_order_anthropic_run_marks_nothing_and_pays_no_cache_writes(tmp_path):
    import auditpacks
    from tests.support.fake_hosted import FakeHosted
    from tests.support.hosted_pack import write_hosted_pack, write_prices

    pack, table = write_hosted_pack(tmp_path / "long.json"), write_prices(tmp_path / "prices.yaml")
    with FakeHosted() as server:
        record = auditpacks.run(pack, target="claude-sonnet-4-0", provider="anthropic", base_url=server.url,
                                api_key="sk-test", prices=table, out=tmp_path / "out", quiet=True,
                                prompt_order="stock")[1]
    assert len(server.chat_requests) == 9
    assert all("cache_control" not in part for body in server.chat_requests
               for message in body["messages"] if isinstance(message["content"], list)
               for part in message["content"])
    assert record.cost["incurred"]["cache_write"] == 0 and server.bill.get("cache_write", 0) == 0


def test_a_second_question_on_the_same_document_reads_it_from_the_prompt_cache():
    from auditpacks.runner.models.providers.messages import document_first_messages
    from tests.support.fake_hosted import FakeHosted, tokens

    document = "finding " * 2000   # 4000 tokens at 4 bytes a token, over the fake's 1024-token minimum
    with FakeHosted() as server:
        api = AnyLLMChatAPI("anthropic", model="claude-test", base_url=server.url, api_key="sk-ant-test", timeout=10.0)
        model = Model(api, policy=RetryPolicy(max_retries=0, timeout=10.0))

        async def ask(question):
            return await model.generate(Request(messages=document_first_messages(
                system=None, user=question, documents=[document], mark=api.cache_marks), params={"max_tokens": 8}))

        async def go():
            try:
                return [await ask("Who won?"), await ask("Who lost?")]
            finally:
                await model.aclose()

        first, second = asyncio.run(go())
    prefix = 4 + tokens("--- DOCUMENT 1 ---\n" + document)   # one message, the marked block
    assert (first.cache_write_tokens, first.cached_input_tokens) == (prefix, None)
    assert (second.cache_write_tokens, second.cached_input_tokens) == (None, prefix)
    assert second.input_tokens == prefix + tokens("Who lost?")   # the whole prompt, cache reads included
    assert model.usage.to_dict() == server.bill
