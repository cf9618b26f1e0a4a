"""The target's model calls from a run's options, in process: the prompt order and slot pinning it resolves,
the retry policies, the Ollama detection of a given base URL, the note and layout of a target, an any-llm
client made before the run, and a pool of endpoints with those that do not answer taken out."""

from __future__ import annotations

import dataclasses
import random

import pytest

from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.providers import ollama_detect
from auditpacks.runner.models.providers.ollama_native import OllamaChatAPI
from auditpacks.runner.models.retry import RetryPolicy
from auditpacks.runner.readiness import model_setup, readiness
from auditpacks.runner.readiness.model_setup import (
    _connect, make_pool, make_target, resolve_prompt_order, resolve_provider, resolve_slot_pinning, retry_policy,
    role_policy, uses_embedded)
from tests.support.run_config import run_config

WITH_DOCS, WITHOUT = [{"documents": []}, {"documents": [{"text": "D"}]}], [{"documents": []}, {}]


@pytest.mark.parametrize("settings, scenarios, order", [
    ({"target": "q", "provider": "vllm"}, WITH_DOCS, "document-first"),
    ({"target": "q", "provider": "vllm"}, WITHOUT, "stock"),
    ({"target": "c", "provider": "anthropic"}, WITH_DOCS, "document-first"),
    ({"target": "c", "provider": "mistral"}, WITH_DOCS, "stock"),
    ({"target": "c", "provider": "mistral", "prompt_order": "stock"}, WITH_DOCS, "stock"),
    ({"target": "q", "provider": "vllm", "prompt_order": "document-first"}, WITHOUT, "document-first"),
    ({"target": "q", "provider": "vllm", "prompt_order": "stock"}, WITH_DOCS, "stock"),
    ({"decision": "ollama", "prompt_order": "nonsense"}, WITH_DOCS, None),
])
def test_the_prompt_order_of_a_selection(settings, scenarios, order):
    assert resolve_prompt_order(run_config(**settings), scenarios) == order


@pytest.mark.parametrize("settings, message", [
    ({"target": "q", "provider": "vllm", "prompt_order": "last"},
     "--prompt-order 'last': choose auto, stock, document-first"),
    ({"target": "c", "provider": "mistral", "prompt_order": "document-first"},
     "--prompt-order document-first needs one of our chat targets (OpenAI-compatible providers, ollama, anthropic "
     "or the embedded model); provider 'mistral' goes through simpleaudit"),
])
def test_a_prompt_order_that_cannot_be_kept_is_refused(settings, message):
    with pytest.raises(RunError) as caught:
        resolve_prompt_order(run_config(**settings), WITH_DOCS)
    assert str(caught.value) == message


@pytest.mark.parametrize("settings, pinned", [
    ({}, True), ({"target": "q", "provider": "llamacpp"}, True), ({"target": "q", "provider": "vllm"}, False),
    ({"target": "q", "provider": "ollama"}, False), ({"target": "c", "provider": "anthropic"}, False),
    ({"target": "q", "provider": "vllm", "slot_pinning": True}, True),
    ({"target": "q", "provider": "llamacpp", "slot_pinning": False}, False),
    ({"target": "q", "provider": "ollama", "slot_pinning": False}, False),
])
def test_slot_pinning_is_asked_for_or_on_for_llamacpp_and_the_embedded_model(settings, pinned):
    assert resolve_slot_pinning(run_config(**settings)) is pinned


@pytest.mark.parametrize("settings", [{"target": "q", "provider": "ollama"}, {"target": "c", "provider": "anthropic"},
                                      {"decision": "ollama"}])
def test_slot_pinning_asked_for_where_there_is_no_llamacpp_chat_is_refused(settings):
    with pytest.raises(RunError) as caught:
        resolve_slot_pinning(run_config(slot_pinning=True, **settings))
    assert str(caught.value) == ("--slot-pinning needs an OpenAI-compatible llama.cpp endpoint (not ollama, a decision "
                                 "endpoint or a simpleaudit provider)")


def test_the_roles_attempts_are_bounded_by_the_judge_timeout_else_the_runs():
    config = run_config(max_retries=4, retry_backoff=0.25, timeout=90.0, judge_timeout=12.0)
    assert role_policy(config) == RetryPolicy(max_retries=4, backoff=0.25, timeout=12.0)
    assert retry_policy(config.execution) == RetryPolicy(max_retries=4, backoff=0.25, timeout=90.0)
    assert role_policy(run_config(timeout=90.0)).timeout == 90.0


