"""Every flag of a run in its place in the run's settings, the embedded judge's cap in a panel, endpoint files with
comments, and the empty values the target's flags refuse."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from auditpacks.core.registry import JUDGES
from auditpacks.runner.cli import run_args
from auditpacks.runner.cli.main import build_parser
from auditpacks.runner.cli.run_args import add_run_arguments, config_from_args
from auditpacks.runner.settings.config import (DecodingConfig, ExecutionConfig, HostingConfig, RolesConfig, RunConfig,
                                               SelectionConfig, TargetConfig)
from tests.support.run_config import DEFAULT_PUBLIC


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="auditpacks run")
    add_run_arguments(parser)
    return parser.parse_args(["--pack", "p.json", *argv])


def shown_help() -> str:
    """``auditpacks run --help`` on one line, each flag's help unwrapped."""
    wide = argparse.ArgumentParser(prog="auditpacks run", formatter_class=lambda prog: argparse.HelpFormatter(
        prog, width=2000, max_help_position=2000))
    add_run_arguments(wide)
    return " ".join(wide.format_help().split())


def test_every_flag_lands_in_its_place_in_the_run_config():
    argv = ("--target m --provider ollama --base-url u1 --base-url u2 --endpoint-assignment random --api-key k "
            "--system-prompt s --decision-url d --max-options 3 --judge checklist --judge-model j1 --judge-model j2 "
            "--judge-provider jp --judge-base-url jb --judge-temperature 0.5 --judge-max-tokens 9 "
            "--auditor-max-tokens 8 --judge-timeout 7 --max-turns 2 --auditor-model a --auditor-provider ap "
            "--auditor-base-url ab --grounding-mode upstream --smoke --per-question 2 --limit 0 --allow-fewer "
            "--seed 3 --repeats 4 --temperature 0.1 --max-tokens 99 --concurrency 5 --timeout 6 --max-retries 0 "
            "--retry-backoff 0.25 --fresh --stop-after 0 --keep-errors --cache c --cache-only --skip-oversize "
            "--shard 1/2 --wait-ready 1.5 --out o --quiet --log-progress --no-check --prompt-order stock "
            "--no-slot-pinning --batch-questions 1 --prompt-cache --prices pr.yaml --batch-api --batch-poll 0 "
            "--no-probe").split()
    assert config_from_args(parse(*argv)) == RunConfig(
        pack=Path("p.json"), out=Path("o"),
        target=TargetConfig(model="m", provider="ollama", provider_given=True, base_url="u1", more_base_urls=("u2",),
                            endpoint_assignment="random", api_key="k", system_prompt="s", decision="url",
                            decision_url="d", max_options=3),
        roles=RolesConfig(judge="checklist", judge_model="j1", panel_models=("j2",), judge_provider="jp",
                          judge_base_url="jb", auditor_model="a", auditor_provider="ap", auditor_base_url="ab",
                          max_turns=2, judge_temperature=0.5, judge_max_tokens=9, auditor_max_tokens=8,
                          judge_timeout=7.0, grader_options={"mode": "upstream"}),
        selection=SelectionConfig(smoke=True, per_question=2, limit=0, allow_fewer=True, seed=3, repeats=4,
                                  shard="1/2"),
        decoding=DecodingConfig(temperature=0.1, max_tokens=99),
        execution=ExecutionConfig(concurrency=5, timeout=6.0, max_retries=0, retry_backoff=0.25, resume=False,
                                  retry_errors=False, cache_dir=Path("c"), cache_only=True, skip_oversize=True,
                                  wait_ready=1.5, prompt_order="stock", slot_pinning=False, batch_questions=1,
                                  show_progress=False, log_progress=True, check=False, probe=False, stop_after=0),
        hosting=HostingConfig(prompt_cache=True, prices=Path("pr.yaml"), batch_api=True, batch_poll_s=0.0))


