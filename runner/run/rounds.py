"""Rounds of a run: ``--repeats N`` runs every scenario N times, as numbered rounds.

Round N decodes with seed ``--seed + N - 1``, journals its results under the
scenario's key plus the round (round 1 keeps the plain key, so a one-round run's
journal is unchanged), and asks the target for cache entries of that round (its
``repeat`` is N - 1, part of the response cache key). Each round is written to its own
simpleaudit results file and has its own summary in the run record; the run's
summary counts all rounds together, and its headline figures are round 1's when
there is one round (with several, the figures are per round: pooled figures over
repeated scenarios would count each question N times).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from auditpacks.core.runs.record import Round, Summary
from auditpacks.judges.statistics import sample_size
from auditpacks.judges.figures import Headline
from auditpacks.judges.reader import Reader
from auditpacks.runner.execute.execute import Outcome, run_scenarios
from auditpacks.runner.store.journal import Journal
from auditpacks.runner.store.layout import results_name
from auditpacks.runner.store.results_file import Pairs, write_results
from auditpacks.runner.store.summary import summarize
from auditpacks.runner.targets.contract import RunTarget


def round_seed(seed: int, round_number: int) -> int:
    return seed + round_number - 1


async def run_rounds(engine: Any, target: RunTarget, scenarios: list[dict[str, Any]], journal: Journal, config: Any,
                     progress: Any, reader: Reader | None = None) -> list[Outcome]:
    """Every round's outcome, round 1 first, in one event loop (scenarios grouped by the documents ``reader``
    names)."""
    outcomes, execution = [], config.execution
    for number in range(1, config.selection.repeats + 1):
        target.repeat = number - 1
        outcomes.append(await run_scenarios(
            engine, scenarios, journal, concurrency=execution.concurrency,
            params=config.decoding.params(round_seed(config.selection.seed, number)), round_number=number,
            retry_errors=execution.retry_errors, progress=progress, skip_oversize=execution.skip_oversize,
            fatal=lambda: target.fatal, before_group=target.prefetch, placement=target.placement,
            document=reader.document if reader is not None else None,
        ))
    return outcomes


def save_rounds(outcomes: list[Outcome], folder: Path, stem: str, *, reader: Reader, seed: int,
                skipped: Mapping[str, int], notes: list[str] | None, journal: Journal,
                load: Callable[[Any], dict[str, Any]] = lambda scenario: scenario,
                selected: Sequence[Any] = (), in_pack: int | None = None) -> tuple[list[Round], Summary]:
    """Write each round's results file (whole results read back from ``journal`` one at a time); the rounds
    (with their summaries) and the run's summary. ``load`` turns an outcome's scenario (a stub) into the
    whole scenario for the grader's headline; ``selected``: the scenarios the run was given, those without
    a result count as skipped (unanswered) in the headline."""
    rounds = []
    for number, outcome in enumerate(outcomes, start=1):
        name = results_name(stem, number)
        write_results(folder / name, outcome.results, (journal.done[key] for key in outcome.keys))
        unanswered = unanswered_scenarios(outcome, selected)
        pooled = with_sample_warnings(headline(reader, outcome, load, unanswered), reader,
                                      [*outcome.scenarios, *unanswered], in_pack)
        summary = summarize(outcome.scenarios, outcome.results, pooled, reader,
                            skipped={**skipped, **outcome.skipped}, resumed=outcome.resumed)
        summary.unanswered = [s["name"] for s in unanswered]
        rounds.append(Round(round=number, seed=round_seed(seed, number), results=name, summary=summary))
    if len(outcomes) == 1:
        only = rounds[0].summary
        only.notes = [*(notes or []), *only.notes]   # the run's notes, then the round's own (cut replies)
        rounds[0].summary = None  # the run's summary is the round's
        return rounds, only
    scenarios = [s for o in outcomes for s in o.scenarios]
    results = [r for o in outcomes for r in o.results]
    pooled_skips: dict[str, int] = dict(skipped)
    for outcome in outcomes:
        for why, n in outcome.skipped.items():
            pooled_skips[why] = pooled_skips.get(why, 0) + n
    return rounds, summarize(scenarios, results, Headline(), reader, skipped=pooled_skips,
                             resumed=sum(o.resumed for o in outcomes), notes=notes)


def with_sample_warnings(pooled: Headline, reader: Reader, scenarios: Sequence[Any], in_pack: int | None) -> Headline:
    """The headline with :mod:`~auditpacks.judges.statistics.sample_size`'s warnings (a subset, few clusters) added."""
    extra = sample_size.warnings(reader, scenarios, in_pack=in_pack, existing=pooled.warnings)
    if extra and pooled.error is None:
        return reader.add(pooled, warnings=[*pooled.warnings, *extra])
    return pooled


def unanswered_scenarios(outcome: Outcome, selected: Sequence[Any]) -> list[Any]:
    """The selected scenarios that produced no result in this round (skipped), in selection order."""
    ran = {s["name"] for s in outcome.scenarios}
    return [s for s in selected if s["name"] not in ran]


def headline(reader: Reader, outcome: Outcome, load: Callable[[Any], dict[str, Any]],
             unanswered: Sequence[Any] = ()) -> Headline:
    """The round's headline over (scenario, result) pairs: scenarios loaded afresh on each pass, results
    without their documents (no grader reads those); selected scenarios that produced no result
    (``unanswered``, skipped) come as (scenario, None). A failure here is reported, not fatal."""

    def produce():
        yield from ((load(s), r) for s, r in zip(outcome.scenarios, outcome.results))
        yield from ((load(s), None) for s in unanswered)

    return reader.headline(Pairs(len(outcome.results) + len(unanswered), produce))
