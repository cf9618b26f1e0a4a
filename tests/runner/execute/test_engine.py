"""The run's engine: which judge grades, its config, and simpleaudit's Auditor set up with one retry layer."""

from __future__ import annotations

import pytest

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.execute.engine import build_engine, judge_config, judge_name
from auditpacks.runner.targets.contract import RunTarget
from auditpacks.runner.settings.config import RolesConfig
from tests.support.run_config import run_config

DECISION = {"id": "q", "instructions": "Guilty?", "criteria": {"yes": "", "no": ""}}


class Silent(RunTarget):
    async def send(self, **kwargs):  # pragma: no cover - the engine is built, never run, here
        raise AssertionError("not called")


def test_the_judge_asked_for_beats_the_packs_own_which_beats_the_default():
    manifest = {"grading": {"judge": "grounding"}}
    assert judge_name(RolesConfig(judge="choice"), manifest, []) == "choice"
    assert judge_name(RolesConfig(), manifest, []) == "grounding"
    assert judge_name(RolesConfig(), {}, [{"name": "a"}, {"name": "b", "decision": DECISION}]) == "choice_match"
    assert judge_name(RolesConfig(), None, [{"name": "a"}]) == "checklist"


def test_an_unknown_judge_names_the_known_ones():
    with pytest.raises(RunError, match="unknown judge 'nope'; choose one of .*checklist.*choice_match"):
        judge_name(RolesConfig(judge="nope"), None, [])
    with pytest.raises(RunError, match="unknown judge 'gone'"):
        judge_name(RolesConfig(), {"grading": {"judge": "gone"}}, [])


def test_judge_config_turns_a_bad_option_into_one_line():
    assert judge_config("choice_match", None, {}) == "choice_match"
    with pytest.raises(RunError, match="judge 'choice_match': "):
        judge_config("choice_match", None, {"strictness": "high"})


def test_a_model_judge_needs_a_judge_model_and_more_turns_need_an_auditor():
    with pytest.raises(RunError, match="judge 'checklist' calls a model: give --judge-model"):
        build_engine(run_config(), "checklist", None, target=Silent())
    with pytest.raises(RunError, match="--max-turns 3 needs --auditor-model: judge 'choice_match' calls no model"):
        build_engine(run_config(max_turns=3), "choice_match", "choice_match", target=Silent())


def test_the_engine_has_no_retries_of_its_own_and_a_decision_run_no_system_prompt():
    engine = build_engine(run_config(system_prompt="Answer briefly."), "choice_match", "choice_match", target=Silent())
    assert (engine.max_retries, engine.max_turns, engine.system_prompt) == (0, 1, "Answer briefly.")
    decision = build_engine(run_config(system_prompt="Answer briefly.", decision="ollama"), "choice_match",
                            "choice_match", target=Silent())
    assert decision.system_prompt is None
