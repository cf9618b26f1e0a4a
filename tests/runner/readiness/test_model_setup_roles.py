"""The judge's and the auditor's models from a run's options, in process: which roles there are, whose
provider, endpoint and key each takes, the embedded model, an Ollama judge endpoint, and a missing key."""

from __future__ import annotations

import pytest

from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.providers import ollama_detect
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.readiness.model_setup import build_roles
from tests.support.run_config import run_config

POLICY = RetryPolicy(max_retries=1, backoff=0.0, timeout=33.0)


@pytest.fixture(autouse=True)
def no_ollama(monkeypatch):
    """No judge endpoint is Ollama unless a test says so; no provider key in the environment."""
    monkeypatch.setattr(ollama_detect, "ollama_version", lambda url, cache: None)
    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.delenv(variable, raising=False)


def roles(model_judge=True, cache=None, embedded_url=None, embedded_identity=None, **settings):
    return build_roles(run_config(**settings).roles, policy=POLICY, model_judge=model_judge,
                       embedded_url=embedded_url, embedded_identity=embedded_identity, cache=cache)


LOCAL = {"judge_provider": "vllm", "judge_base_url": "http://j:8000/v1"}


@pytest.mark.parametrize("model_judge, settings, judge, auditor", [
    (True, {"judge_model": "j"}, "j", None),   # one turn: no auditor
    (True, {"judge_model": "j", "max_turns": 2}, "j", "j"),
    (False, {"judge_model": "j", "max_turns": 2}, None, None),   # no model judge: its model asks nothing either
    (False, {"judge_model": "j", "auditor_model": "a", "max_turns": 2}, None, "a"),
    (True, {"max_turns": 3}, None, None),
    (True, {"judge_model": "j", "auditor_model": "a", "max_turns": 2}, "j", "a"),
])
def test_which_roles_a_run_has(model_judge, settings, judge, auditor):
    made = roles(model_judge, **LOCAL, **settings)
    assert (made.judge and made.judge.settings.model, made.auditor and made.auditor.settings.model) == \
        (judge, auditor)


def test_the_judges_settings_come_from_the_run():
    judge = roles(judge_model="j", judge_temperature=0.3, judge_max_tokens=99, **LOCAL).judge
    assert judge.settings.record() == {"role": "judge", "model": "j", "provider": "vllm",
                                       "base_url": "http://j:8000/v1", "temperature": 0.3, "max_tokens": 99,
                                       "timeout": 33.0, "structured_output": True, "bounded_schema": True}
    assert (judge.model.policy, judge.model.api.base_url, judge.model.api.secret) == \
        (POLICY, "http://j:8000/v1", "local")


def test_an_auditor_of_its_own_model_takes_its_own_endpoint_else_the_judges():
    own = roles(judge_model="j", auditor_model="a", auditor_provider="lmstudio",
                auditor_base_url="http://a:1234/v1", max_turns=2, **LOCAL).auditor.settings
    assert (own.provider, own.base_url, own.role, own.max_tokens) == ("lmstudio", "http://a:1234/v1", "auditor", 512)
    borrowed = roles(judge_model="j", auditor_model="a", max_turns=2, **LOCAL).auditor.settings
    assert (borrowed.provider, borrowed.base_url) == ("vllm", "http://j:8000/v1")


def test_the_judges_model_as_auditor_keeps_the_judges_endpoint_whatever_the_auditor_options_say():
    auditor = roles(judge_model="j", auditor_provider="lmstudio", auditor_base_url="http://a:1234/v1", max_turns=2,
                    **LOCAL).auditor.settings
    assert (auditor.model, auditor.provider, auditor.base_url) == ("j", "vllm", "http://j:8000/v1")


def test_the_embedded_judge_runs_on_the_embedded_server(tmp_path):
    cache = ResponseCache(tmp_path)
    judge = roles(judge_model="embedded", embedded_url="http://127.0.0.1:9/v1", embedded_identity={"digest": "d"},
                  cache=cache).judge
    assert judge.settings.record() == {"role": "judge", "model": "smollm2", "provider": "embedded", "base_url": None,
                                       "temperature": 0.0, "max_tokens": 1024, "timeout": 33.0,
                                       "structured_output": True, "bounded_schema": True}
    api = judge.model.api
    assert (api.base_url, api.model, api.identity, api.secret, api.max_bytes) == \
        ("http://127.0.0.1:9/v1", "smollm2", {"digest": "d"}, "local", 2 * 2**20)
    assert judge.model.cache is cache
    unnamed = roles(judge_model="embedded", embedded_url="http://127.0.0.1:9/v1").judge.model.api
    assert (unnamed.identity, unnamed.needs_facts) == ({"base_url": "http://127.0.0.1:9/v1"}, False)


