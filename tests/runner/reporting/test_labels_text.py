"""The text of each setting a label can name, written out by hand: defaults, every selection and mode, long values
shortened with a hash, options in any key order alike, and the what-differs line of a fingerprint alone."""

from __future__ import annotations

import hashlib

from auditpacks.core.runs.record import PackRef, RunRecord
from auditpacks.runner.reporting.labels import differing, labels, settings, what_differs


def record(parameters=None, **fields) -> RunRecord:
    base = dict(model="m", provider="openai", judge="choice_match", pack=PackRef("p.json", "0" * 64),
                fingerprint="0123456789abcdef", parameters=parameters or {})
    return RunRecord(**{**base, **fields})


def test_an_old_record_with_no_parameters_reads_as_the_defaults():
    assert settings(record()) == {
        "model": "m", "pack": "p.json", "mode": "chat", "judge": "choice_match", "judge model": "no judge model",
        "temperature": "0", "seed": "0", "turns": "1", "rounds": "1", "selection": "all", "prompt order": "auto",
        "shard": "none", "provider": "openai", "endpoint": "none", "model digest": "unknown", "system prompt": "none",
        "max tokens": "default", "auditor model": "none", "judge temperature": "0", "judge max tokens": "1024",
        "auditor max tokens": "512", "grader options": "none", "panel": "none", "fingerprint": "01234567"}


def test_every_setting_given():
    given = record({"temperature": 0.1 + 0.2, "max_turns": 3, "smoke": False, "limit": None, "per_question": 2,
                    "decision": "ollama", "prompt_order": "stock", "provider": "anthropic", "system_prompt": "Be brief.",
                    "max_tokens": 256, "auditor_model": "a", "judge_temperature": 0.5, "judge_max_tokens": 2048,
                    "auditor_max_tokens": 128, "grader_options": {"mode": "upstream"}, "panel_models": ["k"],
                    "more_base_urls": []},
                   judge_model="j", seed=7, repeats=2, shard={"spec": "2/3"}, base_url="http://h:1/v1",
                   model_digest="sha256:ab")
    assert settings(given) == {
        "model": "m", "pack": "p.json", "mode": "decision ollama", "judge": "choice_match", "judge model": "j",
        "temperature": "0.3", "seed": "7", "turns": "3", "rounds": "2", "selection": "2 per question",
        "prompt order": "stock", "shard": "2/3", "provider": "anthropic", "endpoint": "http://h:1/v1",
        "model digest": "sha256:ab", "system prompt": "Be brief.", "max tokens": "256", "auditor model": "a",
        "judge temperature": "0.5", "judge max tokens": "2048", "auditor max tokens": "128",
        "grader options": '{"mode": "upstream"}', "panel": '["k"]', "fingerprint": "01234567"}


def test_selections_modes_and_endpoints():
    texts = [settings(record(p))["selection"] for p in ({"smoke": True, "limit": 5}, {"limit": 5}, {"per_question": 1},
                                                         {})]
    assert texts == ["smoke", "limit 5", "1 per question", "all"]
    assert [settings(record({"decision": d}))["mode"] for d in (True, "url", None)] == ["decision", "decision url",
                                                                                        "chat"]
    assert settings(record(embedded=True))["endpoint"] == "embedded"
    replicas = record({"more_base_urls": ["http://b:1/v1", "http://a:1/v1"]}, base_url="http://c:1/v1")
    full = '["http://a:1/v1", "http://b:1/v1", "http://c:1/v1"]'
    assert settings(replicas)["endpoint"] == f'{full[:16]}… #{hashlib.sha256(full.encode()).hexdigest()[:6]}'


def test_long_values_are_their_start_and_a_hash_from_25_characters():
    exact, longer = "x" * 24, "x" * 25
    assert settings(record({"system_prompt": exact}))["system prompt"] == exact
    digest = hashlib.sha256(longer.encode()).hexdigest()[:6]
    assert settings(record({"system_prompt": longer}))["system prompt"] == f"{'x' * 16}… #{digest}"
    assert settings(record({"system_prompt": ""}))["system prompt"] == "none"
    assert settings(record({"grader_options": {"lang": "日本語"}}))["grader options"] == '{"lang": "日本語"}'


def test_options_in_another_key_order_are_the_same_setting():
    one = record({"grader_options": {"a": 1, "b": 2}})
    two = record({"grader_options": {"b": 2, "a": 1}})
    assert settings(one)["grader options"] == settings(two)["grader options"] == '{"a": 1, "b": 2}'
    assert what_differs([one, two]) == "what differs: nothing in their settings (the runs are repeats)"


def test_a_fingerprint_alone_and_no_runs():
    one, two = record(), record(fingerprint="fedcba9876543210")
    assert what_differs([one, two]) == ("what differs: a setting not named here (their fingerprints 01234567, "
                                        "fedcba98 differ); they are not repeats")
    assert labels([one, two], ["a", "b"]) == ["fingerprint 01234567", "fingerprint fedcba98"]
    assert differing([]) == [] and what_differs([]) == ""
    assert settings(record(fingerprint=""))["fingerprint"] == "none"
