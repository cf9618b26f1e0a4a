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

from typing import Any, Callable, Mapping

Verdict = Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]


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
