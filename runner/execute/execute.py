"""Run scenarios through the simpleaudit engine, journaling each result as it finishes.

Each scenario goes through ``ModelAuditor.run_scenario`` (the engine's own turn
loop, judge call and error handling) with its own :class:`~runner.targets.scenario_log.ScenarioLog`,
which puts the facts of each target reply (reasoning, finish reason) on its entry of the
transcript before the judge reads it.

Scheduling is by document: the scenarios still to run are grouped by the shard
splitter's document key (the source document the run's benchmark names, else a hash of
the documents), groups in order of first appearance, and ``concurrency`` workers each take
a whole group and run its scenarios one after another, so a prefix-caching server sees
one document's questions back to back (and, with slot pinning, in one slot: the log
carries the group's lane and document key; :mod:`~runner.execute.schedule` picks the
next group and its lane, spreading groups over endpoints when there are several). A
``before_group`` hook runs before each group (decision batching fetches the group's
answers there). Results come back in pack order; finished
ones are appended to the journal at once, so an interrupted run resumes where it
stopped. A target's fatal error (its endpoint is unreachable) stops the whole run; a
prompt too long for the model is skipped when asked to.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Protocol

from simpleaudit import AuditResult

from auditpacks.runner.store.journal import Journal, JournalError, round_key, scenario_key, unreadable
from auditpacks.runner.store.results_file import slim_result
from auditpacks.runner.execute.schedule import GroupScheduler, Lease, Placement
from auditpacks.runner.scenarios.shard import Document, document_key
from auditpacks.runner.store.stored import for_storage
from auditpacks.runner.models import simpleaudit_adapter
from auditpacks.runner.targets import scenario_log

#: Called with a group's scenarios and their journal keys before the group runs.
BeforeGroup = Callable[[list[dict[str, Any]], list[str]], Awaitable[None]]

OVERSIZE = "over the model's context"


class Progress(Protocol):
    def start(self, resumed: list[dict[str, Any]]) -> None: ...
    def update(self, result: dict[str, Any] | None) -> None: ...


@dataclass(repr=False)
class Outcome:
    """The scenarios that produced a result (stubs, for a pack read from disk), their results without the
    documents (same order; the whole result is in the journal under ``keys[i]``) and what was skipped."""

    scenarios: list[dict[str, Any]]
    results: list[dict[str, Any]]
    keys: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    resumed: int = 0
    earlier_groups: int = 0   # documents whose scenarios an earlier attempt finished (read from the journal)
    groups: int = 0   # documents (scheduling groups) run now

    def __repr__(self) -> str:
        # short on purpose: asyncio formats the main task's result on the way out of asyncio.run,
        # and a dataclass repr of every result of a large run costs gigabytes and a minute
        return f"<Outcome: {len(self.results)} results, {self.resumed} resumed, {self.groups} documents run>"


def scenario_arguments(scenario: dict[str, Any]) -> dict[str, Any]:
    """The arguments ``ModelAuditor.run_async`` passes to ``run_scenario`` for one scenario."""
    return {
        "name": scenario["name"],
        "description": scenario["description"],
        "expected_behavior": scenario.get("expected_behavior"),
        "test_prompt": scenario.get("test_prompt"),
        "file_uri": scenario.get("file_uri"),
        "documents": scenario.get("documents"),
        "decision": scenario.get("decision"),
        "judge_notes": (scenario.get("metadata") or {}).get("judge_notes"),
        "scenario_meta": {
            "severity": scenario.get("severity"),
            "category": scenario.get("category"),
            "metadata": scenario.get("metadata") or {},
        },
    }


def error_result(scenario: dict[str, Any], exc: BaseException) -> AuditResult:
    """An ERROR result in simpleaudit's own shape, for a failure outside its turn loop."""
    message = f"{type(exc).__name__}: {exc}"
    return AuditResult(
        scenario_name=scenario.get("name", "<unknown>"),
        scenario_description=scenario.get("description", ""),
        conversation=[],
        severity="ERROR",
        issues_found=[f"Scenario execution failed: {message}"],
        positive_behaviors=[],
        summary=f"Scenario did not complete due to an error: {exc}"[:500],
        recommendations=["Re-run this scenario."],
        expected_behavior=scenario.get("expected_behavior"),
        judgment={"severity": "ERROR", "error": message},
    )


