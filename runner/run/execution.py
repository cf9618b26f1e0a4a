"""A set-up run executed: every round of its scenarios under the journal, the progress display and the
early-failure watch, then a judge panel's further judges over round 1's transcripts."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from auditpacks.core.runs.run_files import progress_name
from auditpacks.runner.display.progress import ProgressPrinter
from auditpacks.runner.execute.execute import Outcome
from auditpacks.runner.readiness.fail_fast import FailFast
from auditpacks.runner.run.prepare import Prepared
from auditpacks.runner.run.rounds import run_rounds


@dataclass
class Executed:
    outcomes: list[Outcome]            # one per round, round 1 first
    panel: dict[str, Any] | None       # the panel's figures (--judge-model given again)


def execute(prepared: Prepared) -> Executed:
    """Run every round of the runnable scenarios (and the panel); the journal is closed when the rounds end."""
    config, execution = prepared.config, prepared.config.execution
    with prepared.journal, ProgressPrinter(len(prepared.runnable) * config.selection.repeats,
                                           show=execution.show_progress,
                                           plan=prepared.folder / progress_name(prepared.stem),
                                           log=execution.log_progress) as progress:
        # a batch's results come back together, already paid for: nothing is saved by stopping early
        watched = FailFast(progress, 0 if config.hosting.batch_api else execution.stop_after)
        outcomes = asyncio.run(_rounds(prepared, watched))
    return Executed(outcomes, _panel(prepared, outcomes))


async def _rounds(prepared: Prepared, progress: Any) -> list[Outcome]:
    """All rounds of all scenarios in one event loop; the target's (and judge's) connections are closed inside it."""
    try:
        return await run_rounds(prepared.engine, prepared.target, prepared.pack.lazy(prepared.runnable),
                                prepared.journal, prepared.config, progress, prepared.reader)
    finally:
        await prepared.target.aclose()
        await prepared.roles.aclose()


def _panel(prepared: Prepared, outcomes: list[Outcome]) -> dict[str, Any] | None:
    """The panel's figures: further judges grade round 1's transcripts (None without a panel)."""
    roles = prepared.roles
    if not prepared.config.roles.panel_models or roles.judge is None:
        return None
    from auditpacks.runner.trust.judge_panel import run_panel

    pack = prepared.pack
    return run_panel(prepared.config, manifest=pack.manifest, scenarios=[pack.load(s) for s in outcomes[0].scenarios],
                     results=outcomes[0].results, first_judge=roles.judge.record(),
                     embedded_url=prepared.endpoint.embedded_url, cache=prepared.cache,
                     embedded_identity=prepared.embedded_identity)
