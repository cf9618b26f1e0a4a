"""The one model-call path: :class:`Model` applies cache, retries, redaction and token counts to a provider.

A provider (:class:`ModelAPI`) turns one :class:`~auditpacks.runner.models.reply.Request`
into one :class:`~auditpacks.runner.models.reply.Reply` and knows nothing else: it
builds its wire body (:meth:`ModelAPI.build`, which may refuse the request), names the
body's cache address (:meth:`ModelAPI.cache_key`) and makes one attempt
(:meth:`ModelAPI.call`). :meth:`Model.generate` does the rest, once for every provider::

    key = api.cache_key(body, request)        → cache hit: the stored reply (cached=True)
    await api.before_call()                   → e.g. a deferred reachability check
    reply = call_with_retries(api.call(body, request))   → error text blanked of secrets
    cache.put(key, reply.record()); counts += reply's tokens
"""

from __future__ import annotations

from typing import Any, Callable

from auditpacks.core.redact import KEY_MARK, redact
from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.models.retry import RetryPolicy, call_with_retries
from auditpacks.runner.models.usage import Usage


class ModelAPI:
    """A provider: one request in, one reply out; no cache and no retries (the :class:`Model` adds them)."""

    #: The key this provider sends (blanked out of error text), if any.
    secret: str | None = None
    #: Whether requests need facts read from the server first (:meth:`prepare`); they are then kept in
    #: ``facts`` and remembered in the cache under ``address`` and ``model``, for ``--cache-only``.
    needs_facts = False
    facts: dict[str, Any] | None = None
    address: str | None = None
    model: str = ""

    def build(self, request: Request) -> Any:
        """The provider's request body for ``request`` (raise to refuse it, e.g. a prompt too long)."""
        raise NotImplementedError

    def cache_key(self, body: Any, request: Request) -> dict[str, Any]:
        """The address of this body's reply in the response cache."""
        raise NotImplementedError

    async def call(self, body: Any, request: Request) -> Reply:
        """One attempt; any exception is classified by the retry layer."""
        raise NotImplementedError

    async def before_call(self) -> None:
        """Runs before the first request the cache cannot answer (nothing by default)."""

    def prepare(self) -> dict[str, Any]:
        """Facts about the model read before the run (e.g. its weights' ``digest``)."""
        return {}

    @property
    def fatal(self) -> BaseException | None:
        """An error that stops the whole run (None: none)."""
        return None

    def stats(self) -> dict[str, Any]:
        return {}

    async def aclose(self) -> None:
        return None


def secret_scrubber(secret: str | None) -> Callable[[str], str]:
    """A function that blanks ``secret`` and every other known secret out of error text."""
    if not secret or len(secret) < 4:
        return redact
    return lambda text: redact(text.replace(secret, KEY_MARK))


class Model:
    """A provider behind the response cache and the retry layer, counting calls, cache hits and tokens."""

    def __init__(self, api: ModelAPI, *, policy: RetryPolicy, cache: ResponseCache | None = None) -> None:
        self.api, self.policy, self.cache = api, policy, cache
        self.counts = {"calls": 0, "requests": 0, "cache_hits": 0, "input_tokens": 0, "output_tokens": 0}
        self.usage = Usage()   # normalised tokens of the replies the provider sent (and billed)
        self._scrub = secret_scrubber(api.secret)

    async def generate(self, request: Request) -> Reply:
        """The reply to ``request``: from the cache when it holds one, else from the provider (retried)."""
        if self.api.needs_facts and self.api.facts is None:
            self.prepare()
        body = self.api.build(request)
        key = self.api.cache_key(body, request) if self.cache is not None else None
        stored = self.cache.get(key) if self.cache is not None else None
        if stored is not None:
            reply = Reply.from_record(stored, cached=True)
        else:
            await self.api.before_call()
            reply = await call_with_retries(lambda: self.api.call(body, request), self.policy, scrub=self._scrub)
            if self.cache is not None:
                self.cache.put(key, reply.record())
            self.usage += Usage(reply.input_tokens or 0, reply.cached_input_tokens or 0,
                                reply.cache_write_tokens or 0, reply.output_tokens or 0)
        self.counts["calls"] += 1
        self.counts["cache_hits" if reply.cached else "requests"] += 1
        self.counts["input_tokens"] += reply.input_tokens or 0
        self.counts["output_tokens"] += reply.output_tokens or 0
        return reply

    def prepare(self) -> dict[str, Any]:
        """The provider's facts about the model: read from the server (and remembered in the cache), or with
        ``--cache-only`` recalled from the cache."""
        api = self.api
        if not api.needs_facts:
            return api.prepare()
        if self.cache is not None and self.cache.only:
            facts = self.cache.recall_model(api.address, api.model)
            if facts is None:
                raise RunError(f"--cache-only: the cache holds no facts about {api.model} at {api.address}; "
                               "run once with the server")
        else:
            facts = api.prepare()
            if self.cache is not None:
                self.cache.remember_model(api.address, api.model, facts)
        api.facts = facts
        return facts

    @property
    def fatal(self) -> BaseException | None:
        return self.api.fatal

    def stats(self) -> dict[str, Any]:
        """The provider's figures, and the normalised usage of what it answered (when it sent anything)."""
        usage = {"usage": self.usage.to_dict()} if self.usage.input or self.usage.output else {}
        return {**self.api.stats(), **usage}

    async def aclose(self) -> None:
        await self.api.aclose()
