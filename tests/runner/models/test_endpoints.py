"""Several endpoints for one run: documents placed by rendezvous hashing, a failing endpoint taken out."""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import pytest

from auditpacks.runner.models.endpoints import EndpointPool, rank
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.model import Model, ModelAPI
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.models.retry import CallFailed, RetryPolicy
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import results, run_file, run_here, start_child
from tests.support.tiny_pack import write_pack

URLS = [f"http://10.0.0.{i}:8000/v1" for i in range(1, 5)]
NO_RETRIES = RetryPolicy(max_retries=0, backoff=0.0, timeout=5.0)


class Refused(ConnectionError):
    """A dead server: the connection is refused."""


class Rejected(Exception):
    """The server's answer to a request it will not take."""

    def __init__(self, status: int) -> None:
        super().__init__(f"rejected with {status}")
        self.status_code = status


class Replica(ModelAPI):
    """A provider that answers with its own URL, fails like a dead server (``down``), or rejects requests
    (``status``)."""

    def __init__(self, url: str) -> None:
        self.url, self.down, self.status, self.sent = url, False, None, 0

    def build(self, request: Request) -> dict:
        return {"messages": request.messages}

    def cache_key(self, body: dict, request: Request) -> dict:
        return {"url": self.url, **body}

    async def call(self, body: dict, request: Request) -> Reply:
        if self.down:
            raise Refused("connection refused")
        if self.status:
            raise Rejected(self.status)
        self.sent += 1
        return Reply(self.url, input_tokens=10, output_tokens=1)


def pooled(replicas: list[Replica], **options) -> Model:
    return Model(EndpointPool([(r.url, r) for r in replicas], **options), policy=NO_RETRIES)


def where(model: Model, documents: list[str]) -> dict[str, str]:
    async def go():
        return {doc: (await model.generate(Request(messages=[{"role": "user", "content": "q"}], route=doc))).content
                for doc in documents}
    return asyncio.run(go())


def test_rank_is_a_stable_rendezvous_order():
    assert rank(URLS, "documents:x") == rank(list(reversed(URLS)), "documents:x")
    homes = Counter(rank(URLS, f"doc {i}")[0] for i in range(4000))
    assert set(homes) == set(URLS) and min(homes.values()) > 850  # about 1000 each


def test_a_document_stays_on_one_endpoint_and_only_a_dead_ones_documents_move():
    replicas = [Replica(url) for url in URLS]
    model = pooled(replicas)
    documents = [f"judgment {i}" for i in range(200)]
    before = where(model, documents)
    assert before == {doc: rank(URLS, doc)[0] for doc in documents}
    assert where(model, documents) == before
    replicas[1].down = True
    after = where(model, documents)
    moved = {doc for doc in documents if after[doc] != before[doc]}
    assert moved == {doc for doc in documents if before[doc] == URLS[1]} and moved
    assert all(after[doc] == rank([u for u in URLS if u != URLS[1]], doc)[0] for doc in moved)
    assert model.pool.endpoints[1].failed and model.fatal is None
    for replica in replicas:
        replica.down = True
    assert model.fatal is None
    with pytest.raises(RunError, match="every endpoint failed"):
        where(model, documents[:1])
    assert model.fatal is not None


def test_an_endpoint_that_rejects_a_request_stays_in_the_pool():
    replicas = [Replica(url) for url in URLS[:2]]
    model = pooled(replicas)
    document = next(f"doc {i}" for i in range(100) if rank(URLS[:2], f"doc {i}")[0] == URLS[0])
    replicas[0].status = 400
    with pytest.raises(CallFailed, match="HTTP 400") as failed:
        where(model, [document])
    assert failed.value.retryable is False
    assert [e.failed for e in model.pool.endpoints] == [None, None] and replicas[1].sent == 0
    replicas[0].status = None
    assert where(model, [document]) == {document: URLS[0]}  # the same endpoint answers the next request


def test_an_endpoint_still_rate_limiting_after_the_retries_stays_in_the_pool():
    replicas = [Replica(url) for url in URLS[:2]]
    model = Model(EndpointPool([(r.url, r) for r in replicas]), policy=RetryPolicy(max_retries=1, backoff=0.0))
    document = next(f"doc {i}" for i in range(100) if rank(URLS[:2], f"doc {i}")[0] == URLS[0])
    replicas[0].status = 429
    with pytest.raises(CallFailed, match="gave up after 2 attempts: HTTP 429") as failed:
        where(model, [document])
    assert failed.value.retryable and failed.value.status == 429
    assert [e.failed for e in model.pool.endpoints] == [None, None] and replicas[1].sent == 0


def test_a_server_error_takes_the_endpoint_out_after_the_retries():
    replicas = [Replica(url) for url in URLS[:2]]
    model = pooled(replicas)
    document = next(f"doc {i}" for i in range(100) if rank(URLS[:2], f"doc {i}")[0] == URLS[0])
    replicas[0].status = 503
    assert where(model, [document]) == {document: URLS[1]}
    assert "HTTP 503" in model.pool.endpoints[0].failed and model.pool.endpoints[1].failed is None
    assert model.pool.live_count() == 1 and model.pool.home(document) == URLS[1]


