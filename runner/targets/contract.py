"""The target contract the runner relies on, stated once instead of probed for.

A run target is a simpleaudit ``Target`` (``send``) plus the run's hooks, each with a
harmless default: ``prepare()`` before the run (returns facts such as the model
``digest``), ``repeat`` (the round, minus one: part of the response cache key),
``prefetch`` before each document group (None: nothing to fetch ahead), ``placement``
(which endpoint a document goes to; None: one endpoint), ``fatal`` (an error that stops
the whole run), ``stats()`` and ``notes()`` for the run file and its summary,
``aclose()`` inside the event loop at the end. Every target the runner uses derives
from :class:`RunTarget`; the hooks it shares with a provider are :mod:`runner.models.hooks`.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from auditpacks.runner.models.hooks import Hooks


class RunTarget(Hooks):
    """Defaults for every hook but ``send`` (``prepare``, ``fatal``, ``stats``, ``aclose``: :class:`Hooks`')."""

    #: Called with a document group's scenarios and their journal keys before the group runs.
    prefetch: Callable[[list[dict[str, Any]], list[str]], Awaitable[None]] | None = None
    max_turns: int | None = None
    repeat: int = 0
    #: The executor's placement of document groups on endpoints (``home(key)``, ``live_count()``).
    placement: Any = None

    async def send(self, **kwargs: Any) -> Any:  # pragma: no cover - every target defines it
        raise NotImplementedError

    def notes(self) -> list[str]:
        return []
