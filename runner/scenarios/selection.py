"""Which scenarios of a pack a run executes: smoke subset, per-question sample, limit."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

from auditpacks.core.errors import PackError
from auditpacks.core.registry import BENCHMARKS
from auditpacks.judges.figures import decision_id
from auditpacks.packs.pack import Pack
from auditpacks.packs.sampling import check_count, per_group
from auditpacks.runner.settings.config import SelectionConfig


def published_smoke_file(pack: Pack) -> bool:
    """Whether the pack file is a benchmark card's published smoke file (a plain list of scenarios, named
    as the card names it): the whole file is its smoke set."""
    return any(b.card is not None and pack.path.name == Path(b.card.smoke_file).name for b in BENCHMARKS.values())


def smoke_subset(pack: Pack) -> list[dict[str, Any]]:
    """The scenarios the pack's manifest names as its smoke set, or every scenario of a card's published
    smoke file; any other pack that names none is refused (its first scenarios are no smoke set)."""
    names = (pack.manifest or {}).get("smoke")
    if not names and published_smoke_file(pack):
        return list(pack.scenarios)
    if not names:
        raise PackError(f"{pack.path.name}: the manifest names no smoke scenarios (field smoke); "
                        "use --limit N for the first N, or rebuild the pack")
    by_name = {s["name"]: s for s in pack.scenarios}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise PackError(f"{pack.path.name}: manifest field smoke names unknown scenario {missing[0]!r}")
    return [by_name[n] for n in names]


#: The question a scenario asks (None: none), as the run's reader names it.
Question = Callable[[Mapping[str, Any]], Any]


def per_question(scenarios: list[dict[str, Any]], n: int, *, seed: int, question: Question) -> list[dict[str, Any]]:
    """At most ``n`` scenarios per ``question(scenario)``, drawn with a seeded RNG; pack order kept."""
    return per_group(scenarios, n, seed=seed, key=question)


def select(
    pack: Pack,
    *,
    smoke: bool = False,
    per_question_n: int | None = None,
    limit: int | None = None,
    seed: int = 0,
    names: list[str] | None = None,
    allow_fewer: bool = False,
    question: Question = decision_id,
) -> list[dict[str, Any]]:
    """The scenarios to run, in pack order; ``question``: the question each asks (``--per-question``: the run's
    reader's, by default its decision id). ``--limit N`` over a smaller selection is refused unless
    ``allow_fewer`` (then noted on stderr)."""
    if smoke:
        chosen = smoke_subset(pack)
    elif names:
        by_name: Mapping[str, dict[str, Any]] = {s["name"]: s for s in pack.scenarios}
        unknown = [n for n in names if n not in by_name]
        if unknown:
            raise PackError(f"{pack.path.name}: no scenario named {unknown[0]!r}")
        chosen = [by_name[n] for n in names]
    else:
        chosen = list(pack.scenarios)
    if per_question_n is not None:
        if not any(question(s) for s in chosen):
            raise PackError(f"{pack.path.name}: --per-question needs questions, and no scenario of this pack has "
                            "one; use --limit or --smoke")
        chosen = per_question(chosen, per_question_n, seed=seed, question=question)
    if limit is not None:
        check_count(len(chosen), limit, f"{pack.path.name}: --limit {limit}", allow_fewer=allow_fewer)
        chosen = chosen[:limit]
    return chosen


def for_run(pack: Pack, settings: SelectionConfig, question: Question = decision_id) -> list[dict[str, Any]]:
    """A run's selection (``--smoke``, ``--per-question`` over ``question``'s keys, ``--limit``; its shard is taken
    later)."""
    return select(pack, smoke=settings.smoke, per_question_n=settings.per_question, limit=settings.limit,
                  seed=settings.seed, allow_fewer=settings.allow_fewer, question=question)
