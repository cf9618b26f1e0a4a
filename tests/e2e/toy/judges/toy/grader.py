"""The toy benchmark's grader: the first whole number in the reply against the sum; accuracy with a Wilson interval."""

from __future__ import annotations

import re
from typing import Any, Mapping

from auditpacks.judges.base import code_judge
from auditpacks.judges.figures import Figure, interval
from auditpacks.judges.statistics.stats import wilson_interval


def verdict(scenario: Mapping[str, Any], reply: Mapping[str, Any]) -> dict[str, Any]:
    found = re.search(r"-?\d+", str(reply.get("content") or ""))
    answer = int(found.group()) if found else None
    right = answer == (scenario.get("metadata") or {}).get("total")
    return {"severity": "pass" if right else "low", "answer": answer, "correct": right,
            "summary": f"answered {answer}"}


def make_judge(manifest: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return code_judge("sum", "The first whole number in the reply against the exact sum.", verdict)


def headline(pairs: list) -> dict[str, Any]:
    graded = [r["judgment"] for _, r in pairs if r and isinstance((r.get("judgment") or {}).get("correct"), bool)]
    correct = sum(j["correct"] for j in graded)
    return {"graded": len(graded), "correct": correct, "accuracy": correct / len(graded) if graded else None,
            "wilson95": list(wilson_interval(correct, len(graded))) if graded else None}


def figures(h: Mapping[str, Any]) -> list[Figure]:
    return [Figure("toy accuracy", h.get("accuracy"), interval=interval(h.get("wilson95")),
                   interval_name="95% Wilson interval", meaning="replies naming the exact sum ÷ graded replies"),
            Figure("graded", h.get("graded"), "count", meaning="replies graded")]
