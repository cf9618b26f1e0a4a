"""The hooks a provider and a run target share, each with a harmless default.

``prepare()`` before the run (facts about the model, such as its weights' ``digest``),
``fatal`` (an error that stops the whole run), ``stats()`` for the run file, and
``aclose()`` inside the event loop at the end. This module imports nothing.
"""

from __future__ import annotations

from typing import Any


class Hooks:
    """Defaults for the run's hooks."""

    def prepare(self) -> dict[str, Any]:
        """Facts about the model read before the run (e.g. its weights' ``digest``)."""
        return {}

    @property
    def fatal(self) -> BaseException | None:
        """An error that stops the whole run (None: none)."""
        return None

    def stats(self) -> dict[str, Any]:
        """Figures for the run file."""
        return {}

    async def aclose(self) -> None:
        return None
