"""Rounds of a run: each round's seed and cache round, the target's hooks handed on, and the grader's headline."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest

from auditpacks.core.runs.record import Round
from auditpacks.judges import reader
from auditpacks.judges.reader import Reader
from auditpacks.runner.run import rounds
from auditpacks.runner.execute.execute import Outcome
from auditpacks.runner.store.journal import Journal, round_key
from auditpacks.runner.run.rounds import (headline, round_seed, run_rounds, save_rounds, unanswered_scenarios,
                                         with_sample_warnings)
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
        calls.append({"repeat": target.repeat, "engine": engine, "journal": journal, **options})
        return Outcome(scenarios=list(scenarios), results=[])

    monkeypatch.setattr(rounds, "run_scenarios", fake_run_scenarios)
    config = run_config(repeats=3, seed=40, temperature=0.0, concurrency=2, retry_errors=False, skip_oversize=True)
    outcomes = asyncio.run(run_rounds("engine", target, [{"name": "a"}], "journal", config, "progress"))
    assert len(outcomes) == 3
    assert all(c["engine"] == "engine" and c["journal"] == "journal" and c["progress"] == "progress" for c in calls)
    assert [c["repeat"] for c in calls] == [0, 1, 2]
    assert [c["round_number"] for c in calls] == [1, 2, 3]
    assert [c["params"]["seed"] for c in calls] == [40, 41, 42]
    assert all(c["concurrency"] == 2 and c["placement"] == "the placement" for c in calls)
    assert all(c["retry_errors"] is False and c["skip_oversize"] is True for c in calls)  # not the defaults
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


def result(name: str, *, cut: bool = False, slim: bool = False) -> dict:
    """A graded result; ``slim`` as an outcome holds it (no conversation), ``cut`` stopped at the token cap."""
    conversation = [] if slim else [{"role": "user", "content": f"ask {name}"}, {"role": "assistant", "content": "A"}]
    return {"scenario_name": name, "scenario_description": "", "conversation": conversation, "severity": "pass",
            "issues_found": [], "positive_behaviors": [], "summary": "", "recommendations": [],
            "judgment": {"truncated": cut}}


def ran(journal: Journal, number: int, names: list[str], cut=(), **extra) -> Outcome:
    """Round ``number``'s outcome over ``names``, its whole results journaled under their round keys."""
    keys = [round_key(name, number) for name in names]
    for key, name in zip(keys, names):
        journal.append(key, name, result(name, cut=name in cut))
    return Outcome(scenarios=[{"name": n} for n in names], results=[result(n, cut=n in cut, slim=True) for n in names],
                   keys=keys, **extra)


@pytest.fixture
def counted(monkeypatch):
    """A grader whose headline counts the pairs, the answered ones and the scenarios ``load`` filled in."""
    def pool(pairs):
        pairs = list(pairs)
        return {"pairs": len(pairs), "answered": sum(r is not None for _, r in pairs),
                "loaded": sum(bool(s.get("loaded")) for s, _ in pairs)}

    monkeypatch.setattr(reader, "judge_module", lambda name: SimpleNamespace(headline=pool))


def saved(tmp_path, outcomes_of, **options):
    with Journal(tmp_path / "journal.jsonl", "fp").open() as journal:
        return save_rounds(outcomes_of(journal), tmp_path, "m", reader=Reader("any"), seed=7, journal=journal,
                           load=lambda stub: {**stub, "loaded": True}, **options)


