"""The early refusals in process: counts below one, a bad shard, a decision run without its model's name, a missing
key (not for the embedded model, a replay from the cache or a decision run), and what an admitted run holds; whose
client a target is and which key it gets."""

from __future__ import annotations

import json

import pytest

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.readiness.early import api_key, owns, refuse_early
from tests.support.run_config import run_config
from tests.support.tiny_pack import write_pack


@pytest.fixture(autouse=True)
def no_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GROQ_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def pack(tmp_path):
    return write_pack(tmp_path / "tiny.json", 4)


@pytest.mark.parametrize("settings, message", [
    ({"limit": 0}, "--limit must be at least 1, got 0"),
    ({"repeats": 0}, "--repeats must be at least 1, got 0"),
    ({"batch_questions": -1}, "--batch-questions must be at least 1, got -1"),
    ({"per_question": 0}, "--per-question must be at least 1, got 0"),
    ({"shard": "3/2"}, "--shard '3/2': shards are numbered 1..n (got 3 of 2)"),
    ({"decision": "ollama"}, "--decision needs --target (the decision model's name)"),
    ({"target": "gpt-4o-mini"}, "provider 'openai' needs a key: --api-key or $OPENAI_API_KEY"),
])
def test_each_refusal_is_one_line(pack, settings, message):
    with pytest.raises(RunError) as refused:
        refuse_early(run_config(pack=pack, **settings))
    assert str(refused.value) == message


@pytest.mark.parametrize("settings", [
    {"limit": 1, "repeats": 1, "batch_questions": 1, "per_question": 1},
    {"target": None},                                                    # the embedded model
    {"target": "gpt-4o-mini", "cache_dir": "cache", "cache_only": True},  # a replay from the cache
    {"target": "m", "decision": "url", "decision_url": "http://127.0.0.1:9/v1/systemone"},
])
def test_no_key_is_asked_where_none_is_needed_and_one_is_enough(pack, settings):
    refuse_early(run_config(pack=pack, **settings))


def test_an_admitted_run_holds_the_pack_its_selection_and_its_judge(pack):
    admitted = refuse_early(run_config(pack=pack, target="m", base_url="http://127.0.0.1:9/v1", limit=3))
    assert admitted.pack.path == pack and len(admitted.pack.scenarios) == 4
    assert [s["name"] for s in admitted.scenarios] == [s["name"] for s in admitted.pack.scenarios[:3]]
    assert admitted.judge == "choice_match" == admitted.reader.judge


def test_a_pack_with_an_error_finding_is_refused_unless_checks_are_off(pack):
    scenarios = json.loads(pack.read_text(encoding="utf-8"))
    scenarios[0]["severity"] = "not a severity"
    pack.write_text(json.dumps(scenarios), encoding="utf-8")
    pack.with_name("tiny.manifest.json").unlink()   # its sha256 was the pack's before the change
    with pytest.raises(RunError, match=r"^tiny\.json: 1 ERROR finding\(s\), first: "):
        refuse_early(run_config(pack=pack))
    assert len(refuse_early(run_config(pack=pack, check=False)).scenarios) == 4


@pytest.mark.parametrize("settings, ours", [
    ({"target": "m", "provider": "openai"}, True), ({"target": "m", "provider": "vllm"}, True),
    ({"target": "m", "provider": "anthropic"}, False),
    ({"target": "m", "provider": "anthropic", "batch_api": True}, True),
    ({"target": None}, True), ({"target": "m", "decision": "ollama"}, False),
])
def test_which_targets_our_own_clients_carry(settings, ours):
    assert owns(run_config(**settings)) is ours


@pytest.mark.parametrize("settings, key", [
    ({"target": "m", "api_key": "sk-given-1"}, "sk-given-1"),
    ({"target": "m", "provider": "anthropic"}, None),                                  # any-llm reads its variable
    ({"target": "m", "provider": "anthropic", "base_url": "http://proxy:1/v1"}, "local"),
    ({"target": "m", "provider": "vllm"}, "local"),                                     # a keyless server
    ({"target": None}, "local"),
    ({"target": "m", "cache_dir": "c", "cache_only": True}, "local"),
])
def test_the_key_a_target_gets(settings, key):
    assert api_key(run_config(**settings)) == key


