"""Where a provider's facts about its model come from (the server, or the cache: ``--cache-only``, optional
facts) and what is remembered, on a fake provider and a fake cache; which failures take an endpoint out, the
secrets blanked out of errors, and the figures ``stats`` adds."""

from __future__ import annotations

import asyncio

import pytest

from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.model import Model, ModelAPI, endpoint_down, secret_scrubber
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.models.retry import CallFailed, RetryPolicy
from auditpacks.runner.models.usage import Usage


class Facts(ModelAPI):
    """A provider whose server says ``told``; how often it was asked in ``asked``."""

    model, address = "m", "http://h/v1"

    def __init__(self, told, *, needs=True, optional=False):
        self.told, self.needs_facts, self.facts_optional, self.asked = told, needs, optional, 0

    def prepare(self):
        self.asked += 1
        return self.told


class Cache:
    def __init__(self, known=None, *, only=False):
        self.known, self.only, self.remembered = known, only, []

    def recall_model(self, address, model):
        return self.known.get((address, model)) if self.known else None

    def remember_model(self, address, model, facts):
        self.remembered.append((address, model, facts))


def facts_of(api, cache):
    return Model(api, policy=RetryPolicy(), cache=cache).prepare_api(api)


def test_a_provider_without_facts_is_asked_and_nothing_is_kept():
    api, cache = Facts({"x": 1}, needs=False), Cache()
    assert facts_of(api, cache) == {"x": 1} and api.asked == 1 and cache.remembered == [] and api.facts is None


@pytest.mark.parametrize("optional, told, remembered", [
    (False, {"digest": "d"}, True), (False, {}, True), (True, {"id": "m"}, True), (True, {}, False),
])
def test_facts_read_from_the_server_are_remembered_unless_optional_and_empty(optional, told, remembered):
    api, cache = Facts(told, optional=optional), Cache()
    assert facts_of(api, cache) == told and api.facts == told and api.asked == 1
    assert cache.remembered == ([("http://h/v1", "m", told)] if remembered else [])


def test_without_a_cache_the_server_is_asked():
    api = Facts({"digest": "d"})
    assert facts_of(api, None) == {"digest": "d"} and api.asked == 1


@pytest.mark.parametrize("only, optional", [(True, False), (True, True), (False, True)])
def test_cached_facts_are_recalled_with_cache_only_or_when_optional(only, optional):
    api = Facts({"digest": "new"}, optional=optional)
    cache = Cache({("http://h/v1", "m"): {"digest": "old"}}, only=only)
    assert facts_of(api, cache) == {"digest": "old"} == api.facts
    assert api.asked == 0 and cache.remembered == []


def test_cached_facts_are_not_recalled_when_required_and_the_server_can_be_asked():
    api = Facts({"digest": "new"})
    assert facts_of(api, Cache({("http://h/v1", "m"): {"digest": "old"}})) == {"digest": "new"}


def test_cache_only_without_facts_is_refused_unless_they_are_optional():
    with pytest.raises(RunError) as caught:
        facts_of(Facts({"digest": "d"}), Cache(only=True))
    assert str(caught.value) == "--cache-only: the cache holds no facts about m at http://h/v1; run once with the server"
    api = Facts({"id": "m"}, optional=True)
    assert facts_of(api, Cache(only=True)) == {} and api.asked == 0


def test_optional_facts_not_in_the_cache_are_asked_when_the_server_can_be():
    api, cache = Facts({"id": "m"}, optional=True), Cache()
    assert facts_of(api, cache) == {"id": "m"} and api.asked == 1


@pytest.mark.parametrize("retryable, status, down", [
    (True, None, True), (True, 500, True), (True, 503, True), (True, 399, True), (True, 400, False),
    (True, 408, False), (True, 429, False), (True, 499, False), (False, None, False), (False, 500, False),
])
def test_an_endpoint_is_down_when_a_retryable_failure_was_no_4xx(retryable, status, down):
    assert endpoint_down(CallFailed(["x"], retryable=retryable, status=status)) is down


@pytest.mark.parametrize("secret, shown", [("sk-abcdef", "key [api key] refused"), ("abc", "key abc refused"),
                                           ("abcd", "key [api key] refused"), (None, "key abc refused")])
def test_a_secret_of_four_characters_or_more_is_blanked_out_of_errors(secret, shown):
    assert secret_scrubber(secret)(f"key {secret or 'abc'} refused") == shown


def test_the_stats_add_usage_and_served_names_only_when_there_are_some():
    model = Model(Facts({}), policy=RetryPolicy())
    base = model.stats()
    assert "usage" not in base and "served_models" not in base
    model.usage = Usage(input=0, output=3)
    model.served = {"m-q4": 2}
    assert model.stats() == {**base, "usage": {**Usage(output=3).to_dict()}, "served_models": {"m-q4": 2}}
    model.usage = Usage(input=5)
    assert model.stats()["usage"]["input"] == 5


class Answering(Facts):
    """A provider that needs facts (unless ``needs`` is off) and answers every request."""

    def build(self, request):
        return {"messages": request.messages}

    def cache_key(self, body, request):
        return {"api": "answering", **body}

    async def call(self, body, request):
        return Reply("a")


@pytest.mark.parametrize("needs, known, cached, optional, asked", [
    (False, None, False, False, 0),   # a provider without facts is not asked before its requests
    (True, {"digest": "d"}, False, False, 0),   # facts read already are not read again
    (True, None, False, False, 1),
    (True, None, True, False, 1),
    (True, None, True, True, 1),   # optional facts the cache does not hold: asked
    (True, None, False, True, 0),   # optional facts without a cache: the request goes without them
])
def test_a_request_reads_the_facts_it_needs_first(tmp_path, needs, known, cached, optional, asked):
    api = Answering({"digest": "new"}, needs=needs, optional=optional)
    api.facts = known
    model = Model(api, policy=RetryPolicy(), cache=ResponseCache(tmp_path) if cached else None)
    turn = Request(messages=[{"role": "user", "content": "q"}])
    assert asyncio.run(model.generate(turn)).content == "a" and api.asked == asked
    assert api.facts == (known or ({"digest": "new"} if asked else None))
