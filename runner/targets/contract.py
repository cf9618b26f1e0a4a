"""The target contract the runner relies on, stated once instead of probed for.

A run target is a simpleaudit ``Target`` (``send``) plus the run's hooks, each with a
harmless default: ``prepare()`` before the run (returns facts such as the model
``digest``), ``prefetch`` before each document group (None: nothing to fetch ahead),
``fatal`` (an error that stops the whole run), ``stats()`` and ``notes()`` for the run
file and its summary, ``aclose()`` inside the event loop at the end. Our targets derive
from :class:`RunTarget`; a foreign target (simpleaudit's ``DecisionTarget``) is wrapped
by :func:`as_run_target`. This module imports nothing else of ours.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable


class RunTarget:
    """Defaults for every hook but ``send``."""

    #: Called with a document group's scenarios and their journal keys before the group runs.
    prefetch: Callable[[list[dict[str, Any]], list[str]], Awaitable[None]] | None = None
    max_turns: int | None = None

    async def send(self, **kwargs: Any) -> Any:  # pragma: no cover - every target defines it
        raise NotImplementedError

    def prepare(self) -> dict[str, Any]:
        return {}

    @property
    def fatal(self) -> BaseException | None:
        return None

    def stats(self) -> dict[str, Any]:
        return {}

    def notes(self) -> list[str]:
        return []

    async def aclose(self) -> None:
        return None


class _Wrapped(RunTarget):
    """A foreign simpleaudit Target with the contract's defaults."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.max_turns = getattr(inner, "max_turns", None)

    async def send(self, **kwargs: Any) -> Any:
        return await self.inner.send(**kwargs)

    def __getattr__(self, name: str) -> Any:  # e.g. DecisionTarget's max_body_bytes
        return getattr(self.inner, name)


def as_run_target(target: Any) -> RunTarget | None:
    """``target`` under the contract (None stays None: simpleaudit's own any-llm target)."""
    if target is None or isinstance(target, RunTarget):
        return target
    return _Wrapped(target)
