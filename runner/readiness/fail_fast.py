"""Stop a run whose first scenarios all fail the same way, instead of grinding through the rest.

:class:`FailFast` wraps a run's progress (:class:`~auditpacks.runner.execute.execute.Progress`):
when the first ``limit`` scenarios run now (``--stop-after``, default :data:`STOP_AFTER`; 0: never)
all end in ERROR with the same cause (compared with their numbers left out, so ``timed out after
600 s`` on every scenario is one cause), it raises one :class:`RunError` naming that cause. One
scenario that does not fail, or a second cause, ends the watch for the rest of the run. Results
reused from the journal do not count; the failed ones stay journaled and a rerun retries them.
"""

from __future__ import annotations

import re
from typing import Any

from auditpacks.core.runs.run_files import error_message, is_error
from auditpacks.runner.models.errors import RunError

STOP_AFTER = 5
_DIGITS = re.compile(r"\d+(\.\d+)?")


class FailFast:
    """Forwards ``start`` and ``update`` to ``progress``; raises once the first ``limit`` results share one error."""

    def __init__(self, progress: Any, limit: int = STOP_AFTER) -> None:
        self.progress, self.limit = progress, limit
        self.causes: list[str] = []
        self.watching = limit > 0

    def start(self, resumed: list[dict[str, Any]]) -> None:
        self.progress.start(resumed)

    def update(self, result: dict[str, Any] | None) -> None:
        self.progress.update(result)
        if not self.watching or result is None:
            return
        if not is_error(result):
            self.watching = False
            return
        cause = error_message(result)
        if self.causes and _DIGITS.sub("N", cause) != _DIGITS.sub("N", self.causes[0]):
            self.watching = False
            return
        self.causes.append(cause)
        if len(self.causes) >= self.limit:
            raise RunError(f"stopped: the first {len(self.causes)} scenarios all failed the same way: {cause} "
                           f"(--stop-after {self.limit}; a rerun retries them)")
