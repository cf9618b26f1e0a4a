"""simpleaudit's own ``choice_match`` judge: the chosen option against ``decision.accepted``."""

from __future__ import annotations

from typing import Any, Mapping

from auditpacks.core.registry import owned_headline


def make_judge(manifest: Mapping[str, Any] | None = None) -> str:
    return "choice_match"


def headline(pairs: list[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> dict[str, Any]:
    """Agreement figures (micro, macro, coverage) of the benchmark that owns closed questions (the registry's)."""
    return owned_headline("choice_match")(pairs)
