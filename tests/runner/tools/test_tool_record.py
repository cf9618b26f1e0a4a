"""The run record of a tool run: the summary over its results, the grader's headline and the condition."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from auditpacks.core.condition import Condition
from auditpacks.core.runs.record import RunRecord
from auditpacks.core.runs.run_files import results_name
from auditpacks.packs.pack import Pack
from auditpacks.runner.tools.tool_record import tool_run_record

SCENARIOS = [{"name": "a", "metadata": {}}, {"name": "b", "metadata": {}}, {"name": "c", "metadata": {}}]
RESULTS = [{"scenario_name": "a", "scenario_description": "", "conversation": [], "severity": "pass",
            "issues_found": [], "positive_behaviors": [], "summary": "", "recommendations": [],
            "judgment": {"severity": "pass"}, "target_input_tokens": 5, "target_output_tokens": 1},
           {"scenario_name": "b", "scenario_description": "", "conversation": [], "severity": "ERROR",
            "issues_found": [], "positive_behaviors": [], "summary": "boom", "recommendations": [],
            "judgment": {"severity": "ERROR", "error": "ConnectionError: boom"}, "target_input_tokens": 0,
            "target_output_tokens": 0}]


def _record(condition: Condition, base_url: str = "http://user:secret@127.0.0.1:9/v1") -> RunRecord:
    pack = Pack(Path("p.json"), SCENARIOS, {"builder": "toy"}, "f" * 64)
    return tool_run_record(pack, SCENARIOS[:2], RESULTS, stem="m", judge="choice", condition=condition, model="m",
                           base_url=base_url, embedded=False, parameters={"max_steps": 2},
                           started=dt.datetime(2026, 1, 2, 3, 4, 5, 678, tzinfo=dt.timezone.utc), seconds=1.234,
                           resumed=1, model_counts={"requests": 3, "cache_hits": 2})


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
