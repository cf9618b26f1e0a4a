"""OpenAI prompt caching: one ``prompt_cache_key`` per document, outside the response cache's address; the
provider's cached-token count read into the reply and the model's normalised usage."""

import asyncio

from auditpacks.runner.models.model import Model
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.models.providers.factory import chat_model
from auditpacks.runner.models.providers.openai_compat import OpenAIChatAPI
from tests.support.fake_hosted import FakeHosted

DOCUMENT = "word " * 2000   # 2,000 tokens of o200k_base (" word" is one), the fake's count


def request(question: str, group: str) -> Request:
    return Request(messages=[{"role": "user", "content": f"{DOCUMENT}\n\n{question}"}], group=group)


def test_each_document_has_one_key_that_stays_out_of_the_cache_address():
    api = OpenAIChatAPI(model="gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="k", prompt_cache_key=True)
    a1, a2, b = (api.build(request(q, g)) for q, g in (("one?", "verdict_id:A"), ("two?", "verdict_id:A"),
                                                        ("one?", "verdict_id:B")))
    assert a1["prompt_cache_key"] == a2["prompt_cache_key"] != b["prompt_cache_key"]
    assert "verdict_id" not in a1["prompt_cache_key"]
    assert api.cache_key(a1, request("one?", "verdict_id:A")) == api.cache_key(b, request("one?", "verdict_id:B"))
    plain = OpenAIChatAPI(model="m", base_url="http://127.0.0.1:9/v1", api_key="k")
    assert "prompt_cache_key" not in plain.build(request("one?", "verdict_id:A"))


def test_only_the_official_openai_endpoint_gets_the_key():
    policy = RetryPolicy()
    official = chat_model("openai", model="gpt-4o-mini", base_url=None, api_key="k", policy=policy, cache=None)
    local = chat_model("openai", model="m", base_url="http://127.0.0.1:9/v1", api_key="k", policy=policy, cache=None)
    assert official.api.prompt_cache_key and not local.api.prompt_cache_key


def test_the_prompt_cache_flag_sends_the_key_to_any_endpoint_or_to_none():
    policy = RetryPolicy()

    def sends(base_url, prompt_cache):
        model = chat_model("openai", model="m", base_url=base_url, api_key="k", policy=policy, cache=None,
                           prompt_cache=prompt_cache)
        return model.api.prompt_cache_key

    gateway = "http://127.0.0.1:9/v1"
    assert sends(gateway, True) and not sends(gateway, None) and not sends(gateway, False)
    assert sends(None, None) and not sends(None, False)
    anthropic = chat_model("anthropic", model="claude-test", base_url=gateway, api_key="k", policy=policy, cache=None)
    unmarked = chat_model("anthropic", model="claude-test", base_url=gateway, api_key="k", policy=policy, cache=None,
                          prompt_cache=False)
    assert anthropic.api.cache_marks and not unmarked.api.cache_marks


def test_a_gateway_run_with_prompt_cache_sends_one_key_per_document(tmp_path):
    import auditpacks
    from tests.support.hosted_pack import write_hosted_pack

    pack = write_hosted_pack(tmp_path / "long.json")
    with FakeHosted() as server:
        auditpacks.run(pack, target="gpt-4o-mini", base_url=server.base_url, api_key="k", prompt_cache=True,
                       out=tmp_path / "out", quiet=True)
    keys = [body.get("prompt_cache_key") for body in server.chat_requests]
    assert len(keys) == 9 and None not in keys and len(set(keys)) == 3


def test_cached_tokens_are_read_into_the_reply_and_the_models_usage():
    with FakeHosted() as server:
        api = OpenAIChatAPI(model="gpt-4o-mini", base_url=server.base_url, api_key="k", prompt_cache_key=True)
        model = Model(api, policy=RetryPolicy(max_retries=0))

        async def ask() -> list[Reply]:
            try:
                return [await model.generate(request(q, "verdict_id:A")) for q in ("First question?", "Second one?")]
            finally:
                await model.aclose()

        first, second = asyncio.run(ask())
        assert server.chat_requests[0]["prompt_cache_key"] == server.chat_requests[1]["prompt_cache_key"]
    assert first.cached_input_tokens is None and second.cached_input_tokens >= 1920   # 1,024 and 7 steps of 128
    assert model.usage.input == first.input_tokens + second.input_tokens == server.bill["input"]
    assert model.usage.cached_input == second.cached_input_tokens == server.bill["cached_input"]
    assert model.stats()["usage"]["cached_input"] == second.cached_input_tokens
    assert Reply.from_record(second.record()).cached_input_tokens == second.cached_input_tokens
    assert "cached_input_tokens" not in first.record()   # cache entries of uncached replies keep their old shape
