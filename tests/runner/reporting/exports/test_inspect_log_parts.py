"""The Inspect AI log of a hand-written run, in process: the eval's spec, settings and metadata, the summary's
figures as one score with a metric each, token counts, the start time, and the log written whole in either format
(or refused)."""

from __future__ import annotations

import json

import pytest
from inspect_ai.log import read_eval_log

from auditpacks.core.runs.run_files import tool_run_names
from auditpacks.judges.figures import Figure
from auditpacks.runner.reporting.exports.inspect_log import _generate, eval_log, write_log
from tests.support.hand_runs import tiny_choice_run

HEADLINE = {"tasks": 4, "judgments": 2, "questions": 4, "predictions": 3, "invalid": 1, "answered": 2, "correct": 2,
            "micro": 0.5, "macro": None, "coverage": 0.75, "ci": {"micro": [0.25, 0.75], "coverage": [0.5, 1.0]},
            "skipped": 0}


def hand_source(folder, **fields):
    """The tiny hand-written run (2 correct, 1 wrong, 1 ERROR) with ``HEADLINE`` and ``fields`` in its record."""
    from auditpacks.runner.reporting.exports.source import load_source

    path = tiny_choice_run(folder)
    record = json.loads(path.read_text(encoding="utf-8"))
    record["summary"]["headline"] = HEADLINE
    record.update(fields)
    path.write_text(json.dumps(record), encoding="utf-8")
    return load_source(path)


def test_the_log_of_a_hand_written_run(tmp_path):
    from auditpacks.runner.reporting.exports.inspect_log import eval_log

    source = hand_source(tmp_path, started="2026-12-01T10:00:00+02:00", seconds=90.5, base_url="http://u:p@h/v1",
                         parameters={"temperature": 0.5, "max_tokens": 64, "seed": True, "timeout": 30.0,
                                     "max_retries": "3", "system_prompt": "Be brief.",
                                     "judge_base_url": "http://u:pw@j/v1"},
                         model_digest="sha256:abc", embedded=True, repeats=1, judge_model="jm")
    log = eval_log(source)
    spec = log.eval
    assert (spec.created, spec.task, spec.task_id, spec.run_id, spec.task_display_name) == (
        "2026-12-01T08:00:00+00:00", "tiny", "m", "m.run.json", None)   # Inspect keeps times in UTC
    assert (spec.model, spec.model_base_url, spec.config.epochs) == ("openai/m", "http://h/v1", 1)
    assert spec.model_args == {"provider": "openai", "embedded": True, "model_digest": "sha256:abc"}
    assert (spec.dataset.name, spec.dataset.location, spec.dataset.samples) == ("tiny.json", "tiny.json", 4)
    assert spec.dataset.sample_ids == [f"Tiny 000{i} - Outcome of V000{i // 3}" for i in range(4)]
    config = spec.model_generate_config   # a bool is no seed, a string no retry count; the timeout in seconds
    assert (config.temperature, config.max_tokens, config.seed, config.timeout, config.max_retries,
            config.system_message) == (0.5, 64, None, 30, None, "Be brief.")
    assert log.plan.name == "auditpacks run" and log.plan.steps[0].solver == "auditpacks run"
    assert log.plan.steps[0].params["judge_base_url"] == "http://[credentials]@j/v1"
    assert log.plan.steps[0].params["temperature"] == 0.5
    assert (log.stats.started_at, log.stats.completed_at) == (
        "2026-12-01T08:00:00+00:00", "2026-12-01T08:01:30.500000+00:00")
    assert (log.status, log.results.total_samples, log.results.completed_samples) == ("success", 4, 3)
    meta = spec.metadata
    assert meta["pack"] == {"name": "tiny.json", "sha256": source.record.pack.sha256, "builder": "tests",
                            "scenarios": 4}
    assert meta["dataset"] == {"name": None, "revision": None, "sources": [], "manifest": "tiny.manifest.json"}
    assert (meta["benchmark"], meta["judge"], meta["judge_model"], meta["fingerprint"]) == (
        "iustitia", "choice_match", "jm", "m")
    assert "condition" not in meta and spec.packages == {"auditpacks": "0+unknown", "simpleaudit": "0+unknown"}


