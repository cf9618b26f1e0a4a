"""jacite's paired comparison: the invented rate per cited mention, per language, resampling questions
(each language's row counts its own questions, so a language resting on one or two is not testable)."""

from __future__ import annotations

from typing import Any, Mapping

from auditpacks.judges.statistics.compare import compare_ratios, paired_row


def question(scenario: Mapping[str, Any]) -> Any:
    """The question a scenario asks (its metadata's ``question_id``; None: none)."""
    return (scenario.get("metadata") or {}).get("question_id")


def cluster(scenario: Mapping[str, Any]) -> str:
    """The question a scenario asks (the bootstrap's cluster), else the scenario itself."""
    return str(question(scenario) or scenario["name"])


def language(scenario: Mapping[str, Any], judgment: dict[str, Any] | None = None) -> str:
    """The language a scenario's figures are pooled in (its rows and intervals are per language)."""
    meta = scenario.get("metadata") or {}
    return str(meta.get("language") or (judgment or {}).get("language") or "?")


def compare(paired: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]) -> list[dict[str, Any]]:
    """Rows for (scenario, result A, result B) triples that both cite (a grounding judgment in each)."""
    by_language: dict[str, list[dict[str, Any]]] = {}
    for scenario, ra, rb in paired:
        ja, jb = ra.get("judgment") or {}, rb.get("judgment") or {}
        if not (isinstance(ja.get("n_cited"), int) and isinstance(jb.get("n_cited"), int)):
            continue
        by_language.setdefault(language(scenario, ja), []).append(
            {"cluster": cluster(scenario),
             "a": (ja["n_invented"], ja["n_cited"]), "b": (jb["n_invented"], jb["n_cited"])})
    rows_out = []
    for name, rows in sorted(by_language.items()):
        stats = compare_ratios(rows)
        rows_out.append(paired_row(f"invented rate ({name})", stats, clusters=stats["clusters"]))
    return rows_out
