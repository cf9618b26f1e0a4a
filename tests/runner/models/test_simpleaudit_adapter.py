"""simpleaudit's engine with our target, judge model and transcript facts, through the one adapter."""

from __future__ import annotations

import asyncio

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
