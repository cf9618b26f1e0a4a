"""The Model over several endpoints, in process: failover to the next endpoint, what each endpoint served,
the facts every live endpoint must agree on; and the counts, usage and served names a run file reports."""

from __future__ import annotations

import asyncio

import pytest

from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.endpoints import EndpointPool, rank
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.model import MAX_SERVED_NAMES, Model, ModelAPI
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.models.retry import CallFailed, RetryPolicy
from auditpacks.runner.models.usage import Usage

A, B, C = "http://10.0.0.1:8000/v1", "http://10.0.0.2:8000/v1", "http://10.0.0.3:8000/v1"
NO_RETRIES = RetryPolicy(max_retries=0, backoff=0.0, timeout=5.0)


class Status(Exception):
    """An HTTP error as an SDK raises it."""

    def __init__(self, status: int) -> None:
        super().__init__(f"status {status}")
        self.status_code = status


class Replica(ModelAPI):
    """A provider at ``url`` that answers with its URL and the replies queued in ``replies``, or raises
    ``error``; its facts are ``digest``; how often it was called in ``sent``."""

    needs_facts = True

    def __init__(self, url: str, *, digest: str = "d1", error: Exception | None = None) -> None:
        self.url, self.address, self.model, self.digest, self.error = url, url, "m", digest, error
        self.sent, self.replies, self.closed = 0, [], False

    def prepare(self) -> dict:
        return {"digest": self.digest, "at": self.url}

    def build(self, request: Request) -> dict:
        return {"messages": request.messages}

    def cache_key(self, body: dict, request: Request) -> dict:
        return {"api": "replica", **body}

    async def call(self, body: dict, request: Request) -> Reply:
        self.sent += 1
        if self.error is not None:
            raise self.error
        return self.replies.pop(0) if self.replies else Reply(self.url, input_tokens=10, output_tokens=2)

    async def aclose(self) -> None:
        self.closed = True


def pooled(*replicas: Replica, **options) -> Model:
    return Model(EndpointPool([(r.url, r) for r in replicas]), policy=NO_RETRIES, **options)


def ask(model: Model, route: str | None = "doc", text: str = "q") -> Reply:
    return asyncio.run(model.generate(Request(messages=[{"role": "user", "content": text}], route=route)))


def homed_at(url: str, urls: list[str]) -> str:
    """A document key whose best endpoint among ``urls`` is ``url``."""
    return next(f"doc {i}" for i in range(200) if rank(urls, f"doc {i}")[0] == url)


@pytest.mark.parametrize("error", [ConnectionError("refused"), Status(503), Status(500)])
def test_a_down_endpoint_is_taken_out_and_its_request_answered_by_the_next(error):
    home, spare = Replica(A, error=error), Replica(B)
    model = pooled(home, spare)
    doc = homed_at(A, [A, B])
    assert ask(model, doc).content == B
    first, second = model.pool.endpoints
    assert first.failed and second.failed is None and home.sent == 1 and spare.sent == 1
    assert (first.calls, second.calls, second.documents, second.input_tokens, second.output_tokens) == \
        (0, 1, {doc}, 10, 2)
    assert model.counts == {"calls": 1, "requests": 1, "cache_hits": 0, "input_tokens": 10, "output_tokens": 2}


@pytest.mark.parametrize("status", [400, 404, 408, 429])
def test_a_request_an_endpoint_turned_away_is_the_requests_error_and_the_endpoint_stays(status):
    home, spare = Replica(A, error=Status(status)), Replica(B)
    model = pooled(home, spare)
    with pytest.raises(CallFailed, match=f"HTTP {status}"):
        ask(model, homed_at(A, [A, B]))
    assert [e.failed for e in model.pool.endpoints] == [None, None] and spare.sent == 0
    assert model.counts["calls"] == 0


def test_a_single_failing_endpoint_is_the_requests_error_and_stays():
    alone = Replica(A, error=ConnectionError("refused"))
    model = Model(alone, policy=NO_RETRIES)
    with pytest.raises(CallFailed, match="connection failed"):
        ask(model)
    assert model.pool.endpoints[0].failed is None and model.fatal is None


def test_when_every_endpoint_fails_the_request_says_so_with_each_reason():
    model = pooled(Replica(A, error=ConnectionError("refused")), Replica(B, error=Status(502)))
    with pytest.raises(RunError, match=r"^every endpoint failed: ") as caught:
        ask(model)
    assert A in str(caught.value) and B in str(caught.value) and "HTTP 502" in str(caught.value)
    assert isinstance(model.fatal, RunError)


def test_the_facts_of_several_endpoints_are_each_live_ones_and_must_agree():
    first, second, out = Replica(A), Replica(B), Replica(C, digest="other")
    model = pooled(first, second, out)
    model.pool.take_out(model.pool.endpoints[2], "HTTP 503")
    assert model.prepare() == {"digest": "d1", "at": A}   # the first live endpoint's; the one taken out not asked
    assert (first.facts, second.facts, out.facts) == ({"digest": "d1", "at": A}, {"digest": "d1", "at": B}, None)


