"""The bounded clients against servers that behave each way a real one may: bodies exactly at the cap and over it,
every content encoding, bodies in many chunks, per-request deadlines, hosts fixed in advance or by the first request,
clients used from one event loop after another; and what the caller gets back (headers, protocol, the request)."""

from __future__ import annotations

import asyncio
import gzip
import time
import zlib

import httpx
import pytest

from auditpacks.core.bounded import http as bounded_http
from auditpacks.core.bounded.http import DeadlineExceeded, RedirectRefused, ReplyTooLarge, budget_error
from tests.support.hostile import HostileServer

URL = "http://127.0.0.1:9/v1"


class Chunks(httpx.AsyncByteStream):
    def __init__(self, parts: list[bytes], pause: float = 0.0) -> None:
        self.parts, self.pause = parts, pause

    async def __aiter__(self):
        for part in self.parts:
            if self.pause:
                await asyncio.sleep(self.pause)
            yield part


@pytest.fixture
def served(monkeypatch):
    """Route the bounded transport to a handler: ``served(handler)``; the requests it saw are in ``.seen``."""
    class Served:
        seen: list[httpx.Request] = []

        def __call__(self, handler):
            def respond(request):
                self.seen.append(request)
                return handler(request)
            monkeypatch.setattr(httpx, "AsyncHTTPTransport", lambda: httpx.MockTransport(respond))
    return Served()


def reply(body: bytes = b"ok", *, encoding: str | None = None, parts: list[bytes] | None = None, **extensions):
    headers = {"x-request-id": "r1", "content-length": str(len(body)), "transfer-encoding": "chunked"}
    if encoding:
        headers["content-encoding"] = encoding
    return lambda request: httpx.Response(200, headers=headers, stream=Chunks(parts or [body]),
                                          extensions=extensions)


def get(url: str = URL + "/x", **options):
    origin = options.pop("origin", URL)
    with bounded_http.client(origin, timeout=options.pop("timeout", 5), **options) as client:
        return client.get(url)


def test_a_body_exactly_at_the_cap_is_read_and_one_byte_more_is_refused(served):
    served(reply(b"x" * 1000))
    assert get(max_bytes=1000).content == b"x" * 1000
    with pytest.raises(ReplyTooLarge, match=r"^reply from 127\.0\.0\.1:9 over the 999 bytes cap on a response body "
                                            r"\(AUDITPACKS_MAX_REPLY_BYTES\); the rest was not read$") as err:
        get(max_bytes=999)
    assert err.value.request.url == URL + "/x"
    served(reply(b"x" * (2 * 2**20)))
    with pytest.raises(ReplyTooLarge, match="over the 1.5 MiB cap"):
        get(max_bytes=3 * 2**19)


@pytest.mark.parametrize("encoding, encode", [
    ("gzip", gzip.compress), ("x-gzip", gzip.compress), ("deflate", zlib.compress), ("GZip ", gzip.compress),
    ("identity", lambda b: b), ("IDENTITY", lambda b: b), ("", lambda b: b)])
def test_every_encoding_is_decoded_and_the_caller_sees_plain_bytes(served, encoding, encode):
    text = "判決の要旨。".encode() * 200
    served(reply(encode(text), encoding=encoding or None))
    response = get()
    assert response.content == text
    assert "content-encoding" not in response.headers and "transfer-encoding" not in response.headers
    assert response.headers["content-length"] == str(len(text)) and response.headers["x-request-id"] == "r1"
    assert served.seen[-1].headers["accept-encoding"] == "identity"


@pytest.mark.parametrize("first", [0, 40, 400])
def test_a_compressed_bomb_is_cut_one_byte_past_the_cap(first):
    stream = gzip.compress(b"a" * 5000 + b"0" * (4 * 2**20))
    body = bounded_http._Body("gzip", 2**20, httpx.Request("GET", URL))
    with pytest.raises(ReplyTooLarge):
        body.add(stream[:first])   # the first chunk decodes to a little, the rest is the bomb
        assert body.size < 2**20
        body.add(stream[first:])
    assert body.size == 2**20 + 1   # decoding stopped at the first byte over


