"""The error of a run that cannot start or go on (a bad option, an unreachable server), shown as one line."""

from __future__ import annotations

from auditpacks.core.errors import UserError


class RunError(UserError):
    """A run that cannot start or finish; the message is one line naming what is wrong."""