def test_the_summary_figures_are_one_score_with_a_metric_each(tmp_path):
    from auditpacks.runner.reporting.exports.inspect_log import eval_log

    results = eval_log(hand_source(tmp_path)).results
    (score,) = results.scores   # no figure has a group: the judge's name
    assert (score.name, score.scorer, score.scored_samples) == ("choice_match", "choice_match", 3)
    assert list(score.metrics) == ["agreement (micro)", "coverage", "tasks", "judgments", "invalid", "skipped"]
    micro = score.metrics["agreement (micro)"]
    assert (micro.name, micro.value) == ("agreement (micro)", 0.5)
    assert micro.metadata == {"id": "agreement_micro", "unit": "%", "interval": [0.25, 0.75],
                              "method": "95% CI, bootstrap over judgments", "confidence_level": 0.95,
                              "meaning": "correct answers ÷ questions; unanswered count as wrong", "better": "higher"}
    tasks = score.metrics["tasks"].metadata
    assert (tasks["interval"], tasks["confidence_level"], tasks["better"], tasks["unit"]) == (None, None, None, "count")
    assert results.metadata["undefined_figures"] == [{
        "id": "agreement_macro", "figure": "agreement (macro)",
        "meaning": "mean of the per-question agreement: every question type weighs the same"}]
    assert results.metadata["summary"] == {"scenarios": 4, "completed": 3, "errors": 1, "outcomes": {}, "skipped": {},
                                           "unanswered": [], "notes": []}
    assert results.metadata["headline"] == HEADLINE


def test_token_counts_are_the_models_and_each_roles(tmp_path):
    from auditpacks.runner.reporting.exports.inspect_log import eval_log

    source = hand_source(tmp_path)
    source.record.summary.tokens = {"target_input": 10, "target_output": 4, "judge_input": 7, "judge_output": 0,
                                    "auditor_input": 0, "auditor_output": 0}
    stats = eval_log(source).stats
    assert (stats.model_usage["openai/m"].input_tokens, stats.model_usage["openai/m"].output_tokens) == (10, 4)
    assert list(stats.role_usage) == ["judge"] and stats.role_usage["judge"].input_tokens == 7
    assert stats.role_usage["judge"].output_tokens == 0
    source.record.summary.tokens = {"judge_output": 2, "auditor_input": 3}
    stats = eval_log(source).stats
    assert stats.model_usage["openai/m"].input_tokens == 0 and stats.role_usage["judge"].output_tokens == 2
    assert (stats.model_usage["openai/m"].output_tokens, stats.role_usage["judge"].input_tokens) == (0, 0)
    assert (stats.role_usage["auditor"].input_tokens, stats.role_usage["auditor"].output_tokens) == (3, 0)


def test_a_start_without_a_zone_is_utc_and_an_unreadable_one_the_records_time(tmp_path):
    import datetime as dt
    import os

    from auditpacks.runner.reporting.exports.inspect_log import started_at

    source = hand_source(tmp_path, started="2026-12-01T10:00:00")
    assert started_at(source) == dt.datetime(2026, 12, 1, 10, tzinfo=dt.timezone.utc)
    source.record.started = ""
    os.utime(source.record_path, (1_700_000_000, 1_700_000_000))
    assert started_at(source).timestamp() == 1_700_000_000 and started_at(source).tzinfo is not None


@pytest.mark.parametrize("name", ["log.eval", "log.json"])
def test_write_log_writes_either_format_whole(tmp_path, name):
    from auditpacks.runner.reporting.exports.inspect_log import write_log

    out = tmp_path / "out" / name
    log = write_log(hand_source(tmp_path), out)
    assert read_eval_log(str(out)).eval.run_id == log.eval.run_id == "m.run.json"
    assert sorted(p.name for p in out.parent.iterdir()) == [name]   # no partial file left behind


def test_write_log_refuses_another_suffix_and_a_missing_extra(tmp_path, monkeypatch):
    import builtins

    from auditpacks.runner.reporting.exports import inspect_log
    from auditpacks.runner.reporting.exports.source import ExportError

    with pytest.raises(ExportError, match=r"^log.txt: an Inspect log file ends in .eval or .json$"):
        inspect_log.write_log(hand_source(tmp_path), tmp_path / "log.txt")
    real = builtins.__import__
    monkeypatch.setattr(builtins, "__import__", lambda name, *a, **k: (_ for _ in ()).throw(ImportError(name))
                        if name.startswith("inspect_ai") else real(name, *a, **k))
    with pytest.raises(ExportError) as refused:
        inspect_log.require_inspect()
    assert str(refused.value) == ("the Inspect AI export needs the inspect extra (inspect-ai); install it with: "
                                  "pip install 'auditpacks[inspect]'")


def test_a_benchmarks_pack_and_a_tool_condition_name_the_task_and_the_condition(tmp_path):
    from auditpacks.runner.reporting.exports.inspect_log import eval_log

    source = hand_source(tmp_path, condition={"name": "Designed Tools Only", "tools": {"find": "find_case"}})
    source.record.pack.builder, source.built_by = "iustitia", "iustitia"   # as if Iustitia's builder made it
    spec = eval_log(source).eval
    assert (spec.task, spec.task_display_name) == ("iustitia", "closed questions (Iustitia Marigonae style)")
    assert spec.metadata["condition"] == {"name": "Designed Tools Only", "tools": {"find": "find_case"},
                                          "search": None, "cutoff_policy": None, "snapshots": {}}


