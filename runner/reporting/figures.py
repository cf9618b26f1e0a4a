"""A run's headline figures for people: value, one named interval and what it means, one row each.

Values come from the run's headline (:meth:`LoadedRun.headline`, computed as the run summary
computes it), turned into figures by the run's benchmark report module (``headline(run,
round_index)``, which may add intervals the summary has none of), else the headline's own figures.
"""

from __future__ import annotations

import math
from typing import Any

from auditpacks.runner.reporting.runs import LoadedRun


def headline_rows(run: LoadedRun, round_index: int = 0) -> list[dict[str, Any]]:
    """The run's figure rows for one round (an interval that is not finite is left out; none for a run whose
    every result is an ERROR: nothing was measured)."""
    if run.record.summary.failed_all:
        return []
    shown = (run.report.headline(run, round_index) if run.report is not None
             else run.headline(round_index).figures)
    rows = []
    for f in shown:
        ok = f.interval is not None and all(math.isfinite(x) for x in f.interval)
        rows.append({"figure": f.name + (f" ({f.group.replace('_', ' ')})" if f.group else ""), "value": f.value,
                     "unit": f.unit, "interval": list(f.interval) if ok else None,
                     "interval_name": (f.interval_name or "") if ok else "", "meaning": f.meaning})
    return rows
