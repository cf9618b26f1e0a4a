"""ICJ's paired comparison: F1 per citation family, resampling targets and pooling their counts per replicate."""

from __future__ import annotations

from typing import Any, Mapping

from auditpacks.judges.base import last_reply
from auditpacks.judges.statistics.compare import compare_f1, paired_row
from auditpacks.judges.icj.citations import citation_verdict, target_of
from auditpacks.packs.icj.targets import FAMILIES


def case(scenario: Mapping[str, Any]) -> Any:
    """The case a target belongs to: the source document its scenarios share (None: none named)."""
    return (scenario.get("metadata") or {}).get("case_id")


def citation_counts(scenario: dict[str, Any], result: dict[str, Any]) -> dict[str, Any] | None:
    """One target's TP/FP/FN per family: from its citations judgment, else graded from its last reply."""
    judgment = result.get("judgment") or {}
    if "counts" not in judgment:
        judgment = citation_verdict(scenario, last_reply(result.get("conversation") or []))
    return judgment.get("counts")


def compare(paired: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]) -> list[dict[str, Any]]:
    """Rows for (scenario, result A, result B) triples with counts in both runs."""
    rows = []
    for scenario, ra, rb in paired:
        ca, cb = citation_counts(scenario, ra), citation_counts(scenario, rb)
        if ca and cb:
            rows.append({"cluster": target_of(scenario), "a": ca, "b": cb})
    stats = compare_f1(rows, FAMILIES)
    return [paired_row(f"F1 {family.replace('_', ' ')}", stats[family], clusters=stats["targets"])
            for family in FAMILIES]