def test_the_embedded_model_must_be_running_unless_the_run_replays_its_cache(tmp_path):
    with pytest.raises(RunError) as caught:
        roles(judge_model="j", auditor_model="embedded", max_turns=2, **LOCAL)
    assert str(caught.value) == "--auditor-model embedded: the embedded local model is not running"
    replay = roles(judge_model="embedded", cache=ResponseCache(tmp_path, only=True))
    assert replay.judge.settings.model == "smollm2"
    with pytest.raises(RunError, match="^--judge-model embedded: "):
        roles(judge_model="embedded", cache=ResponseCache(tmp_path))


def test_an_openai_judge_endpoint_that_is_ollama_is_used_natively(monkeypatch):
    asked = []
    monkeypatch.setattr(ollama_detect, "ollama_version", lambda url, cache: asked.append((url, cache)) or "0.5.1")
    judge = roles(judge_model="j", judge_base_url="http://user:pw@o:11434", judge_api_key="k", cache=None).judge
    assert (judge.settings.provider, judge.settings.base_url, judge.model.api.host) == \
        ("ollama", "http://o:11434", "http://user:pw@o:11434")
    assert asked == [("http://user:pw@o:11434", None)]
    roles(judge_model="j", judge_provider="vllm", judge_base_url="http://v:8000/v1")
    roles(judge_model="j", judge_api_key="k")
    assert len(asked) == 1   # only a given base URL of the openai provider is asked


def test_the_judge_endpoint_is_asked_with_the_runs_cache(monkeypatch, tmp_path):
    asked, cache = [], ResponseCache(tmp_path)
    monkeypatch.setattr(ollama_detect, "ollama_version", lambda url, cache: asked.append(cache) or None)
    judge = roles(judge_model="j", judge_base_url="http://o:8000/v1", cache=cache).judge
    assert asked == [cache] and judge.model.cache is cache and judge.model.api.model == "j"


def test_the_auditor_takes_the_judges_key():
    auditor = roles(judge_model="j", judge_provider="openrouter", judge_api_key="sk-or", max_turns=2).auditor
    assert auditor.model.api.secret == "sk-or"


def test_an_any_llm_provider_of_no_known_key_variable_is_not_refused():
    assert roles(judge_model="j", judge_provider="cohere").judge.settings.provider == "cohere"


def test_a_judge_key_comes_from_the_option_else_the_providers_variable(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "from-env")
    assert roles(judge_model="j", judge_provider="openrouter").judge.model.api.secret == "from-env"
    assert roles(judge_model="j", judge_provider="openrouter", judge_api_key="given").judge.model.api.secret == "given"


@pytest.mark.parametrize("settings, message", [
    ({"judge_provider": "openai"}, "judge provider 'openai' needs a key: $OPENAI_API_KEY"),
    ({"judge_provider": "anthropic"}, "judge provider 'anthropic' needs a key: $ANTHROPIC_API_KEY"),
])
def test_a_judge_without_a_key_is_refused_before_the_run(settings, message):
    with pytest.raises(RunError) as caught:
        roles(judge_model="j", **settings)
    assert str(caught.value) == message


@pytest.mark.parametrize("settings", [{"judge_provider": "vllm"}, {"judge_base_url": "http://j:8000/v1"},
                                      {"judge_provider": "anthropic", "judge_base_url": "http://gw/v1"}])
def test_a_keyless_or_local_judge_needs_no_key(settings):
    assert roles(judge_model="j", **settings).judge.settings.model == "j"


def test_a_judge_replaying_its_cache_needs_no_key(tmp_path):
    for provider in ("openai", "anthropic"):
        judge = roles(judge_model="j", judge_provider=provider, cache=ResponseCache(tmp_path, only=True)).judge
        assert judge.settings.provider == provider


def test_an_any_llm_judge_gets_its_key_as_given_and_ours_a_local_one():
    anthropic = roles(judge_model="j", judge_provider="anthropic", judge_api_key="sk-ant").judge
    assert (anthropic.model.api.secret, anthropic.settings.bounded_schema) == ("sk-ant", False)
    gateway = roles(judge_model="j", judge_provider="anthropic", judge_base_url="http://gw/v1").judge
    assert gateway.model.api.secret is None   # any-llm reads the provider's own variable
    assert roles(judge_model="j", judge_base_url="http://gw/v1").judge.model.api.secret == "local"
