"""The one model-call path: cache before the provider, retries around it, secrets out of errors, counts."""

from __future__ import annotations

import asyncio

import pytest

from auditpacks.runner.models.cache import CacheMiss, ResponseCache
from auditpacks.runner.models.model import Model, ModelAPI
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.models.retry import CallFailed, RetryPolicy
from auditpacks.runner.models.providers.openai_compat import OpenAIChatAPI
from tests.support.fake_openai import FakeOpenAI

FAST = RetryPolicy(max_retries=2, backoff=0.0, timeout=10.0)
SECRET = "sk-test-SECRET-0123456789"


class Scripted(ModelAPI):
    """A provider whose attempts fail or answer as scripted; it notes every step the Model takes."""

    def __init__(self, outcomes: list[Exception | Reply]) -> None:
        self.outcomes, self.steps = list(outcomes), []

    def build(self, request: Request) -> dict:
        self.steps.append("build")
        return {"messages": request.messages}

    def cache_key(self, body: dict, request: Request) -> dict:
        return {"api": "scripted", "messages": body["messages"], "repeat": request.repeat}

    async def before_call(self) -> None:
        self.steps.append("before_call")

    async def call(self, body: dict, request: Request) -> Reply:
        self.steps.append("call")
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


def ask(model: Model, text: str = "q", repeat: int = 0) -> Reply:
    return asyncio.run(model.generate(Request(messages=[{"role": "user", "content": text}], repeat=repeat)))


def test_a_cached_reply_is_returned_without_calling_the_provider(tmp_path):
    api = Scripted([Reply("first", finish_reason="stop", input_tokens=3, output_tokens=1)])
    model = Model(api, policy=FAST, cache=ResponseCache(tmp_path))
    assert ask(model).cached is False
    again = ask(model)
    assert (again.content, again.finish_reason, again.cached) == ("first", "stop", True)
    assert api.steps == ["build", "before_call", "call", "build"]  # the hit neither checks nor calls
    assert model.counts == {"calls": 2, "requests": 1, "cache_hits": 1, "input_tokens": 6, "output_tokens": 2}


def test_another_round_is_another_cache_entry(tmp_path):
    api = Scripted([Reply("round 1"), Reply("round 2")])
    model = Model(api, policy=FAST, cache=ResponseCache(tmp_path))
    assert [ask(model, repeat=0).content, ask(model, repeat=1).content, ask(model, repeat=1).content] == \
        ["round 1", "round 2", "round 2"]


def test_a_transient_failure_is_retried_and_a_rejected_request_is_not():
    retried = Scripted([ConnectionError("refused"), Reply("ok")])
    assert ask(Model(retried, policy=FAST)).content == "ok"
    assert retried.steps.count("call") == 2
    rejected = Scripted([ValueError("bad parameter"), Reply("never")])
    with pytest.raises(CallFailed, match="not retried"):
        ask(Model(rejected, policy=FAST))
    assert rejected.steps.count("call") == 1


def test_a_failed_call_leaves_nothing_in_the_cache(tmp_path):
    cache = ResponseCache(tmp_path)
    with pytest.raises(CallFailed, match="gave up after 3 attempts"):
        ask(Model(Scripted([ConnectionError("refused")] * 3), policy=FAST, cache=cache))
    assert cache.writes == 0


def test_cache_only_and_no_entry_raises_before_the_provider(tmp_path):
    api = Scripted([Reply("never")])
    with pytest.raises(CacheMiss):
        ask(Model(api, policy=FAST, cache=ResponseCache(tmp_path, only=True)))
    assert "call" not in api.steps


def chat(server: FakeOpenAI, cache: ResponseCache | None = None, **policy) -> Model:
    api = OpenAIChatAPI(model="m", base_url=server.base_url, api_key=SECRET)
    return Model(api, policy=RetryPolicy(**{"backoff": 0.0, "timeout": 10.0, **policy}), cache=cache)


def test_server_faults_are_retried_and_counted_against_the_fake_server():
    with FakeOpenAI(fault_rate=1.0, faults=("500",)) as server:
        with pytest.raises(CallFailed) as failed:
            ask(chat(server, max_retries=2))
        assert server.chat_requests == 3
    assert len(failed.value.attempts) == 3 and failed.value.retryable


def test_a_key_the_server_echoes_never_reaches_the_error():
    with FakeOpenAI(fault_rate=1.0, faults=("500",), echo_key=True) as server:
        with pytest.raises(CallFailed) as failed:
            ask(chat(server, max_retries=0))
    assert SECRET not in str(failed.value) and "[api key]" in str(failed.value)