def document_groups(scenarios: list[dict[str, Any]], indices: list[int],
                    key: Callable[[dict[str, Any]], str] = document_key) -> list[list[int]]:
    """``indices`` grouped by document, groups in order of first appearance, pack order within each."""
    groups: dict[str, list[int]] = {}
    for index in indices:
        groups.setdefault(key(scenarios[index]), []).append(index)
    return list(groups.values())


def finished(journal: Journal, key: str, retry_errors: bool) -> dict[str, Any] | None:
    """The journaled result to reuse for ``key`` (an ERROR is run again unless kept)."""
    if key not in journal.done or (retry_errors and journal.done.severity(key) == "ERROR"):
        return None
    try:
        return slim_result(journal.done[key])
    except JournalError as exc:  # damaged since it was indexed: reported, and the scenario runs again
        unreadable(exc)
        return None


async def run_scenarios(
    engine: Any,
    scenarios: list[dict[str, Any]],
    journal: Journal,
    *,
    concurrency: int = 1,
    params: dict[str, Any] | None = None,
    retry_errors: bool = True,
    progress: Progress | None = None,
    fatal: Callable[[], BaseException | None] = lambda: None,
    skip_oversize: bool = False,
    before_group: BeforeGroup | None = None,
    round_number: int = 1,
    placement: Placement | None = None,
    document: Document | None = None,
) -> Outcome:
    """Every scenario's result, in the order given, without its documents (the journal holds the whole
    result); reuses results already journaled (of this round). ``scenarios`` may be read lazily
    (``LazyScenarios``): keys and groups come from its stubs and each group's scenarios are read when a
    worker takes it. ``placement`` (several endpoints) names each document's endpoint; ``document``: the
    source document the run's benchmark names for a scenario (:func:`~runner.scenarios.shard.document_key`)."""
    refs = getattr(scenarios, "stubs", scenarios)
    keys = [round_key(scenario_key(s), round_number) for s in refs]
    results: list[dict[str, Any] | None] = [finished(journal, key, retry_errors) for key in keys]
    resumed = [r for r in results if r is not None]

    def doc(scenario: dict[str, Any]) -> str:
        return document_key(scenario, document)

    earlier = len({doc(refs[i]) for i, r in enumerate(results) if r is not None})
    if progress:
        progress.start(resumed)
    skipped: dict[str, int] = {}
    groups = document_groups(refs, [i for i, r in enumerate(results) if r is None], doc)
    count = len(groups)
    scheduler = GroupScheduler(groups, [doc(refs[g[0]]) for g in groups], concurrency, placement)

    async def worker() -> None:
        while (lease := await scheduler.take()) is not None:
            try:
                loaded = None
                if before_group is not None:
                    loaded = [scenarios[i] for i in lease.members]
                    await before_group(loaded, [keys[i] for i in lease.members])
                for position, index in enumerate(lease.members):
                    await one(index, lease, loaded[position] if loaded else scenarios[index])
            finally:
                scheduler.release(lease)

    async def one(index: int, lease: Lease, scenario: dict[str, Any]) -> None:
        log = scenario_log.begin(key=keys[index], lane=lease.lane, group=lease.key,
                          system=(scenario.get("metadata") or {}).get("system_prompt"))
        try:
            result = await simpleaudit_adapter.run_scenario(engine, scenario_arguments(scenario), params=params,
                                                            before_judge=log.annotate)
        except Exception as exc:  # the engine catches most failures itself
            result = error_result(scenario, exc)
        problem = fatal()
        if problem is not None:
            raise problem
        if log.oversize and skip_oversize:
            skipped[OVERSIZE] = skipped.get(OVERSIZE, 0) + 1
            if progress:
                progress.update(None)
            return
        data = result.to_dict()
        log.annotate(data["conversation"], scenario_log.STORED)  # also when the scenario failed before its judge
        scenario_log.explain_ungraded(data.get("judgment") or {}, log)
        scenario_log.flag_truncated(data, log)
        data = for_storage(data)  # secrets blanked out, runaway replies cut (marked)
        journal.append(keys[index], scenario["name"], data)
        results[index] = slim_result(data)
        if progress:
            progress.update(data)

    tasks = [asyncio.create_task(worker()) for _ in range(min(max(1, concurrency), count))]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    kept = [i for i, r in enumerate(results) if r is not None]
    return Outcome(scenarios=[refs[i] for i in kept], results=[results[i] for i in kept],
                   keys=[keys[i] for i in kept], skipped=skipped, resumed=len(resumed), groups=count,
                   earlier_groups=earlier)
