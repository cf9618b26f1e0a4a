"""Grade calibration items with the judge under test, through the run's own judge path.

The engine is the one a ``run --judge checklist`` builds (:func:`build_engine` with the
judge client from :func:`build_roles` and the checklist config from ``make_judge``: the same
cache, retry layer, output cap, schema and ungraded handling). Only the other side of the
conversation is scripted: a replay target answers each turn with the item's reply, and a
replay auditor writes the item's follow-up turns. Each item then runs through simpleaudit's
``run_scenario`` like any scenario, and its judgment is the judge's verdict.
"""

from __future__ import annotations

import asyncio
import contextvars
import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from simpleaudit.targets import TargetResponse

from auditpacks.core.registry import modules
from auditpacks.judges.trust.judge_items import CalibrationItem
from auditpacks.judges.checklist import make_judge
from auditpacks.judges.trust.qualification import verdict_of
from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.settings.config import RunConfig
from auditpacks.runner.execute.engine import build_engine
from auditpacks.runner.execute.execute import error_result, scenario_arguments
from auditpacks.runner.readiness.model_setup import build_roles, role_policy
from auditpacks.runner.models.reply import Reply
from auditpacks.runner.targets import scenario_log
from auditpacks.runner.targets.contract import RunTarget
from auditpacks.runner.targets.model_client import completion
from auditpacks.runner.models.simpleaudit_adapter import install_roles

#: The model name the replayed replies are recorded under (no model is called for them).
REPLAY = "calibration-replay"


@dataclass
class _Replay:
    item: CalibrationItem
    replies: int = 0
    follow_ups: int = 0


_current: contextvars.ContextVar[_Replay | None] = contextvars.ContextVar("auditpacks_calibration", default=None)


class ReplayTarget(RunTarget):
    """Answers each turn with the current item's next reply."""

    async def send(self, **kwargs: Any) -> TargetResponse:
        state = _current.get()
        reply = state.item.replies[state.replies]
        state.replies += 1
        return TargetResponse(content=reply, input_tokens=0, output_tokens=0)


class ReplayAuditor:
    """An ``acompletion`` client that writes the current item's next follow-up turn."""

    async def acompletion(self, **kwargs: Any) -> Any:
        state = _current.get()
        text = state.item.follow_ups[state.follow_ups]
        state.follow_ups += 1
        return completion(Reply(content=text))


@dataclass
class Graded:
    """The judge's verdict on each item (None: ungraded or ERROR) and its judgment, and the judge's record."""

    verdicts: dict[str, str | None] = field(default_factory=dict)
    judgments: dict[str, dict[str, Any]] = field(default_factory=dict)
    judge: dict[str, Any] = field(default_factory=dict)


def calibration_items(benchmark: str, scenarios: Sequence[Mapping[str, Any]],
                      manifest: Mapping[str, Any] | None) -> list[CalibrationItem]:
    """The benchmark's core items for ``scenarios``."""
    module = importlib.import_module(modules("judge_items")[benchmark])
    return module.calibration_items(scenarios, manifest)


async def grade(items: Sequence[CalibrationItem], config: RunConfig, *, manifest: Mapping[str, Any] | None,
                embedded_url: str | None, embedded_identity: dict[str, Any] | None,
                cache: ResponseCache | None,
                on_done: Callable[[dict[str, Any]], None] | None = None) -> Graded:
    """Every item graded by ``config``'s judge, ``--concurrency`` at a time. ``items``: calibration items,
    or any replayed transcript with their ``id``, ``scenario``, ``replies``, ``follow_ups`` and ``turns``.
    ``on_done`` gets each item's ``{"severity", "judgment"}`` as it finishes (progress)."""
    roles = build_roles(config.roles, policy=role_policy(config), model_judge=True, embedded_url=embedded_url,
                        embedded_identity=embedded_identity, cache=cache)
    if roles.judge is None:
        raise RunError("judge-check needs --judge-model")
    engine = build_engine(config, "checklist", make_judge(manifest), target=ReplayTarget(), roles=roles)
    install_roles(engine, auditor=ReplayAuditor())
    graded = Graded()
    gate = asyncio.Semaphore(max(1, config.execution.concurrency))

    async def one(item: CalibrationItem) -> None:
        async with gate:
            _current.set(_Replay(item))
            log = scenario_log.begin(key=item.id)
            try:
                result = await engine.run_scenario(**scenario_arguments(item.scenario), max_turns=item.turns)
            except Exception as exc:  # the engine catches most failures itself
                result = error_result(item.scenario, exc)
            judgment = dict(result.judgment or {})
            scenario_log.explain_ungraded(judgment, log)
            graded.verdicts[item.id] = verdict_of(result.severity)
            graded.judgments[item.id] = judgment
            if on_done is not None:
                on_done({"severity": result.severity, "judgment": judgment})

    try:
        await asyncio.gather(*(asyncio.create_task(one(item)) for item in items))
    finally:
        await roles.aclose()
    graded.judge = roles.judge.record()
    return graded
