"""The one model-call path: :class:`Model` applies cache, retries, failover, redaction and token counts.

A provider (:class:`ModelAPI`) turns one :class:`~auditpacks.runner.models.reply.Request`
into one :class:`~auditpacks.runner.models.reply.Reply` and knows nothing else: it
builds its wire body (:meth:`ModelAPI.build`, which may refuse the request), names the
body's cache address (:meth:`ModelAPI.cache_key`) and makes one attempt
(:meth:`ModelAPI.call`). :meth:`Model.generate` does the rest, once for every provider::

    endpoint = pool.next(request.route)       → one provider, or the request's replica (endpoints.py)
    key = api.cache_key(body, request)        → cache hit: the stored reply (cached=True)
    await api.before_call()                   → e.g. a deferred reachability check
    reply = call_with_retries(api.call(body, request))   → error text blanked of secrets; the request's
                                                           own time limit, if it has one, per attempt
      still failing at the endpoint (5xx, transport, time-out; never a 4xx), several endpoints:
      the endpoint is taken out and the request goes to the next one
    cache.put(key, reply.record()); counts += reply's tokens
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from auditpacks.core.redact import KEY_MARK, redact
from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.endpoints import EndpointPool
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.hooks import Hooks
from auditpacks.runner.models.reply import Reply, Request
from auditpacks.runner.models.retry import CallFailed, RetryPolicy, call_with_retries
from auditpacks.runner.models.usage import Usage


#: Distinct model names a run records as served (a server that names a new one per reply stays bounded).
MAX_SERVED_NAMES = 10


class ModelAPI(Hooks):
    """A provider: one request in, one reply out; no cache and no retries (the :class:`Model` adds them);
    ``prepare``, ``fatal``, ``stats`` and ``aclose`` as in :class:`~auditpacks.runner.models.hooks.Hooks`."""

    #: The key this provider sends (blanked out of error text), if any.
    secret: str | None = None
    #: Whether requests need facts read from the server first (:meth:`prepare`); they are then kept in
    #: ``facts`` and remembered in the cache under ``address`` and ``model``, for ``--cache-only``.
    needs_facts = False
    #: Whether the provider can do without its facts (``--cache-only`` with none remembered: its URL names it).
    facts_optional = False
    facts: dict[str, Any] | None = None
    address: str | None = None
    model: str = ""
    #: Whether the provider caches the prompt prefix only up to a block marked ``cache_control`` (the chat
    #: target then marks the document block).
    cache_marks = False

    def build(self, request: Request) -> Any:
        """The provider's request body for ``request`` (raise to refuse it, e.g. a prompt too long)."""
        raise NotImplementedError

    def cache_key(self, body: Any, request: Request) -> dict[str, Any]:
        """The address of this body's reply in the response cache."""
        raise NotImplementedError

    def old_cache_key(self, body: Any, request: Request) -> dict[str, Any] | None:
        """The address an earlier version gave this body's reply, still read (None: the same as now)."""
        return None

    async def call(self, body: Any, request: Request) -> Reply:
        """One attempt; any exception is classified by the retry layer."""
        raise NotImplementedError

    async def before_call(self) -> None:
        """Runs before the first request the cache cannot answer (nothing by default)."""

    def check(self, *, who: str | None = None, hint: str = "") -> None:
        """One cheap request before the run: raise a one-line ``RunError`` (``who`` first, ``hint`` where to fix
        it) when the endpoint cannot answer; nothing by default (a provider that is checked otherwise)."""


def endpoint_down(failed: CallFailed) -> bool:
    """Whether a call that failed after its retries says the endpoint is down (transport, time-out, 5xx), not
    that it turned the request away (any 4xx, 408 and 429 included)."""
    return failed.retryable and not (failed.status is not None and 400 <= failed.status < 500)


def secret_scrubber(secret: str | None) -> Callable[[str], str]:
    """A function that blanks ``secret`` and every other known secret out of error text."""
    if not secret or len(secret) < 4:
        return redact
    return lambda text: redact(text.replace(secret, KEY_MARK))


