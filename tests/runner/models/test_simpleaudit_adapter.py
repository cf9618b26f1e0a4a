"""simpleaudit's engine with our target, judge model and transcript facts, through the one adapter."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from simpleaudit import Auditor

from auditpacks.judges.base import code_judge
from auditpacks.runner.models.model import Model
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.models import simpleaudit_adapter
from auditpacks.runner.targets import scenario_log
from auditpacks.runner.targets.chat_target import ChatTarget
from auditpacks.runner.models.providers.openai_compat import OpenAIChatAPI
from tests.support.fake_openai import FakeOpenAI

ARGUMENTS = {"name": "s1", "description": "a question", "test_prompt": "Guilty?",
             "scenario_meta": {"severity": "high"}}


def engine_for(server: FakeOpenAI, seen: list):
    def verdict(scenario, reply):
        seen.append((dict(scenario), dict(reply)))
        return {"severity": "pass"}

    target = ChatTarget(Model(OpenAIChatAPI(model="m", base_url=server.base_url, api_key="k"),
                              policy=RetryPolicy(timeout=10.0)))
    return Auditor(target=target, judge=code_judge("probe", "records its input", verdict), judge_model="unused",
                   judge_provider="openai", judge_api_key="unused", judge_base_url="http://unused.invalid/v1",
                   max_turns=1, max_retries=0, show_progress=False).engine


def run(engine) -> tuple[object, scenario_log.ScenarioLog]:
    async def go():
        log = scenario_log.begin(key="s1")
        return await simpleaudit_adapter.run_scenario(engine, ARGUMENTS, params={"temperature": 0.0},
                                                      before_judge=log.annotate), log
    return asyncio.run(go())


def test_a_code_grader_reads_the_finish_reason_and_reasoning_on_the_reply_it_grades():
    answer = {"content": "<think>Hm.</think>guil", "finish_reason": "length"}
    with FakeOpenAI(answer=lambda model, messages: answer) as server:
        seen: list = []
        result, log = run(engine_for(server, seen))
    (scenario, reply), = seen
    assert scenario["severity"] == "high"
    assert reply == {"role": "assistant", "content": "guil", "reasoning": "Hm.", "finish_reason": "length"}
    assert result.severity == "pass" and [r.finish_reason for r in log.replies] == ["length"]


def test_a_reply_without_facts_reaches_the_grader_as_simpleaudit_stored_it():
    with FakeOpenAI(answer=lambda model, messages: {"content": "guilty", "finish_reason": None}) as server:
        seen: list = []
        run(engine_for(server, seen))
    assert seen[0][1] == {"role": "assistant", "content": "guilty"}


class Client:
    def __init__(self, name: str) -> None:
        self.name = name


def test_role_models_replace_simpleaudits_clients_and_the_judge_schema_is_bounded_per_scenario():
    with FakeOpenAI() as server:
        engine = engine_for(server, [])
    judge, auditor = Client("judge"), Client("auditor")
    simpleaudit_adapter.install_roles(engine, judge=judge, auditor=auditor)
    assert engine.judge_client is judge and engine.auditor_client is auditor
    simpleaudit_adapter.bound_judge_schema(engine, lambda schema, expected: {**schema, "maxItems": len(expected)})
    _, schema, _, fell_back = engine._resolve_judge_spec("p", {"type": "array"}, None, True, ["a", "b"])
    assert schema == {"type": "array", "maxItems": 2} and not fell_back
    _, schema, _, fell_back = engine._resolve_judge_spec("p", {"type": "array"}, None, True, [])
    assert schema is None and fell_back   # no expectations: simpleaudit's default judge, unbounded


def test_a_decision_targets_own_client_is_read_through_the_adapter():
    from simpleaudit import DecisionTarget

    given = object()
    assert simpleaudit_adapter.decision_client(DecisionTarget("http://127.0.0.1:9/v1/systemone", "m",
                                                              client=given)) is given
    assert simpleaudit_adapter.decision_client(DecisionTarget("http://127.0.0.1:9/v1/systemone", "m")) is None


def test_the_any_llm_client_is_simpleaudits_for_the_provider_key_url_and_settings():
    client = simpleaudit_adapter.anyllm_client("sk-abc123", "http://127.0.0.1:9/v1", "openai", {"timeout": 5.0})
    assert (client.client.api_key, str(client.client.base_url), client.client.timeout) == (
        "sk-abc123", "http://127.0.0.1:9/v1/", 5.0)
    assert "Anthropic" in type(simpleaudit_adapter.anyllm_client("sk-ant-1", None, "anthropic", None)).__name__


class Engine:
    """simpleaudit's engine as the adapter touches it: a judge-spec resolver that answers ``resolved`` (and keeps
    what it was asked), and ``run_scenario`` keeping its arguments."""

    def __init__(self, resolved: tuple = ()) -> None:
        self.asked: list[tuple] = []
        self.resolved = resolved

        def resolve(*args):
            self.asked.append(args)
            return self.resolved

        self._resolve_judge_spec = resolve

    async def run_scenario(self, **kwargs):
        self.ran = kwargs
        return "result"


def bounded(resolved: tuple, expected: list) -> tuple:
    engine = Engine(resolved)
    simpleaudit_adapter.bound_judge_schema(engine, lambda schema, behaviours: {**schema, "n": len(behaviours)})
    out = engine._resolve_judge_spec("prompt", {"type": "object"}, "post", True, expected)
    assert engine.asked == [("prompt", {"type": "object"}, "post", True, expected)]   # asked as given
    return out


def test_a_resolved_schema_with_expectations_is_bounded():
    assert bounded(("p2", {"type": "object"}, "post2", False), ["a", "b"]) == (
        "p2", {"type": "object", "n": 2}, "post2", False)


@pytest.mark.parametrize("resolved, expected", [
    (("p2", None, "post2", False), ["a"]),                # no schema to bound
    (("p2", {"type": "object"}, "post2", False), []),     # no expectations
    (("p2", {"type": "object"}, "post2", True), ["a"]),   # simpleaudit fell back to its default judge
])
def test_otherwise_the_resolved_spec_is_left_as_it_is(resolved, expected):
    assert bounded(resolved, expected) == resolved


def test_a_scenario_runs_with_the_target_parameters_and_the_hook_before_the_judge():
    engine, seen = Engine(), []
    result = asyncio.run(simpleaudit_adapter.run_scenario(engine, ARGUMENTS, params={"temperature": 0.2},
                                                          before_judge=seen.append))
    resolver = engine.ran.pop("evidence_resolver")
    assert (result, engine.ran) == ("result", {**ARGUMENTS, "target_params": {"temperature": 0.2}})
    resolver(SimpleNamespace(conversation=["turn"]))
    assert seen == [["turn"]]