def test_an_entry_written_under_the_old_key_still_answers(tmp_path):
    """The address of an OpenAI-compatible reply is the key the earlier client used, written here by hand."""
    cache = ResponseCache(tmp_path)
    with FakeOpenAI() as server:
        messages = [{"role": "user", "content": "q"}]
        cache.put({"api": "openai-chat", "model": "m", "base_url": server.base_url, "messages": messages,
                   "params": {"temperature": 0.0}, "repeat": 0},
                  {"content": "stored", "reasoning": None, "input_tokens": 4, "output_tokens": 1,
                   "finish_reason": "length"})
        model = chat(server, cache)
        reply = asyncio.run(model.generate(Request(messages=messages, params={"temperature": 0.0})))
        assert server.chat_requests == 0
    assert (reply.content, reply.truncated, reply.cached) == ("stored", True, True)


class Slow(Scripted):
    """A provider whose every attempt takes 0.3 s."""

    async def call(self, body: dict, request: Request) -> Reply:
        await asyncio.sleep(0.3)
        return Reply(content="late")


def test_a_requests_own_time_limit_replaces_the_policys_per_attempt():
    tight = RetryPolicy(max_retries=0, backoff=0.0, timeout=0.05)
    turn = [{"role": "user", "content": "q"}]
    assert asyncio.run(Model(Slow([]), policy=tight).generate(Request(messages=turn, timeout=5.0))).content == "late"
    with pytest.raises(CallFailed, match="timed out"):
        asyncio.run(Model(Slow([]), policy=tight).generate(Request(messages=turn)))


class Renamed(Scripted):
    """A provider whose replies an earlier version cached under another key."""

    def old_cache_key(self, body: dict, request: Request) -> dict:
        return {"api": "scripted-v1", "messages": body["messages"]}


def test_a_reply_cached_under_the_earlier_key_answers_without_the_provider(tmp_path):
    cache = ResponseCache(tmp_path)
    cache.put({"api": "scripted-v1", "messages": [{"role": "user", "content": "q"}]},
              {"content": "stored", "input_tokens": 4, "output_tokens": 1, "finish_reason": "length"})
    api = Renamed([Reply("never")])
    reply = ask(Model(api, policy=FAST, cache=cache))
    assert (reply.content, reply.truncated, reply.cached, api.steps) == ("stored", True, True, ["build"])
    fresh = Renamed([Reply("new")])
    assert ask(Model(fresh, policy=FAST, cache=cache), "other").content == "new"
    assert ask(Model(Renamed([]), policy=FAST, cache=cache), "other").cached   # now under the current key


def test_the_providers_key_is_blanked_out_of_the_error_in_process():
    api = Scripted([ValueError(f"bad key {SECRET}")])
    api.secret = SECRET
    with pytest.raises(CallFailed) as failed:
        ask(Model(api, policy=FAST))
    assert str(failed.value) == "ValueError: bad key [api key] (not retried)"


class Uncacheable(Scripted):
    """A provider with no cache address: it is asked for none when the run has no cache."""

    def cache_key(self, body: dict, request: Request) -> dict:
        raise AssertionError("a cache address asked for without a cache")


def test_without_a_cache_no_cache_address_is_asked():
    assert ask(Model(Uncacheable([Reply("ok")]), policy=FAST)).content == "ok"


class Silent(Scripted):
    """A provider whose attempts never end."""

    async def call(self, body: dict, request: Request) -> Reply:
        await asyncio.Event().wait()


def test_a_requests_own_time_limit_holds_when_the_policy_has_none():
    endless = RetryPolicy(max_retries=0, backoff=0.0, timeout=None)
    turn = Request(messages=[{"role": "user", "content": "q"}], timeout=0.01)
    with pytest.raises(CallFailed, match=r"^gave up after 1 attempt: timed out after 0\.01 s$"):
        asyncio.run(Model(Silent([]), policy=endless).generate(turn))


def test_a_providers_defaults_refuse_what_it_must_provide_and_do_nothing_else():
    api, turn = ModelAPI(), Request(messages=[])
    for step in (lambda: api.build(turn), lambda: api.cache_key({}, turn), lambda: asyncio.run(api.call({}, turn))):
        with pytest.raises(NotImplementedError):
            step()
    assert api.old_cache_key({}, turn) is None and asyncio.run(api.before_call()) is None
    assert api.check(who="target", hint="--base-url") is None
    assert (api.secret, api.needs_facts, api.facts_optional, api.cache_marks) == (None, False, False, False)
