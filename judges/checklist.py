"""simpleaudit's ``checklist`` judge: an LLM grades each ``expected_behavior`` item."""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping


def make_judge(manifest: Mapping[str, Any] | None = None) -> str:
    return "checklist"


def headline(pairs: list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]) -> dict[str, Any]:
    """Checklist items met and violated over the run, and the verdicts (None: a skipped scenario)."""
    items: Counter = Counter()
    for _, result in pairs:
        for entry in ((result or {}).get("judgment") or {}).get("checklist") or []:
            if isinstance(entry, Mapping):
                items[str(entry.get("status") or entry.get("verdict") or "unknown")] += 1
    verdicts = Counter(str(result.get("severity")) if result is not None else "skipped" for _, result in pairs)
    return {"checklist items": dict(items), "verdicts": dict(verdicts)}
