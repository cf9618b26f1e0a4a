"""Whether a compared figure differs: ``significant``, ``not significant`` or ``not testable``, and by what.

A row of ``compare`` (:func:`auditpacks.judges.statistics.compare.paired_row`) may carry a paired 95% interval of
A − B, a test's p, or both. The rule, at the 5% level:

* both: significant only when the interval excludes 0 **and** p < 0.05 (the two agree); when they
  disagree, the stricter verdict stands: not significant;
* one of them: that one decides;
* neither (no difference defined, no discordant pair and no interval): not testable;
* fewer than :data:`~auditpacks.judges.statistics.sample_size.FEW_CLUSTERS` clusters: not testable, the interval
  withheld (a bootstrap over one or two clusters says almost nothing, and the test ignores clustering).
"""

from __future__ import annotations

from typing import Any, Mapping

from auditpacks.judges.statistics.sample_size import FEW_CLUSTERS, few_clusters

ALPHA = 0.05
SIGNIFICANT, NOT_SIGNIFICANT, NOT_TESTABLE = "significant", "not significant", "not testable"


def excludes_zero(ci: Any) -> bool | None:
    """Whether an interval [low, high] lies wholly above or below 0; None without one."""
    if not ci or ci[0] is None or ci[1] is None:
        return None
    return ci[0] > 0 or ci[1] < 0


def decide(row: Mapping[str, Any], *, unit: str) -> dict[str, Any]:
    """The row with ``decision`` and ``decided_by`` added (the row's ``test`` names its test, e.g. McNemar)."""
    out, test = dict(row), row.get("test") or "test"
    clusters = row.get("clusters")
    if isinstance(clusters, int) and clusters < FEW_CLUSTERS:
        plural = unit if clusters == 1 else f"{unit}s"
        out.update(ci=None, ci_withheld=row.get("ci"), decision=NOT_TESTABLE,
                   decided_by=f"only {clusters} {plural}: interval withheld")
        return out
    by_interval = excludes_zero(row.get("ci"))
    p = row.get("p") if row.get("tested") else None
    by_test = None if p is None else p < ALPHA
    if by_interval is None and by_test is None:
        out.update(decision=NOT_TESTABLE, decided_by="no interval and no test defined")
    elif by_test is None:
        undefined = f" ({test} undefined)" if row.get("tested") else ""
        out.update(decision=SIGNIFICANT if by_interval else NOT_SIGNIFICANT,
                   decided_by=f"paired 95% interval{undefined}")
    elif by_interval is None:
        out.update(decision=SIGNIFICANT if by_test else NOT_SIGNIFICANT, decided_by=f"{test} p < {ALPHA}"
                   if by_test else f"{test} p ≥ {ALPHA}")
    elif by_interval == by_test:
        out.update(decision=SIGNIFICANT if by_test else NOT_SIGNIFICANT, decided_by=f"interval and {test} agree")
    else:
        out.update(decision=NOT_SIGNIFICANT, decided_by=f"interval and {test} disagree: the stricter")
    return out


def few_cluster_warnings(rows: list[Mapping[str, Any]], unit: str) -> list[str]:
    """One warning when every row rests on the same few clusters, else one per row (a group) that does."""
    counts = [row.get("clusters") for row in rows if isinstance(row.get("clusters"), int)]
    if not counts:
        return []
    if len(set(counts)) == 1:
        return [few_clusters(counts[0], unit)] if counts[0] < FEW_CLUSTERS else []
    return [few_clusters(row["clusters"], unit, row["figure"]) for row in rows
            if isinstance(row.get("clusters"), int) and row["clusters"] < FEW_CLUSTERS]
