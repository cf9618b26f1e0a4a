"""A run's options become model calls: every provider's target goes through the one wrapper."""

from __future__ import annotations

import pytest

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.readiness.model_setup import build_roles, make_target, role_policy
from auditpacks.runner.models.providers.anyllm_api import AnyLLMChatAPI
from auditpacks.runner.targets.chat_target import ChatTarget
from auditpacks.runner.models.providers.ollama_native import OllamaChatAPI
from auditpacks.runner.models.providers.openai_compat import OpenAIChatAPI
from tests.support.run_config import run_config


def test_an_anyllm_provider_target_gets_our_retries_and_no_sdk_retries():
    target = make_target(run_config(target="claude", provider="anthropic", api_key="k", max_retries=4, timeout=7.0),
                         model="claude", base_url=None, cache=None)
    assert isinstance(target, ChatTarget) and isinstance(target.model.api, AnyLLMChatAPI)
    assert (target.model.policy.max_retries, target.model.policy.timeout) == (4, 7.0)
    assert target.model.api.client.client.max_retries == 0   # the SDK's own retries are off


def test_a_provider_whose_sdk_is_missing_fails_in_one_line_before_the_run():
    with pytest.raises(RunError, match=r"provider 'mistral' needs its SDK: pip install 'any-llm-sdk\[mistral\]'"):
        make_target(run_config(target="m", provider="mistral", api_key="k"), model="m", base_url=None, cache=None)


def test_each_provider_row_gets_its_own_provider_class():
    ollama = make_target(run_config(target="q", provider="ollama"), model="q", base_url=None, cache=None)
    assert isinstance(ollama.model.api, OllamaChatAPI) and ollama.model.api.host == "http://localhost:11434"
    vllm = make_target(run_config(target="q", provider="vllm", prompt_order="document-first"), model="q",
                       base_url=None, cache=None)
    assert isinstance(vllm.model.api, OpenAIChatAPI) and vllm.model.api.base_url == "http://localhost:8000/v1"
    assert vllm.layout_name == "document-first"


def test_the_auditor_is_the_judges_model_with_the_auditors_settings():
    config = run_config(judge_model="j", judge_provider="vllm", max_turns=2, auditor_max_tokens=77, judge_max_tokens=11)
    roles = build_roles(config.roles, policy=role_policy(config), model_judge=True, embedded_url=None,
                        embedded_identity=None, cache=None)
    assert (roles.judge.settings.model, roles.judge.settings.max_tokens) == ("j", 11)
    assert (roles.auditor.settings.model, roles.auditor.settings.role, roles.auditor.settings.max_tokens) == \
        ("j", "auditor", 77)
    assert roles.judge.model is not roles.auditor.model and roles.judge.settings.bounded_schema


def test_judge_and_auditor_replies_are_capped_far_below_a_targets_and_the_sdk_gets_a_bounded_client():
    config = run_config(judge_model="j", judge_provider="vllm", max_turns=2)
    roles = build_roles(config.roles, policy=role_policy(config), model_judge=True, embedded_url=None,
                        embedded_identity=None, cache=None)
    assert roles.judge.model.api.max_bytes == roles.auditor.model.api.max_bytes == 2 * 2**20
    target = make_target(run_config(target="q", provider="vllm"), model="q", base_url=None, cache=None)
    assert target.model.api.max_bytes is None   # a target's replies: the 64 MiB reply cap
    claude = make_target(run_config(target="claude", provider="anthropic", api_key="k"), model="claude", base_url=None,
                         cache=None)
    transport = claude.model.api.client.client._client._transport   # the Anthropic SDK's httpx client
    assert type(transport).__name__ == "BoundedAsyncTransport"
