"""The native Ollama provider against a scripted server: model facts, ``num_ctx``, one reply, a retried 503."""

from __future__ import annotations

import asyncio

import pytest

from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.model import Model
from auditpacks.runner.models.reply import Request
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.models.providers.context_fit import PromptTooLong
from auditpacks.runner.models.providers.ollama_native import OllamaChatAPI
from tests.support.stub_http import StubHTTP

DIGEST = "e" * 64
MESSAGES = [{"role": "user", "content": "Is it guilty?"}]


def ollama(chat_statuses: list[int]):
    """A server answering ``show`` and ``chat``; each chat request takes the next status (then 200)."""
    statuses = list(chat_statuses)

    def reply(method, path, headers, body):
        if path == "/api/show":
            return 200, {"modelfile": f"FROM /models/blobs/sha256-{DIGEST}",
                         "model_info": {"llama.context_length": 4096}}
        if path == "/api/chat":
            status = statuses.pop(0) if statuses else 200
            if status != 200:
                return status, {"error": "model is loading"}
            return 200, {"model": body["model"], "created_at": "2026-01-01T00:00:00Z", "done": True,
                         "done_reason": "length", "prompt_eval_count": 12, "eval_count": 4,
                         "message": {"role": "assistant", "content": "guilty", "thinking": "The record."}}
        return 404, {"error": "not found"}

    return StubHTTP(reply)


def test_facts_are_read_once_and_a_request_gets_a_fitted_context():
    with ollama([]) as server:
        api = OllamaChatAPI(model="m", host=server.url, max_tokens=64)
        assert api.prepare() == {"digest": DIGEST, "context_length": 4096}
    api.facts = {"digest": DIGEST, "context_length": 4096}
    request = Request(messages=MESSAGES, params={"temperature": 0.0}, response_format={
        "type": "json_schema", "json_schema": {"schema": {"type": "object"}}}, repeat=1)
    built = api.build(request)
    body, _ = built
    assert body["options"] == {"temperature": 0.0, "num_predict": 64, "num_ctx": 2048}
    assert body["format"] == {"type": "object"}
    key = api.cache_key(built, request)
    assert (key["api"], key["digest"], key["repeat"], "stream" in key) == ("ollama-chat", DIGEST, 1, False)


def test_a_prompt_no_context_can_hold_is_refused_before_any_request():
    api = OllamaChatAPI(model="m", host="http://127.0.0.1:9")
    api.facts = {"digest": DIGEST, "context_length": 512}
    with pytest.raises(PromptTooLong):
        api.build(Request(messages=[{"role": "user", "content": "word " * 2000}]))


def test_a_503_is_retried_by_the_model_and_the_reply_keeps_its_facts(tmp_path):
    with ollama([503]) as server:
        model = Model(OllamaChatAPI(model="m", host=server.url), cache=ResponseCache(tmp_path),
                      policy=RetryPolicy(max_retries=1, backoff=0.0, timeout=10.0))

        async def go():
            try:
                return await model.generate(Request(messages=MESSAGES))
            finally:
                await model.aclose()

        reply = asyncio.run(go())
        chats = [r for r in server.requests if r[1] == "/api/chat"]
    assert len(chats) == 2
    assert (reply.content, reply.reasoning, reply.finish_reason, reply.input_tokens, reply.output_tokens) == \
        ("guilty", "The record.", "length", 12, 4)


def test_cache_only_recalls_the_facts_or_says_to_run_once_with_the_server(tmp_path):
    with ollama([]) as server:
        Model(OllamaChatAPI(model="m", host=server.url), policy=RetryPolicy(),
              cache=ResponseCache(tmp_path)).prepare()
        host = server.url
    replay = Model(OllamaChatAPI(model="m", host=host), policy=RetryPolicy(), cache=ResponseCache(tmp_path, only=True))
    assert replay.prepare()["digest"] == DIGEST
    other = Model(OllamaChatAPI(model="other", host=host), policy=RetryPolicy(),
                  cache=ResponseCache(tmp_path, only=True))
    with pytest.raises(RunError, match="run once with the server"):
        other.prepare()
