"""simpleaudit's own ``choice_match`` judge: the chosen option against ``decision.accepted``."""

from __future__ import annotations

from typing import Any, Mapping


def make_judge(manifest: Mapping[str, Any] | None = None) -> str:
    return "choice_match"


def headline(pairs: list[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> dict[str, Any]:
    """Agreement figures (micro, macro, coverage), as the choice benchmarks report them."""
    from auditpacks.judges.iustitia.agreement import headline as agreement_headline

    return agreement_headline(pairs)
