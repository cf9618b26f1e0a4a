"""The hooks a provider and a run target share, and their harmless defaults: no facts before the run, no fatal
error, no figures for the run file, nothing to close (each call a fresh value, so a caller may fill it)."""

from __future__ import annotations

import asyncio

from auditpacks.runner.models.hooks import Hooks


def test_the_defaults_are_harmless():
    hooks = Hooks()
    assert (hooks.prepare(), hooks.fatal, hooks.stats()) == ({}, None, {})
    assert asyncio.run(hooks.aclose()) is None


def test_each_call_gives_a_fresh_value_to_fill():
    hooks = Hooks()
    hooks.prepare()["digest"] = "d"
    hooks.stats()["requests"] = 1
    assert (hooks.prepare(), hooks.stats()) == ({}, {})


def test_a_provider_overrides_only_what_it_knows():
    class Failing(Hooks):
        @property
        def fatal(self):
            return RuntimeError("quota exhausted")

    failing = Failing()
    assert str(failing.fatal) == "quota exhausted" and failing.prepare() == {} and failing.stats() == {}
