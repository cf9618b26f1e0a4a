"""The run record of a tool run: the summary over its results, the grader's headline and the condition."""

from __future__ import annotations

import datetime as dt
from importlib.metadata import version
from pathlib import Path

import pytest

from auditpacks import __version__
from auditpacks.core.benchmark import Benchmark

from auditpacks.core.condition import Condition
from auditpacks.core.registry import BENCHMARKS
from auditpacks.core.runs.record import Round, RunRecord
from auditpacks.core.runs.run_files import results_name
from auditpacks.packs.pack import Pack
from auditpacks.runner.models.cache import digest
from auditpacks.runner.tools.tool_record import tool_run_record

SCENARIOS = [{"name": "a", "metadata": {}}, {"name": "b", "metadata": {}}, {"name": "c", "metadata": {}}]
RESULTS = [{"scenario_name": "a", "scenario_description": "", "conversation": [], "severity": "pass",
            "issues_found": [], "positive_behaviors": [], "summary": "", "recommendations": [],
            "judgment": {"severity": "pass"}, "target_input_tokens": 5, "target_output_tokens": 1},
           {"scenario_name": "b", "scenario_description": "", "conversation": [], "severity": "ERROR",
            "issues_found": [], "positive_behaviors": [], "summary": "boom", "recommendations": [],
            "judgment": {"severity": "ERROR", "error": "ConnectionError: boom"}, "target_input_tokens": 0,
            "target_output_tokens": 0}]


def _record(condition: Condition, base_url: str = "http://user:secret@127.0.0.1:9/v1", *,
            manifest: dict | None = None, **given) -> RunRecord:
    pack = Pack(Path("p.json"), SCENARIOS, {"builder": "toy"} if manifest is None else manifest, "f" * 64)
    settings = {"stem": "m", "judge": "choice", "model": "m", "embedded": False, "parameters": {"max_steps": 2},
                "resumed": 1, "model_counts": {"requests": 3, "cache_hits": 2}, **given}
    return tool_run_record(pack, SCENARIOS[:2], RESULTS, condition=condition, base_url=base_url,
                           started=dt.datetime(2026, 1, 2, 3, 4, 5, 678, tzinfo=dt.timezone.utc), seconds=1.234,
                           **settings)


def test_the_record_counts_the_results_and_keeps_the_condition(tmp_path):
    condition = Condition("Designed", {"find": "find_case"}, "bm25", "before the decision", {"1986-06-27": "x"})
    record = _record(condition)
    summary = record.summary
    assert (summary.scenarios, summary.completed, summary.errors, summary.resumed) == (2, 1, 1, 1)
    assert summary.commonest_error == {"message": "ConnectionError: boom", "count": 1}
    assert record.rounds[0].results == results_name("m") and record.pack.scenarios_in_pack == 3
    assert record.started == "2026-01-02T03:04:05+00:00" and record.seconds == 1.23
    assert "secret" not in (record.base_url or "")
    path = tmp_path / "m.run.json"
    record.save(path)
    assert RunRecord.load(path).condition == condition


def test_another_condition_is_another_fingerprint():
    assert _record(Condition("A")).fingerprint != _record(Condition("B")).fingerprint
    assert _record(Condition("A")).fingerprint == _record(Condition("A")).fingerprint


def test_the_record_names_the_run_the_pack_and_the_versions():
    record = _record(Condition("A"), embedded=True, model="qwen", stem="qwen")
    assert (record.model, record.provider, record.judge, record.base_url, record.embedded) == (
        "qwen", "openai", "choice", "http://127.0.0.1:9/v1", True)
    assert (record.pack.name, record.pack.sha256, record.pack.builder) == ("p.json", "f" * 64, "toy")
    assert record.parameters == {"max_steps": 2}
    assert (record.auditpacks, record.simpleaudit) == (__version__, version("simpleaudit"))
    assert (record.repeats, record.rounds) == (1, [Round(round=1, seed=0, results="qwen.json")])
    assert _record(Condition("A"), manifest={}).pack.builder is None


@pytest.mark.parametrize("counts, kept", [({"requests": 3, "cache_hits": 2}, {"requests": 3, "cache_hits": 2}),
                                          ({}, None), (None, None)])
def test_the_model_counts_are_the_cache_block_when_there_are_any(counts, kept):
    assert _record(Condition("A"), model_counts=counts).cache == kept


def pooled_by_the_builder(pairs) -> dict:
    return {"pooled": "toy", "results": len(list(pairs))}


def test_the_headline_is_pooled_over_the_results_by_the_benchmark_of_the_packs_builder(monkeypatch):
    """A benchmark ``toy`` (the manifest's builder) that reads ``choice`` runs: its pooling of both results."""
    toy = Benchmark(title="toy", builder="toy",
                    reads={"choice": "tests.runner.tools.test_tool_record:pooled_by_the_builder"})
    for where in ("auditpacks.core.registry.BENCHMARKS", "auditpacks.judges.reader.BENCHMARKS"):
        monkeypatch.setattr(where, {**BENCHMARKS, "toy": toy})
    assert _record(Condition("A")).summary.headline == {"pooled": "toy", "results": 2}


def test_the_fingerprint_is_the_runs_identity_so_a_record_of_an_earlier_version_still_matches():
    """The first 16 hex digits of the digest of the pack's sha256, model, base URL without credentials, judge,
    condition, tools and parameters."""
    condition = Condition("Designed", {"find": "find_case"})
    identity = {"pack": "f" * 64, "model": "m", "base_url": "http://127.0.0.1:9/v1", "judge": "choice",
                "condition": "Designed", "tools": {"find": "find_case"}, "parameters": {"max_steps": 2}}
    assert _record(condition).fingerprint == digest(identity)[:16]


@pytest.mark.parametrize("change", [{"model": "other"}, {"judge": "choice_match"}, {"parameters": {"max_steps": 3}},
                                    {"base_url": "http://127.0.0.1:10/v1"}])
def test_another_setting_is_another_fingerprint_but_not_another_password(change):
    base = _record(Condition("A")).fingerprint
    assert _record(Condition("A"), **change).fingerprint != base
    assert _record(Condition("A"), "http://other:pw@127.0.0.1:9/v1").fingerprint == base
