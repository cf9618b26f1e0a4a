"""``auditpacks judge-check`` in process: its arguments, the judge's settings, a transcript's row and the
printed report."""

from __future__ import annotations

import argparse
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditpacks.runner.cli import judge_check
from auditpacks.runner.trust.judge_calibration import REPLAY


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="auditpacks judge-check")
    judge_check.add_arguments(parser)
    return parser.parse_args(["--pack", "p.json", "--judge-model", "j", *argv])


def test_the_defaults_are_twenty_five_scenarios_one_call_at_a_time_into_results_judges():
    assert vars(parse()) == {
        "pack": Path("p.json"), "judge_model": "j", "judge_provider": "openai", "judge_base_url": None,
        "judge_temperature": 0.0, "judge_max_tokens": None, "judge_timeout": 600.0, "limit": 25, "per_question": None,
        "seed": 0, "concurrency": 1, "max_retries": 2, "retry_backoff": 0.5, "cache": None,
        "out": Path("results/judges"), "json": False}
    args = parse("--cache", "c", "--out", "q", "--json", "--limit", "3", "--per-question", "2", "--seed", "5")
    assert (args.cache, args.out, args.json, args.limit, args.per_question, args.seed) == (Path("c"), Path("q"), True,
                                                                                          3, 2, 5)


@pytest.mark.parametrize("argv", [["--pack", "p.json"], ["--judge-model", "j"],
                                  ["--pack", "p.json", "--judge-model", " "],
                                  ["--pack", "p.json", "--judge-model", ""]])
def test_the_pack_and_the_judge_are_required(argv, capsys):
    parser = argparse.ArgumentParser(prog="auditpacks judge-check")
    judge_check.add_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(argv)


@pytest.mark.parametrize("shown", [
    "--pack PACK the scenario pack (PACK.json) with a manifest",
    "--judge-model JUDGE_MODEL the judge to qualify; `embedded`: the embedded local model (plumbing only)",
    "--judge-base-url JUDGE_BASE_URL server for a local judge (OpenAI-compatible or Ollama)",
    "--judge-max-tokens JUDGE_MAX_TOKENS judge reply cap (default as for run)",
    "--judge-timeout SECONDS",
    "--limit N build items from at most N scenarios of the pack (default 25)",
    "--per-question N at most N scenarios per question",
    "--seed SEED sampling seed for --per-question",
    "--cache DIR response cache folder (as for run)",
    "--out OUT folder of qualification files, where runs look (default results/judges)",
    "--json print the qualification as JSON on stdout",
])
def test_the_help_explains_the_arguments(shown):
    parser = argparse.ArgumentParser(prog="auditpacks judge-check")
    judge_check.add_arguments(parser)
    assert shown in " ".join(parser.format_help().split())


@pytest.mark.parametrize("model, argv, cap", [("j", [], 1024), ("embedded", [], 1536), ("embedded", ["--judge-max-tokens",
                                                                                                       "99"], 99)])
def test_the_judge_is_a_checklist_judge_of_replayed_transcripts(model, argv, cap):
    args = parse("--judge-model", model, "--judge-provider", "ollama", "--judge-base-url", "http://h/v1",
                 "--judge-temperature", "0.2", "--judge-timeout", "30", "--concurrency", "4", "--max-retries", "1",
                 "--retry-backoff", "0.1", "--cache", "c", *argv)
    config = judge_check.config_from(args)
    roles, execution = config.roles, config.execution
    assert (config.pack, config.target.model) == (Path("p.json"), REPLAY)
    assert (roles.judge, roles.judge_model, roles.judge_provider, roles.judge_base_url, roles.judge_temperature,
            roles.judge_max_tokens, roles.judge_timeout) == ("checklist", model, "ollama", "http://h/v1", 0.2, cap, 30.0)
    assert (execution.timeout, execution.concurrency, execution.max_retries, execution.retry_backoff,
            execution.cache_dir) == (30.0, 4, 1, 0.1, Path("c"))


ITEM = SimpleNamespace(id="q1-gold", kind="gold", expected="pass", probe=None, base="q1")