@pytest.fixture
def detection(monkeypatch):
    """Ollama detection on fakes: the version a base URL answers, and what was asked and warned."""
    seen = {"asked": [], "warned": [], "version": "0.5.1"}
    monkeypatch.setattr(ollama_detect, "ollama_version", lambda url, cache: seen["asked"].append((url, cache))
                        or seen["version"])
    monkeypatch.setattr(ollama_detect, "prompt_estimates", lambda scenarios, system: [len(scenarios), system])
    monkeypatch.setattr(ollama_detect, "truncation_warning", lambda url, version, estimates: (url, version, estimates))
    monkeypatch.setattr(ollama_detect, "warn", seen["warned"].append)
    return seen


@pytest.mark.parametrize("settings", [
    {"decision": "ollama", "base_url": "http://h:11434"}, {"base_url": "http://h:11434"},
    {"target": "q"}, {"target": "q", "provider": "vllm", "base_url": "http://h:11434"}])
def test_only_a_given_openai_base_url_is_asked_whether_it_is_ollama(detection, settings):
    target = run_config(**settings).target
    assert resolve_provider(target, [], None) is target and detection["asked"] == []


def test_an_ollama_base_url_switches_a_default_provider_to_the_native_api(detection):
    target = run_config(target="q", base_url="http://h:11434", provider_given=False).target
    assert resolve_provider(target, [], "cache") == dataclasses.replace(target, provider="ollama",
                                                                        detected_ollama="0.5.1")
    assert detection["asked"] == [("http://h:11434", "cache")] and detection["warned"] == []


def test_a_given_openai_provider_on_ollama_is_kept_with_a_warning(detection):
    target = run_config(target="q", base_url="http://h:11434", system_prompt="S").target
    assert resolve_provider(target, [{}, {}], None) is target
    assert detection["warned"] == [("http://h:11434", "0.5.1", [2, "S"])]


def test_a_base_url_that_is_not_ollama_keeps_the_target(detection):
    detection["version"] = None
    target = run_config(target="q", base_url="http://h:8000/v1", provider_given=False).target
    assert resolve_provider(target, [], None) is target and detection["warned"] == []


def test_a_detected_ollama_target_says_so_and_an_unresolved_order_is_stock():
    config = run_config(target="q", provider="ollama", detected_ollama="0.5.1", base_url="http://h:11434/v1",
                        max_retries=3, timeout=40.0)
    target = make_target(config, model="q", base_url="http://h:11434/v1", cache=None)
    assert target.note == ("http://h:11434 answers Ollama's /api/version (0.5.1): native API, num_ctx fitted to "
                           "each prompt")
    assert target.layout_name == "stock" and target.model.policy == RetryPolicy(max_retries=3, backoff=0.5,
                                                                                   timeout=40.0)
    plain = make_target(run_config(target="q", provider="vllm"), model="q", base_url=None, cache=None)
    assert plain.note is None


def test_the_embedded_target_is_a_pinned_llamacpp_client_with_the_runs_caps(tmp_path):
    def check() -> None:
        """The deferred reachability check."""

    config, cache = run_config(slot_pinning=True, max_tokens=64, timeout=30.0), ResponseCache(tmp_path)
    target = make_target(config, model="smollm2", base_url="http://127.0.0.1:9/v1", cache=cache,
                         embedded_identity={"digest": "d"}, preflight=check)
    api = target.model.api
    assert (api.base_url, api.slot_pinning, api.timeout, api.identity) == ("http://127.0.0.1:9/v1", True, 30.0,
                                                                           {"digest": "d"})
    assert (api.model, api._preflight, target.model.cache) == ("smollm2", check, cache)
    unnamed = make_target(config, model="smollm2", base_url="http://127.0.0.1:9/v1", cache=None).model.api
    assert (unnamed.identity, unnamed.needs_facts) == ({"base_url": "http://127.0.0.1:9/v1"}, False)


def test_a_targets_provider_gets_the_runs_reply_cap_and_prompt_cache_choice():
    ollama = make_target(run_config(target="q", provider="ollama", max_tokens=64), model="q", base_url=None,
                         cache=None).model.api
    assert (ollama.model, ollama.max_tokens) == ("q", 64)
    for prompt_cache, sent in ((None, True), (False, False)):
        official = make_target(run_config(target="gpt", api_key="k", prompt_cache=prompt_cache), model="gpt",
                               base_url=None, cache=None).model.api
        assert official.prompt_cache_key is sent


