"""Two runs that differ in any one setting that makes their answers what they are are never labelled as
repeats: the label and the what-differs line name that setting, for every such setting."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.core.runs.record import Round, Summary
from auditpacks.runner.store.summary import run_record
from auditpacks.runner.reporting.labels import differing, labels, settings, what_differs
from tests.support.run_config import PARTS, run_config

BASE = dict(pack=Path("p.json"), target="m", base_url="http://127.0.0.1:8080/v1", judge="choice_match",
            prompt_order="document-first")

#: (setting as the label names it, the run's settings changed in the second run)
VARIANTS = [*{
    "model": {"target": "n"},
    "pack": {"pack": Path("q.json")},
    "mode": {"decision": "ollama"},
    "judge": {"judge": "checklist"},
    "judge model": {"judge_model": "j"},
    "temperature": {"temperature": 0.7},
    "seed": {"seed": 3},
    "turns": {"max_turns": 2},
    "rounds": {"repeats": 3},
    "selection": {"limit": 5},
    "prompt order": {"prompt_order": "stock"},
    "shard": {"shard": "1/2"},
    "provider": {"provider": "anthropic"},
    "endpoint": {"base_url": "http://10.0.0.2:8080/v1"},
    "model digest": {"digest": "sha256:bb"},
    "system prompt": {"system_prompt": "Answer in one word, then give the reason in one sentence."},
    "max tokens": {"max_tokens": 256},
    "auditor model": {"auditor_model": "a"},
    "judge temperature": {"judge_model": "j", "judge_temperature": 0.5},
    "judge max tokens": {"judge_model": "j", "judge_max_tokens": 2048},
    "auditor max tokens": {"auditor_model": "a", "auditor_max_tokens": 256},
    "grader options": {"grader_options": {"mode": "upstream"}},
    "panel": {"judge_model": "j", "panel_models": ("k",)},
}.items(), ("endpoint", {"more_base_urls": ("http://10.0.0.3:8080/v1",)}),
    ("mode", {"decision": "url"})]
#: changed alongside, in both runs, so only the setting under test differs
ALONGSIDE = {"judge temperature": {"judge_model": "j"}, "judge max tokens": {"judge_model": "j"},
             "auditor max tokens": {"auditor_model": "a"}, "panel": {"judge_model": "j"}}


def record(changes: dict):
    changes = dict(changes)
    digest = changes.pop("digest", "sha256:aa")
    config = run_config(**{**BASE, **changes})
    target, chosen = config.target, config.selection
    pack = SimpleNamespace(path=Path(config.pack), sha256="0" * 64, manifest={}, scenarios=[])
    rounds = [Round(round=k, seed=chosen.seed + k - 1, results=f"r{k}.json") for k in range(1, chosen.repeats + 1)]
    return run_record(config, pack, model=target.model, base_url=target.base_url, judge=config.roles.judge,
                      started=dt.datetime(2026, 12, 1), seconds=1.0, embedded=False, summary=Summary(),
                      fingerprint=config.fingerprint(target.model, target.base_url, digest), rounds=rounds,
                      digest=digest, shard={"spec": chosen.shard} if chosen.shard else None)


@pytest.mark.parametrize("setting, changes", VARIANTS, ids=[f"{s}-{'-'.join(c)}" for s, c in VARIANTS])
def test_runs_differing_in_one_setting_are_not_repeats_and_the_setting_is_named(setting, changes):
    same = ALONGSIDE.get(setting, {})
    if changes.get("decision") == "url":
        same = {**same, "decision": "ollama"}
    first, second = record(same), record({**same, **changes})
    assert differing([settings(first), settings(second)]) == [setting]
    line = what_differs([first, second])
    assert "repeats" not in line and line.startswith(f"what differs: {setting} ("), line
    one, two = labels([first, second], ["run1", "run2"])
    assert one != two and "run1" not in one and "run2" not in two


def test_the_same_settings_twice_are_repeats():
    assert what_differs([record({}), record({})]) == "what differs: nothing in their settings (the runs are repeats)"


def test_a_long_system_prompt_is_shown_by_its_start_and_a_hash():
    first = record({"system_prompt": "Answer in one word, then give the reason in one sentence."})
    second = record({"system_prompt": "Answer in one word, then give the reasons in two sentences."})
    one, two = labels([first, second], ["a", "b"])
    assert one.startswith("system prompt Answer in one wo… #") and one != two


def _changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, dict):
        return {"x": 1}
    if isinstance(value, tuple):
        return ("x",)
    return "http://10.9.9.9/v1" if value is None or "://" in str(value) else f"{value}-x"


def test_every_setting_the_fingerprint_reads_is_in_the_table():
    """A setting added to the fingerprint later must be added above (and to the labels) too."""
    base = run_config(**BASE)
    covered = {name for _, changes in VARIANTS for name in changes}
    endpoint = base.target.base_url
    for name, changed in _each_setting_changed(base):
        if changed.fingerprint("m", endpoint) != base.fingerprint("m", endpoint):
            assert name in covered, f"{name} changes the fingerprint but no label names it"


def _each_setting_changed(base):
    """(the setting's stored name, ``base`` with that one setting changed), for every setting of every part."""
    for field in ("pack", "out"):
        yield field, dataclasses.replace(base, **{field: _changed(getattr(base, field))})
    for part_name in PARTS:
        part = getattr(base, part_name)
        for field in dataclasses.fields(part):
            one = dataclasses.replace(part, **{field.name: _changed(getattr(part, field.name))})
            yield ("target" if field.name == "model" else field.name), dataclasses.replace(base, **{part_name: one})


def test_a_difference_no_setting_names_is_told_by_the_fingerprint():
    first, second = record({}), record({})
    second.fingerprint = "feedc0de" * 2
    assert "not repeats" in what_differs([first, second]) and "feedc0de" in what_differs([first, second])
    one, two = labels([first, second], ["a", "b"])
    assert one != two and two == "fingerprint feedc0de"
