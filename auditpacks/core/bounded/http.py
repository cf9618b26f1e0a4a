"""HTTP under budgets: every response body is read whole under a byte cap and one total deadline.

Every client that talks to a model server (the OpenAI-compatible and native Ollama providers,
decision endpoints, the Ollama probe, serve-decision's upstream) is made here. Its transport
reads each response body as a stream before handing it on and stops:

* at ``max_bytes`` (default :data:`MAX_REPLY_BYTES`, ``AUDITPACKS_MAX_REPLY_BYTES`` overrides it),
  counting the decoded bytes, with :class:`ReplyTooLarge` (never retried);
* at the request's time-out (its ``read`` time-out, else ``deadline``) counted from when the request
  was sent, as a total, whatever the server drips, with
  :class:`DeadlineExceeded` (an ``httpx`` time-out, so retried like one);
* at a redirect to another host, with :class:`RedirectRefused` (the prompt and documents never
  go elsewhere; same-host redirects are followed).

:func:`streamed_client` is the synchronous form for SDKs that download files as streams (a batch's
results): bodies are counted as they are read, at the same cap (a file download at its own), and
the deadline is checked at every chunk.

Requests ask for an uncompressed body; a server that compresses anyway is decoded under the
same cap (gzip, deflate), any other encoding is refused. Memory per request is thus bounded by
the cap, whatever the server sends.
"""

from __future__ import annotations

import asyncio
import os
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import httpx

#: Largest response body read (decoded), far above any real model reply (a few hundred kilobytes).
MAX_REPLY_BYTES = 64 * 2**20
MAX_REPLY_VARIABLE = "AUDITPACKS_MAX_REPLY_BYTES"
#: A judge's or auditor's reply is a verdict or a question (kilobytes): its cap is far lower.
MAX_ROLE_REPLY_BYTES = 2 * 2**20


class BudgetExceeded(httpx.TransportError):
    """A response broke a budget; the message names the budget."""


class ReplyTooLarge(BudgetExceeded):
    """The response body is over the byte cap."""


class RedirectRefused(BudgetExceeded):
    """A redirect pointed at another host."""


class DeadlineExceeded(httpx.TimeoutException):
    """No complete response within the request's total deadline."""


def max_reply_bytes() -> int:
    """The byte cap: ``AUDITPACKS_MAX_REPLY_BYTES`` when set to a positive integer, else the default."""
    value = os.environ.get(MAX_REPLY_VARIABLE, "")
    return int(value) if value.isdigit() and int(value) > 0 else MAX_REPLY_BYTES


def role_reply_bytes() -> int:
    """The byte cap on a judge's or auditor's reply: :data:`MAX_ROLE_REPLY_BYTES`, or the reply cap when lower."""
    return min(MAX_ROLE_REPLY_BYTES, max_reply_bytes())


