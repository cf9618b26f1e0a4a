"""What an OpenAI-compatible server's reply leaves behind: an HTTP 200 error body keeps the server's message, and
the model name the server reports is recorded (bounded), live and from the cache alike."""

from __future__ import annotations

import asyncio

import pytest

from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.model import MAX_SERVED_NAMES, Model
from auditpacks.runner.models.reply import Request
from auditpacks.runner.models.retry import CallFailed, RetryPolicy
from auditpacks.runner.models.providers.openai_compat import OpenAIChatAPI
from tests.support.stub_http import StubHTTP


def completion(model: str) -> dict:
    return {"id": "c", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "yes"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1}}


def ask(url: str, prompts: list[str], cache=None) -> Model:
    model = Model(OpenAIChatAPI(model="m", base_url=url + "/v1", api_key="k", timeout=5),
                  policy=RetryPolicy(max_retries=0, timeout=5), cache=cache)

    async def go():
        try:
            for prompt in prompts:
                await model.generate(Request(messages=[{"role": "user", "content": prompt}], params={}))
        finally:
            await model.aclose()

    asyncio.run(go())
    return model


def test_an_http_200_error_body_keeps_the_servers_message():
    with StubHTTP(lambda *a: (200, {"error": {"message": "Provider returned error: overloaded\nmore"}})) as server:
        with pytest.raises(CallFailed, match=r"^ErrorReply: HTTP 200 without a reply: the server says 'Provider "
                                             r"returned error: overloaded' \(not retried\)$"):
            ask(server.url, ["q"])


def test_the_served_model_names_are_recorded_bounded_and_kept_in_the_cache(tmp_path):
    names = iter(f"m-{i}" for i in range(100))
    def answer(method, path, *rest):
        return (200, {"data": []}) if path.endswith("/models") else (200, completion(next(names)))

    with StubHTTP(answer) as server:
        model = ask(server.url, [f"q{i}" for i in range(20)], cache=ResponseCache(tmp_path))
        replayed = ask(server.url, ["q0", "q1"], cache=ResponseCache(tmp_path))
        # 20 replies, and each client's GET /models (a stub that says nothing of what it serves is asked again)
        assert [method for method, path, *_ in server.requests].count("POST") == 20
        assert [path for _, path, *_ in server.requests].count("/v1/models") == 2
    assert model.stats()["served_models"] == {f"m-{i}": 1 for i in range(MAX_SERVED_NAMES)}
    assert "served_models" not in replayed.stats()   # what this run's servers answered: nothing live
    records = [p.read_text(encoding="utf-8") for p in tmp_path.rglob("*") if p.is_file()]
    assert any('"served_model": "m-0"' in text for text in records)