@pytest.mark.parametrize("judgment, why", [
    ({}, None), ({"ungraded_reason": "no verdict line"}, "no verdict line"), ({"error": "timed out"}, "timed out"),
    ({"ungraded_reason": "no verdict line", "error": "timed out"}, "no verdict line"),
])
def test_a_transcripts_row_says_why_it_went_ungraded(judgment, why):
    row = judge_check.item_row(ITEM, "pass" if why is None else None, judgment)
    expected = {"id": "q1-gold", "kind": "gold", "expected": "pass", "probe": None, "base": "q1",
                "verdict": "pass" if why is None else None}
    assert row == (expected if why is None else {**expected, "why_ungraded": why})


def report(**changes) -> dict:
    data = {"settings": {"model": "j", "provider": "openai"}, "items": 10,
            "pack": {"name": "p.json", "scenarios": 4, "sha256": "s"},
            "expectations": [{"kind": "gold", "expected": "pass", "agree": 3, "graded": 4, "agreement": 0.75,
                              "wilson95": [0.30064, 0.95443], "items": 5},
                             {"kind": "broken", "expected": "fail", "agree": 0, "graded": 0, "agreement": None,
                              "wilson95": [0.0, 1.0], "items": 2}],
            "kappa": 0.4567, "ungraded": 3,
            "bias": [{"probe": "longer", "flips": 1, "pairs": 3, "flip_rate": 1 / 3, "wilson95": [0.0615, 0.7923]},
                     {"probe": "order", "flips": 0, "pairs": 0, "flip_rate": None, "wilson95": [0.0, 1.0]}],
            "skipped_probes": [{"probe": "swap", "skipped": 2, "of": 5, "why": "one option"}],
            "qualified": True, "bar": {"agreement": 0.8}, "reasons": []}
    return {**data, **changes}


FIGURES = ["judge j (openai) on jacite: 10 calibration items from 4 scenarios of p.json",
           "  gold (should pass): agreement 3/4 = 75%, 95% Wilson 0.30–0.95; 1 ungraded",
           "  broken (should fail): agreement 0/0 = n/a, 95% Wilson 0.00–1.00; 2 ungraded"]
BIAS = ["  probe 'longer': 1/3 verdicts flipped = 33%, 95% Wilson 0.06–0.79",
        "  probe 'order': 0/0 verdicts flipped = n/a, 95% Wilson 0.00–1.00"]


@pytest.mark.parametrize("changes, lines", [
    ({}, [*FIGURES, "  Cohen's kappa 0.46; ungraded 3/10", *BIAS, "  probe 'swap': skipped on 2 of 5 items (one option)",
          'QUALIFIED on what was measured (see the skipped probes above) (bar: {"agreement": 0.8}); written to '
          "q/j.json"]),
    ({"skipped_probes": None, "kappa": None}, [*FIGURES, "  Cohen's kappa n/a; ungraded 3/10", *BIAS,
                                              'QUALIFIED (bar: {"agreement": 0.8}); written to q/j.json']),
    ({"qualified": False, "reasons": ["agreement 75% < 80%", "kappa too low"], "bias": []},
     [*FIGURES, "  Cohen's kappa 0.46; ungraded 3/10", "  probe 'swap': skipped on 2 of 5 items (one option)",
      'NOT QUALIFIED (bar: {"agreement": 0.8}); written to q/j.json', "  - agreement 75% < 80%", "  - kappa too low"]),
])
def test_the_report_gives_each_figure_with_its_interval_then_the_verdict(capsys, changes, lines):
    judge_check.print_report(report(**changes), "jacite", Path("q/j.json"))
    assert capsys.readouterr().out.splitlines() == lines


@pytest.mark.parametrize("flag, refused, accepted", [
    ("--judge-base-url", " ", "http://h/v1"), ("--judge-temperature", "-0.1", "0"), ("--judge-max-tokens", "0", "1"),
    ("--judge-timeout", "0", "0.001"), ("--limit", "0", "1"), ("--per-question", "0", "1"), ("--seed", "x", "-1"),
    ("--concurrency", "0", "1"), ("--max-retries", "-1", "0"), ("--retry-backoff", "-0.1", "0"),
])
def test_each_bounded_flag_refuses_the_value_just_past_its_bound(flag, refused, accepted, capsys):
    with pytest.raises(SystemExit):
        parse(flag, refused)
    assert getattr(parse(flag, accepted), flag.removeprefix("--").replace("-", "_")) is not None
