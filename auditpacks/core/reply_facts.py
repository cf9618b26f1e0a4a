"""What an endpoint said about a reply that simpleaudit's transcript has no field for, kept for the graders.

simpleaudit stores only a reply's text, so whether the endpoint stopped it at the output-token
limit (``finish_reason`` ``"length"``) would be lost before grading. The runner starts one
record per scenario (:func:`begin`), its target notes each reply's facts (:func:`note`), and a
code judge adds them to the reply it grades (:func:`last`). The record is one mutable dict
held in a context variable, so a reply noted in a task the scenario's own task started is
still seen by its grader.
"""

from __future__ import annotations

import contextvars
from typing import Any

_current: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("auditpacks_reply_facts",
                                                                                default=None)


def begin() -> dict[str, Any]:
    """A fresh record for the scenario running in the current task."""
    record: dict[str, Any] = {}
    _current.set(record)
    return record


def note(**facts: Any) -> None:
    """The latest reply's facts (each call replaces the last reply's); nothing outside a scenario."""
    record = _current.get()
    if record is not None:
        record.clear()
        record.update({k: v for k, v in facts.items() if v is not None})


def last() -> dict[str, Any]:
    """The facts of the scenario's latest reply ({} when none were noted)."""
    return dict(_current.get() or {})
