"""``bounded_http.client``'s stand-in on a scripted transport, for code that asks a server one cheap question."""

from __future__ import annotations

from collections.abc import Callable

import httpx


class ScriptedHTTP:
    """Answers every request with ``answer`` (a response, or an exception to raise) and keeps
    ``note(origin, timeout, request)`` of each in ``seen``; ``client`` replaces ``bounded_http.client``."""

    def __init__(self, answer: object, note: Callable[[str, float, httpx.Request], object]) -> None:
        self.answer, self.note, self.seen = answer, note, []

    def client(self, origin: str, *, timeout: float) -> httpx.Client:
        def handle(request: httpx.Request) -> httpx.Response:
            self.seen.append(self.note(origin, timeout, request))
            if isinstance(self.answer, Exception):
                raise self.answer
            return self.answer
        return httpx.Client(transport=httpx.MockTransport(handle))
