"""Judge and auditor calls through a Model: the role's settings, the completion simpleaudit reads, the log."""

from __future__ import annotations

import asyncio

from auditpacks.runner.models.model import Model
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.models.reply import Reply
from auditpacks.runner.targets import scenario_log
from auditpacks.runner.targets.model_client import RoleModel, RoleSettings, completion
from auditpacks.runner.models.providers.openai_compat import OpenAIChatAPI
from tests.support.fake_openai import FakeOpenAI


def judge(server: FakeOpenAI, **settings) -> RoleModel:
    model = Model(OpenAIChatAPI(model="j", base_url=server.base_url, api_key="k"), policy=RetryPolicy(timeout=10.0))
    return RoleModel(model, RoleSettings(role="judge", model="j", provider="openai", base_url=None, **settings))


def test_a_judge_call_uses_the_roles_settings_and_is_logged_with_its_cut():
    with FakeOpenAI(answer=lambda model, messages: {"content": '{"sev', "finish_reason": "length"}) as server:
        role = judge(server, max_tokens=16)

        async def go():
            log = scenario_log.begin()
            out = await role.acompletion(model="ignored", messages=[{"role": "user", "content": "grade"}],
                                         stream=False, temperature=0.7, max_completion_tokens=5,
                                         response_format={"type": "json_object"})
            await role.aclose()
            return out, log

        completion, log = asyncio.run(go())
        sent = server.bodies[0]
    assert (sent["model"], sent["temperature"], sent["max_tokens"], sent["response_format"]) == \
        ("j", 0.7, 16, {"type": "json_object"})   # simpleaudit's temperature wins; its token cap does not
    assert completion.choices[0].message.content == '{"sev' and completion.choices[0].finish_reason == "length"
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (1 + 5, 1)
    assert log.judge_replies == [{"text": '{"sev', "finish_reason": "length", "max_tokens": 16}]
    assert role.record()["calls"] == 1 and role.record()["requests"] == 1


def test_without_structured_output_no_schema_is_sent():
    with FakeOpenAI() as server:
        role = judge(server, structured_output=False)
        asyncio.run(role.acompletion(messages=[{"role": "user", "content": "grade"}],
                                     response_format={"type": "json_object"}))
        assert "response_format" not in server.bodies[0]


def test_params_put_the_roles_settings_first_and_drop_simpleaudits_token_cap():
    """Role defaults (temperature 0, cap 1024); simpleaudit's own values win, bar ``max_completion_tokens``."""
    role = RoleModel(None, RoleSettings(role="auditor", model="a", provider="openai", base_url=None))
    assert role.params({"model": "a", "messages": [], "stream": False, "seed": 7, "top_p": None,
                        "max_completion_tokens": 5}) == {"temperature": 0.0, "max_tokens": 1024, "seed": 7}


def test_a_reply_without_token_counts_reads_as_zero_tokens():
    """simpleaudit adds the usage up: a reply the endpoint gave no counts for costs nothing, not one token."""
    usage = completion(Reply(content="ok")).usage
    assert (usage.prompt_tokens, usage.completion_tokens) == (0, 0)
