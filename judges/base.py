"""How a grader plugs into simpleaudit: a pure verdict function wrapped as a code judge.

A verdict function takes the scenario (as simpleaudit hands it to code judges:
``severity``, ``category``, ``metadata`` and, with a decision block, ``decision``)
and the last assistant reply as the transcript holds it (``content``; from decision
targets, ``decision``; from chat targets, ``finish_reason`` when the endpoint gave one
and ``reasoning`` when the reply had any) and returns a judgment dict with at least ``severity``. Wrapped by
:func:`code_judge`, it becomes a simpleaudit judge config whose ``grade`` runs in
code, so no judge model is called and results stay ``AuditResults``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Iterable, Mapping

from auditpacks.judges.figures import Figure, interval, leaves, number

Verdict = Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]
#: Verdicts that are not a grade: the judge could not grade, the scenario failed, or it was not run.
NOT_GRADED = ("ungraded", "ERROR", "skipped")


def last_reply(conversation: list[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The last assistant message of a transcript ({} when there is none)."""
    return next((m for m in reversed(conversation or []) if m.get("role") == "assistant"), None) or {}


def code_judge(name: str, description: str, verdict: Verdict) -> dict[str, Any]:
    """A simpleaudit judge config that grades the last reply in code with ``verdict``."""

    def grade(*, conversation, expected_behavior=None, scenario_meta=None) -> dict[str, Any]:
        return verdict(scenario_meta or {}, last_reply(conversation))

    return {
        "name": name,
        "description": description,
        "output": "binary",
        "judge_prompt": f"Graded in code by auditpacks ({name}); no judge model is called.",
        "grade": grade,
    }


def designed_severity(scenario: Mapping[str, Any]) -> str:
    """The scenario's designed severity, the verdict ceiling (medium when unset)."""
    severity = scenario.get("severity")
    return severity if severity in ("low", "medium", "high", "critical") else "medium"


def pass_rate(pairs: Iterable[tuple[Any, Mapping[str, Any] | None]]) -> dict[str, Any]:
    """The verdicts (None: a skipped scenario), how many were graded, and the pass rate over graded scenarios with
    its 95% Wilson interval (scenarios counted as independent)."""
    from auditpacks.judges.statistics.stats import wilson_interval

    verdicts = Counter(str(result.get("severity")) if result is not None else "skipped" for _, result in pairs)
    graded = sum(n for severity, n in verdicts.items() if severity not in NOT_GRADED)
    return {"verdicts": dict(verdicts), "graded": graded, "pass_rate": verdicts["pass"] / graded if graded else None,
            "pass_wilson95": list(wilson_interval(verdicts["pass"], graded)) if graded else None}


def pass_rate_figures(h: Mapping[str, Any], meanings: Mapping[str, str] | None = None) -> list[Figure]:
    """:func:`pass_rate`'s values as figures: the pass rate (Wilson interval) and a count per verdict (``meanings``:
    verdict → what it means); another shape as its numeric leaves."""
    if "pass_rate" not in h:
        return leaves(h)
    return [Figure("pass rate", number(h.get("pass_rate")), interval=interval(h.get("pass_wilson95")),
                   interval_name="95% Wilson interval",
                   meaning=f"verdict pass ÷ graded scenarios ({h.get('graded', 0)} graded)", better="higher"),
            *(Figure(f"verdict {severity}", number(n), "count", meaning=(meanings or {}).get(severity, ""))
              for severity, n in (h.get("verdicts") or {}).items())]
