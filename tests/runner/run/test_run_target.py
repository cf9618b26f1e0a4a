"""The run's target: the decision target with its skipped scenarios, the refusals before a target is made, and
the chat target checked before the run."""

from __future__ import annotations

import pytest

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.readiness import preflight
from auditpacks.runner.run.endpoint import Endpoint
from auditpacks.runner.run.run_target import answering_target, chat_target, decision_side, decision_target
from auditpacks.runner.scenarios.scenario_source import open_pack
from auditpacks.runner.systemone import decision_probe
from auditpacks.runner.systemone.batching import BatchedDecisionTarget
from auditpacks.runner.systemone.decision import SingleDecisionTarget
from tests.support.fake_openai import FakeOpenAI
from tests.support.run_config import run_config
from tests.support.tiny_pack import write_pack


def scenario(name: str, options: int, document: str = "A short judgment.") -> dict:
    criteria = {f"o{i}": f"option {i}" for i in range(options)}
    return {"name": name, "documents": [document],
            "decision": {"id": "q", "instructions": "Which outcome?", "criteria": criteria}}


def test_scenarios_over_the_option_or_body_limit_are_skipped_and_counted(capsys):
    scenarios = [scenario("fits", 2), scenario("three", 3), scenario("long", 2, "x" * 70_000), scenario("also", 2)]
    target, kept, skipped = decision_target(run_config(decision="ollama", target="clef", max_options=2,
                                                       batch_questions=1), scenarios)
    assert [s["name"] for s in kept] == ["fits", "also"]
    assert skipped == {"over 2 options": 1, "over the endpoint's 65536-byte request limit": 1}
    assert "skipped, e.g. long: request is " in capsys.readouterr().err
    assert isinstance(target, SingleDecisionTarget) and target.inner.url == "http://localhost:11434/v1/systemone"
    assert target.model.policy.max_retries == 2  # the run's retry flags, as for every provider


def test_several_questions_per_request_batch_over_the_single_target():
    target, kept, skipped = decision_target(run_config(decision="url", decision_url="http://h/v1/systemone",
                                                       target="clef", batch_questions=8), [scenario("a", 2)])
    assert isinstance(target, BatchedDecisionTarget) and target.batch_questions == 8
    assert isinstance(target.single, SingleDecisionTarget) and target.inner is target.single.inner
    assert (len(kept), skipped) == (1, {})


def test_a_decision_run_has_one_endpoint():
    config = run_config(decision="url", decision_url="http://h/v1/systemone", target="clef",
                        more_base_urls=("http://b/v1",))
    with pytest.raises(RunError, match="^several endpoints work with chat targets, not --decision$"):
        decision_side(config, None, [])


def test_the_batch_api_answers_only_for_its_providers():
    config = run_config(target="m", provider="groq", api_key="k", batch_api=True)
    with pytest.raises(RunError, match="--batch-api works with --provider openai or anthropic, not 'groq'"):
        answering_target(config, Endpoint(model="m", base_url=None), None)


def test_a_chat_target_is_checked_at_its_endpoint_before_the_run():
    with FakeOpenAI() as server:
        config = run_config(target="m", base_url=server.base_url)
        target, digest = answering_target(config, Endpoint(model="m", base_url=server.base_url), None)
        assert target.model.api.base_url == server.base_url and digest is None
        assert server.other_requests >= 1 and server.chat_requests == 0   # GET /models, no prompt sent
    dead = run_config(target="m", base_url=server.base_url)   # the server is gone now
    with pytest.raises(RunError, match=f"cannot reach {server.base_url}"):
        chat_target(dead, Endpoint(model="m", base_url=server.base_url), None)


def test_the_decision_endpoint_gets_the_runs_url_key_option_limit_and_timeout():
    config = run_config(decision="url", decision_url="http://h/v1/systemone", target="clef", api_key="sk",
                        max_options=5, timeout=7, batch_questions=2)
    target, _, _ = decision_target(config, [])
    assert isinstance(target, BatchedDecisionTarget)   # two questions a request already batch
    inner = target.inner
    assert (inner.url, inner.model, inner.timeout, inner.max_options) == ("http://h/v1/systemone", "clef", 7, 5)
    assert inner.headers["Authorization"] == "Bearer sk"
    ollama, _, _ = decision_target(run_config(decision="ollama", base_url="http://o:1/v1", target="clef",
                                              batch_questions=1), [])
    assert ollama.inner.url == "http://o:1/v1/systemone"


def test_each_skipped_scenario_counts_under_its_reason():
    scenarios = [scenario("a", 3), scenario("b", 4), scenario("c", 2)]
    _, kept, skipped = decision_target(run_config(decision="url", decision_url="http://h/v1/systemone",
                                                  target="clef", max_options=2), scenarios)
    assert ([s["name"] for s in kept], skipped) == (["c"], {"over 2 options": 2})


class Probe:
    """Stands in for the endpoint check and the probe, recording what each was given."""

    def __init__(self, monkeypatch):
        self.checked, self.probed = [], []
        monkeypatch.setattr(preflight, "check_decision", self.checked.append)
        monkeypatch.setattr(decision_probe, "before_run", self.before_run)

    def before_run(self, target, scenarios, *, timeout):
        self.probed.append((target, scenarios.stubs, [s["name"] for s in scenarios], timeout))
        return {"findings": "probed"}


def decision_run(**settings):
    return run_config(decision="url", decision_url="http://h/v1/systemone", target="clef", batch_questions=1,
                      timeout=9, **settings)


def test_a_decision_run_checks_and_probes_its_endpoint_on_the_scenarios_it_keeps(tmp_path, monkeypatch):
    probe = Probe(monkeypatch)
    pack = open_pack(write_pack(tmp_path / "p.jsonl", 3))
    target, runnable, skipped, found = decision_side(decision_run(), pack, pack.scenarios[:2])
    assert runnable == pack.scenarios[:2] and skipped == {}   # the stubs, not the scenarios read
    assert probe.checked == ["http://h/v1/systemone"] and found == {"findings": "probed"}
    names = [pack.load(stub)["name"] for stub in runnable]
    assert probe.probed == [(target.inner, runnable, names, 9)]


@pytest.mark.parametrize("settings, checked", [({"probe": False}, True), ({"max_options": 2}, False)])
def test_no_probe_without_probe_or_without_a_scenario_to_run(tmp_path, monkeypatch, settings, checked):
    """``--no-probe`` keeps the reachability check; with every scenario skipped nothing is asked."""
    probe = Probe(monkeypatch)
    pack = open_pack(write_pack(tmp_path / "p.jsonl", 2))
    _, runnable, skipped, found = decision_side(decision_run(**settings), pack, pack.scenarios)
    assert found is None and probe.probed == []
    assert probe.checked == (["http://h/v1/systemone"] if checked else [])
    assert (len(runnable), skipped) == ((2, {}) if checked else (0, {"over 2 options": 2}))