def test_a_broken_or_unknown_encoding_is_a_decoding_error_naming_its_request(served):
    served(reply(b"not deflate at all", encoding="deflate"))
    with pytest.raises(httpx.DecodingError, match="^compressed body cannot be read: ") as err:
        get()
    assert err.value.request.url == URL + "/x"
    served(reply(b"x", encoding="br"))
    with pytest.raises(httpx.DecodingError, match="unsupported content-encoding 'br'") as err:
        get()
    assert err.value.request.url == URL + "/x"


def test_a_body_in_many_chunks_is_joined_as_sent(served):
    served(reply(parts=[b"ab", b"", b"cd", b"e" * 5000]))
    assert get().content == b"abcd" + b"e" * 5000


def test_the_protocol_and_reason_come_back_and_nothing_else_of_the_connection(served):
    served(reply(http_version=b"HTTP/2", reason_phrase=b"Fine", network_stream=object()))
    response = get()
    assert (response.http_version, response.reason_phrase) == ("HTTP/2", "Fine")
    assert "network_stream" not in response.extensions


def test_a_requests_own_timeout_is_its_deadline_sync_and_async(served):
    served(lambda request: httpx.Response(200, stream=Chunks([b"a"] * 100, pause=0.05)))
    started = time.monotonic()
    with bounded_http.client(URL, timeout=20) as client:
        with pytest.raises(DeadlineExceeded, match="within the 0.3 s deadline") as err:
            client.get(URL + "/x", timeout=0.3)
    assert time.monotonic() - started < 3 and err.value.request.url == URL + "/x"

    async def fetch():
        async with bounded_http.async_client(URL, timeout=20) as client:
            await client.get(URL + "/x", timeout=0.3)

    started = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        asyncio.run(fetch())
    assert time.monotonic() - started < 3


def test_the_async_client_passes_on_its_cap(served):
    served(reply(b"x" * 500))

    async def fetch(cap):
        async with bounded_http.async_client(URL, timeout=5, max_bytes=cap) as client:
            return await client.get(URL + "/x")

    assert asyncio.run(fetch(500)).content == b"x" * 500
    with pytest.raises(ReplyTooLarge):
        asyncio.run(fetch(499))


@pytest.mark.parametrize("make", ["sync", "async"])
def test_a_host_given_in_advance_holds_from_the_first_request(served, make):
    served(reply())
    if make == "sync":
        with pytest.raises(RedirectRefused, match=r"^refused a redirect from http://127.0.0.1:9 to another host "
                                                  r"\(localhost\); the request is not sent elsewhere$") as err:
            get("http://localhost:9/x")
    else:
        async def fetch():
            async with bounded_http.async_client(URL, timeout=5) as client:
                await client.get("http://localhost:9/x")
        with pytest.raises(RedirectRefused, match="from http://127.0.0.1:9 to") as err:
            asyncio.run(fetch())
    assert err.value.request.url == "http://localhost:9/x" and served.seen == []
    with pytest.raises(RedirectRefused, match=r"from https://example.org to another host \(localhost\)"):
        get("https://localhost/x", origin="https://example.org/v1")


def test_without_a_host_given_the_first_request_fixes_it():
    with HostileServer("redirect") as server, bounded_http.client(None, timeout=10) as client:
        with pytest.raises(RedirectRefused, match=f"from http://127.0.0.1:{server.port} to"):
            client.post(server.base_url + "/chat/completions", json={})
    assert server.posts == 1


def test_the_sync_client_sends_the_callers_headers_and_can_be_used_again():
    with HostileServer("echo") as server, bounded_http.client(server.base_url, timeout=10) as client:
        for _ in range(2):   # each request in an event loop of its own
            response = client.post(server.base_url + "/chat/completions", json={},
                                   headers={"Authorization": "Bearer t0k3n-abc"})
            assert response.status_code == 200
            assert "Bearer t0k3n-abc" in response.json()["choices"][0]["message"]["content"]


