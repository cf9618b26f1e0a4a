"""Several replicas of one model behind one :class:`~auditpacks.runner.models.model.Model`: placement, failover.

``--base-url`` given several times (or ``--endpoints FILE``) gives the model one provider
per endpoint. Each request names the key it is placed by (``Request.route``: the
executor's document key of its group, else the sha256 of its ``documents``, else its
journal key) and goes to the live endpoint with the highest rendezvous score,
``blake2b(url, key)``: every question about a document reaches the same replica, whose
prefix cache then holds that document, and the split needs no coordination between runs
or shards. The pool is also the executor's placement (:mod:`runner.execute.schedule`):
each replica runs its share of the workers. An endpoint whose call still fails after the
retry layer (refused or dropped connections, 5xx, time-outs) is taken out for the rest of
the run; its documents, and only its, move to their next-highest endpoint, and the failed
call is sent there at once, so no scenario is lost. A request the endpoint turned away with
a 4xx (400, 401, ..., and 408 or 429 once their retries are spent) is the scenario's error,
and the endpoint stays. When every endpoint is out, the
run stops (``fatal``).

``assignment="random"`` sends each request to a random live endpoint instead: the
baseline document affinity is measured against (``scripts/bench_scale.py``).
"""

from __future__ import annotations

import hashlib
import random
import sys
from dataclasses import dataclass, field
from typing import Any

from auditpacks.core.numbers import token_count
from auditpacks.core.redact import public_url
from auditpacks.runner.models.errors import RunError

ASSIGNMENTS = ("document", "random")


@dataclass
class Endpoint:
    """One replica: its URL, its provider (a ``ModelAPI``) and what it served."""

    url: str
    api: Any
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    documents: set[str] = field(default_factory=set)
    failed: str | None = None

    def stats(self) -> dict[str, Any]:
        inner = self.api.stats()
        return {"base_url": public_url(self.url), "calls": self.calls, "documents": len(self.documents),
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "server_prompt_tokens": inner.get("server_prompt_tokens"), "failed": self.failed}


def rendezvous_score(url: str, key: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{url}\n{key}".encode(), digest_size=8).digest(), "big")


def rank(urls: list[str], key: str) -> list[str]:
    """``urls`` from the best home of ``key`` to the worst (highest rendezvous score first)."""
    return sorted(urls, key=lambda url: rendezvous_score(url, key), reverse=True)


class EndpointPool:
    """The endpoints of one model; with one endpoint there is nothing to place and nothing fails over."""

    def __init__(self, endpoints: list[tuple[str, Any]], *, assignment: str = "document", seed: int = 0) -> None:
        if assignment not in ASSIGNMENTS:
            raise RunError(f"--endpoint-assignment {assignment!r}: choose {' or '.join(ASSIGNMENTS)}")
        self.endpoints = [Endpoint(url=url, api=api) for url, api in endpoints]
        self.assignment = assignment
        self._rng = random.Random(seed)

    @property
    def several(self) -> bool:
        return len(self.endpoints) > 1

    @property
    def live(self) -> list[Endpoint]:
        return [e for e in self.endpoints if e.failed is None]

    def take_out(self, endpoint: Endpoint, reason: str) -> None:
        if endpoint.failed is None:
            endpoint.failed = reason
            moved = len(endpoint.documents)
            print(f"auditpacks: warning: endpoint {endpoint.url} taken out ({reason}); its {moved} "
                  f"document(s) move to the other endpoints", file=sys.stderr)

    def choose(self, key: str, live: list[Endpoint]) -> Endpoint:
        if self.assignment == "random":
            return self._rng.choice(live)
        best = rank([e.url for e in live], key)[0]
        return next(e for e in live if e.url == best)

    def next(self, key: str | None, tried: set[str]) -> Endpoint:
        """The endpoint for a request placed by ``key``, leaving out those ``tried`` already."""
        if not self.several:
            return self.endpoints[0]
        live = [e for e in self.live if e.url not in tried]
        if not live:
            raise RunError("every endpoint failed: " + "; ".join(f"{e.url}: {e.failed}" for e in self.endpoints
                                                                if e.failed))
        return self.choose(key or "", live)

    def served(self, endpoint: Endpoint, key: str | None, input_tokens: int | None,
               output_tokens: int | None) -> None:
        endpoint.calls += 1
        endpoint.documents.add(key or "")
        endpoint.input_tokens += token_count(input_tokens) or 0
        endpoint.output_tokens += token_count(output_tokens) or 0

    @property
    def placement(self) -> "EndpointPool | None":
        """The executor's placement: this pool when it spreads documents over several endpoints."""
        return self if self.several and self.assignment == "document" else None

    def home(self, key: str) -> str | None:
        """The endpoint a document key goes to now (None when every endpoint is out)."""
        live = self.live
        return self.choose(key, live).url if live else None

    def live_count(self) -> int:
        return len(self.live)

    @property
    def fatal(self) -> BaseException | None:
        """A provider's fatal error, or every endpoint out: the run stops."""
        for endpoint in self.endpoints:
            problem = endpoint.api.fatal
            if problem is not None:
                return problem
        if self.several and not self.live:
            return RunError("every endpoint failed: " + "; ".join(f"{e.url}: {e.failed}" for e in self.endpoints))
        return None

    def stats(self) -> dict[str, Any]:
        """For the run file: one endpoint's own figures; several: the assignment, per-endpoint figures and the
        servers' prefill added up."""
        if not self.several:
            return self.endpoints[0].api.stats()
        per = [e.stats() for e in self.endpoints]
        reported = [p["server_prompt_tokens"] for p in per if p["server_prompt_tokens"]]
        total = ({k: sum(r[k] for r in reported) for k in ("requests", "prompt_n", "cache_n")} if reported else None)
        return {"assignment": self.assignment, "endpoints": per, "server_prompt_tokens": total}

    async def aclose(self) -> None:
        for endpoint in self.endpoints:
            await endpoint.api.aclose()
