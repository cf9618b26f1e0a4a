"""The chat target's parts with fakes in place of the model setup: the replicas' pool, the check before the run
(deferred to the first cache miss when a cache answers first), the embedded model's cache identity and the digest."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from auditpacks.runner.hosted import batch_run
from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.readiness import preflight
from auditpacks.runner.run import run_target
from auditpacks.runner.run.endpoint import Endpoint
from tests.support.run_config import run_config

URL = "http://h:1/v1"
GGUF = {"base_url": None, "embedded": "tiny.gguf", "digest": "sha256:gguf"}


class Setup:
    """Fakes for what :func:`chat_target` calls, each recording its arguments; ``digest`` is what the made
    target's ``prepare`` reports."""

    def __init__(self, monkeypatch, digest=None):
        self.made, self.pooled, self.checked, self.reached = [], [], [], []
        self.target = SimpleNamespace(model=SimpleNamespace(api="the api"), prepare=lambda: {"digest": digest})
        monkeypatch.setattr(run_target, "make_target", lambda config, **kw: self.made.append(kw) or self.target)
        monkeypatch.setattr(run_target, "make_pool", lambda config, **kw: self.pooled.append((config, kw)) or self.target)
        monkeypatch.setattr(run_target, "embedded_identity", lambda: dict(GGUF))
        monkeypatch.setattr(run_target, "check_reachable", self.reached.append)
        monkeypatch.setattr(preflight, "check_chat", lambda api, *, hint: self.checked.append((api, hint)))


def chat(**settings):
    return run_config(**{"target": "m", "base_url": URL, **settings})


def test_replicas_share_one_pool_with_the_cache_and_its_digest(tmp_path, monkeypatch):
    setup, cache = Setup(monkeypatch, digest="sha256:pool"), ResponseCache(tmp_path)
    config = chat(more_base_urls=("http://b:2/v1",))
    made, digest = run_target.chat_target(config, Endpoint(model="m", base_url=URL), cache)
    assert (made, digest) == (setup.target, "sha256:pool")
    assert setup.pooled == [(config, {"model": "m", "cache": cache})] and setup.made == []


def test_with_a_cache_the_endpoint_is_checked_at_the_first_miss_only(tmp_path, monkeypatch):
    setup, cache = Setup(monkeypatch), ResponseCache(tmp_path)
    made, digest = run_target.chat_target(chat(), Endpoint(model="m", base_url=URL), cache)
    assert (made, digest, setup.checked, setup.reached) == (setup.target, None, [], [])
    [kwargs] = setup.made
    check = kwargs.pop("preflight")
    assert kwargs == {"model": "m", "base_url": URL, "cache": cache, "embedded_identity": None}
    check()
    assert setup.reached == [URL]


@pytest.mark.parametrize("only, base_url", [(True, URL), (False, None)])
def test_no_deferred_check_with_cache_only_or_no_endpoint_given(tmp_path, monkeypatch, only, base_url):
    """Every reply comes from the cache with ``--cache-only``; with no ``--base-url`` the provider's own is used."""
    setup = Setup(monkeypatch)
    run_target.chat_target(chat(base_url=base_url), Endpoint(model="m", base_url=base_url),
                           ResponseCache(tmp_path, only=only))
    assert setup.made[0]["preflight"] is None and setup.checked == []


@pytest.mark.parametrize("provider, hint", [("openai", "$OPENAI_API_KEY or --api-key"), ("vllm", "--api-key")])
def test_without_a_cache_the_provider_is_checked_before_the_run(monkeypatch, provider, hint):
    """The hint names the provider's key variable where it has one."""
    setup = Setup(monkeypatch, digest="sha256:served")
    made, digest = run_target.answering_target(chat(provider=provider), Endpoint(model="m", base_url=URL), None)
    assert (made, digest) == (setup.target, "sha256:served")
    assert setup.checked == [("the api", hint)]
    assert setup.made == [{"model": "m", "base_url": URL, "cache": None, "embedded_identity": None,
                           "preflight": None}]


def test_ollama_is_checked_as_its_model_is_prepared_not_before(monkeypatch):
    setup = Setup(monkeypatch)
    run_target.chat_target(chat(provider="ollama"), Endpoint(model="m", base_url=URL), None)
    assert setup.checked == []


@pytest.mark.parametrize("served, digest", [(None, "sha256:gguf"), ("sha256:served", "sha256:served")])
def test_the_embedded_model_with_a_cache_is_keyed_by_its_gguf(tmp_path, monkeypatch, served, digest):
    """Its port changes every run, so the cache knows it by the file; the digest falls back to the file's."""
    setup, cache = Setup(monkeypatch, digest=served), ResponseCache(tmp_path)
    ep = Endpoint(model="tiny.gguf", base_url=URL, embedded=True)
    assert run_target.answering_target(chat(), ep, cache)[1] == digest
    assert setup.made == [{"model": "tiny.gguf", "base_url": URL, "cache": cache, "embedded_identity": GGUF,
                           "preflight": None}]
    assert setup.checked == []   # it was just started


def test_the_embedded_model_without_a_cache_needs_no_identity(monkeypatch):
    setup = Setup(monkeypatch)
    ep = Endpoint(model="tiny.gguf", base_url=URL, embedded=True)
    assert run_target.chat_target(chat(), ep, None) == (setup.target, None)
    assert setup.made[0]["embedded_identity"] is None and setup.checked == []


def test_the_batch_api_target_gets_the_model_and_poll_interval(monkeypatch):
    calls = []
    monkeypatch.setattr(batch_run, "batch_target", lambda config, model, *, poll_s: calls.append((model, poll_s)) or "b")
    config = run_config(target="m", provider="openai", batch_api=True, batch_poll_s=12.5)
    assert run_target.answering_target(config, Endpoint(model="m", base_url=None), None) == ("b", None)
    assert calls == [("m", 12.5)]
