"""The judge and auditor roles in process: which models a run has, how they are put in simpleaudit's engine (a
judge's per-scenario schema only where its server enforces schemas) and what the run file records of them."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from auditpacks.runner.targets.model_client import RoleModel, RoleSettings
from auditpacks.runner.targets.roles import Roles


class FakeModel:
    def __init__(self, calls: int) -> None:
        self.counts, self.closed = {"calls": calls}, False

    async def aclose(self) -> None:
        self.closed = True


def role(name: str, *, bounded: bool = False, calls: int = 0) -> RoleModel:
    return RoleModel(FakeModel(calls), RoleSettings(role=name, model=f"{name}-m", provider="openai", base_url=None,
                                                    bounded_schema=bounded))


def fake_engine() -> SimpleNamespace:
    """simpleaudit's engine as the roles touch it: its clients and its judge-spec resolver (schema passed on)."""
    resolve = lambda prompt, schema, post, requires, expected: (prompt, schema, post, False)  # noqa: E731
    return SimpleNamespace(judge_client="any-llm judge", auditor_client="any-llm auditor",
                           _resolve_judge_spec=resolve)


def bound(schema: dict, expected: list) -> dict:
    return {**schema, "maxItems": len(expected)}


def judge_schema(engine: SimpleNamespace) -> dict:
    """The schema the engine's judge call for a scenario with two expected behaviours gets."""
    return engine._resolve_judge_spec("p", {"type": "array"}, None, True, ["a", "b"])[1]


@pytest.mark.parametrize("judge, auditor", [(True, True), (True, False), (False, True), (False, False)])
def test_the_models_are_the_roles_given(judge, auditor):
    roles = Roles(judge=role("judge") if judge else None, auditor=role("auditor") if auditor else None)
    assert roles.models() == [m for m in (roles.judge, roles.auditor) if m is not None]


def test_both_roles_replace_simpleaudits_clients():
    roles, engine = Roles(judge=role("judge"), auditor=role("auditor")), fake_engine()
    roles.install(engine)
    assert (engine.judge_client, engine.auditor_client) == (roles.judge, roles.auditor)


def test_without_an_auditor_model_simpleaudits_auditor_client_is_left():
    roles, engine = Roles(judge=role("judge")), fake_engine()
    roles.install(engine)
    assert (engine.judge_client, engine.auditor_client) == (roles.judge, "any-llm auditor")


def test_a_judge_server_that_enforces_schemas_gets_each_scenarios_bounded_schema():
    engine = fake_engine()
    Roles(judge=role("judge", bounded=True)).install(engine, bound)
    assert judge_schema(engine) == {"type": "array", "maxItems": 2}


@pytest.mark.parametrize("roles, given", [
    (lambda: Roles(judge=role("judge", bounded=False)), bound),   # the server does not enforce schemas
    (lambda: Roles(judge=role("judge", bounded=True)), None),     # the judge has no bounded schema
    (lambda: Roles(auditor=role("auditor", bounded=True)), bound),  # no judge model (a code grader)
])
def test_otherwise_the_judge_schema_is_left_as_simpleaudit_makes_it(roles, given):
    engine = fake_engine()
    roles().install(engine, given)
    assert judge_schema(engine) == {"type": "array"}


def test_the_record_holds_each_roles_settings_and_counts_or_none():
    record = Roles(judge=role("judge", calls=3)).record()
    assert record == {"judge": {"role": "judge", "model": "judge-m", "provider": "openai", "base_url": None,
                                "temperature": 0.0, "max_tokens": 1024, "timeout": None, "structured_output": True,
                                "bounded_schema": False, "calls": 3},
                      "auditor": None}
    assert Roles(auditor=role("auditor", calls=2)).record()["auditor"]["calls"] == 2
    assert Roles(auditor=role("auditor")).record()["judge"] is None


def test_closing_closes_every_roles_model():
    roles = Roles(judge=role("judge"), auditor=role("auditor"))
    asyncio.run(roles.aclose())
    assert (roles.judge.model.closed, roles.auditor.model.closed) == (True, True)
