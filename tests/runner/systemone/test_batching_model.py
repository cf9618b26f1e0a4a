"""Batches go through the one model-call path: retried, redacted, counted, cached, within their own time limit."""

from __future__ import annotations

import asyncio
import time

from simpleaudit import DecisionTarget

from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.model import Model
from auditpacks.runner.models.reply import Request
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.systemone.batching import BatchedDecisionTarget
from auditpacks.runner.systemone.decision import SingleDecisionTarget
from auditpacks.runner.systemone.api import SystemOneAPI
from tests.support.stub_http import StubHTTP

KEY = "sk-batch-SECRET-0123456789"
CRITERIA = {"yes": "Yes.", "no": "No."}
ANSWERS = {"model": "clef", "usage": {"input_tokens": 7, "output_tokens": 3},
           "answers": {"answer": {"choice": "yes", "confidence": 0.9}, "answer~2": {"choice": "no", "confidence": 0.6}}}


def scenario(name: str) -> dict:
    return {"name": name, "decision": {"id": "answer", "instructions": f"Question {name}?", "criteria": CRITERIA,
                                       "state": {"case": "A"}}}


def batched(url: str, *, timeout: float = 10.0, cache: ResponseCache | None = None) -> BatchedDecisionTarget:
    inner = DecisionTarget(url + "/v1/systemone", "clef", api_key=KEY, timeout=timeout)
    policy = RetryPolicy(max_retries=2, backoff=0.0, timeout=timeout)
    return BatchedDecisionTarget(SingleDecisionTarget(inner, Model(SystemOneAPI(inner), policy=policy, cache=cache)))


def prefetch(target: BatchedDecisionTarget) -> None:
    async def go():
        try:
            await target.prefetch([scenario("a"), scenario("b")], ["ka", "kb"])
        finally:
            await target.aclose()
    asyncio.run(go())


def script(*replies):
    queue = list(replies)
    return StubHTTP(lambda method, path, headers, body: queue.pop(0))


def test_a_batch_answered_503_is_retried_by_the_model_and_counted_once():
    with script((503, {"error": "loading"}), (200, ANSWERS)) as server:
        target = batched(server.url)
        prefetch(target)
        bodies = [body for _, _, _, body in server.requests]
    assert len(bodies) == 2 and bodies[0] == bodies[1] and list(bodies[0]["questions"]) == ["answer", "answer~2"]
    counts = target.single.model.counts
    assert (counts["calls"], counts["requests"], counts["input_tokens"], counts["output_tokens"]) == (1, 1, 7, 3)
    assert target.fallbacks == [] and target.stats()["decision_batching"]["batch_sizes"] == {"2": 1}
    assert [r[0].decision["choice"] for r in (target._ready["ka"], target._ready["kb"])] == ["yes", "no"]


def test_a_rejected_batch_is_not_retried_and_its_reason_carries_no_key():
    with script((400, {"error": f"one question per call, key {KEY}"})) as server:
        target = batched(server.url)
        prefetch(target)
        assert len(server.requests) == 1
    (fallback,) = target.fallbacks
    assert fallback["status"] == 400 and fallback["batching_stopped"] and not target.enabled
    assert fallback["reason"].startswith("HTTP 400") and KEY not in fallback["reason"]
    assert target.single.model.counts["calls"] == 0


def test_a_batch_reply_is_cached_and_read_back_without_the_endpoint(tmp_path):
    with script((200, ANSWERS)) as server:
        first = batched(server.url, cache=ResponseCache(tmp_path))
        prefetch(first)
        again = batched(server.url, cache=ResponseCache(tmp_path))
        prefetch(again)
        assert len(server.requests) == 1
    assert again.single.model.counts["cache_hits"] == 1 and again.single.model.counts["requests"] == 0
    assert [r[0].input_tokens for r in (again._ready["ka"], again._ready["kb"])] == [4, 3]


def test_a_batch_may_take_as_long_as_its_single_requests_together():
    def slow(method, path, headers, body):
        time.sleep(0.7)
        return 200, ANSWERS
    with StubHTTP(slow) as server:
        target = batched(server.url, timeout=0.5)  # one request may take 0.5 s, a batch of two 1.0 s
        prefetch(target)
    assert target.fallbacks == [] and target.batch_request({}, 2).timeout == 1.0


def test_a_single_requests_cache_key_is_its_body_alone():
    inner = DecisionTarget("http://127.0.0.1:9/v1/systemone", "clef", api_key=KEY)
    api = SystemOneAPI(inner)
    decision = {"id": "answer", "instructions": "Question a?", "criteria": CRITERIA}
    turn = {"role": "user", "content": "Question a?", "documents": ["The court ruled."]}
    request = Request(messages=[turn], decision=decision)
    assert api.cache_key(api.build(request), request) == {
        "api": "systemone", "url": "http://127.0.0.1:9/v1/systemone", "repeat": 0,
        "body": {"model": "clef", "state": {"documents": ["The court ruled."]}, "questions": {"answer": {"type": "choice", "instructions": "Question a?",
                                                           "criteria": CRITERIA}}}}
