"""``auditpacks export inspect``: Inspect AI's own reader reads back every sample, score and metric of a jacite,
an Iustitia chat, an Iustitia decision and an ICJ tool run, and each metric is the run summary's figure to the
last digit (the expected values are read from the run record's JSON by hand-picked paths, not by the exporter's
code), with its interval and method."""

from __future__ import annotations

import pytest
from inspect_ai.event import ModelEvent, ToolEvent
from inspect_ai.log import read_eval_log

from auditpacks.runner.cli.main import main
from tests.support.export_runs import BLOCKED, record_of, results_of

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
