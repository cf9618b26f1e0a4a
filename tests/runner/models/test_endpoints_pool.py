"""The endpoint pool on its own: choosing, taking out, failing, its figures and its fatal error."""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from auditpacks.runner.models.endpoints import EndpointPool, rank, rendezvous_score
from auditpacks.runner.models.errors import RunError

A, B = "http://10.0.0.1:8000/v1", "http://10.0.0.2:8000/v1"


class Api:
    """A provider stand-in: the server's prefill figures it reports, its fatal error, whether it was closed."""

    def __init__(self, prompt=None, fatal=None) -> None:
        self.prompt, self.fatal, self.closed = prompt, fatal, False

    def stats(self) -> dict:
        return {"server_prompt_tokens": self.prompt, "own": True}

    async def aclose(self) -> None:
        self.closed = True


def two(**options) -> EndpointPool:
    return EndpointPool([(A, Api()), (B, Api())], **options)


def test_an_unknown_assignment_is_refused():
    with pytest.raises(RunError, match=r"^--endpoint-assignment 'nearest': choose document or random$"):
        EndpointPool([(A, Api())], assignment="nearest")


def test_one_endpoint_is_always_the_one_and_reports_its_providers_own_figures():
    pool = EndpointPool([("http://user:pw@h:8000/v1", Api(prompt={"requests": 1}))])
    assert pool.next("doc", {"http://user:pw@h:8000/v1"}) is pool.endpoints[0] and pool.placement is None
    assert not pool.several and pool.stats() == {"server_prompt_tokens": {"requests": 1}, "own": True}


def test_each_endpoints_figures_and_the_servers_prefill_added_up():
    pool = EndpointPool([("http://user:pw@a:8000/v1", Api({"requests": 2, "prompt_n": 100, "cache_n": 60})),
                         (B, Api({"requests": 3, "prompt_n": 50, "cache_n": 0})), ("http://c/v1", Api())])
    pool.served(pool.endpoints[0], "doc 1", 40, 7)
    pool.served(pool.endpoints[0], None, None, -3)   # unknown counts add nothing; no key is one document
    pool.take_out(pool.endpoints[2], "HTTP 503")
    stats = pool.stats()
    assert stats["assignment"] == "document" and stats["server_prompt_tokens"] == \
        {"requests": 5, "prompt_n": 150, "cache_n": 60}
    assert stats["endpoints"][0] == {"base_url": "http://a:8000/v1", "calls": 2, "documents": 2, "input_tokens": 40,
                                     "output_tokens": 7, "server_prompt_tokens": {"requests": 2, "prompt_n": 100,
                                                                                  "cache_n": 60}, "failed": None}
    assert stats["endpoints"][2]["failed"] == "HTTP 503" and stats["endpoints"][2]["server_prompt_tokens"] is None
    assert two().stats()["server_prompt_tokens"] is None   # no server reported its prefill


def test_an_endpoint_is_taken_out_once_with_a_warning_naming_its_documents(capsys):
    pool = two()
    pool.served(pool.endpoints[0], "doc 1", 1, 1)
    pool.served(pool.endpoints[0], "doc 2", 1, 1)
    pool.take_out(pool.endpoints[0], "connection refused")
    pool.take_out(pool.endpoints[0], "HTTP 503")
    assert pool.endpoints[0].failed == "connection refused" and pool.live_count() == 1
    assert capsys.readouterr().err == (f"auditpacks: warning: endpoint {A} taken out (connection refused); its 2 "
                                       "document(s) move to the other endpoints\n")


def test_a_request_goes_to_its_documents_best_live_endpoint_not_yet_tried(capsys):
    pool = two()
    best, second = rank([A, B], "doc 1")
    assert pool.next("doc 1", set()).url == best and pool.home("doc 1") == best
    assert pool.next("doc 1", {best}).url == second
    assert pool.next(None, set()).url == rank([A, B], "")[0]
    pool.take_out(pool.endpoints[[A, B].index(second)], "HTTP 500")
    with pytest.raises(RunError, match=rf"^every endpoint failed: {second}: HTTP 500$"):
        pool.next("doc 1", {best})   # the one tried but not out is not listed
    pool.take_out(pool.endpoints[[A, B].index(best)], "time-out")
    assert pool.home("doc 1") is None


def test_the_pool_is_fatal_with_a_providers_fatal_error_or_when_every_endpoint_is_out(capsys):
    down = RuntimeError("key revoked")
    assert EndpointPool([(A, Api()), (B, Api(fatal=down))]).fatal is down
    pool = two()
    pool.take_out(pool.endpoints[0], "refused")
    assert pool.fatal is None
    pool.take_out(pool.endpoints[1], "HTTP 502")
    assert isinstance(pool.fatal, RunError) and str(pool.fatal) == f"every endpoint failed: {A}: refused; {B}: HTTP 502"


def test_random_assignment_places_nothing_and_closing_closes_every_endpoint():
    pool = two(assignment="random", seed=3)
    placed = two()
    assert pool.placement is None and placed.placement is placed
    asyncio.run(pool.aclose())
    assert [e.api.closed for e in pool.endpoints] == [True, True]


def test_rank_orders_endpoints_by_the_documented_rendezvous_score_highest_first():
    """``blake2b(url, key)`` with an 8-byte digest, read big-endian: every run and shard places a key alike."""
    def score(url, key):
        return int.from_bytes(hashlib.blake2b(f"{url}\n{key}".encode(), digest_size=8).digest(), "big")

    urls = [f"http://10.0.0.{i}:8000/v1" for i in range(1, 6)]
    for key in ("doc 1", "documents:ab12", ""):
        assert rendezvous_score(urls[0], key) == score(urls[0], key)
        assert rank(urls, key) == sorted(urls, key=lambda url: score(url, key), reverse=True)


def picks(pool: EndpointPool, n: int = 30) -> list[str]:
    return [pool.choose("doc", pool.live).url for _ in range(n)]


def test_random_assignment_is_reproducible_from_its_seed_which_is_the_runs_default_0():
    assert picks(two(assignment="random", seed=5)) == picks(two(assignment="random", seed=5))
    assert picks(two(assignment="random")) == picks(two(assignment="random", seed=0))
    assert picks(two(assignment="random", seed=5)) != picks(two(assignment="random", seed=6))


def test_with_every_endpoint_out_the_refusal_lists_each_one(capsys):
    pool = two()
    pool.take_out(pool.endpoints[0], "refused")
    pool.take_out(pool.endpoints[1], "HTTP 502")
    with pytest.raises(RunError, match=rf"^every endpoint failed: {A}: refused; {B}: HTTP 502$"):
        pool.next("doc 1", set())
