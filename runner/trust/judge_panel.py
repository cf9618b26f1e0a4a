"""A panel of checklist judges: ``--judge-model`` given more than once.

The run grades with the first judge as usual. Each further judge then grades the same
transcripts (round 1's), replayed through the run's own judge path exactly as
``judge-check`` replays its calibration items (:mod:`~runner.trust.judge_calibration`):
the same engine, client, cache, retry layer and schema, with the model's replies and the
follow-up turns taken from the stored conversation. The verdicts go to
:func:`auditpacks.judges.trust.panel.panel_figures` (aggregates, Krippendorff's alpha, pairwise
kappa, the scenarios where the judges disagree), with each judge weighed by its
qualification.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from auditpacks.judges.trust.panel import panel_figures
from auditpacks.judges.trust.qualification import verdict_of
from auditpacks.runner.settings.config import RunConfig
from auditpacks.runner.trust.judge_calibration import grade
from auditpacks.runner.trust.judge_checks import benchmark_of, qualification


@dataclass(frozen=True)
class Replayed:
    """A stored transcript to grade again: the scenario, the model's replies and the follow-up turns."""

    id: str
    scenario: dict[str, Any]
    replies: tuple[str, ...]
    follow_ups: tuple[str, ...]

    @property
    def turns(self) -> int:
        return len(self.replies)


def replayed(scenario: Mapping[str, Any], result: Mapping[str, Any]) -> Replayed | None:
    """The transcript of ``result`` to replay, or None when it has none (an ERROR before any reply)."""
    conversation = [e for e in result.get("conversation") or [] if isinstance(e, Mapping)]
    replies = tuple(str(e.get("content") or "") for e in conversation if e.get("role") == "assistant")
    users = [str(e.get("content") or "") for e in conversation if e.get("role") == "user"]
    if not replies or len(users) != len(replies):
        return None
    return Replayed(str(scenario["name"]), dict(scenario), replies, tuple(users[1:]))


def run_panel(config: RunConfig, *, manifest: Mapping[str, Any] | None, scenarios: Sequence[Mapping[str, Any]],
              results: Sequence[Mapping[str, Any]], first_judge: Mapping[str, Any], embedded_url: str | None,
              embedded_identity: dict[str, Any] | None, cache: Any) -> dict[str, Any]:
    """The panel's figures over ``scenarios`` and their ``results`` (graded by ``first_judge``)."""
    pairs = [(s, r, t) for s, r in zip(scenarios, results) if (t := replayed(s, r)) is not None]
    transcripts = [t for _, _, t in pairs]
    benchmark = benchmark_of(manifest)
    judges, statuses = [str(first_judge.get("model"))], [qualification(first_judge, benchmark)["status"]]
    table = [[verdict_of(r.get("severity")) for _, r, _ in pairs]]
    for model in config.roles.panel_models:
        alone = dataclasses.replace(config.roles, judge_model=model, panel_models=(), max_turns=1, auditor_model=None)
        one = dataclasses.replace(config, roles=alone)
        graded = asyncio.run(grade(transcripts, one, manifest=manifest, embedded_url=embedded_url,
                                   embedded_identity=embedded_identity, cache=cache))
        judges.append(model)
        statuses.append(qualification(graded.judge, benchmark)["status"])
        table.append([graded.verdicts.get(t.id) for t in transcripts])
    return panel_figures([t.id for t in transcripts], judges, table, statuses)
