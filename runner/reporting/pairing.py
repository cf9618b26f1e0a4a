"""Two runs of one pack, paired scenario by scenario, and their differences (run A minus run B).

Runs of different packs (sha256) are refused; runs over different scenario sets are
compared on the scenarios both ran, with a warning. A scenario that is an ERROR in
either run leaves the paired analysis (a failed call is not an answer) and is counted.
"""

from __future__ import annotations

from typing import Any

from auditpacks.core.errors import PackError
from auditpacks.judges.base import last_reply
from auditpacks.judges.compare import compare_choices, compare_f1, compare_ratios
from auditpacks.judges.icj.citations import citation_verdict
from auditpacks.judges.iustitia.agreement import tasks_from_scenarios
from auditpacks.packs.icj.targets import FAMILIES
from auditpacks.runner.reporting.outcomes import ERROR, answer, answer_key, group, outcome
from auditpacks.runner.reporting.runs import LoadedRun

METHODS = {"choice": "paired bootstrap over judgments; McNemar exact test on discordant tasks",
           "jacite": "paired bootstrap over questions",
           "icj": "paired bootstrap over targets, pooled F1 recomputed per replicate",
           "generic": "paired bootstrap over scenarios; McNemar exact test on discordant scenarios"}


def compare_runs(a: LoadedRun, b: LoadedRun, *, round_index: int = 0) -> dict[str, Any]:
    """Paired figures, warnings and the scenarios where the two runs disagree."""
    if a.sha256 != b.sha256:
        raise PackError(f"{a.record_path} ran {a.pack.path.name} (sha256 {a.sha256[:12]}…) and "
                        f"{b.record_path} ran {b.record.get('pack', {}).get('name')} (sha256 {b.sha256[:12]}…): "
                        "runs of different packs cannot be compared")
    if a.kind != b.kind:
        raise PackError(f"{a.record_path} was graded by {a.judge} and {b.record_path} by {b.judge}: "
                        "compare runs graded the same way")
    results_a = {r["scenario_name"]: r for r in a.rounds[round_index]}
    results_b = {r["scenario_name"]: r for r in b.rounds[round_index]}
    common = [name for name in results_a if name in results_b]
    warnings = []
    only_a, only_b = len(results_a) - len(common), len(results_b) - len(common)
    if only_a or only_b:
        warnings.append(f"the runs cover different scenarios: compared on the {len(common)} both ran "
                        f"({only_a} only in A, {only_b} only in B)")
    if len(a.rounds) > 1 or len(b.rounds) > 1:
        warnings.append(f"repeated runs: compared on round {round_index + 1} of each")
    kind = a.kind
    paired, errors, disagreements = [], 0, []
    for name in common:
        ra, rb, scenario = results_a[name], results_b[name], a.scenarios[name]
        if answer_key(kind, ra) != answer_key(kind, rb):
            disagreements.append({"scenario": name, "group": group(kind, scenario),
                                  "a": f"{outcome(kind, ra)}: {answer(kind, ra)}",
                                  "b": f"{outcome(kind, rb)}: {answer(kind, rb)}"})
        if ERROR in (outcome(kind, ra), outcome(kind, rb)):
            errors += 1
            continue
        paired.append((scenario, ra, rb))
    if errors:
        warnings.append(f"{errors} scenario(s) with an ERROR in either run left out of the paired figures")
    figures = {"choice": _choices, "jacite": _jacite, "icj": _icj}.get(kind, _generic)(paired)
    return {"a": a.label, "b": b.label, "kind": kind, "pack": a.pack.path.name, "sha256": a.sha256,
            "scenarios": len(common), "paired": len(paired), "only_a": only_a, "only_b": only_b, "errors": errors,
            "method": METHODS[kind], "figures": figures, "warnings": warnings, "disagreements": disagreements}


def _row(figure: str, stats: dict[str, Any] | None, p: float | None = None, *, tested: bool = False) -> dict[str, Any]:
    """One compared figure; ``tested``: a test's p belongs to it (None then means undefined, n/a)."""
    stats = stats or {}
    return {"figure": figure, "a": stats.get("a"), "b": stats.get("b"), "diff": stats.get("diff"),
            "ci": stats.get("ci"), "p": p, "tested": tested, "note": ""}


def _choices(paired: list[tuple]) -> list[dict[str, Any]]:
    tasks = {t["task_id"]: t for t in tasks_from_scenarios(s for s, _, _ in paired)}
    rows = []
    for scenario, ra, rb in paired:
        task = tasks.get((scenario.get("metadata") or {}).get("task_id") or scenario["name"])
        if task is None:  # ungraded: no reference answer
            continue
        accepted = set(task["accepted_options"])
        rows.append({"cluster": task["verdict_id"], "question": task["question_id"],
                     "a": (ra.get("judgment") or {}).get("choice") in accepted,
                     "b": (rb.get("judgment") or {}).get("choice") in accepted})
    stats = compare_choices(rows)
    return [_row("micro agreement", stats["micro"], stats["mcnemar_p"], tested=True),
            _row("macro agreement", stats["macro"]),
            {"figure": "discordant tasks", "a": stats["a_only"], "b": stats["b_only"], "diff": None, "ci": None,
             "p": stats["mcnemar_p"], "tested": True, "note": "right only in A / right only in B"}]


def _jacite(paired: list[tuple]) -> list[dict[str, Any]]:
    by_language: dict[str, list[dict[str, Any]]] = {}
    for scenario, ra, rb in paired:
        ja, jb = ra.get("judgment") or {}, rb.get("judgment") or {}
        if not (isinstance(ja.get("n_cited"), int) and isinstance(jb.get("n_cited"), int)):
            continue
        meta = scenario.get("metadata") or {}
        by_language.setdefault(str(meta.get("language") or ja.get("language") or "?"), []).append(
            {"cluster": meta.get("question_id") or scenario["name"],
             "a": (ja["n_invented"], ja["n_cited"]), "b": (jb["n_invented"], jb["n_cited"])})
    return [_row(f"invented rate ({language})", compare_ratios(rows)) for language, rows in sorted(by_language.items())]


def citation_counts(scenario: dict[str, Any], result: dict[str, Any]) -> dict[str, Any] | None:
    """One ICJ target's TP/FP/FN per family: from its citations judgment, else graded from its last reply."""
    judgment = result.get("judgment") or {}
    if "counts" not in judgment:
        judgment = citation_verdict(scenario, last_reply(result.get("conversation") or []))
    return judgment.get("counts")


def _icj(paired: list[tuple]) -> list[dict[str, Any]]:
    rows = []
    for scenario, ra, rb in paired:
        ca, cb = citation_counts(scenario, ra), citation_counts(scenario, rb)
        if ca and cb:
            meta = scenario.get("metadata") or {}
            rows.append({"cluster": meta.get("target_document_id") or scenario["name"], "a": ca, "b": cb})
    stats = compare_f1(rows, FAMILIES)
    return [_row(f"F1 {family.replace('_', ' ')}", stats[family]) for family in FAMILIES]


def _generic(paired: list[tuple]) -> list[dict[str, Any]]:
    rows = [{"cluster": s["name"], "question": group("generic", s), "a": ra.get("severity") == "pass",
             "b": rb.get("severity") == "pass"} for s, ra, rb in paired if ra.get("severity") != "ungraded"]
    stats = compare_choices(rows)
    return [_row("pass rate", stats["micro"], stats["mcnemar_p"], tested=True)]