def test_without_flags_the_run_config_holds_the_documented_defaults():
    assert config_from_args(parse()) == RunConfig(
        pack=Path("p.json"), target=TargetConfig(provider="openai", provider_given=False, max_options=26),
        roles=RolesConfig(judge_provider="openai", judge_max_tokens=1024, auditor_max_tokens=512),
        decoding=DecodingConfig(temperature=0.0, max_tokens=256),
        execution=ExecutionConfig(timeout=600.0, max_retries=2, retry_backoff=0.5, resume=True, retry_errors=True,
                                  prompt_order="auto", batch_questions=64, check=True, probe=True, stop_after=5),
        hosting=HostingConfig(batch_poll_s=30.0))


def test_an_embedded_judge_leading_a_panel_gets_the_larger_cap():
    assert config_from_args(parse("--judge-model", "embedded", "--judge-model", "x")).roles.judge_max_tokens == 1536


def test_a_pack_asking_for_one_token_gets_one(tmp_path):
    from auditpacks.packs.pack import manifest_path

    pack = tmp_path / "p.json"
    pack.write_text("[]", encoding="utf-8")
    manifest_path(pack).write_text('{"run": {"max_tokens": 1}}', encoding="utf-8")
    assert config_from_args(parse("--target", "m", "--pack", str(pack))).decoding.max_tokens == 1


def test_an_endpoints_line_ends_at_its_first_hash_and_a_comment_line_is_skipped(tmp_path):
    listed = tmp_path / "endpoints.txt"
    listed.write_text("http://a#b # c\n# d # e\nhttp://f\n", encoding="utf-8")
    assert run_args.endpoint_urls(parse("--endpoints", str(listed))) == ["http://a", "http://f"]


def test_a_judge_model_named_by_the_python_api_is_one_model():
    assert run_args.judge_models(argparse.Namespace(judge_model="judge")) == ["judge"]


@pytest.mark.parametrize("flag", ["--target", "--base-url", "--api-key", "--decision-url", "--judge-model"])
def test_an_empty_model_server_or_key_is_refused(flag, capsys):
    with pytest.raises(SystemExit):
        parse(flag, " ")
    assert "must not be empty" in capsys.readouterr().err


#: the flags whose help runs over several lines of source, each help whole (as ``auditpacks run --help`` shows it)
LONG_HELP = {
    "--provider": "openai (the default), vllm, llamacpp, openrouter, lmstudio, deepseek, together, groq "
                  "(OpenAI-compatible, our own client); ollama (native API: num_ctx fitted per prompt; also chosen "
                  "when --base-url answers Ollama's /api/version and --provider is not given); any other any-llm "
                  "provider (anthropic, gemini, mistral, ...) through simpleaudit",
    "--base-url": "the server, e.g. http://localhost:8000/v1 (OpenAI-compatible) or http://localhost:11434 (--provider "
                  "ollama); give it several times for replicas of one model: each document goes to one of them "
                  "(rendezvous hashing), a failing one is taken out",
    "--endpoint-assignment": "several endpoints: document (each document to one endpoint, the default) or random (each "
                             "request anywhere; a baseline for comparison)",
    "--judge-model": "judge model for LLM judges (checklist); `embedded`: the embedded local model (a plumbing check, "
                     "see docs/judges.md); given again, a panel: each further judge grades the same transcripts (on "
                     "the same judge server and provider)",
    "--judge-max-tokens": "judge reply cap (default 1024; 1536 for the embedded model, whose small tokenizer spends "
                          "more tokens per quoted character)",
    "--auditor-model": "model writing follow-up turns (default: the judge model; needed with --max-turns > 1 and a "
                       "code judge); `embedded`: the embedded local model",
    "--repeats": "run every scenario N times as rounds 1..N, round N decoding with seed + N - 1 (default 1)",
    "--temperature": "target temperature (default: the pack's run settings, else 0); part of the run id",
    "--wait-ready": "wait up to SECONDS for the first endpoint to be ready (GET /models or /health); with several, "
                    "those still loading join the pool once ready (default: no wait)",
    "--out": "output folder (default results/<pack>/, the pack file's name without .json)",
    "--log-progress": "progress as plain lines stamped with the UTC time, every 5% and at least once a minute, for job "
                      "logs (even with --quiet or on a terminal)",
    "--prompt-order": "chat prompts: documents first and the question last, so a prefix-caching server reads each "
                      "document once; stock is simpleaudit's order (default auto: document-first when the scenarios "
                      "have documents)",
    "--slot-pinning": "send llama.cpp's id_slot so each worker keeps its document in one server slot (default: on for "
                      "the embedded model and --provider llamacpp only)",
    "--batch-questions": "decision runs: questions on one state per System One request (default 64; 1: one question "
                         "per request)",
    "--dry-run": "send nothing: print per model the scenarios, documents, tokens, and the cost and time of a plain, "
                 "prompt-cached, batch and batch+cached run (see docs/hosted.md)",
    "--prompt-cache": "send each document's prompt_cache_key to any OpenAI-compatible endpoint (a proxy or gateway), "
                      "not only OpenAI's own; --no-prompt-cache sends neither it nor Anthropic's cache marks",
    "--pilot": "with --dry-run and one --target: run the first N scenarios for real, read their usage and re-quote "
               "the whole selection from it",
    "--batch-api": "send the run as OpenAI Batch or Anthropic Message Batches jobs (half price; resumable: a rerun "
                   "re-attaches to submitted batches)",
    "--no-probe": "decision runs: do not probe the endpoint (schema, option order, determinism, state window) before "
                  "the first scenario",
}


