"""Run scenarios through the simpleaudit engine, journaling each result as it finishes.

Each scenario goes through ``ModelAuditor.run_scenario`` (the engine's own turn
loop, judge call and error handling) under a concurrency limit. Results come
back in pack order; finished ones are appended to the journal at once, so an
interrupted run resumes where it stopped.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from simpleaudit import AuditResult

from runner.journal import Journal, scenario_key

Progress = Callable[[dict[str, Any]], None]


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


async def run_scenarios(
    engine: Any,
    scenarios: list[dict[str, Any]],
    journal: Journal,
    *,
    concurrency: int = 1,
    params: dict[str, Any] | None = None,
    retry_errors: bool = True,
    on_result: Progress | None = None,
) -> list[dict[str, Any]]:
    """Every scenario's result dict, in the order given; reuses results already journaled."""
    keys = [scenario_key(s) for s in scenarios]
    results: list[dict[str, Any] | None] = [None] * len(scenarios)
    pending = []
    for index, key in enumerate(keys):
        done = journal.done.get(key)
        if done is not None and not (retry_errors and done.get("severity") == "ERROR"):
            results[index] = done
        else:
            pending.append(index)
    semaphore = asyncio.Semaphore(max(1, concurrency))

    async def one(index: int) -> None:
        scenario = scenarios[index]
        async with semaphore:
            try:
                result = await engine.run_scenario(**scenario_arguments(scenario), target_params=params)
            except Exception as exc:  # the engine catches most failures itself
                result = error_result(scenario, exc)
        data = result.to_dict()
        journal.append(keys[index], scenario["name"], data)
        results[index] = data
        if on_result:
            on_result(data)

    tasks = [asyncio.create_task(one(i)) for i in pending]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return [r for r in results if r is not None]
