"""The chat endpoint a run talks to, and the embedded model's server while the run (or judge-check) needs it."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Iterator

from auditpacks.core.io import sha256_file
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.providers import EMBEDDED_MODEL
from auditpacks.runner.readiness.model_setup import uses_embedded
from auditpacks.runner.settings.config import RunConfig


@dataclass
class Endpoint:
    model: str
    base_url: str | None
    embedded: bool = False
    embedded_url: str | None = None   # the embedded model's server, when it runs (target, judge or auditor)


@contextlib.contextmanager
def endpoint(config: RunConfig) -> Iterator[Endpoint]:
    """The chat endpoint to talk to; starts (and afterwards stops) the embedded model when none is given.

    With ``--cache-only`` the embedded model is not started: every reply comes from the cache.
    """
    target = config.target
    if not (target.embedded or uses_embedded(config.roles)) or config.execution.cache_only:
        yield Endpoint(model=target.model or EMBEDDED_MODEL, base_url=target.base_url, embedded=target.embedded)
        return
    from auditpacks.runner.serving.embedded import EmbeddedModel

    try:
        server = EmbeddedModel(ctx=target.embedded_ctx)
        with server as running:
            if target.embedded:
                yield Endpoint(model=EMBEDDED_MODEL, base_url=running.base_url, embedded=True,
                               embedded_url=running.base_url)
            else:
                yield Endpoint(model=target.model or EMBEDDED_MODEL, base_url=target.base_url,
                               embedded_url=running.base_url)
    except RuntimeError as exc:
        raise RunError(f"embedded model: {exc}") from None


def embedded_identity() -> dict[str, Any]:
    """The embedded model's cache identity: its name and the GGUF file's sha256 (its port changes every run)."""
    from auditpacks.runner.serving.embedded import find_model_path

    return {"base_url": None, "embedded": EMBEDDED_MODEL, "digest": sha256_file(find_model_path())}
