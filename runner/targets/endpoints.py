"""Several replicas of one model behind one target: documents spread by rendezvous hashing, failover.

``--base-url`` given several times (or ``--endpoints FILE``) makes one inner target per
endpoint. Each scenario's document (the executor's document key of its group, else the
sha256 of its ``documents``, else its journal key) goes to the live endpoint with the
highest rendezvous score, ``blake2b(url, key)``:
every question about a document reaches the same replica, whose prefix cache then holds
that document, and the split needs no coordination between runs or shards. The pool is
also the executor's placement (:mod:`runner.execution.schedule`): each replica runs its
share of the workers, so all work at once and none uses more slots than its share needs. An endpoint
whose call still fails after the retry layer (refused or dropped connections, 5xx,
time-outs) is taken out for the rest of the run; its documents, and only its, move to
their next-highest endpoint, and the failed call is sent there at once, so no scenario
is lost. A request the endpoint rejected (400, 401, ...) is the scenario's error, as
with one endpoint. When every endpoint is out, the run stops (``fatal``).

``assignment="random"`` sends each request to a random live endpoint instead: the
baseline document affinity is measured against (``scripts/bench_scale.py``).
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from dataclasses import dataclass, field
from typing import Any

from auditpacks.core.numbers import token_count
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.retry import CallFailed
from auditpacks.runner.targets import turns
from auditpacks.runner.targets.contract import RunTarget
from auditpacks.runner.targets.providers import public_url

ASSIGNMENTS = ("document", "random")


@dataclass
class Endpoint:
    url: str
    target: RunTarget
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    documents: set[str] = field(default_factory=set)
    failed: str | None = None

    def stats(self) -> dict[str, Any]:
        inner = self.target.stats()
        return {"base_url": public_url(self.url), "calls": self.calls, "documents": len(self.documents),
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "server_prompt_tokens": inner.get("server_prompt_tokens"), "failed": self.failed}


def rendezvous_score(url: str, key: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{url}\n{key}".encode(), digest_size=8).digest(), "big")


def rank(urls: list[str], key: str) -> list[str]:
    """``urls`` from the best home of ``key`` to the worst (highest rendezvous score first)."""
    return sorted(urls, key=lambda url: rendezvous_score(url, key), reverse=True)


def document_of(documents: Any, history: Any, user: str | None) -> str:
    """The key a request is placed by: its group's document key (in the executor), else its documents
    (given, or in the transcript), else the scenario it belongs to, else its prompt."""
    log = turns.current()
    if log is not None and log.group:
        return log.group
    if not documents:
        documents = next((entry.get("documents") for entry in history or [] if isinstance(entry, dict)
                          and entry.get("documents")), None)
    if documents:
        blob = json.dumps(documents, sort_keys=True, ensure_ascii=False, default=str)
        return "documents:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()
    if log is not None and log.key:
        return "scenario:" + log.key
    return "prompt:" + hashlib.sha256(str(user).encode("utf-8")).hexdigest()


class EndpointPool(RunTarget):
    """A target that sends each call to one of several inner targets (same model, other servers)."""

    def __init__(self, endpoints: list[tuple[str, RunTarget]], *, assignment: str = "document", seed: int = 0) -> None:
        if assignment not in ASSIGNMENTS:
            raise RunError(f"--endpoint-assignment {assignment!r}: choose {' or '.join(ASSIGNMENTS)}")
        self.endpoints = [Endpoint(url=url, target=target) for url, target in endpoints]
        self.assignment = assignment
        self._rng = random.Random(seed)

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

    @property
    def placement(self) -> "EndpointPool | None":  # type: ignore[override]
        """The executor's placement: this pool when it places by document (random placement has none)."""
        return self if self.assignment == "document" else None

    def home(self, key: str) -> str | None:
        """The endpoint a document key goes to now (None when every endpoint is out)."""
        live = self.live
        return self.choose(key, live).url if live else None

    def live_count(self) -> int:
        return len(self.live)

    def prepare(self) -> dict[str, Any]:
        """Each live endpoint's ``prepare`` (Ollama: the model's digest), which must agree."""
        found: dict[str, Any] = {}
        for endpoint in self.live:
            info = endpoint.target.prepare()
            if found and info.get("digest") != found.get("digest"):
                raise RunError(f"{endpoint.url} serves another model (digest {info.get('digest')}) than "
                               f"the other endpoints ({found.get('digest')})")
            found = found or dict(info)
        return found

    async def send(self, *, documents: Any = None, user: str = "", history: Any = None, **kwargs: Any):
        key = document_of(documents, history, user)
        tried: set[str] = set()
        while True:
            live = [e for e in self.live if e.url not in tried]
            if not live:
                raise RunError("every endpoint failed: " + "; ".join(f"{e.url}: {e.failed}" for e in self.endpoints
                                                                    if e.failed))
            endpoint = self.choose(key, live)
            tried.add(endpoint.url)
            try:
                response = await endpoint.target.send(documents=documents, user=user, history=history, **kwargs)
            except CallFailed as exc:
                if not exc.retryable:
                    raise
                self.take_out(endpoint, str(exc))
                continue
            endpoint.calls += 1
            endpoint.documents.add(key)
            endpoint.input_tokens += token_count(response.input_tokens) or 0
            endpoint.output_tokens += token_count(response.output_tokens) or 0
            return response

    @property
    def fatal(self) -> BaseException | None:
        """An inner target's fatal error, or every endpoint out: the run stops."""
        for endpoint in self.endpoints:
            problem = endpoint.target.fatal
            if problem is not None:
                return problem
        if not self.live:
            return RunError("every endpoint failed: " + "; ".join(f"{e.url}: {e.failed}" for e in self.endpoints))
        return None

    def stats(self) -> dict[str, Any]:
        """For the run file: the assignment, per-endpoint figures, and the servers' prefill added up."""
        per = [e.stats() for e in self.endpoints]
        reported = [p["server_prompt_tokens"] for p in per if p["server_prompt_tokens"]]
        total = ({k: sum(r[k] for r in reported) for k in ("requests", "prompt_n", "cache_n")} if reported else None)
        return {"assignment": self.assignment, "endpoints": per, "server_prompt_tokens": total}

    async def aclose(self) -> None:
        for endpoint in self.endpoints:
            await endpoint.target.aclose()
