"""chat_api picks the provider class the provider table names, with each provider's own settings; chat_model puts
it under a Model with the policy's time-out."""

from __future__ import annotations

import pytest

from auditpacks.runner.models.model import Model
from auditpacks.runner.models.providers.anyllm_api import AnyLLMChatAPI
from auditpacks.runner.models.providers.factory import EMBEDDED_URL, chat_api, chat_model
from auditpacks.runner.models.providers.ollama_native import OllamaChatAPI
from auditpacks.runner.models.providers.openai_compat import OpenAIChatAPI
from auditpacks.runner.models.retry import RetryPolicy

pytestmark = pytest.mark.quick


def _api(name, **settings):
    base = {"model": "m", "base_url": None, "api_key": "k", "timeout": 7.0}
    return chat_api(name, **{**base, **settings})


def test_ollama_goes_to_the_native_client_at_its_root_url():
    api = _api("ollama", base_url="http://box:11434/v1", max_tokens=64)
    assert isinstance(api, OllamaChatAPI)
    assert (api.host, api.model, api.timeout, api.max_tokens) == ("http://box:11434", "m", 7.0, 64)


@pytest.mark.parametrize("prompt_cache, marks", [(None, True), (True, True), (False, False)])
def test_anthropic_goes_through_any_llm_with_cache_marks_unless_switched_off(prompt_cache, marks):
    api = _api("anthropic", prompt_cache=prompt_cache)
    assert isinstance(api, AnyLLMChatAPI)
    assert (api.provider, api.cache_marks) == ("anthropic", marks)


def test_a_provider_without_marks_never_gets_them():
    assert _api("gemini", prompt_cache=True).cache_marks is False


@pytest.mark.parametrize("name, base_url, url, token_param, key", [
    ("openai", None, "https://api.openai.com/v1", "max_completion_tokens", True),
    ("openai", "http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1", "max_tokens", False),
    ("vllm", None, "http://localhost:8000/v1", "max_tokens", False),
    ("groq", None, "https://api.groq.com/openai/v1", "max_tokens", False),
    ("vllm", "https://api.openai.com/v1", "https://api.openai.com/v1", "max_tokens", False),  # not the openai row
])
def test_openai_compatible_rows_get_their_url_and_token_parameter(name, base_url, url, token_param, key, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    api = _api(name, base_url=base_url)
    assert isinstance(api, OpenAIChatAPI)
    assert (api.base_url, api.token_param, api.prompt_cache_key) == (url, token_param, key)
    assert api.identity == {"base_url": url}


def test_prompt_cache_true_sends_the_key_to_any_endpoint_and_false_to_none():
    assert _api("openai", base_url="http://127.0.0.1:9/v1", prompt_cache=True).prompt_cache_key is True
    assert _api("openai", prompt_cache=False).prompt_cache_key is False


def test_the_embedded_model_is_openai_compatible_whatever_the_provider_says():
    api = _api("ollama", base_url=None, embedded=True, api_key=None)
    assert isinstance(api, OpenAIChatAPI)
    assert (api.base_url, api.identity, api.prompt_cache_key) == (EMBEDDED_URL, {"base_url": EMBEDDED_URL}, False)
    running = _api("llamacpp", base_url="http://127.0.0.1:5000/v1", embedded=True, identity={"embedded": "smollm2"},
                   prompt_cache=True)
    assert (running.base_url, running.identity, running.prompt_cache_key) == (
        "http://127.0.0.1:5000/v1", {"embedded": "smollm2"}, False)


def test_chat_model_wraps_the_api_with_the_policy_timeout():
    policy = RetryPolicy(max_retries=0, timeout=3.5)
    model = chat_model("vllm", model="m", base_url="http://127.0.0.1:9/v1", api_key="x", policy=policy, cache=None)
    assert isinstance(model, Model) and isinstance(model.api, OpenAIChatAPI)
    assert (model.api.timeout, model.policy, model.cache) == (3.5, policy, None)


def test_ollama_and_any_llm_get_the_endpoints_settings_and_reply_cap():
    ollama = _api("ollama", base_url="http://box:11434", max_bytes=4096)
    assert ollama.max_bytes == 4096
    api = _api("anthropic", model="claude-x", base_url="https://proxy.example/v1", api_key="sk-ant", max_bytes=2048)
    assert (api.model, api.base_url, api.secret, api.timeout, api.max_bytes) == (
        "claude-x", "https://proxy.example/v1", "sk-ant", 7.0, 2048)


def test_an_openai_compatible_endpoint_gets_the_model_key_preflight_slots_and_reply_cap():
    def preflight():
        return None

    api = _api("vllm", model="qwen", base_url="http://127.0.0.1:9/v1", preflight=preflight, slot_pinning=True,
               max_bytes=1024)
    assert (api.model, api.secret, api._preflight, api.slot_pinning, api.max_bytes) == (
        "qwen", "k", preflight, True, 1024)
    plain = _api("vllm", base_url="http://127.0.0.1:9/v1")
    assert (plain._preflight, plain.slot_pinning, plain.max_bytes) == (None, False, None)


@pytest.mark.parametrize("api_key, sent", [(None, "local"), ("", "local"), ("sk-1", "sk-1")])
def test_a_local_server_without_a_key_gets_a_placeholder(api_key, sent):
    assert _api("vllm", base_url="http://127.0.0.1:9/v1", api_key=api_key).secret == sent


@pytest.mark.parametrize("base_url, address", [("http://127.0.0.1:5000/v1/", "http://127.0.0.1:5000/v1"),
                                               ("http://127.0.0.1:5000/LLX//", "http://127.0.0.1:5000/LLX")])
def test_only_an_endpoint_of_no_given_identity_is_known_by_the_model_it_serves(base_url, address):
    """An embedded model's server is known by its address (trailing slashes, and only they, left out), not by the
    model it serves."""
    running = _api("llamacpp", base_url=base_url, embedded=True)
    assert (running.identity, running.needs_facts) == ({"base_url": address}, False)
    assert _api("vllm", base_url="http://127.0.0.1:9/v1").needs_facts is True
    assert _api("vllm", base_url="http://127.0.0.1:9/v1", identity={"pool": "a"}).needs_facts is False


def test_chat_model_builds_the_named_providers_api_with_the_cache_given():
    cache = object()
    model = chat_model("anthropic", model="m", base_url=None, api_key="x", policy=RetryPolicy(timeout=3.5),
                       cache=cache)
    assert isinstance(model.api, AnyLLMChatAPI) and model.cache is cache
