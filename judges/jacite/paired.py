"""jacite's paired comparison: the invented rate per cited mention, per language, resampling questions."""

from __future__ import annotations

from typing import Any

from auditpacks.judges.compare import compare_ratios, paired_row


def cluster(scenario: dict[str, Any]) -> str:
    """The question a scenario asks (the bootstrap's cluster)."""
    return str((scenario.get("metadata") or {}).get("question_id") or scenario["name"])


def compare(paired: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]) -> list[dict[str, Any]]:
    """Rows for (scenario, result A, result B) triples that both cite (a grounding judgment in each)."""
    by_language: dict[str, list[dict[str, Any]]] = {}
    for scenario, ra, rb in paired:
        ja, jb = ra.get("judgment") or {}, rb.get("judgment") or {}
        if not (isinstance(ja.get("n_cited"), int) and isinstance(jb.get("n_cited"), int)):
            continue
        meta = scenario.get("metadata") or {}
        by_language.setdefault(str(meta.get("language") or ja.get("language") or "?"), []).append(
            {"cluster": cluster(scenario),
             "a": (ja["n_invented"], ja["n_cited"]), "b": (jb["n_invented"], jb["n_cited"])})
    return [paired_row(f"invented rate ({language})", compare_ratios(rows))
            for language, rows in sorted(by_language.items())]
