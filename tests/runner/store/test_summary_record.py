"""A run's summary beyond its error counts (verdict words, simpleaudit's score, tokens, resumed), its performance
block and its run file, each worked out by hand from fakes of the run's settings and pack."""

from __future__ import annotations

import datetime as dt
from importlib.metadata import version
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.core.runs.record import PackRef, Round, RunRecord, Summary
from auditpacks.judges.figures import Headline
from auditpacks.judges.reader import Reader
from auditpacks.runner.store.summary import _version, performance_record, run_record, summarize


def result(name: str, severity: str, judgment: dict, **tokens: int) -> dict:
    return {"scenario_name": name, "scenario_description": "d", "conversation": [], "severity": severity,
            "issues_found": [], "positive_behaviors": [], "summary": "", "recommendations": [], "judgment": judgment,
            **tokens}


def _summary(results, scenarios=3, **kwargs) -> Summary:
    return summarize([{"name": f"s{i}"} for i in range(scenarios)], results, Headline(), Reader("choice_match"),
                     **kwargs)


def test_verdict_words_simpleaudits_score_and_tokens_over_the_results():
    results = [result("a", "pass", {"severity": "pass"}, target_input_tokens=10, target_output_tokens=2),
               result("b", "medium", {"severity": "medium"}, judge_input_tokens=5),
               result("c", "ERROR", {"severity": "ERROR", "error": "HTTP 500"})]
    summary = _summary(results)
    assert summary.outcomes == {"correct": 1, "wrong": 1, "invented": 0, "ungraded": 0, "error": 1}
    assert summary.simpleaudit_score == 75.0          # pass 4 + medium 2 of 8; the ERROR is left out
    assert summary.tokens == {"auditor_input": 0, "auditor_output": 0, "judge_input": 5, "judge_output": 0,
                              "target_input": 10, "target_output": 2, "total": 17}
    assert summary.resumed == 0 and _summary(results, resumed=2).resumed == 2
    assert summary.completion == 0.6667                # 2 of 3, four places


@pytest.mark.parametrize("severities", [["ERROR"], ["ungraded", "ERROR"]])
def test_a_run_with_nothing_graded_has_no_simpleaudit_score(severities):
    results = [result(f"s{i}", s, {"severity": s}) for i, s in enumerate(severities)]
    assert _summary(results).simpleaudit_score is None


def test_a_run_with_one_graded_result_among_ungraded_ones_has_its_score():
    results = [result("a", "ungraded", {"severity": "ungraded"}), result("b", "low", {"severity": "low"})]
    assert _summary(results).simpleaudit_score == 75.0


def test_no_scenarios_selected_completes_nothing():
    assert _summary([], scenarios=0).completion == 0.0


def test_the_skipped_counts_and_the_headlines_values_are_kept():
    summary = summarize([{"name": "a"}], [result("a", "pass", {"severity": "pass"})], Headline({"micro": 0.5}),
                        Reader("choice_match"), skipped={"over the context": 2})
    assert (summary.skipped, summary.headline) == ({"over the context": 2}, {"micro": 0.5})
    assert _summary([]).skipped == {}


EXECUTION = SimpleNamespace(prompt_order="documents_first", concurrency=4, slot_pinning=True)


@pytest.mark.parametrize("target_stats, earlier, extra", [
    ({"prefill_tokens": 100}, {"scenarios": 2, "documents": 1},
     {"prefill_tokens": 100, "earlier_attempts": {"scenarios": 2, "documents": 1}}),
    (None, {"scenarios": 0, "documents": 3}, {}),       # an earlier attempt that finished no scenario
    (None, None, {}),
])
def test_the_performance_block(target_stats, earlier, extra):
    assert performance_record(EXECUTION, documents=7, target_stats=target_stats, earlier=earlier) == {
        "prompt_order": "documents_first", "scheduling": "by document", "documents": 7, "concurrency": 4,
        "slot_pinning": True, **extra}


def _config(decision=None):
    return SimpleNamespace(target=SimpleNamespace(decision=decision, provider="openai"),
                           roles=SimpleNamespace(judge_model="judge-7b"), public=lambda: {"temperature": 0.0},
                           selection=SimpleNamespace(seed=11))


PACK = SimpleNamespace(manifest={"builder": "iustitia"}, path=Path("/packs/iustitia.json"), sha256="ab" * 32,
                       scenarios=[{}, {}, {}])
ROUNDS = [Round(1, 0, "m.json"), Round(2, 1, "m.round2.json")]
STARTED = dt.datetime(2026, 12, 6, 10, 0, 0, 123456, tzinfo=dt.timezone.utc)


def test_the_run_file_holds_what_ran_and_how_without_credentials():
    summary = Summary(scenarios=3)
    record = run_record(_config(), PACK, model="m", base_url="http://user:secret@host:8080/v1", judge="choice_match",
                        started=STARTED, seconds=12.3456, embedded=True, summary=summary, fingerprint="fp",
                        rounds=ROUNDS, digest="sha256:abc", shard={"index": 1}, cache={"hits": 2},
                        performance={"documents": 3}, models={"judge": {"model": "j"}})
    assert record == RunRecord(
        model="m", provider="openai", judge="choice_match",
        pack=PackRef("iustitia.json", "ab" * 32, "iustitia", 3), fingerprint="fp", parameters={"temperature": 0.0},
        summary=summary, auditpacks=version("auditpacks"), simpleaudit=version("simpleaudit"),
        model_digest="sha256:abc", base_url="http://host:8080/v1", embedded=True, judge_model="judge-7b",
        models={"judge": {"model": "j"}}, shard={"index": 1}, cache={"hits": 2}, performance={"documents": 3},
        seed=11, repeats=2, rounds=ROUNDS, started="2026-12-06T10:00:00+00:00", seconds=12.35)


def test_a_decision_runs_file_names_its_decision_and_no_models_and_a_pack_without_manifest():
    pack = SimpleNamespace(**{**vars(PACK), "manifest": None})
    record = run_record(_config("logprobs"), pack, model="m", base_url=None, judge="choice", started=STARTED,
                        seconds=1, embedded=False, summary=Summary(), fingerprint="fp", rounds=ROUNDS[:1])
    assert (record.provider, record.models, record.pack.builder, record.repeats) == (
        "decision:logprobs", {"judge": None, "auditor": None}, None, 1)
    assert (record.shard, record.cache, record.performance, record.base_url, record.model_digest) == (None,) * 5


def test_a_version_that_cannot_be_read_is_unknown():
    assert _version("no-such-distribution-anywhere") == "0+unknown"