@pytest.mark.parametrize("params, expected", [
    ({"seed": 7, "max_retries": 2, "timeout": 30.9}, {"seed": 7, "max_retries": 2, "timeout": 30}),
    ({"temperature": 1, "max_tokens": 64, "system_prompt": "Be brief."},
     {"temperature": 1, "max_tokens": 64, "system_message": "Be brief."}),
    ({"seed": True, "max_retries": "3", "timeout": "30", "max_tokens": 6.5, "temperature": None}, {}),
    ({}, {})])
def test_the_decoding_settings_in_inspects_names_only_when_of_their_type(params, expected):
    got = _generate(params)
    assert got == expected and [type(v) for v in got.values()] == [type(v) for v in expected.values()]


def test_a_tool_runs_samples_carry_the_system_prompt_the_trace_the_tools_and_the_start(tmp_path):
    source = hand_source(tmp_path, started="2026-12-01T10:00:00+00:00", parameters={"system_prompt": "Be brief."},
                         condition={"name": "Designed Tools Only", "tools": {"find": "find_case", "cite": "citations"}})
    trace = {"scenario": "Tiny 0000 - Outcome of V0000", "condition": "Designed Tools Only", "cutoff": "1986-06-27",
             "steps": [{"kind": "model", "call": 1, "tokens": {"input": 5, "output": 2}, "tool_calls": 0}]}
    (source.folder / tool_run_names("m")[0]).write_text(json.dumps(trace) + "\n", encoding="utf-8")
    samples = {s.id: s for s in eval_log(source).samples}
    traced, plain = samples["Tiny 0000 - Outcome of V0000"], samples["Tiny 0001 - Outcome of V0000"]
    assert [(m.role, m.text) for m in traced.messages[:1]] == [("system", "Be brief.")]
    assert traced.metadata["tool_run"] == {"condition": "Designed Tools Only", "cutoff": "1986-06-27",
                                           "snapshot": None, "capped": None, "error": None}
    (event,) = traced.events
    assert [t.name for t in event.tools] == ["cite", "find"]
    assert event.timestamp.isoformat() == "2026-12-01T10:00:00+00:00"
    assert "tool_run" not in plain.metadata and plain.events == []


def test_a_shards_dataset_counts_the_whole_pack_and_a_run_without_a_duration_ends_at_its_start(tmp_path):
    source = hand_source(tmp_path, started="2026-12-01T10:00:00+00:00", seconds=None)
    source.record.pack.scenarios_in_pack = 10   # the shard ran 4 of the pack's 10 scenarios
    log = eval_log(source)
    assert (log.eval.dataset.samples, len(log.eval.dataset.sample_ids), len(log.samples)) == (10, 4, 4)
    assert log.stats.completed_at == log.stats.started_at == "2026-12-01T10:00:00+00:00"
    source.record.pack.scenarios_in_pack = None
    assert eval_log(source).eval.dataset.samples == 4


def test_figures_of_one_name_in_a_group_are_each_a_metric_and_a_level_needs_an_interval(tmp_path):
    source = hand_source(tmp_path)
    source.figures = lambda: [Figure("F1", 0.5, interval=(0.4, 0.6), interval_name="95% CI, bootstrap", group="ids"),
                              Figure("F1", 0.7, interval_name="90% CI, bootstrap", group="ids"),
                              Figure("tasks", 3, "count")]
    scores = {s.name: s.metrics for s in eval_log(source).results.scores}
    assert {name: list(metrics) for name, metrics in scores.items()} == {"ids": ["F1", "ids.f1_2"],
                                                                         "choice_match": ["tasks"]}
    first, second = scores["ids"]["F1"], scores["ids"]["ids.f1_2"]
    assert (first.value, first.metadata["confidence_level"]) == (0.5, 0.95)
    assert (second.name, second.value, second.metadata["interval"], second.metadata["confidence_level"]) == (
        "ids.f1_2", 0.7, None, None)


def test_write_log_makes_its_folders_and_replaces_an_earlier_log(tmp_path):
    source, out = hand_source(tmp_path), tmp_path / "a" / "b" / "log.json"
    write_log(source, out)
    source.record.fingerprint = "second"
    write_log(source, out)
    assert read_eval_log(str(out)).eval.task_id == "second" and [p.name for p in out.parent.iterdir()] == ["log.json"]