def test_one_endpoint_is_never_taken_out():
    replica = Replica(URLS[0])
    model = Model(replica, policy=NO_RETRIES)
    replica.down = True
    with pytest.raises(CallFailed, match="connection failed"):
        where(model, ["doc"])
    assert model.pool.endpoints[0].failed is None and model.fatal is None and model.placement is None


def test_per_endpoint_figures_count_calls_documents_and_tokens():
    replicas = [Replica(url) for url in URLS[:2]]
    model = pooled(replicas)
    documents = ["a", "b", "c", "d", "e", "f"]
    where(model, documents + documents[:2])
    stats = {e["base_url"]: e for e in model.stats()["endpoints"]}
    for url in URLS[:2]:
        mine = [d for d in documents if rank(URLS[:2], d)[0] == url]
        calls = len(mine) + len([d for d in documents[:2] if d in mine])
        assert (stats[url]["calls"], stats[url]["documents"]) == (calls, len(mine))
        assert (stats[url]["input_tokens"], stats[url]["output_tokens"]) == (10 * calls, calls)
    assert model.stats()["assignment"] == "document" and model.placement is model.pool


def test_random_assignment_spreads_one_document_over_endpoints():
    replicas = [Replica(url) for url in URLS[:2]]
    model = pooled(replicas, assignment="random", seed=1)
    where(model, ["one"])
    asyncio.run(_many(model, 40))
    assert min(r.sent for r in replicas) > 5 and model.placement is None


async def _many(model: Model, n: int) -> None:
    for _ in range(n):
        await model.generate(Request(messages=[{"role": "user", "content": "q"}], route="one"))


def test_killing_one_of_two_endpoints_mid_run_loses_nothing(tmp_path):
    pack = write_pack(tmp_path / "tiny.json", 90, documents=True)
    fast = ("--max-retries", "1", "--retry-backoff", "0.01", "--concurrency", "3")
    with FakeOpenAI() as alone:
        assert run_here(pack, tmp_path / "one", alone.base_url) == 0
    with FakeOpenAI() as a, FakeOpenAI() as b:
        child = start_child(pack, tmp_path / "two", a.base_url, "--base-url", b.base_url, *fast)
        deadline = time.monotonic() + 120
        while b.chat_requests < 10 and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        b.go_down()
        child.wait(timeout=300)
        assert child.returncode == 0, child.stderr.read().decode()
        child.stderr.close()
        assert 10 <= b.chat_requests < 90 and a.chat_requests > 0
    assert results(tmp_path / "two") == results(tmp_path / "one")  # every scenario, answered, in pack order
    record = run_file(tmp_path / "two")
    assert record["summary"]["completed"] == 90 and record["summary"]["errors"] == 0
    endpoints = {e["base_url"]: e for e in record["performance"]["endpoints"]}
    assert endpoints[b.base_url]["failed"] and not endpoints[a.base_url]["failed"]
    assert endpoints[a.base_url]["calls"] + endpoints[b.base_url]["calls"] == 90
    assert endpoints[a.base_url]["documents"] + endpoints[b.base_url]["documents"] >= 30


def test_endpoints_come_from_flags_and_a_file_and_their_order_does_not_change_the_fingerprint(tmp_path):
    import argparse

    from auditpacks.runner.cli.run_args import add_run_arguments, config_from_args

    listing = tmp_path / "endpoints.txt"
    listing.write_text("# replicas\nhttp://b:8000/v1\n\nhttp://c:8000/v1  # second rack\n", encoding="utf-8")
    parser = argparse.ArgumentParser()
    add_run_arguments(parser)
    config = config_from_args(parser.parse_args(["--pack", "p.json", "--target", "m", "--base-url", "http://a:8000/v1",
                                                 "--endpoints", str(listing)]))
    assert (config.target.base_url, config.target.more_base_urls) == ("http://a:8000/v1", ("http://b:8000/v1", "http://c:8000/v1"))
    other = config_from_args(parser.parse_args(["--pack", "p.json", "--target", "m", "--base-url", "http://c:8000/v1",
                                                "--base-url", "http://a:8000/v1", "--base-url", "http://b:8000/v1"]))
    assert config.fingerprint("m", config.target.base_url) == other.fingerprint("m", other.target.base_url)
    single = config_from_args(parser.parse_args(["--pack", "p.json", "--target", "m", "--base-url", "http://a:8000/v1"]))
    assert single.fingerprint("m", single.target.base_url) != config.fingerprint("m", config.target.base_url)


def test_one_base_url_given_as_a_string_is_one_endpoint():
    import argparse

    from auditpacks.runner.cli.run_args import add_run_arguments, config_from_args

    parser = argparse.ArgumentParser()
    add_run_arguments(parser)
    args = parser.parse_args(["--pack", "p.json", "--target", "m"])
    args.base_url = "http://a:8000/v1"  # as the Python API sets it
    config = config_from_args(args)
    assert (config.target.base_url, config.target.more_base_urls) == ("http://a:8000/v1", ())
