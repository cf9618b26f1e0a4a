"""Several endpoints for one run: documents placed by rendezvous hashing, a failing endpoint taken out."""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import pytest

from auditpacks.runner.models.retry import CallFailed, RetryPolicy, call_with_retries
from auditpacks.runner.targets.contract import RunTarget
from auditpacks.runner.targets.endpoints import EndpointPool, rank
from tests.support.fake_openai import FakeOpenAI
from tests.support.runs import results, run_file, run_here, start_child
from tests.support.tiny_pack import write_pack

URLS = [f"http://10.0.0.{i}:8000/v1" for i in range(1, 5)]


class Reply:
    def __init__(self, url: str) -> None:
        self.content, self.url, self.input_tokens, self.output_tokens = "yes", url, 10, 1


class Replica(RunTarget):
    """An inner target that answers with its own URL, or fails like a dead server."""

    def __init__(self, url: str) -> None:
        self.url, self.down, self.sent = url, False, 0

    async def send(self, **kwargs):
        if self.down:
            raise CallFailed(["connection failed: refused"] * 3, retryable=True)
        self.sent += 1
        return Reply(self.url)


def where(pool: EndpointPool, documents: list[str]) -> dict[str, str]:
    async def go():
        return {doc: (await pool.send(user="q", documents=[doc])).url for doc in documents}
    return asyncio.run(go())


def test_rank_is_a_stable_rendezvous_order():
    assert rank(URLS, "documents:x") == rank(list(reversed(URLS)), "documents:x")
    homes = Counter(rank(URLS, f"doc {i}")[0] for i in range(4000))
    assert set(homes) == set(URLS) and min(homes.values()) > 850  # about 1000 each


def test_a_document_stays_on_one_endpoint_and_only_a_dead_ones_documents_move():
    replicas = [Replica(url) for url in URLS]
    pool = EndpointPool([(r.url, r) for r in replicas])
    documents = [f"judgment {i}" for i in range(200)]
    before = where(pool, documents)
    assert where(pool, documents) == before
    replicas[1].down = True
    after = where(pool, documents)
    moved = {doc for doc in documents if after[doc] != before[doc]}
    assert moved == {doc for doc in documents if before[doc] == URLS[1]} and moved
    assert URLS[1] not in after.values()
    assert pool.endpoints[1].failed and pool.fatal is None
    for replica in replicas:
        replica.down = True
    assert pool.fatal is None
    try:
        where(pool, documents[:1])
    except Exception as exc:  # noqa: BLE001
        assert "every endpoint failed" in str(exc)
    assert pool.fatal is not None


def test_random_assignment_spreads_one_document_over_endpoints():
    replicas = [Replica(url) for url in URLS[:2]]
    pool = EndpointPool([(r.url, r) for r in replicas], assignment="random", seed=1)
    async def go():
        for _ in range(40):
            await pool.send(user="q", documents=["one"])
    asyncio.run(go())
    assert min(r.sent for r in replicas) > 5


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
    assert (config.base_url, config.more_base_urls) == ("http://a:8000/v1", ("http://b:8000/v1", "http://c:8000/v1"))
    other = config_from_args(parser.parse_args(["--pack", "p.json", "--target", "m", "--base-url", "http://c:8000/v1",
                                                "--base-url", "http://a:8000/v1", "--base-url", "http://b:8000/v1"]))
    assert config.fingerprint("m", config.base_url) == other.fingerprint("m", other.base_url)
    single = config_from_args(parser.parse_args(["--pack", "p.json", "--target", "m", "--base-url", "http://a:8000/v1"]))
    assert single.fingerprint("m", single.base_url) != config.fingerprint("m", config.base_url)


def test_one_base_url_given_as_a_string_is_one_endpoint():
    import argparse

    from auditpacks.runner.cli.run_args import add_run_arguments, config_from_args

    parser = argparse.ArgumentParser()
    add_run_arguments(parser)
    args = parser.parse_args(["--pack", "p.json", "--target", "m"])
    args.base_url = "http://a:8000/v1"  # as the Python API sets it
    config = config_from_args(args)
    assert (config.base_url, config.more_base_urls) == ("http://a:8000/v1", ())


class Rejected(Exception):
    """An SDK error carrying an HTTP status, as the OpenAI client raises it."""

    def __init__(self, status: int) -> None:
        super().__init__(f"Error code: {status} - request rejected")
        self.status_code = status


class Picky(Replica):
    """A replica that rejects requests about one document with an HTTP status, through the real retry layer."""

    def __init__(self, url: str, status: int, bad: str) -> None:
        super().__init__(url)
        self.status, self.bad = status, bad

    async def send(self, *, documents=None, **kwargs):
        async def attempt():
            if documents == [self.bad]:
                raise Rejected(self.status)
            return await Replica.send(self)
        return await call_with_retries(attempt, RetryPolicy(max_retries=2, backoff=0.0))


@pytest.mark.parametrize("status", [400, 401, 404, 413, 422])
def test_an_endpoint_rejecting_one_request_with_a_4xx_stays_in_the_pool(status):
    documents = [f"judgment {i}" for i in range(40)]
    probe = EndpointPool([(url, Replica(url)) for url in URLS[:2]])
    homes = where(probe, documents)
    bad = next(doc for doc in documents if homes[doc] == URLS[0])
    replicas = [Picky(URLS[0], status, bad), Replica(URLS[1])]
    pool = EndpointPool([(r.url, r) for r in replicas])

    async def rejected():
        return await pool.send(user="q", documents=[bad])
    with pytest.raises(CallFailed, match=f"HTTP {status}") as failure:
        asyncio.run(rejected())
    assert not failure.value.retryable and failure.value.attempts == [f"HTTP {status}: request rejected"]
    assert pool.endpoints[0].failed is None and pool.fatal is None and replicas[1].sent == 0  # not sent elsewhere
    others = [doc for doc in documents if doc != bad]
    assert where(pool, others) == {doc: homes[doc] for doc in others}  # the picky endpoint still takes its own
    assert replicas[0].sent == sum(homes[doc] == URLS[0] for doc in others) > 0
