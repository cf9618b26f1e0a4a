"""``auditpacks export inspect``: Inspect AI's own reader reads back every sample, score and metric of a jacite,
an Iustitia chat, an Iustitia decision and an ICJ tool run, and each metric is the run summary's figure to the
last digit (the expected values are read from the run record's JSON by hand-picked paths, not by the exporter's
code), with its interval and method."""

from __future__ import annotations

import json

import pytest
from inspect_ai.event import ModelEvent, ToolEvent
from inspect_ai.log import read_eval_log

from auditpacks.runner.cli.main import main
from tests.support.export_runs import BLOCKED, record_of, results_of
from tests.support.hand_runs import tiny_choice_run

#: run → (score name, metric name, the value's path in the summary's headline, its interval's path or None)
FIGURES = {
    "jacite": [(lang, name, [lang, key + "_rate"], [lang, key + suffix])
               for lang in ("en", "ja") for name, key, suffix in (
                   ("invented rate", "invented", "_bootstrap95"),
                   ("real but not gold rate", "real_not_gold", "_bootstrap95"),
                   ("gold article cited", "gold_hit", "_wilson95"))]
    + [("ja vs en", "invented rate ratio", ["ja_vs_en", "rate_ratio"], None),
       ("ja vs en", "Fisher exact p", ["ja_vs_en", "fisher_p"], None)],
    "iustitia_chat": [("choice_match", "agreement (micro)", ["micro"], ["ci", "micro"]),
                      ("choice_match", "agreement (macro)", ["macro"], ["ci", "macro"]),
                      ("choice_match", "coverage", ["coverage"], ["ci", "coverage"]),
                      ("choice_match", "tasks", ["tasks"], None), ("choice_match", "judgments", ["judgments"], None)],
    "iustitia_decision": [("≤26-option track", "agreement (micro)", ["micro"], ["ci", "micro"]),
                          ("full track", "agreement (micro)", ["full_track", "micro"], ["full_track", "ci", "micro"]),
                          ("full track", "coverage", ["full_track", "coverage"], ["full_track", "ci", "coverage"]),
                          ("full track", "skipped", ["skipped"], None),
                          ("choice_match", "calibration error (ECE)", ["calibration", "ece"],
                           ["calibration", "ci", "ece"]),
                          ("choice_match", "Brier score", ["calibration", "brier"], ["calibration", "ci", "brier"])],
    "icj_tools": [("case_ids", "F1", ["case_ids", "f1"], ["case_ids", "f1_bootstrap95"]),
                  ("provision_keys", "F1", ["provision_keys", "f1"], ["provision_keys", "f1_bootstrap95"]),
                  ("provision_keys", "precision", ["provision_keys", "precision"], None),
                  ("provision_keys", "recall", ["provision_keys", "recall"], None),
                  ("citations", "scored", ["scored"], None)],
}


def at(data, path):
    for key in path:
        data = data[key]
    return data