def budget_error(exc: BaseException | None) -> BudgetExceeded | None:
    """The :class:`BudgetExceeded` behind ``exc`` (itself, or its cause or context), if any."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, BudgetExceeded):
            return exc
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


def _where(url: httpx.URL) -> str:
    """The server a reply came from, for an error line: host and port, never credentials or path."""
    return f"{url.host}:{url.port}" if url.port else url.host


def _cap_text(limit: int) -> str:
    return f"{limit / 2**20:g} MiB" if limit >= 2**20 else f"{limit} bytes"


class _Origin:
    """The one host every request must go to (None: the first request's)."""

    def __init__(self, origin: str | None) -> None:
        self.origin = _origin(httpx.URL(origin)) if origin else None

    def check(self, request: httpx.Request) -> None:
        if self.origin is None:
            self.origin = _origin(request.url)
        elif _origin(request.url) != self.origin:
            scheme, host, port = self.origin
            raise RedirectRefused(f"refused a redirect from {scheme}://{host}{f':{port}' if port else ''} to "
                                  f"another host ({request.url.host}); the request is not sent elsewhere",
                                  request=request)


class _Body:
    """Collects a body's bytes, decoding gzip or deflate, and refuses more than ``limit`` of them."""

    def __init__(self, encoding: str, limit: int, request: httpx.Request) -> None:
        self.limit, self.request, self.size, self.parts = limit, request, 0, []
        encoding = encoding.strip().lower()
        if encoding in ("", "identity"):
            self.inflate = None
        elif encoding in ("gzip", "x-gzip", "deflate"):
            self.inflate = zlib.decompressobj(47)  # gzip or zlib header, detected
        else:
            raise httpx.DecodingError(f"unsupported content-encoding {encoding!r}", request=request)

    def add(self, chunk: bytes) -> None:
        if self.inflate is None:
            return self._keep(chunk)
        data = chunk
        try:
            while data:
                self._keep(self.inflate.decompress(data, self.limit - self.size + 1))
                data = self.inflate.unconsumed_tail
        except zlib.error as exc:
            raise httpx.DecodingError(f"compressed body cannot be read: {exc}", request=self.request) from None

    def _keep(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.limit:
            raise ReplyTooLarge(f"reply from {_where(self.request.url)} over the {_cap_text(self.limit)} cap on a "
                                f"response body ({MAX_REPLY_VARIABLE}); the rest was not read", request=self.request)
        self.parts.append(data)

    def content(self) -> bytes:
        return b"".join(self.parts)


class BoundedAsyncTransport(httpx.AsyncBaseTransport):
    """An async transport that reads each body under the byte cap within ``deadline`` seconds.

    ``origin``: the base URL whose host every request must go to (None: the first request's).
    ``pooled=False`` opens a connection per request, for clients used from more than one event loop."""

    def __init__(self, *, deadline: float | None, origin: str | None = None, max_bytes: int | None = None,
                 pooled: bool = True, body_filter: Callable[[bytes], bytes] | None = None) -> None:
        self.deadline, self.max_bytes, self.body_filter = deadline, max_bytes, body_filter
        self.origin = _Origin(origin)
        self._inner = httpx.AsyncHTTPTransport() if pooled else None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.origin.check(request)
        request.headers["Accept-Encoding"] = "identity"
        deadline = (request.extensions.get("timeout") or {}).get("read", self.deadline)
        inner = self._inner or httpx.AsyncHTTPTransport()
        try:
            async with asyncio.timeout(deadline):
                return await self._fetch(inner, request)
        except TimeoutError:
            raise DeadlineExceeded(f"timed out: no complete reply from {_where(request.url)} within the "
                                   f"{deadline:g} s deadline", request=request) from None
        finally:
            if self._inner is None:
                await inner.aclose()

    async def _fetch(self, inner: httpx.AsyncBaseTransport, request: httpx.Request) -> httpx.Response:
        response = await inner.handle_async_request(request)
        try:
            body = _Body(response.headers.get("content-encoding", ""), self.max_bytes or max_reply_bytes(), request)
            async for chunk in response.stream:
                body.add(chunk)
        finally:
            await response.aclose()
        headers = [(k, v) for k, v in response.headers.multi_items()
                   if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
        content = body.content() if self.body_filter is None else self.body_filter(body.content())
        return httpx.Response(response.status_code, headers=headers, content=content, request=request,
                              extensions={k: v for k, v in response.extensions.items()
                                          if k in ("http_version", "reason_phrase")})

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()


class BoundedTransport(httpx.BaseTransport):
    """The synchronous form: each request runs on :class:`BoundedAsyncTransport` in a thread of its own,
    so the deadline holds against a slow drip there too."""

    def __init__(self, *, deadline: float | None, origin: str | None = None, max_bytes: int | None = None) -> None:
        self._async = BoundedAsyncTransport(deadline=deadline, origin=origin, max_bytes=max_bytes, pooled=False)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        copy = httpx.Request(request.method, request.url, headers=request.headers, content=request.read(),
                             extensions=request.extensions)
        with ThreadPoolExecutor(1) as worker:
            response = worker.submit(asyncio.run, self._async.handle_async_request(copy)).result()
        return httpx.Response(response.status_code, headers=response.headers, content=response.content,
                              request=request, extensions=response.extensions)


class _CountedStream(httpx.SyncByteStream):
    """A response body handed on as it comes, counted against the cap and the total deadline at every chunk."""

    def __init__(self, inner: httpx.SyncByteStream, limit: int, until: float | None, request: httpx.Request) -> None:
        self.inner, self.limit, self.until, self.request = inner, limit, until, request

    def __iter__(self):
        size = 0
        for chunk in self.inner:
            size += len(chunk)
            if size > self.limit:
                raise ReplyTooLarge(f"download from {_where(self.request.url)} over the {_cap_text(self.limit)} "
                                    "cap; the rest was not read", request=self.request)
            if self.until is not None and time.monotonic() > self.until:
                raise DeadlineExceeded(f"timed out: the download from {_where(self.request.url)} took longer than "
                                       "its deadline", request=self.request)
            yield chunk

    def close(self) -> None:
        self.inner.close()


class StreamedTransport(httpx.BaseTransport):
    """Synchronous and streamed, for SDKs that download files as they arrive (a batch's results): a body is
    not buffered here but counted at every chunk against its cap and the total deadline (the read time-out
    bounds the wait for one chunk). A request for ``application/binary`` (the SDKs' file downloads) may
    take ``download_bytes``, any other the reply cap; same host only, no compression asked for."""

    def __init__(self, *, deadline: float | None, download_bytes: int, origin: str | None = None,
                 max_bytes: int | None = None) -> None:
        self.deadline, self.download_bytes, self.max_bytes = deadline, download_bytes, max_bytes
        self.origin = _Origin(origin)
        self._inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.origin.check(request)
        request.headers["Accept-Encoding"] = "identity"
        deadline = (request.extensions.get("timeout") or {}).get("read", self.deadline)
        download = request.headers.get("accept", "").strip().lower() == "application/binary"
        limit = self.download_bytes if download else self.max_bytes or max_reply_bytes()
        response = self._inner.handle_request(request)
        until = time.monotonic() + deadline if deadline else None
        return httpx.Response(response.status_code, headers=response.headers, request=request,
                              stream=_CountedStream(response.stream, limit, until, request),
                              extensions=response.extensions)

    def close(self) -> None:
        self._inner.close()


def _client_options(timeout: float | None, kwargs: dict[str, Any]) -> dict[str, Any]:
    return {"timeout": httpx.Timeout(timeout), "follow_redirects": True, **kwargs}


def async_client(origin: str | None, *, timeout: float | None, max_bytes: int | None = None, pooled: bool = True,
                 body_filter: Callable[[bytes], bytes] | None = None, **kwargs: Any) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` whose every response is read under the budgets (``timeout``: the total deadline;
    ``body_filter``: applied to each whole body before it is handed on)."""
    transport = BoundedAsyncTransport(deadline=timeout, origin=origin, max_bytes=max_bytes, pooled=pooled,
                                      body_filter=body_filter)
    return httpx.AsyncClient(transport=transport, **_client_options(timeout, kwargs))


def client(origin: str | None, *, timeout: float | None, max_bytes: int | None = None, **kwargs: Any) -> httpx.Client:
    """An ``httpx.Client`` whose every response is read under the budgets (``timeout``: the total deadline)."""
    transport = BoundedTransport(deadline=timeout, origin=origin, max_bytes=max_bytes)
    return httpx.Client(transport=transport, **_client_options(timeout, kwargs))


def streamed_client(origin: str | None, *, timeout: float | None, download_bytes: int, **kwargs: Any) -> httpx.Client:
    """An ``httpx.Client`` for an SDK that downloads files as streams (:class:`StreamedTransport`)."""
    transport = StreamedTransport(deadline=timeout, download_bytes=download_bytes, origin=origin)
    return httpx.Client(transport=transport, **_client_options(timeout, kwargs))
