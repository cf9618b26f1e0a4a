"""The bounded HTTP clients: a byte cap on decoded bodies, one total deadline, no redirect to another host."""

from __future__ import annotations

import asyncio
import gzip
import time

import httpx
import pytest

from auditpacks.core.bounded import http as bounded_http
from auditpacks.core.bounded.http import DeadlineExceeded, RedirectRefused, ReplyTooLarge, budget_error
from tests.support.hostile import HostileServer


def test_an_endless_body_stops_at_the_cap_naming_it():
    with HostileServer("endless") as server, bounded_http.client(server.base_url, timeout=30,
                                                                 max_bytes=2**20) as client:
        with pytest.raises(ReplyTooLarge, match=r"over the 1 MiB cap .*AUDITPACKS_MAX_REPLY_BYTES"):
            client.post(server.base_url + "/chat/completions", json={})


def test_the_cap_comes_from_the_environment_when_set(monkeypatch):
    assert bounded_http.max_reply_bytes() == 64 * 2**20
    monkeypatch.setenv("AUDITPACKS_MAX_REPLY_BYTES", "1000")
    assert bounded_http.max_reply_bytes() == 1000
    monkeypatch.setenv("AUDITPACKS_MAX_REPLY_BYTES", "-5")
    assert bounded_http.max_reply_bytes() == 64 * 2**20


def test_a_drip_is_cut_at_the_total_deadline_sync_and_async():
    with HostileServer("drip", drip_s=0.05) as server:
        started = time.monotonic()
        with pytest.raises(DeadlineExceeded, match="1.5 s deadline"):
            bounded_http.client(server.base_url, timeout=1.5).post(server.base_url + "/x", json={})
        assert 1.4 < time.monotonic() - started < 4  # per read, 0.05 s apart, the read time-out never fires

        async def post():
            async with bounded_http.async_client(server.base_url, timeout=1.0) as client:
                await client.post(server.base_url + "/x", json={})

        started = time.monotonic()
        with pytest.raises(DeadlineExceeded):
            asyncio.run(post())
        assert 0.9 < time.monotonic() - started < 3


def test_a_compressed_body_is_capped_after_decoding():
    bomb = gzip.compress(b"0" * (4 * 2**20))  # 4 MiB of text in a few kilobytes
    body = bounded_http._Body("gzip", 2**20, httpx.Request("GET", "http://127.0.0.1/"))
    with pytest.raises(ReplyTooLarge):
        body.add(bomb)
    assert body.size <= 2**20 + 1 + 2**20  # at most one step past the cap was ever held
    small = bounded_http._Body("gzip", 2**20, httpx.Request("GET", "http://127.0.0.1/"))
    small.add(gzip.compress(b"hello"))
    assert small.content() == b"hello"
    with pytest.raises(httpx.DecodingError):
        bounded_http._Body("deflate", 100, httpx.Request("GET", "http://127.0.0.1/")).add(b"not deflate at all")
    with pytest.raises(httpx.DecodingError, match="unsupported content-encoding 'br'"):
        bounded_http._Body("br", 100, httpx.Request("GET", "http://127.0.0.1/"))


def test_a_redirect_to_another_host_is_refused_and_the_cause_is_found_behind_wrappers():
    with HostileServer("redirect") as server, bounded_http.client(server.base_url, timeout=10) as client:
        with pytest.raises(RedirectRefused, match="refused a redirect from http://127.0.0.1") as err:
            client.post(server.base_url + "/chat/completions", json={})
    assert server.posts == 1
    try:
        raise RuntimeError("Connection error.") from err.value
    except RuntimeError as wrapped:
        assert budget_error(wrapped) is err.value
    assert budget_error(ValueError("x")) is None
