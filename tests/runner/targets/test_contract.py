"""The target contract the runner relies on: every hook but ``send`` has a harmless default (nothing to prefetch,
no turn limit of its own, round 0, one endpoint, no notes), and the hooks shared with providers are theirs."""

from __future__ import annotations

import asyncio

from auditpacks.runner.models.hooks import Hooks
from auditpacks.runner.targets.contract import RunTarget


class Echo(RunTarget):
    async def send(self, **kwargs):
        return kwargs["prompt"]


def test_a_target_needs_only_send():
    target = Echo()
    assert asyncio.run(target.send(prompt="hi")) == "hi"
    assert (target.prefetch, target.max_turns, target.repeat, target.placement) == (None, None, 0, None)
    assert (target.notes(), target.prepare(), target.fatal, target.stats()) == ([], {}, None, {})
    assert asyncio.run(target.aclose()) is None
    assert isinstance(target, Hooks)


def test_notes_are_a_fresh_list_each_time():
    target = Echo()
    target.notes().append("cut at the output cap")
    assert target.notes() == []


def test_a_target_sets_its_own_round_and_turn_limit_without_touching_others():
    later = Echo()
    later.repeat, later.max_turns = 2, 3
    assert (Echo().repeat, Echo().max_turns) == (0, None)
