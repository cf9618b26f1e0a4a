"""Run scenarios through the simpleaudit engine, journaling each result as it finishes.

Each scenario goes through ``ModelAuditor.run_scenario`` (the engine's own turn
loop, judge call and error handling) under a concurrency limit, in its own asyncio
task with its own :class:`~runner.targets.turns.ScenarioLog`. Results come back in
pack order; finished ones are appended to the journal at once, so an interrupted run
resumes where it stopped. A target's fatal error (its endpoint is unreachable) stops
the whole run; a prompt too long for the model is skipped when asked to.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from simpleaudit import AuditResult

from runner.journal import Journal, scenario_key
from runner.targets import turns

OVERSIZE = "over the model's context"


class Progress(Protocol):
    def start(self, resumed: list[dict[str, Any]]) -> None: ...
    def update(self, result: dict[str, Any] | None) -> None: ...


@dataclass
class Outcome:
    """The scenarios that produced a result, their results (same order) and what was skipped."""

    scenarios: list[dict[str, Any]]
    results: list[dict[str, Any]]
    skipped: dict[str, int] = field(default_factory=dict)
    resumed: int = 0


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


def finished(journal: Journal, key: str, retry_errors: bool) -> dict[str, Any] | None:
    """The journaled result to reuse for ``key`` (an ERROR is run again unless kept)."""
    done = journal.done.get(key)
    if done is None or (retry_errors and done.get("severity") == "ERROR"):
        return None
    return done


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
) -> Outcome:
    """Every scenario's result dict, in the order given; reuses results already journaled."""
    keys = [scenario_key(s) for s in scenarios]
    results: list[dict[str, Any] | None] = [finished(journal, key, retry_errors) for key in keys]
    resumed = [r for r in results if r is not None]
    if progress:
        progress.start(resumed)
    skipped: dict[str, int] = {}
    semaphore = asyncio.Semaphore(max(1, concurrency))

    async def one(index: int) -> None:
        scenario = scenarios[index]
        async with semaphore:
            log = turns.begin()
            try:
                result = await engine.run_scenario(**scenario_arguments(scenario), target_params=params)
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
        turns.attach_reasoning(data["conversation"], log)
        journal.append(keys[index], scenario["name"], data)
        results[index] = data
        if progress:
            progress.update(data)

    tasks = [asyncio.create_task(one(i)) for i, r in enumerate(results) if r is None]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    kept = [i for i, r in enumerate(results) if r is not None]
    return Outcome(scenarios=[scenarios[i] for i in kept], results=[results[i] for i in kept],
                   skipped=skipped, resumed=len(resumed))