@pytest.mark.parametrize("flag", LONG_HELP)
def test_a_long_help_is_shown_whole(flag):
    shown = shown_help()
    assert re.search(rf"{re.escape(flag)}\S*( [A-Z_]+| {{[a-z,-]+}}|, --no-[a-z-]+)? {re.escape(LONG_HELP[flag])}"
                     r"( --| [a-z ]+:|$)", shown)


@pytest.mark.parametrize("flag, lowest, value", [
    ("--max-options", "2", 2), ("--judge-max-tokens", "1", 1), ("--auditor-max-tokens", "1", 1),
    ("--judge-timeout", "0.5", 0.5), ("--max-turns", "1", 1), ("--per-question", "1", 1), ("--limit", "0", 0),
    ("--seed", "-5", -5), ("--max-tokens", "1", 1), ("--concurrency", "1", 1), ("--timeout", "0.5", 0.5),
    ("--max-retries", "0", 0), ("--retry-backoff", "0", 0.0), ("--stop-after", "0", 0), ("--wait-ready", "0", 0.0),
    ("--batch-questions", "1", 1), ("--pilot", "1", 1), ("--batch-poll", "0", 0.0), ("--judge-temperature", "0", 0.0),
    ("--temperature", "0", 0.0),
])
def test_each_bounded_flag_takes_its_lowest_value(flag, lowest, value):
    assert getattr(parse(flag, lowest), flag.removeprefix("--").replace("-", "_")) == value


def test_the_judge_help_names_every_judge():
    assert f"--judge JUDGE {', '.join(JUDGES)} (default: the pack's own grader)" in shown_help()


def test_every_flag_lands_in_the_stored_settings(tmp_path):
    args = build_parser("run").parse_args([
        "run", "--pack", str(tmp_path / "p.json"), "--target", "m", "--provider", "ollama", "--base-url",
        "http://x:11434", "--base-url", "http://y:11434", "--judge-model", "j1", "--judge-model", "j2",
        "--max-turns", "2", "--limit", "4", "--seed", "7", "--quiet", "--fresh", "--keep-errors", "--shard", "1/2",
        "--prompt-order", "stock", "--no-probe", "--batch-poll", "5", "--stop-after", "0"])
    public = config_from_args(args).public()
    changed = {k: v for k, v in public.items() if v != DEFAULT_PUBLIC.get(k, "not a default")}
    assert changed == {   # a pack without a manifest: 1,024 output tokens for a named target
        "target": "m", "provider": "ollama", "base_url": "http://x:11434", "more_base_urls": ["http://y:11434"],
        "judge_model": "j1", "panel_models": ("j2",), "max_turns": 2, "limit": 4, "seed": 7, "max_tokens": 1024,
        "resume": False, "retry_errors": False, "shard": "1/2", "prompt_order": "stock", "show_progress": False,
        "probe": False, "batch_poll_s": 5.0, "stop_after": 0}
    assert set(public) == set(DEFAULT_PUBLIC)

