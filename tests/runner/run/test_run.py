"""The run's setup pieces in run.py: the response cache it opens and the decision target with its skipped scenarios."""

from __future__ import annotations

import pytest

from auditpacks.runner.models.errors import RunError
from auditpacks.runner.run.run import decision_target, open_cache
from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.systemone.batching import BatchedDecisionTarget
from auditpacks.runner.systemone.decision import SingleDecisionTarget
from tests.support.run_config import run_config


def scenario(name: str, options: int, document: str = "A short judgment.") -> dict:
    criteria = {f"o{i}": f"option {i}" for i in range(options)}
    return {"name": name, "documents": [document],
            "decision": {"id": "q", "instructions": "Which outcome?", "criteria": criteria}}


def test_no_cache_without_a_folder_and_cache_only_needs_one(tmp_path):
    assert open_cache(run_config(target="m")) is None
    with pytest.raises(RunError, match="--cache-only needs --cache DIR"):
        open_cache(run_config(target="m", cache_only=True))
    cache = open_cache(run_config(target="m", cache_dir=tmp_path, cache_only=True))
    assert isinstance(cache, ResponseCache) and cache.only


def test_the_cache_is_refused_where_simpleaudit_or_a_decision_endpoint_answers(tmp_path):
    with pytest.raises(RunError, match="--cache works with OpenAI-compatible providers"):
        open_cache(run_config(target="claude", provider="anthropic", cache_dir=tmp_path))
    with pytest.raises(RunError, match="--cache works with"):
        open_cache(run_config(target="clef", decision="ollama", cache_dir=tmp_path))


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
