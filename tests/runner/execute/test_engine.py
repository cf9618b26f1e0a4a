"""The run's engine: which judge grades, its config, and simpleaudit's Auditor set up with one retry layer."""

from __future__ import annotations

import pytest

from auditpacks.runner.models.errors import RunError
from auditpacks.judges import checklist
from auditpacks.judges.reader import Reader
from auditpacks.packs.jacite.registry import load_registry, registry_to_manifest
from auditpacks.runner.execute.engine import build_engine, judge_config, judge_name, run_reader
from auditpacks.runner.targets.contract import RunTarget
from auditpacks.runner.settings.config import RolesConfig
from tests.support.paths import FIXTURES
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
    with pytest.raises(RunError, match="unknown judge 'nope'; choose one of checklist, choice, choice_match, "):
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


def test_the_missing_judge_model_message_names_the_embedded_and_local_choices():
    with pytest.raises(RunError) as caught:
        build_engine(run_config(), "checklist", None, target=Silent())
    assert str(caught.value).endswith("(a model name, or `embedded` for the embedded local model; "
                                      "--judge-base-url for a local server)")


@pytest.mark.parametrize("turns", [2, 3])
def test_any_second_turn_of_a_code_judge_needs_an_auditor(turns):
    with pytest.raises(RunError, match=f"--max-turns {turns} needs --auditor-model"):
        build_engine(run_config(max_turns=turns), "choice_match", "choice_match", target=Silent())


PLACEHOLDER = {"provider": "openai", "api_key": "unused", "base_url": "http://unused.invalid/v1"}


def test_simpleaudit_gets_placeholder_clients_json_replies_and_no_progress_bar():
    """The judge and auditor models are ours, so simpleaudit is told placeholders: no key, no server."""
    engine = build_engine(run_config(judge_model="jm", auditor_model="am", max_turns=2), "checklist", None,
                          target=Silent())
    assert (engine.judge_model, engine.auditor_model, engine.max_turns) == ("jm", "am", 2)
    for client in (engine._judge_client_config, engine._auditor_client_config):
        assert {key: client[key] for key in PLACEHOLDER} == PLACEHOLDER
    assert (engine.json_format, engine.show_progress) == (True, False)
    code = build_engine(run_config(), "choice_match", "choice_match", target=Silent())
    assert code.judge_model == "unused"


class Roles:
    """Records what :meth:`Roles.install` was given."""

    def install(self, engine, bound):
        self.installed = (engine, bound)


@pytest.mark.parametrize(("judge", "model", "bound"), [("checklist", "jm", checklist.bounded_schema),
                                                       ("choice_match", None, None)])
def test_our_roles_go_into_the_engine_with_the_judges_bounded_schema_if_any(judge, model, bound):
    roles = Roles()
    engine = build_engine(run_config(judge_model=model), judge, None, target=Silent(), roles=roles)
    assert roles.installed == (engine, bound)


def test_judge_config_hands_the_manifest_to_the_judge():
    registry = load_registry(FIXTURES / "jacite" / "mini_registry.json")
    manifest = {"grading": {"registry": registry_to_manifest(registry)}}
    assert judge_config("grounding", manifest, {})["name"] == "grounding"


@pytest.mark.parametrize(("judge", "manifest", "scenarios", "reader"), [
    (None, {"builder": "iustitia"}, [{"decision": DECISION}], Reader("choice_match", "iustitia", "iustitia")),
    (None, {"builder": "jacite", "grading": {"judge": "grounding"}}, [], Reader("grounding", "jacite", "jacite")),
    ("citations", None, [], Reader("citations", "icj", "icj")),
    (None, {"builder": "icj"}, [{"name": "a"}], Reader("checklist", None, "icj")),
])
def test_a_run_is_read_by_its_judge_and_grouped_by_its_packs_builder(judge, manifest, scenarios, reader):
    assert run_reader(RolesConfig(judge=judge), manifest, scenarios) == reader
