"""The provider table: which client carries a provider, its default URL and key, and the URL rules."""

from __future__ import annotations

import pytest

from auditpacks.runner.models import providers
from auditpacks.runner.models.providers import (ANYLLM, OLLAMA, OPENAI, key_from_environment, official_openai,
                                                 ollama_host, openai_base_url, ours, provider)


def test_rows_name_the_client_and_an_unknown_provider_is_plain_any_llm():
    assert provider(None).name == "openai" and provider(None).api == OPENAI
    assert (provider("ollama").api, provider("ollama").keyless, provider("ollama").grammar) == (OLLAMA, True, True)
    assert (provider("anthropic").api, provider("anthropic").key_variable) == (ANYLLM, "ANTHROPIC_API_KEY")
    unknown = provider("cohere")
    assert (unknown.api, unknown.base_url, unknown.key_variable, unknown.keyless, unknown.grammar) == \
        (ANYLLM, None, None, False, False)
    assert ours("vllm") and ours("ollama") and ours(None) and not ours("gemini") and not ours("cohere")


def test_keys_come_from_the_rows_variable(monkeypatch):
    monkeypatch.setenv("GROQ_API_KEY", "gsk-1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert key_from_environment("groq") == "gsk-1"
    assert key_from_environment("openai") is None
    assert key_from_environment("llamacpp") is None  # keyless: no variable at all


def test_ollama_host_drops_v1_and_adds_a_scheme(monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    assert ollama_host(None) == "http://localhost:11434"
    assert ollama_host("http://gpu:11434/v1/") == "http://gpu:11434"
    monkeypatch.setenv("OLLAMA_HOST", "10.0.0.5:11434")
    assert ollama_host(None) == "http://10.0.0.5:11434"
    assert ollama_host("https://o.example") == "https://o.example"  # given beats the variable


def test_openai_base_url_given_then_environment_then_table(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://proxy:9000/v1")
    assert openai_base_url("openai", None) == "http://proxy:9000/v1"
    assert openai_base_url(None, None) == "http://proxy:9000/v1"
    assert openai_base_url("vllm", None) == "http://localhost:8000/v1"  # the variable is openai's alone
    assert openai_base_url("openai", "http://mine/v1") == "http://mine/v1"
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert openai_base_url("openai", None) == "https://api.openai.com/v1"
    with pytest.raises(ValueError, match="'anthropic' has no OpenAI-compatible default URL"):
        openai_base_url("anthropic", None)


def test_only_the_official_endpoint_is_official_openai():
    assert official_openai("openai", "https://api.openai.com/v1/")
    assert official_openai(None, "https://api.openai.com/v1")
    assert not official_openai("openai", "http://localhost:8000/v1")
    assert not official_openai("openrouter", "https://api.openai.com/v1")
