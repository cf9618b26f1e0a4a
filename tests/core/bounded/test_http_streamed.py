"""The streamed client: bodies counted as they are read, a file download at its own cap, the deadline per chunk."""

from __future__ import annotations

import time

import httpx
import pytest

from auditpacks.core.bounded import http as bounded_http
from auditpacks.core.bounded.http import DeadlineExceeded, RedirectRefused, ReplyTooLarge
from tests.support.hostile import HostileServer

BINARY = {"Accept": "application/binary"}


def test_a_download_stops_at_its_own_cap_and_any_other_body_at_the_reply_cap(monkeypatch):
    monkeypatch.setenv("AUDITPACKS_MAX_REPLY_BYTES", str(2**20))
    with HostileServer("endless") as server, bounded_http.streamed_client(server.base_url, timeout=30,
                                                                          download_bytes=3 * 2**20) as client:
        read = 0
        with pytest.raises(ReplyTooLarge, match=r"download from 127.0.0.1:\d+ over the 3 MiB cap"):
            with client.stream("POST", server.base_url + "/files/f/content", headers=BINARY) as response:
                for chunk in response.iter_bytes():
                    read += len(chunk)
        assert 2 * 2**20 < read <= 3 * 2**20   # handed on as it came, up to the cap
        with pytest.raises(ReplyTooLarge, match="over the 1 MiB cap"):
            client.post(server.base_url + "/batches", json={})


def test_a_dripping_download_is_cut_at_its_total_deadline():
    with HostileServer("drip", drip_s=0.05) as server, bounded_http.streamed_client(server.base_url, timeout=1.0,
                                                                                    download_bytes=2**20) as client:
        started = time.monotonic()
        with pytest.raises(DeadlineExceeded, match="took longer than its deadline"):
            with client.stream("POST", server.base_url + "/x", headers=BINARY) as response:
                for _ in response.iter_bytes():
                    pass
        assert time.monotonic() - started < 4


def test_a_redirect_to_another_host_is_refused():
    with HostileServer("redirect") as server, bounded_http.streamed_client(server.base_url, timeout=5,
                                                                           download_bytes=2**20) as client:
        with pytest.raises(RedirectRefused):
            client.post(server.base_url + "/x", json={})


def _transport(body, seen: list[httpx.Request], deadline: float | None = 5, **options) -> bounded_http.StreamedTransport:
    """A streamed transport whose connection is a fake answering every request with ``body`` over HTTP/2."""
    transport = bounded_http.StreamedTransport(deadline=deadline, origin="http://models.test", **options)
    transport._inner = httpx.MockTransport(lambda request: seen.append(request) or httpx.Response(
        200, content=body, extensions={"http_version": b"HTTP/2"}))
    return transport


def _streamed(body, seen: list[httpx.Request], timeout: float | None = 5, **options) -> httpx.Client:
    return httpx.Client(transport=_transport(body, seen, **options), timeout=timeout)


@pytest.mark.parametrize("headers, cap", [(BINARY, 100), ({}, 40)])
def test_a_body_exactly_at_its_cap_is_handed_on_and_one_byte_more_is_refused(headers, cap):
    """A download at its own cap, any other body at the reply cap, each counted from nothing; no compression asked."""
    seen: list[httpx.Request] = []
    with _streamed(b"x" * cap, seen, download_bytes=100, max_bytes=40) as client:
        assert client.get("http://models.test/f", headers=headers).content == b"x" * cap
    assert seen[0].headers["accept-encoding"] == "identity"
    with _streamed(b"x" * (cap + 1), seen, download_bytes=100, max_bytes=40) as client:
        with pytest.raises(ReplyTooLarge, match=f"over the {cap} bytes cap"):
            client.get("http://models.test/f", headers=headers)


def test_the_connections_protocol_comes_back_and_no_deadline_means_none():
    seen: list[httpx.Request] = []
    with _streamed(b"ok", seen, timeout=None, deadline=None, download_bytes=10) as client:
        response = client.get("http://models.test/f")
    assert (response.content, response.http_version) == (b"ok", "HTTP/2")


def test_a_requests_own_read_timeout_is_its_deadline_else_the_transports():
    """A read time-out of a nanosecond has passed by the second chunk; the transport's own 100 s has not."""
    seen: list[httpx.Request] = []
    with _streamed(iter([b"a", b"b"]), seen, timeout=1e-9, deadline=100, download_bytes=10) as client:
        with pytest.raises(DeadlineExceeded):
            client.get("http://models.test/f")
    bare = httpx.Request("GET", "http://models.test/f")   # sent without a client: no time-out of its own
    with pytest.raises(DeadlineExceeded):
        _transport(iter([b"a", b"b"]), seen, deadline=1e-9, download_bytes=10).handle_request(bare).read()


def test_a_request_without_an_accept_header_is_not_a_download():
    """No Accept header (a request sent without a client): the reply cap, not the download's."""
    transport = _transport(b"ab", [], deadline=None, download_bytes=1, max_bytes=10)
    assert transport.handle_request(httpx.Request("GET", "http://models.test/f")).read() == b"ab"


def test_the_streamed_client_holds_to_its_host_from_the_first_request():
    """A host given in advance: a request to another is refused before anything is sent."""
    with bounded_http.streamed_client("http://models.test", timeout=5, download_bytes=10) as client:
        with pytest.raises(RedirectRefused, match=r"from http://models\.test to another host \(other\.test\)"):
            client.get("http://other.test/f")


def test_a_chunk_read_at_the_deadline_itself_is_handed_on_and_one_read_after_it_is_not(monkeypatch):
    """The deadline is the last moment a chunk is still taken (a fixed clock, no waiting)."""
    request = httpx.Request("GET", "https://example.org/files/f")
    stream = bounded_http._CountedStream(httpx.ByteStream(b"abc"), limit=10, until=100.0, request=request)
    monkeypatch.setattr(bounded_http.time, "monotonic", lambda: 100.0)
    assert list(stream) == [b"abc"]
    monkeypatch.setattr(bounded_http.time, "monotonic", lambda: 100.001)
    with pytest.raises(DeadlineExceeded, match="the download from example.org took longer"):
        list(stream)


@pytest.mark.parametrize("url, where", [("https://example.org/x", "example.org"),
                                        ("http://user:pw@example.org:8080/a?b", "example.org:8080"),
                                        ("http://127.0.0.1:80/", "127.0.0.1")])
def test_an_error_names_the_host_and_only_a_port_that_is_not_the_schemes_own(url, where):
    assert bounded_http._where(httpx.URL(url)) == where