class Model:
    """A provider (or a pool of replicas) behind the response cache, the retry layer and failover, counting
    calls, cache hits and tokens."""

    def __init__(self, api: ModelAPI | EndpointPool, *, policy: RetryPolicy,
                 cache: ResponseCache | None = None) -> None:
        self.pool = api if isinstance(api, EndpointPool) else EndpointPool([(api.address or "", api)])
        self.api = self.pool.endpoints[0].api
        self.policy, self.cache = policy, cache
        self.counts = {"calls": 0, "requests": 0, "cache_hits": 0, "input_tokens": 0, "output_tokens": 0}
        self.usage = Usage()   # normalised tokens of the replies the provider sent (and billed)
        self.served: dict[str, int] = {}   # the model names the servers reported, and how many replies each

    async def generate(self, request: Request) -> Reply:
        """The reply to ``request``: from the cache when it holds one, else from the provider (retried; with
        several endpoints, from the next one when the request's endpoint fails)."""
        tried: set[str] = set()
        while True:
            endpoint = self.pool.next(request.route, tried)
            tried.add(endpoint.url)
            try:
                reply = await self._generate_at(endpoint.api, request)
            except CallFailed as exc:
                if not (self.pool.several and endpoint_down(exc)):
                    raise
                self.pool.take_out(endpoint, str(exc))
                continue
            break
        self.pool.served(endpoint, request.route, reply.input_tokens, reply.output_tokens)
        self.counts["calls"] += 1
        self.counts["cache_hits" if reply.cached else "requests"] += 1
        self.counts["input_tokens"] += reply.input_tokens or 0
        self.counts["output_tokens"] += reply.output_tokens or 0
        return reply

    async def _generate_at(self, api: ModelAPI, request: Request) -> Reply:
        if api.needs_facts and api.facts is None and (self.cache is not None or not api.facts_optional):
            self.prepare_api(api)
        body = api.build(request)
        key = api.cache_key(body, request) if self.cache is not None else None
        if self.cache is not None:   # else an entry written under the key an earlier version used
            old = api.old_cache_key(body, request)
            stored = self.cache.get(key, *([old] if old is not None else []))
        else:
            stored = None
        if stored is not None:
            return Reply.from_record(stored, cached=True)
        await api.before_call()
        policy = replace(self.policy, timeout=request.timeout) if request.timeout else self.policy
        reply = await call_with_retries(lambda: api.call(body, request), policy,
                                        scrub=secret_scrubber(api.secret))
        if self.cache is not None:
            self.cache.put(key, reply.record())
        if reply.served_model and (reply.served_model in self.served or len(self.served) < MAX_SERVED_NAMES):
            self.served[reply.served_model] = self.served.get(reply.served_model, 0) + 1
        self.usage += Usage(reply.input_tokens or 0, reply.cached_input_tokens or 0,
                            reply.cache_write_tokens or 0, reply.output_tokens or 0)
        return reply

    def prepare(self) -> dict[str, Any]:
        """The provider's facts about the model (several endpoints: each live one's, which must agree)."""
        found: dict[str, Any] = {}
        for endpoint in self.pool.live if self.pool.several else self.pool.endpoints:
            info = self.prepare_api(endpoint.api)
            if found and info.get("digest") != found.get("digest"):
                raise RunError(f"{endpoint.url} serves another model (digest {info.get('digest')}) than "
                               f"the other endpoints ({found.get('digest')})")
            found = found or dict(info)
        return found

    def prepare_api(self, api: ModelAPI) -> dict[str, Any]:
        """One provider's facts about the model: read from the server (and remembered in the cache), or with
        ``--cache-only`` recalled from the cache (optional facts, such as the model an OpenAI-compatible server
        serves, are recalled whenever the cache holds them, so a warm rerun asks no server)."""
        if not api.needs_facts:
            return api.prepare()
        if self.cache is not None and (self.cache.only or api.facts_optional):
            facts = self.cache.recall_model(api.address, api.model)
            if facts is None and self.cache.only and api.facts_optional:   # known by its URL, as before it was asked
                facts = {}
            if facts is None and self.cache.only:
                raise RunError(f"--cache-only: the cache holds no facts about {api.model} at {api.address}; "
                               "run once with the server")
        else:
            facts = None
        if facts is None:
            facts = api.prepare()
            if self.cache is not None and (facts or not api.facts_optional):   # "nothing said" is asked again
                self.cache.remember_model(api.address, api.model, facts)
        api.facts = facts
        return facts

    @property
    def placement(self) -> EndpointPool | None:
        """Where the executor places document groups (several endpoints placed by document), else None."""
        return self.pool.placement

    @property
    def fatal(self) -> BaseException | None:
        return self.pool.fatal

    def stats(self) -> dict[str, Any]:
        """The providers' figures, and the normalised usage of what they answered (when they sent anything)."""
        usage = {"usage": self.usage.to_dict()} if self.usage.input or self.usage.output else {}
        served = {"served_models": dict(self.served)} if self.served else {}
        return {**self.pool.stats(), **usage, **served}

    async def aclose(self) -> None:
        await self.pool.aclose()
