"""simpleaudit's own ``choice_match`` judge: the chosen option against ``decision.accepted``.

Its own headline is the pass rate over graded scenarios; a benchmark that reads the runs of its packs
graded so (``Benchmark.reads``) pools them its own way.
"""

from __future__ import annotations

from typing import Any, Mapping

from auditpacks.judges.base import pass_rate, pass_rate_figures
from auditpacks.judges.figures import Figure


def make_judge(manifest: Mapping[str, Any] | None = None) -> str:
    return "choice_match"


def headline(pairs: list[tuple[Mapping[str, Any], Mapping[str, Any] | None]]) -> dict[str, Any]:
    """The verdicts and the pass rate over graded scenarios (:func:`~auditpacks.judges.base.pass_rate`)."""
    return pass_rate(pairs)


def figures(h: Mapping[str, Any]) -> list[Figure]:
    return pass_rate_figures(h)