@pytest.fixture(scope="module")
def logs(export_runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("inspect-logs")
    found = {}
    for name, folder in export_runs.items():
        assert main(["export", "inspect", str(folder), "--out", str(out / f"{name}.eval")]) == 0
        found[name] = read_eval_log(str(out / f"{name}.eval"))
    return found


@pytest.mark.parametrize("run", sorted(FIGURES))
def test_every_sample_and_score_reads_back(run, logs, export_runs):
    log, results = logs[run], results_of(export_runs[run])
    record = record_of(export_runs[run])
    assert log.status == "success" and len(log.samples) == len(results) == log.results.total_samples
    by_id = {s.id: s for s in log.samples}
    assert sorted(by_id) == sorted(r["scenario_name"] for r in results)
    for result in results:
        sample = by_id[result["scenario_name"]]
        score = sample.scores[record["judge"]]
        assert score.value == ("C" if result["severity"] == "pass" else "I")
        assert score.explanation == result["summary"] and score.metadata["judgment"] == result["judgment"]
        assert sample.target == result["expected_behavior"]
        given, asked = sample.input[-1], result["conversation"][0]
        parts = given.content if isinstance(given.content, list) else [given]  # the documents, then the prompt
        assert parts[-1].text == asked["content"] and [p.text for p in parts[:-1]] == asked.get("documents", [])
        assert sample.output.completion == result["conversation"][-1]["content"]
        usage = sample.model_usage[log.eval.model]
        assert (usage.input_tokens, usage.output_tokens) == (result["target_input_tokens"],
                                                              result["target_output_tokens"])
    assert log.eval.model == f"{record['provider']}/{record['model']}"
    assert log.eval.metadata["pack"]["sha256"] == record["pack"]["sha256"]
    assert log.eval.metadata["fingerprint"] == record["fingerprint"]
    assert log.stats.started_at == record["started"]
    tokens = record["summary"]["tokens"]
    assert log.stats.model_usage[log.eval.model].input_tokens == tokens["target_input"]


@pytest.mark.parametrize("run", sorted(FIGURES))
def test_metrics_are_the_summary_figures_to_the_last_digit(run, logs, export_runs):
    headline = record_of(export_runs[run])["summary"]["headline"]
    scores = {s.name: s for s in logs[run].results.scores}
    for group, name, value_path, interval_path in FIGURES[run]:
        metric = scores[group].metrics[name]
        assert repr(metric.value) == repr(at(headline, value_path)), (group, name)
        if interval_path:
            assert metric.metadata["interval"] == at(headline, interval_path)
            assert metric.metadata["method"].startswith("95% ") and metric.metadata["confidence_level"] == 0.95
        else:
            assert metric.metadata["interval"] is None
    assert logs[run].results.metadata["headline"] == headline


def test_a_figure_with_no_value_is_listed_not_a_metric(logs, export_runs):
    headline = record_of(export_runs["icj_tools"])["summary"]["headline"]
    assert headline["case_ids"]["recall"] is None  # no case id in the reference: nothing to divide by
    scores = {s.name: s for s in logs["icj_tools"].results.scores}
    assert "recall" not in scores["case_ids"].metrics
    undefined = {u["figure"] for u in logs["icj_tools"].results.metadata["undefined_figures"]}
    assert "recall (case_ids)" in undefined and "F1 (resolution_symbols)" in undefined


def test_settings_are_the_run_parameters(logs, export_runs):
    record = record_of(export_runs["jacite"])
    log = logs["jacite"]
    config = log.eval.model_generate_config
    assert (config.temperature, config.max_tokens, config.seed) == (0.0, 512, 0)
    assert log.plan.steps[0].params == record["parameters"]
    assert log.eval.dataset.name == "raihan-js/jacite-bench"
    assert log.eval.metadata["dataset"]["sources"][0]["name"] == "packs/data/minpo.json"


def test_a_decision_reply_keeps_its_probabilities(logs, export_runs):
    results = {r["scenario_name"]: r for r in results_of(export_runs["iustitia_decision"])}
    for sample in logs["iustitia_decision"].samples:
        decision = results[sample.id]["conversation"][-1]["decision"]
        assert sample.output.message.metadata["decision"] == decision
        assert sample.scores["choice_match"].answer == f"chose {decision['choice']} (decision)"


def test_tool_calls_are_inspect_tool_events(logs, export_runs):
    log = logs["icj_tools"]
    assert log.eval.metadata["condition"]["name"] == "Designed Tools Only"
    for sample in log.samples:
        tools = [e for e in sample.events if isinstance(e, ToolEvent)]
        models = [e for e in sample.events if isinstance(e, ModelEvent)]
        assert [(t.function, t.arguments) for t in tools] == [("find_case", {"query": "Corfu"}),
                                                              ("get_case_citations", {"case_id": "001"})]
        assert len(models) == 2 and [len(m.output.message.tool_calls or []) for m in models] == [2, 0]
        roles = [m.role for m in sample.messages]
        assert roles == ["user", "assistant", "tool", "tool", "assistant"]
        assert sample.messages[1].tool_calls[1].id == sample.messages[3].tool_call_id == tools[1].id
    blocked = [e for s in log.samples for e in s.events if isinstance(e, ToolEvent) and e.error is not None]
    assert len(blocked) == 1 and blocked[0].function == "get_case_citations"
    assert blocked[0].error.type == "permission" and BLOCKED in blocked[0].error.message
    assert blocked[0].metadata["blocked_by_cutoff"] is True


# -- in-process: the log of a hand-written run, without the fake servers --------------------------------------------

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
    source.record.summary.tokens = {"judge_output": 2}
    stats = eval_log(source).stats
    assert stats.model_usage["openai/m"].input_tokens == 0 and stats.role_usage["judge"].output_tokens == 2


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
