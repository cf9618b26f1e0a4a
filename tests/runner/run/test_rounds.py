"""Rounds of a run: each round's seed and cache round, the target's hooks handed on, and the grader's headline."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from auditpacks.judges import reader
from auditpacks.judges.reader import Reader
from auditpacks.runner.run import rounds
from auditpacks.runner.execute.execute import Outcome
from auditpacks.runner.run.rounds import headline, round_seed, run_rounds, unanswered_scenarios
from auditpacks.runner.targets.contract import RunTarget
from tests.support.run_config import run_config


class Target(RunTarget):
    placement = "the placement"
    problem = None

    @property
    def fatal(self):
        return self.problem

    async def prefetch(self, scenarios, keys):  # pragma: no cover - handed on, not called here
        return None


def test_round_n_decodes_with_seed_plus_n_minus_one():
    assert [round_seed(7, n) for n in (1, 2, 3)] == [7, 8, 9]


def test_every_round_runs_with_its_seed_its_number_and_the_targets_cache_round(monkeypatch):
    calls = []
    target = Target()

    async def fake_run_scenarios(engine, scenarios, journal, **options):
        calls.append({"repeat": target.repeat, **options})
        return Outcome(scenarios=list(scenarios), results=[])

    monkeypatch.setattr(rounds, "run_scenarios", fake_run_scenarios)
    config = run_config(repeats=3, seed=40, temperature=0.0, concurrency=2)
    outcomes = asyncio.run(run_rounds("engine", target, [{"name": "a"}], "journal", config, "progress"))
    assert len(outcomes) == 3
    assert [c["repeat"] for c in calls] == [0, 1, 2]
    assert [c["round_number"] for c in calls] == [1, 2, 3]
    assert [c["params"]["seed"] for c in calls] == [40, 41, 42]
    assert all(c["concurrency"] == 2 and c["placement"] == "the placement" for c in calls)
    assert calls[0]["before_group"] == target.prefetch
    assert calls[0]["fatal"]() is None
    target.problem = RuntimeError("down")
    assert calls[0]["fatal"]() is target.problem  # read from the target at each call
    assert calls[0]["document"] is None   # no reader: documents by their content


def test_rounds_group_scenarios_by_the_documents_the_reader_names(monkeypatch):
    seen = []

    async def fake_run_scenarios(engine, scenarios, journal, **options):
        seen.append(options["document"])
        return Outcome(scenarios=list(scenarios), results=[])

    monkeypatch.setattr(rounds, "run_scenarios", fake_run_scenarios)
    config = run_config(repeats=1, seed=0, temperature=0.0, concurrency=1)
    iustitia = Reader.of("choice", {"name": "iustitia"})
    asyncio.run(run_rounds("engine", Target(), [{"name": "a"}], "journal", config, "progress", iustitia))
    (document,) = seen
    assert document({"name": "a", "metadata": {"verdict_id": "V7"}}) == "V7"   # the judgment


def test_unanswered_are_the_selected_scenarios_without_a_result_in_selection_order():
    outcome = Outcome(scenarios=[{"name": "b"}], results=[{}])
    assert unanswered_scenarios(outcome, [{"name": "c"}, {"name": "b"}, {"name": "a"}]) == [{"name": "c"},
                                                                                            {"name": "a"}]


def test_the_headline_sees_loaded_scenarios_and_the_unanswered_as_none(monkeypatch):
    seen = []

    def pooled(pairs):
        seen.extend(pairs)
        return {"pairs": len(pairs)}

    monkeypatch.setattr(reader, "judge_module", lambda name: SimpleNamespace(headline=pooled))
    outcome = Outcome(scenarios=[{"name": "a"}], results=[{"severity": "pass"}])
    figures = headline(Reader("any"), outcome, lambda stub: {**stub, "loaded": True}, [{"name": "z"}])
    assert figures.values == {"pairs": 2}
    assert seen == [({"name": "a", "loaded": True}, {"severity": "pass"}), ({"name": "z", "loaded": True}, None)]


def test_a_failing_headline_is_reported_not_fatal(monkeypatch, capsys):
    def broken(pairs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(reader, "judge_module", lambda name: SimpleNamespace(headline=broken))
    assert headline(Reader("grounding"), Outcome(scenarios=[], results=[]), lambda s: s).values == \
        {"error": "ZeroDivisionError: division by zero"}
    assert "grounding headline failed" in capsys.readouterr().err