class Client:
    """An any-llm provider whose client cannot be made: ``error`` is raised."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    @property
    def client(self):
        raise self.error


@pytest.mark.parametrize("error, message", [
    (ImportError("no module"), "provider 'mistral' needs its SDK: pip install 'any-llm-sdk[mistral]'"),
    (ValueError("no key\nat all"), "cannot set up provider 'mistral': ValueError: no key\nat all"),
])
def test_an_any_llm_client_that_cannot_be_made_is_one_error_before_the_run(error, message):
    with pytest.raises(RunError) as caught:
        _connect("mistral", Client(error))
    assert str(caught.value) == message


def test_a_client_that_can_be_made_is_made_now():
    made = []
    _connect("anthropic", type("Api", (), {"client": property(lambda self: made.append(1))})())
    assert made == [1]


A, B = "http://10.0.0.1:8000/v1", "http://10.0.0.2:8000/v1"


@pytest.fixture
def reachable(monkeypatch):
    """The endpoints that answer now (the rest refuse), and each one asked."""
    state = {"up": {A, B}, "asked": []}

    def check(*, url):
        state["asked"].append(url)
        if url not in state["up"]:
            raise RunError(f"nothing listens at {url}")

    monkeypatch.setattr(model_setup, "check_reachable", check)
    return state


def pool_config(**settings):
    return run_config(**{"target": "q", "provider": "vllm", "base_url": A, "more_base_urls": (B,), **settings})


def test_a_pool_has_one_provider_per_endpoint_placed_as_asked(reachable, tmp_path):
    cache = ResponseCache(tmp_path)
    target = make_pool(pool_config(endpoint_assignment="random", seed=7, max_retries=5,
                                   prompt_order="document-first"), model="q", cache=cache)
    pool = target.model.pool
    assert [(e.url, e.api.base_url, e.api.model) for e in pool.endpoints] == [(A, A, "q"), (B, B, "q")]
    assert target.model.cache is cache
    assert (pool.assignment, pool._rng.random()) == ("random", random.Random(7).random())
    assert target.model.policy.max_retries == 5 and target.layout_name == "document-first"
    assert reachable["asked"] == [A, B] and [e.failed for e in pool.endpoints] == [None, None]


def test_an_endpoint_that_does_not_answer_is_taken_out_and_none_answering_is_an_error(reachable):
    reachable["up"] = {B}
    pool = make_pool(pool_config(), model="q", cache=None).model.pool
    assert [e.failed for e in pool.endpoints] == [f"nothing listens at {A}", None]
    reachable["up"] = set()
    with pytest.raises(RunError) as caught:
        make_pool(pool_config(), model="q", cache=None)
    assert str(caught.value) == f"no endpoint answers: nothing listens at {A}; nothing listens at {B}"


def test_an_endpoint_refused_without_a_reason_adds_none_to_the_error(monkeypatch):
    monkeypatch.setattr(model_setup, "check_reachable", lambda *, url: (_ for _ in ()).throw(RunError("")))
    with pytest.raises(RunError) as caught:
        make_pool(pool_config(), model="q", cache=None)
    assert str(caught.value) == "no endpoint answers: ; "


def test_a_cache_only_pool_asks_no_endpoint(reachable):
    reachable["up"] = set()
    make_pool(pool_config(cache_only=True), model="q", cache=None)
    assert reachable["asked"] == []


def test_ollama_endpoints_are_asked_for_their_facts(monkeypatch, reachable):
    monkeypatch.setattr(OllamaChatAPI, "prepare", lambda api: {"digest": "d"} if "10.0.0.2" in api.host else
                        (_ for _ in ()).throw(RunError("model not pulled")))
    pool = make_pool(pool_config(provider="ollama"), model="q", cache=None).model.pool
    assert [e.failed for e in pool.endpoints] == ["model not pulled", None] and reachable["asked"] == []
    assert pool.endpoints[1].api.facts == {"digest": "d"}


def test_endpoints_still_loading_join_late(monkeypatch, reachable):
    joined = []
    monkeypatch.setattr(readiness, "join_late", lambda pool, seconds: joined.append((pool, seconds)))
    target = make_pool(pool_config(wait_ready=120.0), model="q", cache=None)
    assert joined == [(target.model.pool, 120.0)]


@pytest.mark.parametrize("settings, message", [
    ({"provider": "anthropic"}, "several endpoints work with --target on an OpenAI-compatible provider or ollama"),
    ({"target": None}, "several endpoints work with --target on an OpenAI-compatible provider or ollama"),
    ({"decision": "url"}, "several endpoints work with --target on an OpenAI-compatible provider or ollama"),
    ({"more_base_urls": (B, B)}, f"endpoint {B} is given twice"),
])
def test_a_pool_that_cannot_be_made_is_refused(reachable, settings, message):
    with pytest.raises(RunError) as caught:
        make_pool(pool_config(**settings), model="q", cache=None)
    assert str(caught.value) == message


@pytest.mark.parametrize("judge, auditor, embedded", [("embedded", None, True), ("j", "embedded", True),
                                                      ("j", "a", False), (None, None, False)])
def test_the_embedded_model_is_used_when_the_judge_or_the_auditor_names_it(judge, auditor, embedded):
    assert uses_embedded(run_config(judge_model=judge, auditor_model=auditor).roles) is embedded
