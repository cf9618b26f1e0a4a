"""The run's flags in process: their defaults, their values, the help that explains them, and how they become a
run's settings (the pack's own run settings, endpoint files, judge panels)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from auditpacks.runner.cli import run_args
from auditpacks.runner.cli.run_args import add_run_arguments, config_from_args

DEFAULTS = {
    "target": None, "provider": None, "base_url": None, "endpoints": None, "endpoint_assignment": "document",
    "api_key": None, "system_prompt": None, "decision": None, "decision_url": None, "max_options": 26,
    "judge": None, "judge_model": None, "judge_provider": "openai", "judge_base_url": None, "judge_temperature": 0.0,
    "judge_max_tokens": None, "auditor_max_tokens": 512, "judge_timeout": None, "max_turns": 1, "auditor_model": None,
    "auditor_provider": None, "auditor_base_url": None, "grounding_mode": None, "deleted_as": None,
    "smoke": False, "per_question": None, "limit": None, "allow_fewer": False, "seed": 0, "repeats": 1,
    "temperature": None, "max_tokens": None, "concurrency": 1, "timeout": 600.0, "max_retries": 2,
    "retry_backoff": 0.5, "fresh": False, "stop_after": 5, "keep_errors": False, "cache": None, "cache_only": False,
    "skip_oversize": False, "shard": None, "wait_ready": 0.0, "out": None, "quiet": False, "log_progress": False,
    "check": True, "prompt_order": "auto", "slot_pinning": None, "batch_questions": 64, "dry_run": False,
    "prompt_cache": None, "pilot": None, "prices": None, "batch_api": False, "batch_poll": 30.0, "probe": True,
    "pack": Path("p.json")}


def parser(pack_required: bool = True) -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(prog="auditpacks run")
    add_run_arguments(made, pack_required=pack_required)
    return made


def parse(*argv: str) -> argparse.Namespace:
    return parser().parse_args(["--pack", "p.json", *argv])


def test_every_flag_has_its_documented_default():
    assert vars(parse()) == DEFAULTS


def test_every_flag_takes_its_value():
    argv = ("--target m --provider ollama --base-url u1 --base-url u2 --endpoints e.txt --endpoint-assignment random "
            "--api-key k --system-prompt s --decision ollama --decision-url d --max-options 3 --judge checklist "
            "--judge-model j1 --judge-model j2 --judge-provider jp --judge-base-url jb --judge-temperature 0.5 "
            "--judge-max-tokens 9 --auditor-max-tokens 8 --judge-timeout 7 --max-turns 2 --auditor-model a "
            "--auditor-provider ap --auditor-base-url ab --grounding-mode upstream --deleted-as real --smoke "
            "--per-question 2 --limit 0 --allow-fewer --seed 3 --repeats 4 --temperature 0.1 --max-tokens 99 "
            "--concurrency 5 --timeout 6 --max-retries 0 --retry-backoff 0 --fresh --stop-after 0 --keep-errors "
            "--cache c --cache-only --skip-oversize --shard 1/2 --wait-ready 1.5 --out o --quiet --log-progress "
            "--no-check --prompt-order stock --no-slot-pinning --batch-questions 1 --dry-run --prompt-cache --pilot 2 "
            "--prices pr.yaml --batch-api --batch-poll 0 --no-probe").split()
    assert vars(parse(*argv)) == {
        **DEFAULTS, "target": "m", "provider": "ollama", "base_url": ["u1", "u2"], "endpoints": Path("e.txt"),
        "endpoint_assignment": "random", "api_key": "k", "system_prompt": "s", "decision": "ollama",
        "decision_url": "d", "max_options": 3, "judge": "checklist", "judge_model": ["j1", "j2"],
        "judge_provider": "jp", "judge_base_url": "jb", "judge_temperature": 0.5, "judge_max_tokens": 9,
        "auditor_max_tokens": 8, "judge_timeout": 7.0, "max_turns": 2, "auditor_model": "a",
        "auditor_provider": "ap", "auditor_base_url": "ab", "grounding_mode": "upstream", "deleted_as": "real",
        "smoke": True, "per_question": 2, "limit": 0, "allow_fewer": True, "seed": 3, "repeats": 4,
        "temperature": 0.1, "max_tokens": 99, "concurrency": 5, "timeout": 6.0, "max_retries": 0,
        "retry_backoff": 0.0, "fresh": True, "stop_after": 0, "keep_errors": True, "cache": Path("c"),
        "cache_only": True, "skip_oversize": True, "shard": "1/2", "wait_ready": 1.5, "out": Path("o"), "quiet": True,
        "log_progress": True, "check": False, "prompt_order": "stock", "slot_pinning": False, "batch_questions": 1,
        "dry_run": True, "prompt_cache": True, "pilot": 2, "prices": Path("pr.yaml"), "batch_api": True,
        "batch_poll": 0.0, "probe": False}
    assert parse("--resume").fresh is False and parse("--slot-pinning").slot_pinning is True


@pytest.mark.parametrize("argv", [["--endpoint-assignment", "any"], ["--decision", "x"], ["--max-options", "1"],
                                  ["--judge-max-tokens", "0"], ["--auditor-max-tokens", "0"], ["--judge-timeout", "0"],
                                  ["--max-turns", "0"], ["--per-question", "0"], ["--limit", "-1"],
                                  ["--concurrency", "0"], ["--timeout", "0"], ["--max-retries", "-1"],
                                  ["--retry-backoff", "-1"], ["--stop-after", "-1"], ["--prompt-order", "x"],
                                  ["--batch-questions", "0"], ["--pilot", "0"], ["--batch-poll", "-1"],
                                  ["--wait-ready", "-1"], ["--judge-temperature", "-1"], ["--temperature", "-1"],
                                  ["--max-tokens", "0"], ["--resume", "--fresh"]])
def test_a_value_out_of_range_is_refused(argv, capsys):
    with pytest.raises(SystemExit):
        parse(*argv)


def test_the_pack_is_required_only_where_asked():
    with pytest.raises(SystemExit):
        parser().parse_args([])
    assert "pack" not in vars(parser(pack_required=False).parse_args([]))


@pytest.mark.parametrize("shown", [
    "target (default: the embedded local model):", "grading:", "selection:", "execution:",
    "prompt caching and batching:",
    "--target TARGET model name (e.g. gpt-4o-mini, qwen3:8b, clef)",
    "--provider PROVIDER openai (the default), vllm, llamacpp, openrouter, lmstudio, deepseek, together, groq",
    "--base-url URL the server, e.g. http://localhost:8000/v1 (OpenAI-compatible)",
    "--endpoints FILE a file of further endpoint URLs, one a line (# comments), as if each were a --base-url",
    "--endpoint-assignment {document,random} several endpoints: document (each document to one endpoint",
    "--api-key API_KEY key for the target (default: the provider's environment variable)",
    "--system-prompt SYSTEM_PROMPT system prompt sent to a chat target",
    "--decision {ollama,openrouter,url} run a decision model through the System One protocol",
    "--decision-url DECISION_URL any System One endpoint (implies --decision url)",
    "--max-options MAX_OPTIONS option limit of the decision endpoint; larger questions are skipped (default 26)",
    "--judge JUDGE choice_match",
    "(default: the pack's own grader)",
    "--judge-model JUDGE_MODEL judge model for LLM judges (checklist); `embedded`: the embedded local model",
    "--judge-provider JUDGE_PROVIDER provider of the judge model, as --provider (default openai)",
    "--judge-base-url JUDGE_BASE_URL server for a local judge (OpenAI-compatible, or Ollama: detected)",
    "--judge-temperature JUDGE_TEMPERATURE judge and auditor-model temperature (default 0)",
    "--judge-max-tokens JUDGE_MAX_TOKENS judge reply cap (default 1024; 1536 for the embedded model",
    "--auditor-max-tokens AUDITOR_MAX_TOKENS cap on each follow-up turn the auditor model writes (default 512)",
    "--judge-timeout SECONDS per attempt of a judge or auditor-model call (default: --timeout)",
    "--max-turns MAX_TURNS turns per scenario (default 1)",
    "--auditor-model AUDITOR_MODEL model writing follow-up turns (default: the judge model; needed with",
    "--auditor-provider AUDITOR_PROVIDER provider of the auditor model (default: the judge's)",
    "--auditor-base-url AUDITOR_BASE_URL server of the auditor model (default: the judge's)",
    "--grounding-mode {full,upstream} grounding judge:",
    "--smoke only the pack's smoke scenarios (3)",
    "--per-question N at most N scenarios per question (seeded)",
    "--limit N only the first N selected scenarios",
    "--allow-fewer accept a selection smaller than --limit asks for (noted; by default refused)",
    "--seed SEED sampling and decoding seed (default 0)",
    "--repeats N run every scenario N times as rounds 1..N, round N decoding with seed + N - 1 (default 1)",
    "--temperature TEMPERATURE target temperature (default: the pack's run settings, else 0); part of the run id",
    "--max-tokens MAX_TOKENS output cap per target reply (default: the pack's run settings, else 1024; at least 256",
    "--concurrency CONCURRENCY workers, each running whole documents one after another (default 1)",
    "--timeout TIMEOUT seconds per model call attempt (default 600.0)",
    "--max-retries MAX_RETRIES retries per model call: at most N+1 requests (default 2)",
    "--retry-backoff SECONDS first retry delay, doubled each time, with jitter (default 0.5)",
    "--resume reuse finished scenarios journaled in --out (the default)",
    "--fresh ignore finished scenarios of an earlier run",
    "--stop-after N stop the run when the first N scenarios all fail the same way (default 5; 0: never)",
    "--keep-errors when resuming, keep ERROR results instead of running them again",
    "--cache DIR response cache folder (off by default)",
    "--cache-only replay from --cache without a server; a miss is that scenario's ERROR",
    "--skip-oversize ollama: skip (and count) prompts too long for the model instead of an ERROR",
    "--shard I/N run only shard I of N (1..N), split by document",
    "--wait-ready SECONDS wait up to SECONDS for the first endpoint to be ready (GET /models or /health)",
    "--out OUT output folder (default results/<pack>/, the pack file's name without .json)",
    "--quiet no progress output (but see --log-progress)",
    "--log-progress progress as plain lines stamped with the UTC time, every 5% and at least once a minute",
    "--no-check run a pack even when auditpacks check finds ERRORs in it (by default it is refused)",
    "--prompt-order {auto,document-first,stock} chat prompts: documents first and the question last",
    "--slot-pinning, --no-slot-pinning send llama.cpp's id_slot so each worker keeps its document in one server slot",
    "--batch-questions N decision runs: questions on one state per System One request (default 64; 1: one",
    "--dry-run send nothing: print per model the scenarios, documents, tokens, and the cost and time",
    "--prompt-cache, --no-prompt-cache send each document's prompt_cache_key to any OpenAI-compatible endpoint",
    "--pilot N with --dry-run and one --target: run the first N scenarios for real, read their usage",
    "--prices FILE price table (YAML, dated) for quotes and incurred cost (default: the bundled one)",
    "--batch-api send the run as OpenAI Batch or Anthropic Message Batches jobs (half price;",
    "--batch-poll SECONDS seconds between polls of submitted batches (default 30)",
    "--no-probe decision runs: do not probe the endpoint (schema, option order, determinism, state window)",
    "--pack PACK the scenario pack (PACK.json)",
])
def test_the_help_explains_each_flag(shown):
    wide = argparse.ArgumentParser(prog="auditpacks run", formatter_class=lambda prog: argparse.HelpFormatter(
        prog, width=2000, max_help_position=2000))
    add_run_arguments(wide)
    assert shown in " ".join(wide.format_help().split())


def write_pack(tmp_path: Path, run) -> Path:
    """A pack file whose manifest carries ``run`` (no manifest when ``run`` is None)."""
    from auditpacks.packs.pack import manifest_path

    pack = tmp_path / "p.json"
    pack.write_text("[]", encoding="utf-8")
    if run is not None:
        manifest_path(pack).write_text(run if isinstance(run, str) else json.dumps({"run": run}), encoding="utf-8")
    return pack


@pytest.mark.parametrize("run, settings", [
    (None, {}), ({"max_tokens": 300, "temperature": 0.2}, {"max_tokens": 300, "temperature": 0.2}),
    (["not", "a", "table"], {}), ("not json", {}), ("[1, 2]", {}),
])
def test_the_packs_run_settings_are_read_from_its_manifest(tmp_path, run, settings):
    assert run_args.pack_run_settings(write_pack(tmp_path, run)) == settings
    assert run_args.pack_run_settings(None) == {}


@pytest.mark.parametrize("run, argv, max_tokens, temperature", [
    (None, [], 256, 0.0),                                  # the embedded model: short answers
    ({"max_tokens": 100}, [], 256, 0.0),                   # ... but never under 256
    ({"max_tokens": 900, "temperature": 0.3}, [], 900, 0.3),
    (None, ["--target", "m"], 1024, 0.0),
    ({"max_tokens": 700}, ["--target", "m"], 700, 0.0),
    ({"max_tokens": 0}, ["--target", "m"], 1024, 0.0), ({"max_tokens": True}, ["--target", "m"], 1024, 0.0),
    ({"max_tokens": "700"}, ["--target", "m"], 1024, 0.0), ({"max_tokens": -5}, [], 256, 0.0),
    ({"max_tokens": 700}, ["--target", "m", "--max-tokens", "50"], 50, 0.0),
    ({"max_tokens": 700}, ["--decision", "ollama"], None, 0.0),
    ({"max_tokens": 700}, ["--decision-url", "http://d"], None, 0.0),
    ({"temperature": -1}, [], 256, 0.0), ({"temperature": "hot"}, [], 256, 0.0), ({"temperature": 0}, [], 256, 0.0),
    ({"temperature": 1}, ["--temperature", "0.5"], 256, 0.5), ({"temperature": 2}, [], 256, 2.0),
])
def test_decoding_comes_from_the_flags_else_the_packs_run_settings(tmp_path, run, argv, max_tokens, temperature):
    config = config_from_args(parse(*argv, "--pack", str(write_pack(tmp_path, run))))
    assert (config.decoding.max_tokens, config.decoding.temperature) == (max_tokens, temperature)
    assert isinstance(config.decoding.temperature, float)


@pytest.mark.parametrize("argv, decision", [([], None), (["--decision-url", "http://d"], "url"),
                                            (["--decision", "ollama", "--decision-url", "http://d"], "ollama")])
def test_a_decision_url_implies_the_url_decision(argv, decision):
    assert config_from_args(parse(*argv)).target.decision == decision


def test_endpoint_urls_are_the_base_urls_then_the_files_lines(tmp_path):
    listed = tmp_path / "endpoints.txt"
    listed.write_text("# replicas\nhttp://b  # second\n\n   \nhttp://c\n#http://off\n", encoding="utf-8")
    args = parse("--base-url", "http://a", "--endpoints", str(listed))
    assert run_args.endpoint_urls(args) == ["http://a", "http://b", "http://c"]
    target = config_from_args(args).target
    assert (target.base_url, target.more_base_urls) == ("http://a", ("http://b", "http://c"))
    python_api = argparse.Namespace(base_url="http://x")
    assert run_args.endpoint_urls(python_api) == ["http://x"]
    assert run_args.endpoint_urls(argparse.Namespace(base_url=None, endpoints=None)) == []


def test_an_unreadable_endpoints_file_is_one_line(tmp_path):
    missing = tmp_path / "none.txt"
    with pytest.raises(ValueError) as caught:
        run_args.endpoint_urls(parse("--endpoints", str(missing)))
    assert str(caught.value) == f"--endpoints {missing}: cannot read (No such file or directory)"


@pytest.mark.parametrize("value, models", [(None, []), ("j", ["j"]), (["a", "b"], ["a", "b"])])
def test_judge_models_are_the_judge_then_a_panel(value, models):
    assert run_args.judge_models(argparse.Namespace(judge_model=value)) == models


@pytest.mark.parametrize("argv, cap", [([], 1024), (["--judge-model", "embedded"], 1536),
                                       (["--judge-model", "x", "--judge-model", "embedded"], 1024),
                                       (["--judge-model", "embedded", "--judge-max-tokens", "5"], 5)])
def test_the_judges_reply_cap_is_larger_for_the_embedded_judge(argv, cap):
    assert config_from_args(parse(*argv)).roles.judge_max_tokens == cap


def test_the_target_and_judges_settings_land_in_their_places():
    config = config_from_args(parse("--provider", "vllm", "--judge-model", "a", "--judge-model", "b",
                                    "--grounding-mode", "upstream", "--judge-timeout", "9", "--system-prompt", "s",
                                    "--api-key", "k", "--auditor-max-tokens", "7", "--wait-ready", "2"))
    assert (config.target.provider, config.target.provider_given, config.target.api_key,
            config.target.system_prompt) == ("vllm", True, "k", "s")
    assert (config.roles.judge_model, config.roles.panel_models, config.roles.grader_options,
            config.roles.judge_timeout, config.roles.auditor_max_tokens) == ("a", ("b",), {"mode": "upstream"}, 9.0, 7)
    assert config.execution.wait_ready == 2.0
    plain = config_from_args(parse())
    assert (plain.target.provider, plain.target.provider_given, plain.roles.grader_options) == ("openai", False, {})
    assert (plain.execution.show_progress, config_from_args(parse("--quiet")).execution.show_progress) == (None, False)


def test_a_flags_attribute_is_its_name_with_underscores():
    assert run_args._dest("--grounding-mode") == "grounding_mode" and run_args._dest("--x") == "x"