def test_an_endpoint_serving_another_model_is_refused_by_name():
    model = pooled(Replica(A), Replica(B, digest="d2"))
    with pytest.raises(RunError) as caught:
        model.prepare()
    assert str(caught.value) == f"{B} serves another model (digest d2) than the other endpoints (d1)"


def test_one_endpoints_facts_are_its_own():
    alone = Replica(A, digest="d9")
    assert Model(alone, policy=NO_RETRIES).prepare() == {"digest": "d9", "at": A} == alone.facts


@pytest.mark.parametrize("address, url", [(A, A), (None, "")])
def test_one_provider_is_a_pool_of_one_at_its_address(address, url):
    api = Replica(A)
    api.address = address
    model = Model(api, policy=NO_RETRIES)
    assert [e.url for e in model.pool.endpoints] == [url] and model.api is api and not model.pool.several
    assert model.counts == {"calls": 0, "requests": 0, "cache_hits": 0, "input_tokens": 0, "output_tokens": 0}
    assert (model.usage, model.served, model.policy, model.cache) == (Usage(), {}, NO_RETRIES, None)


def test_a_pool_is_used_as_it_is_and_its_first_provider_is_the_models_api():
    first, second = Replica(A), Replica(B)
    pool = EndpointPool([(A, first), (B, second)])
    model = Model(pool, policy=NO_RETRIES)
    assert model.pool is pool and model.api is first and model.placement is pool


def test_closing_the_model_closes_every_provider():
    replicas = Replica(A), Replica(B)
    asyncio.run(pooled(*replicas).aclose())
    assert all(r.closed for r in replicas)


def replies(*served: str | None, **tokens) -> Replica:
    api = Replica(A)
    api.replies = [Reply("a", served_model=name, **tokens) for name in served]
    return api


def test_served_names_are_counted_up_to_a_bound_and_known_ones_go_on_counting():
    names = [f"m-{i}" for i in range(MAX_SERVED_NAMES + 2)]
    api = replies(*names, "m-0", None, "m-11")
    model = Model(api, policy=NO_RETRIES)
    for i in range(len(api.replies)):
        ask(model, text=str(i))
    assert MAX_SERVED_NAMES == 10
    assert model.served == {**{name: 1 for name in names[:10]}, "m-0": 2}
    assert model.stats()["served_models"] == model.served


def test_usage_adds_every_kind_of_token_the_provider_reported():
    api = replies(None, None, input_tokens=100, cached_input_tokens=60, cache_write_tokens=30, output_tokens=7)
    api.replies.append(Reply("b"))   # no counts: nothing added
    model = Model(api, policy=NO_RETRIES)
    for i in range(3):
        ask(model, text=str(i))
    assert model.usage == Usage(input=200, cached_input=120, cache_write=60, output=14)
    assert model.counts == {"calls": 3, "requests": 3, "cache_hits": 0, "input_tokens": 200, "output_tokens": 14}


def test_a_reply_from_the_cache_adds_no_usage_and_no_served_name(tmp_path):
    api = replies("m-q4", "m-q4", input_tokens=5, output_tokens=1)
    model = Model(api, policy=NO_RETRIES, cache=ResponseCache(tmp_path))
    first, again = ask(model), ask(model)
    assert (first.cached, again.cached, again.served_model, api.sent) == (False, True, "m-q4", 1)
    assert model.usage == Usage(input=5, output=1) and model.served == {"m-q4": 1}
    assert model.counts == {"calls": 2, "requests": 1, "cache_hits": 1, "input_tokens": 10, "output_tokens": 2}


class Rejoining(Replica):
    """An endpoint that fails, while the endpoint that failed before it rejoins the pool (ready again)."""

    def __init__(self, url: str, pool_of: list[Model]) -> None:
        super().__init__(url, error=ConnectionError("refused"))
        self.pool_of = pool_of

    async def call(self, body: dict, request: Request) -> Reply:
        self.pool_of[0].pool.endpoints[0].failed = None
        return await super().call(body, request)


def test_a_request_never_goes_back_to_an_endpoint_it_failed_at_even_one_that_rejoined():
    holder: list[Model] = []
    first = Replica(A, error=ConnectionError("refused"))
    model = pooled(first, Rejoining(B, holder))
    holder.append(model)
    with pytest.raises(RunError, match="^every endpoint failed: "):
        ask(model, homed_at(A, [A, B]))
    assert first.sent == 1


def test_a_pool_with_every_endpoint_out_has_no_facts():
    model = pooled(Replica(A), Replica(B))
    for endpoint in model.pool.endpoints:
        model.pool.take_out(endpoint, "HTTP 503")
    assert model.prepare() == {}