def test_an_unpooled_async_client_serves_one_event_loop_after_another_and_closes():
    with HostileServer("echo") as server:
        client = bounded_http.async_client(server.base_url, timeout=10, pooled=False)

        async def post():
            return (await client.post(server.base_url + "/chat/completions", json={})).status_code

        assert [asyncio.run(post()) for _ in range(2)] == [200, 200]
        asyncio.run(client.aclose())


@pytest.mark.parametrize("make, connections", [
    ("async_client", 1), ("async_client pooled=False", 3), ("transport", 1), ("sync client", 3)])
def test_a_pooled_client_keeps_its_connection_and_an_unpooled_one_opens_one_a_request(make, connections):
    with HostileServer("echo") as server:
        url = server.base_url + "/chat/completions"
        if make == "sync client":
            with bounded_http.client(server.base_url, timeout=10) as client:
                codes = [client.post(url, json={}).status_code for _ in range(3)]
        else:
            async def posts():
                client = {"async_client": lambda: bounded_http.async_client(server.base_url, timeout=10),
                          "async_client pooled=False": lambda: bounded_http.async_client(server.base_url, timeout=10,
                                                                                         pooled=False),
                          "transport": lambda: httpx.AsyncClient(
                              transport=bounded_http.BoundedAsyncTransport(deadline=10), timeout=10)}[make]()
                async with client:
                    return [(await client.post(url, json={})).status_code for _ in range(3)]
            codes = asyncio.run(posts())
        assert codes == [200, 200, 200] and server.connections == connections


@pytest.mark.parametrize("value, cap", [("0", 64 * 2**20), ("1", 1), ("", 64 * 2**20), ("12x", 64 * 2**20)])
def test_the_cap_from_the_environment(monkeypatch, value, cap):
    monkeypatch.setenv("AUDITPACKS_MAX_REPLY_BYTES", value)
    assert bounded_http.max_reply_bytes() == cap


@pytest.mark.parametrize("value, cap", [(None, 2 * 2**20), (str(2**20), 2**20), (str(2 * 2**20), 2 * 2**20),
                                        (str(8 * 2**20), 2 * 2**20), ("0", 2 * 2**20)])
def test_a_judges_or_auditors_reply_is_capped_at_2_mib_or_the_reply_cap_when_lower(monkeypatch, value, cap):
    """A verdict or a question is kilobytes: 2 MiB, unless the reply cap set in the environment is lower."""
    if value is None:
        monkeypatch.delenv("AUDITPACKS_MAX_REPLY_BYTES", raising=False)
    else:
        monkeypatch.setenv("AUDITPACKS_MAX_REPLY_BYTES", value)
    assert bounded_http.role_reply_bytes() == cap


def _wrapped(depth: int) -> BaseException:
    exc: BaseException = ReplyTooLarge("cap", request=httpx.Request("GET", URL))
    for _ in range(depth):
        try:
            raise RuntimeError("wrapper") from exc
        except RuntimeError as wrapper:
            exc = wrapper
    return exc


def test_a_budget_error_is_found_up_to_seven_wrappers_deep_and_a_cycle_ends():
    assert isinstance(budget_error(_wrapped(7)), ReplyTooLarge)
    assert budget_error(_wrapped(8)) is None
    loop = RuntimeError("a")
    loop.__context__ = loop
    assert budget_error(loop) is None


def test_the_async_client_hands_each_whole_body_through_its_filter():
    async def get() -> bytes:
        async with bounded_http.async_client(None, timeout=5, body_filter=bytes.upper) as client:
            client._transport._inner = httpx.MockTransport(lambda request: httpx.Response(200, content=b"verdict"))
            return (await client.get("http://models.test/x")).content
    assert asyncio.run(get()) == b"VERDICT"