def test_one_round_is_the_runs_summary_with_the_runs_notes_first(tmp_path, counted):
    """Round 1's file holds the whole results; its headline counts the unanswered and warns of the subset."""
    rounds_, summary = saved(tmp_path, lambda j: [ran(j, 1, ["a", "b"], cut={"b"}, skipped={"no decision": 2},
                                                      resumed=1)],
                             skipped={"oversize": 1}, notes=["context cut"],
                             selected=[{"name": "c"}, {"name": "a"}, {"name": "b"}], in_pack=5)
    assert rounds_ == [Round(round=1, seed=7, results="m.json", summary=None)]
    assert json.loads((tmp_path / "m.json").read_text())["results"] == [result("a"), result("b", cut=True)]
    assert (summary.scenarios, summary.resumed, summary.unanswered) == (2, 1, ["c"])
    assert summary.skipped == {"oversize": 1, "no decision": 2}
    assert {k: summary.headline[k] for k in ("pairs", "answered", "loaded")} == {"pairs": 3, "answered": 2, "loaded": 3}
    (warning,) = summary.headline["warnings"]
    assert warning.startswith("a subset: 3 of the pack's 5 scenarios")   # the selection, answered or not
    assert summary.notes[0] == "context cut" and summary.notes[1].startswith("replies stopped at the output-token "
                                                                               "cap: 1 of 2")
    assert len(summary.notes) == 2


def test_without_run_notes_the_rounds_own_notes_stay(tmp_path, counted):
    _, summary = saved(tmp_path, lambda j: [ran(j, 1, ["a"], cut={"a"})], skipped={}, notes=None)
    assert len(summary.notes) == 1 and summary.notes[0].startswith("replies stopped at the output-token cap: 1 of 1")
    assert "warnings" not in summary.headline   # the whole pack (no in_pack given): no subset


def test_a_failed_headline_gets_no_sample_warnings(tmp_path, monkeypatch):
    def broken(pairs):
        raise ValueError("bad")

    monkeypatch.setattr(reader, "judge_module", lambda name: SimpleNamespace(headline=broken))
    _, summary = saved(tmp_path, lambda j: [ran(j, 1, ["a"])], skipped={}, notes=None, selected=[{"name": "a"}],
                       in_pack=9)
    assert summary.headline == {"error": "ValueError: bad"}


def test_several_rounds_each_keep_their_file_and_summary_and_the_run_pools_the_counts(tmp_path, counted):
    """The run's summary counts every round's results, skips and resumptions, with no pooled headline."""
    rounds_, summary = saved(tmp_path, lambda j: [ran(j, 1, ["a", "b"], skipped={"no decision": 2}, resumed=1),
                                                  ran(j, 2, ["a"], cut={"a"}, skipped={"no decision": 1}, resumed=1)],
                             skipped={"oversize": 1}, notes=["context cut"], selected=[{"name": "a"}, {"name": "b"}])
    assert [(r.round, r.seed, r.results) for r in rounds_] == [(1, 7, "m.json"), (2, 8, "m.round2.json")]
    assert json.loads((tmp_path / "m.round2.json").read_text())["results"] == [result("a", cut=True)]
    first, second = (r.summary for r in rounds_)
    assert (first.scenarios, first.unanswered, first.skipped) == (2, [], {"oversize": 1, "no decision": 2})
    assert (second.scenarios, second.unanswered, second.skipped) == (1, ["b"], {"oversize": 1, "no decision": 1})
    assert second.headline["pairs"] == 2 and second.notes[0].startswith("replies stopped at the output-token cap")
    assert (summary.scenarios, summary.resumed, summary.headline) == (3, 2, {})
    assert summary.skipped == {"oversize": 1, "no decision": 3}
    assert summary.notes[0] == "context cut" and summary.notes[1].startswith("replies stopped at the output-token "
                                                                               "cap: 1 of 3")


def test_sample_warnings_follow_the_graders_own_and_never_repeat_its_few_clusters_one():
    """A grader that already warned of too few judgments is not warned twice; a subset warning still comes."""
    iustitia = Reader.of("choice", {"name": "iustitia"})
    own = "too few judgments for intervals (the grader's own wording)"
    scenarios = [{"name": n, "metadata": {"verdict_id": "V1"}} for n in ("a", "b")]
    warned = with_sample_warnings(iustitia.read({"warnings": [own]}), iustitia, scenarios, in_pack=4)
    assert warned.warnings[0] == own and warned.warnings[1].startswith("a subset: 2 of the pack's 4 scenarios")
    assert len(warned.warnings) == 2
    fresh = with_sample_warnings(iustitia.read({}), iustitia, scenarios, in_pack=None).warnings
    assert fresh == ["only 1 judgment: intervals that resample judgments say almost nothing with fewer than 3"]
