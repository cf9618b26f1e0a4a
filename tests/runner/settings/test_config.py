"""The run's settings as the run record stores them (``public``) and their fingerprint, pinned: resumed runs,
labels, comparisons, merges and stored records all read them, so neither may change with the code's shape."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from auditpacks.runner.settings.config import (DecodingConfig, ExecutionConfig, HostingConfig, RolesConfig, RunConfig,
                                               SelectionConfig, TargetConfig, model_slug, model_stem)
from tests.support.run_config import DEFAULT_PUBLIC, run_config

#: What every fingerprint basis holds for a run left at its defaults (model and endpoint aside).
DEFAULT_BASIS = {"provider": "openai", "decision": None, "system_prompt": None, "judge": None, "judge_model": None,
                 "grader_options": {}, "max_turns": 1, "auditor_model": None}


def digest(basis: dict) -> str:
    return hashlib.sha256(json.dumps(basis, sort_keys=True, default=str).encode()).hexdigest()[:16]


def same_json(public: dict, expected: dict) -> None:
    """Equal, in the same key order (the run record is written in it)."""
    assert public == expected
    assert list(public) == list(expected)
    assert json.dumps(public) == json.dumps(expected)


def embedded(**settings):
    return run_config(pack=Path("packs/jacite.json"), out=Path("runs/a"), smoke=True, seed=2, max_tokens=256,
                      cache_dir=Path("cache"), **settings)


def test_an_embedded_run():
    config = embedded()
    same_json(config.public(), {**DEFAULT_PUBLIC, "pack": "jacite.json", "smoke": True, "seed": 2,
                                "max_tokens": 256, "cache_dir": "cache"})
    basis = {"model": "SmolLM2", "base_url": "embedded", **DEFAULT_BASIS,
             "decoding": {"temperature": 0.0, "seed": 2, "max_tokens": 256}, "model_digest": "ab12",
             "prompt_order": "auto"}
    assert config.fingerprint("SmolLM2", "embedded", "ab12") == digest(basis)


def hosted():
    return run_config(target="gpt-4o-mini", provider="openai", base_url="https://alice:pw-1@a.example/v1",
                      more_base_urls=("https://b.example/v1", "https://bob:pw-2@c.example/v1"),
                      endpoint_assignment="random", api_key="sk-test-key-1", system_prompt="Answer briefly.",
                      limit=50, concurrency=8, temperature=0.7, max_tokens=512, prompt_order="stock",
                      prompt_cache=True, prices=Path("tables/prices-2025.yaml"))


def test_a_hosted_run_with_a_key_and_replicas():
    config = hosted()
    same_json(config.public(), {
        **DEFAULT_PUBLIC, "target": "gpt-4o-mini", "base_url": "https://a.example/v1",
        "more_base_urls": ["https://b.example/v1", "https://c.example/v1"], "endpoint_assignment": "random",
        "system_prompt": "Answer briefly.", "limit": 50, "temperature": 0.7, "max_tokens": 512, "concurrency": 8,
        "prompt_order": "stock", "prompt_cache": True, "prices": "prices-2025.yaml"})
    assert "sk-test-key-1" not in json.dumps(config.public())
    basis = {"model": "gpt-4o-mini", **DEFAULT_BASIS, "system_prompt": "Answer briefly.",
             "base_url": ["https://alice:pw-1@a.example/v1", "https://b.example/v1", "https://bob:pw-2@c.example/v1"],
             "decoding": {"temperature": 0.7, "seed": 0, "max_tokens": 512}}
    assert config.fingerprint("gpt-4o-mini", "https://alice:pw-1@a.example/v1") == digest(basis)
    served = {"id": "gpt-4o-mini-2024"}
    assert config.fingerprint("gpt-4o-mini", "https://alice:pw-1@a.example/v1", served=served) == \
        digest({**basis, "base_url": {"served": served}})
    # an endpoint other than the first --base-url stands alone
    assert config.fingerprint("gpt-4o-mini", "https://d.example/v1") == \
        digest({**basis, "base_url": "https://d.example/v1"})


def test_a_decision_run():
    config = run_config(target="clef", decision="url", decision_url="http://carol:pw-3@h:11435/v1/systemone",
                        max_options=12, batch_questions=8, prompt_order=None, probe=False, repeats=2)
    same_json(config.public(), {**DEFAULT_PUBLIC, "target": "clef", "decision": "url",
                                "decision_url": "http://h:11435/v1/systemone", "max_options": 12, "repeats": 2,
                                "prompt_order": None, "batch_questions": 8, "probe": False})
    basis = {"model": "clef", "base_url": None, **DEFAULT_BASIS, "decision": "url",
             "decoding": {"temperature": 0.0, "seed": 0}}
    assert config.fingerprint("clef", None) == digest(basis)


def test_a_run_graded_by_a_judge_model_with_an_auditor():
    config = run_config(target="m", base_url="http://localhost:8000/v1", judge="checklist", judge_model="gemma3:12b",
                        panel_models=("qwen3:8b",), judge_provider="ollama", judge_base_url="http://dave:pw-4@j:11434",
                        judge_api_key="sk-judge-1", auditor_model="llama3", auditor_provider="openai",
                        auditor_base_url="http://erin:pw-5@au:8000/v1", max_turns=3, judge_temperature=0.2,
                        judge_max_tokens=1536, auditor_max_tokens=400, judge_timeout=90.0,
                        grader_options={"reasoning": "strict"}, cache_dir=Path("runs/cache"), cache_only=True)
    same_json(config.public(), {
        **DEFAULT_PUBLIC, "target": "m", "base_url": "http://localhost:8000/v1", "judge": "checklist",
        "judge_model": "gemma3:12b", "panel_models": ("qwen3:8b",), "judge_provider": "ollama",
        "judge_base_url": "http://j:11434", "auditor_model": "llama3", "auditor_provider": "openai",
        "auditor_base_url": "http://au:8000/v1", "max_turns": 3, "judge_temperature": 0.2, "judge_max_tokens": 1536,
        "auditor_max_tokens": 400, "judge_timeout": 90.0, "grader_options": {"reasoning": "strict"},
        "cache_dir": "runs/cache", "cache_only": True})
    assert "sk-judge-1" not in json.dumps(config.public())
    basis = {"model": "m", "base_url": "http://localhost:8000/v1", **DEFAULT_BASIS, "judge": "checklist",
             "judge_model": "gemma3:12b", "grader_options": {"reasoning": "strict"}, "max_turns": 3,
             "auditor_model": "llama3", "decoding": {"temperature": 0.0, "seed": 0},
             "grader_decoding": [0.2, 1536, 400], "prompt_order": "auto"}
    assert config.fingerprint("m", "http://localhost:8000/v1") == digest(basis)
    judge_only = run_config(target="m", judge_model="gemma3:12b", prompt_order="stock")
    assert judge_only.fingerprint("m", None) == digest({
        "model": "m", "base_url": None, **DEFAULT_BASIS, "judge_model": "gemma3:12b",
        "decoding": {"temperature": 0.0, "seed": 0}, "grader_decoding": [0.0, 1024, 512]})


@pytest.mark.parametrize("order, recorded", [("auto", "auto"), ("document-first", "document-first"),
                                             ("stock", None), (None, None)])
def test_the_prompt_order_is_part_of_the_fingerprint_unless_stock(order, recorded):
    config = embedded(prompt_order=order)
    same_json(config.public(), {**DEFAULT_PUBLIC, "pack": "jacite.json", "smoke": True, "seed": 2,
                                "max_tokens": 256, "cache_dir": "cache", "prompt_order": order})
    basis = {"model": "SmolLM2", "base_url": "embedded", **DEFAULT_BASIS,
             "decoding": {"temperature": 0.0, "seed": 2, "max_tokens": 256}}
    if recorded:
        basis["prompt_order"] = recorded
    assert config.fingerprint("SmolLM2", "embedded") == digest(basis)


def test_the_target_is_the_embedded_model_only_when_none_is_named():
    assert TargetConfig().embedded
    assert not TargetConfig(model="m").embedded and not TargetConfig(decision="ollama").embedded


def test_the_targets_key_is_the_one_given_else_its_providers_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    assert TargetConfig(model="m", api_key="sk-given").key() == "sk-given"
    assert TargetConfig(model="m").key() is None
    assert TargetConfig(model="m", base_url="http://h:8000/v1").key() == "local"   # a local server ignores it
    assert TargetConfig(model="c", provider="anthropic").key() == "sk-ant-env"
    assert TargetConfig(model="c", provider="anthropic").key_variable() == "ANTHROPIC_API_KEY"
    assert TargetConfig(model="q", provider="ollama").key_variable() is None


def test_decoding_parameters_carry_the_seed_they_are_given():
    assert DecodingConfig().params(3) == {"temperature": 0.0, "seed": 3}
    assert DecodingConfig(temperature=0.7, max_tokens=64).params(0) == {"temperature": 0.7, "seed": 0, "max_tokens": 64}


def test_the_parts_are_built_alone_and_held_by_the_run():
    config = RunConfig(pack=Path("p.json"), target=TargetConfig(model="m"), selection=SelectionConfig(limit=2),
                       hosting=HostingConfig(batch_api=True))
    assert (config.target.model, config.selection.limit, config.hosting.batch_api) == ("m", 2, True)
    assert config.roles == RolesConfig() and config.decoding == DecodingConfig()
    assert config.execution == ExecutionConfig()
    assert config.public() == {**DEFAULT_PUBLIC, "target": "m", "limit": 2, "batch_api": True}


def test_a_provider_without_a_key_variable_has_no_key():
    assert TargetConfig(model="q", provider="ollama").key() is None
    assert TargetConfig(model="q", provider="ollama", base_url="http://h:11434").key() is None   # "local": openai only


def test_a_setting_that_is_not_json_is_fingerprinted_as_its_text():
    config = run_config(target="m", grader_options={"table": Path("prices.json")})
    assert config.fingerprint("m", None) == digest({"model": "m", "base_url": None, **DEFAULT_BASIS,
                                                    "grader_options": {"table": "prices.json"},
                                                    "decoding": {"temperature": 0.0, "seed": 0},
                                                    "prompt_order": "auto"})


@pytest.mark.parametrize("model, slug", [("qwen3:8b", "qwen3_8b"), ("org/model", "org_model"), ("a.b-c_D", "a.b-c_D"),
                                         ("/x y/", "x_y"), (":/", "model"), ("XL:X", "XL_X")])
def test_a_model_slug_is_file_name_safe(model, slug):
    assert model_slug(model) == slug


def test_a_model_stem_adds_a_short_hash_only_when_the_slug_differs():
    assert model_stem("gemma3") == "gemma3"
    stems = {name: model_stem(name) for name in ("a/b:c", "a_b:c")}
    for name, stem in stems.items():
        assert stem == "a_b_c-" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    assert len(set(stems.values())) == 2
