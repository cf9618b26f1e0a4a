"""The flags of a run, shared by ``auditpacks run`` and ``runner/run_simpleaudit.py``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from auditpacks.core.defaults import MAX_OPTIONS, MAX_QUESTIONS, MAX_TOKENS, TIMEOUT_S
from auditpacks.core.registry import JUDGES, judge_flags
from auditpacks.core.arg_types import integer, number, text
from auditpacks.runner.settings.config import (DecodingConfig, ExecutionConfig, HostingConfig, RolesConfig, RunConfig,
                                               SelectionConfig, TargetConfig)


#: ``auditpacks run --help``: what a run is, then examples after the flags.
RUN_USAGE = "auditpacks run --pack PACK.json [--target MODEL [--provider P | --base-url URL]] [options]"
RUN_DESCRIPTION = """Run a pack on a model and grade the replies; without --target the embedded local model answers.
Each run gets its own folder under results/<pack>/ (results/<pack>/latest: the one finished last);
a rerun with the same settings resumes it, other settings start a new run."""
RUN_EXAMPLES = """examples:
  auditpacks run --pack PACK.json --smoke                         # the embedded model, the smoke set
  auditpacks run --pack PACK.json --target qwen3:8b --base-url http://localhost:11434 --limit 50
  auditpacks run --pack PACK.json --target gpt-4o-mini --provider openai   # key from $OPENAI_API_KEY
  auditpacks run --pack PACK.json --limit 2 --judge checklist --judge-model embedded
  auditpacks run --pack PACK.json --decision-url http://127.0.0.1:11435/v1/systemone --target smollm2
  auditpacks run --pack big.json --shard 2/4 --out runs/shard-2   # then: auditpacks merge runs/shard-* --out runs/all

more: docs/runner.md (flags), docs/results.md (what a run writes)"""


def add_run_arguments(parser: argparse.ArgumentParser, *, pack_required: bool = True) -> None:
    target = parser.add_argument_group("target (default: the embedded local model)")
    target.add_argument("--target", type=text, help="model name (e.g. gpt-4o-mini, qwen3:8b, clef)")
    target.add_argument("--provider",
                        help="openai (the default), vllm, llamacpp, openrouter, lmstudio, deepseek, together, groq "
                             "(OpenAI-compatible, our own client); ollama (native API: num_ctx fitted per prompt; "
                             "also chosen when --base-url answers Ollama's /api/version and --provider is not "
                             "given); any other any-llm provider (anthropic, gemini, mistral, ...) through simpleaudit")
    target.add_argument("--base-url", action="append", type=text, metavar="URL",
                        help="the server, e.g. http://localhost:8000/v1 (OpenAI-compatible) or http://localhost:11434 "
                             "(--provider ollama); give it several times for replicas of one model: each document "
                             "goes to one of them (rendezvous hashing), a failing one is taken out")
    target.add_argument("--endpoints", type=Path, metavar="FILE",
                        help="a file of further endpoint URLs, one a line (# comments), as if each were a --base-url")
    target.add_argument("--endpoint-assignment", choices=("document", "random"), default="document",
                        help="several endpoints: document (each document to one endpoint, the default) or random "
                             "(each request anywhere; a baseline for comparison)")
    target.add_argument("--api-key", type=text, help="key for the target (default: the provider's environment variable)")
    target.add_argument("--system-prompt", help="system prompt sent to a chat target")
    target.add_argument("--decision", choices=("ollama", "openrouter", "url"),
                        help="run a decision model through the System One protocol")
    target.add_argument("--decision-url", type=text, help="any System One endpoint (implies --decision url)")
    target.add_argument("--max-options", type=integer(2), default=MAX_OPTIONS,
                        help="option limit of the decision endpoint; larger questions are skipped (default %(default)s)")

    grading = parser.add_argument_group("grading")
    grading.add_argument("--judge", help=f"{', '.join(JUDGES)} (default: the pack's own grader)")
    grading.add_argument("--judge-model", action="append", type=text,
                         help="judge model for LLM judges (checklist); `embedded`: the embedded local model (a "
                              "plumbing check, see docs/judges.md); given again, a panel: each further judge grades "
                              "the same transcripts (on the same judge server and provider)")
    grading.add_argument("--judge-provider", default="openai",
                         help="provider of the judge model, as --provider (default openai)")
    grading.add_argument("--judge-base-url", help="server for a local judge (OpenAI-compatible, or Ollama: detected)")
    grading.add_argument("--judge-temperature", type=number(0.0), default=0.0,
                         help="judge and auditor-model temperature (default 0)")
    grading.add_argument("--judge-max-tokens", type=integer(1),
                         help="judge reply cap (default 1024; 1536 for the embedded model, whose small "
                              "tokenizer spends more tokens per quoted character)")
    grading.add_argument("--auditor-max-tokens", type=integer(1), default=512,
                         help="cap on each follow-up turn the auditor model writes (default 512)")
    grading.add_argument("--judge-timeout", type=number(0.0, above=True), metavar="SECONDS",
                         help="per attempt of a judge or auditor-model call (default: --timeout)")
    grading.add_argument("--max-turns", type=integer(1), default=1, help="turns per scenario (default 1)")
    grading.add_argument("--auditor-model", help="model writing follow-up turns (default: the judge model; needed "
                                                 "with --max-turns > 1 and a code judge); `embedded`: the "
                                                 "embedded local model")
    grading.add_argument("--auditor-provider", help="provider of the auditor model (default: the judge's)")
    grading.add_argument("--auditor-base-url", help="server of the auditor model (default: the judge's)")
    for flag in judge_flags():
        grading.add_argument(flag.flag, choices=flag.choices, help=flag.help)

    selection = parser.add_argument_group("selection")
    selection.add_argument("--smoke", action="store_true", help="only the pack's smoke scenarios (3)")
    selection.add_argument("--per-question", type=integer(1), metavar="N", help="at most N scenarios per question (seeded)")
    selection.add_argument("--limit", type=integer(0), metavar="N", help="only the first N selected scenarios")
    selection.add_argument("--allow-fewer", action="store_true",
                           help="accept a selection smaller than --limit asks for (noted; by default refused)")
    selection.add_argument("--seed", type=integer(), default=0, help="sampling and decoding seed (default 0)")
    selection.add_argument("--repeats", type=int, default=1, metavar="N",
                           help="run every scenario N times as rounds 1..N, round N decoding with seed + N - 1 "
                                "(default 1)")

    execution = parser.add_argument_group("execution")
    execution.add_argument("--temperature", type=number(0.0),
                           help="target temperature (default: the pack's run settings, else 0); part of the run "
                                "id")
    execution.add_argument("--max-tokens", type=integer(1),
                           help=f"output cap per target reply (default: the pack's run settings, else {MAX_TOKENS}; "
                                "at least 256 for the embedded model)")
    execution.add_argument("--concurrency", type=integer(1), default=1,
                           help="workers, each running whole documents one after another (default 1)")
    execution.add_argument("--timeout", type=number(0.0, above=True), default=TIMEOUT_S,
                           help="seconds per model call attempt (default %(default)s)")
    execution.add_argument("--max-retries", type=integer(0), default=2,
                           help="retries per model call: at most N+1 requests (default 2)")
    execution.add_argument("--retry-backoff", type=number(0.0), default=0.5, metavar="SECONDS",
                           help="first retry delay, doubled each time, with jitter (default 0.5)")
    resume = execution.add_mutually_exclusive_group()
    resume.add_argument("--resume", dest="fresh", action="store_false", default=False,
                        help="reuse finished scenarios journaled in --out (the default)")
    resume.add_argument("--fresh", dest="fresh", action="store_true", default=False,
                        help="ignore finished scenarios of an earlier run")
    execution.add_argument("--stop-after", type=integer(0), default=5, metavar="N",
                           help="stop the run when the first N scenarios all fail the same way (default 5; 0: never)")
    execution.add_argument("--keep-errors", action="store_true",
                           help="when resuming, keep ERROR results instead of running them again")
    execution.add_argument("--cache", type=Path, metavar="DIR", help="response cache folder (off by default)")
    execution.add_argument("--cache-only", action="store_true",
                           help="replay from --cache without a server; a miss is that scenario's ERROR")
    execution.add_argument("--skip-oversize", action="store_true",
                           help="ollama: skip (and count) prompts too long for the model instead of an ERROR")
    execution.add_argument("--shard", metavar="I/N", help="run only shard I of N (1..N), split by document")
    execution.add_argument("--wait-ready", type=number(0.0), default=0.0, metavar="SECONDS",
                           help="wait up to SECONDS for the first endpoint to be ready (GET /models or /health); "
                                "with several, those still loading join the pool once ready (default: no wait)")
    execution.add_argument("--out", type=Path, help="output folder (default results/<pack>/, the pack file's name "
                                                   "without .json)")
    execution.add_argument("--quiet", action="store_true", help="no progress output (but see --log-progress)")
    execution.add_argument("--log-progress", action="store_true",
                           help="progress as plain lines stamped with the UTC time, every 5%% and at least once a "
                                "minute, for job logs (even with --quiet or on a terminal)")
    execution.add_argument("--no-check", dest="check", action="store_false",
                           help="run a pack even when auditpacks check finds ERRORs in it (by default it is refused)")

    speed = parser.add_argument_group("prompt caching and batching")
    speed.add_argument("--prompt-order", choices=("auto", "document-first", "stock"), default="auto",
                       help="chat prompts: documents first and the question last, so a prefix-caching server reads "
                            "each document once; stock is simpleaudit's order (default auto: document-first when "
                            "the scenarios have documents)")
    speed.add_argument("--slot-pinning", action=argparse.BooleanOptionalAction, default=None,
                       help="send llama.cpp's id_slot so each worker keeps its document in one server slot "
                            "(default: on for the embedded model and --provider llamacpp only)")
    speed.add_argument("--batch-questions", type=integer(1), default=MAX_QUESTIONS, metavar="N",
                       help="decision runs: questions on one state per System One request (default %(default)s; 1: one "
                            "question per request)")
    speed.add_argument("--dry-run", action="store_true",
                       help="send nothing: print per model the scenarios, documents, tokens, and the cost and time "
                            "of a plain, prompt-cached, batch and batch+cached run (see docs/hosted.md)")
    speed.add_argument("--prompt-cache", action=argparse.BooleanOptionalAction, default=None,
                       help="send each document's prompt_cache_key to any OpenAI-compatible endpoint (a proxy or "
                            "gateway), not only OpenAI's own; --no-prompt-cache sends neither it nor Anthropic's "
                            "cache marks")
    speed.add_argument("--pilot", type=integer(1), metavar="N",
                       help="with --dry-run and one --target: run the first N scenarios for real, read their usage "
                            "and re-quote the whole selection from it")
    speed.add_argument("--prices", type=Path, metavar="FILE",
                       help="price table (YAML, dated) for quotes and incurred cost (default: the bundled one)")
    speed.add_argument("--batch-api", action="store_true",
                       help="send the run as OpenAI Batch or Anthropic Message Batches jobs (half price; "
                            "resumable: a rerun re-attaches to submitted batches)")
    speed.add_argument("--batch-poll", type=number(0.0), default=30.0, metavar="SECONDS",
                       help="seconds between polls of submitted batches (default 30)")
    speed.add_argument("--no-probe", dest="probe", action="store_false",
                       help="decision runs: do not probe the endpoint (schema, option order, determinism, state "
                            "window) before the first scenario")
    if pack_required:
        parser.add_argument("--pack", type=Path, required=True, help="the scenario pack (PACK.json)")


def _dest(flag: str) -> str:
    """The argparse attribute of ``--a-flag``."""
    return flag.removeprefix("--").replace("-", "_")


def endpoint_urls(args: argparse.Namespace) -> list[str]:
    """``--base-url`` values (one string from the Python API), then the lines of ``--endpoints FILE``."""
    urls = [args.base_url] if isinstance(args.base_url, str) else list(args.base_url or [])
    if getattr(args, "endpoints", None):
        try:
            lines = args.endpoints.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ValueError(f"--endpoints {args.endpoints}: cannot read ({exc.strerror or exc})") from None
        urls += [line.split("#", 1)[0].strip() for line in lines if line.split("#", 1)[0].strip()]
    return urls


def judge_models(args: argparse.Namespace) -> list[str]:
    """``--judge-model`` values (one string from the Python API): the run's judge, then a panel's further judges."""
    value = args.judge_model
    return [value] if isinstance(value, str) else list(value or [])


def config_from_args(args: argparse.Namespace) -> RunConfig:
    urls = endpoint_urls(args)
    judges = judge_models(args)
    decision = args.decision or ("url" if args.decision_url else None)
    grader_options = {flag.option: value for flag in judge_flags() if (value := getattr(args, _dest(flag.flag)))}
    settings = pack_run_settings(getattr(args, "pack", None))
    max_tokens = args.max_tokens
    if max_tokens is None and decision is None:
        budget = _positive_int(settings.get("max_tokens"))
        # the embedded model is small: keep demo and smoke runs short, unless the pack needs a longer answer
        max_tokens = max(256, budget or 0) if args.target is None else budget or MAX_TOKENS
    temperature = args.temperature
    if temperature is None:
        value = settings.get("temperature", 0.0)
        temperature = float(value) if isinstance(value, (int, float)) and value >= 0 else 0.0
    return RunConfig(
        pack=args.pack, out=args.out,
        target=TargetConfig(
            model=args.target, provider=args.provider or "openai", provider_given=args.provider is not None,
            base_url=urls[0] if urls else None, more_base_urls=tuple(urls[1:]),
            endpoint_assignment=args.endpoint_assignment, api_key=args.api_key, system_prompt=args.system_prompt,
            decision=decision, decision_url=args.decision_url, max_options=args.max_options),
        roles=RolesConfig(
            judge=args.judge, judge_model=judges[0] if judges else None, panel_models=tuple(judges[1:]),
            judge_provider=args.judge_provider, judge_base_url=args.judge_base_url,
            auditor_model=args.auditor_model, auditor_provider=args.auditor_provider,
            auditor_base_url=args.auditor_base_url, max_turns=args.max_turns,
            judge_temperature=args.judge_temperature,
            judge_max_tokens=args.judge_max_tokens or (1536 if judges[:1] == ["embedded"] else 1024),
            auditor_max_tokens=args.auditor_max_tokens, judge_timeout=args.judge_timeout,
            grader_options=grader_options),
        selection=SelectionConfig(
            smoke=args.smoke, per_question=args.per_question, limit=args.limit, allow_fewer=args.allow_fewer,
            seed=args.seed, repeats=args.repeats, shard=args.shard),
        decoding=DecodingConfig(temperature=temperature, max_tokens=max_tokens),
        execution=ExecutionConfig(
            concurrency=args.concurrency, timeout=args.timeout, max_retries=args.max_retries,
            retry_backoff=args.retry_backoff, resume=not args.fresh, retry_errors=not args.keep_errors,
            cache_dir=args.cache, cache_only=args.cache_only, skip_oversize=args.skip_oversize,
            wait_ready=args.wait_ready, prompt_order=args.prompt_order, slot_pinning=args.slot_pinning,
            batch_questions=args.batch_questions, show_progress=False if args.quiet else None,
            log_progress=args.log_progress, check=args.check, probe=args.probe, stop_after=args.stop_after),
        hosting=HostingConfig(prompt_cache=args.prompt_cache, prices=args.prices, batch_api=args.batch_api,
                              batch_poll_s=args.batch_poll),
    )


def pack_run_settings(pack: Path | None) -> dict:
    """The run settings a pack's manifest carries (``run``: e.g. ``max_tokens``, ``temperature``), {} when none."""
    from auditpacks.packs.pack import manifest_path

    path = manifest_path(pack) if pack else None
    try:
        value = json.loads(path.read_text(encoding="utf-8")).get("run", {}) if path else {}
    except (OSError, ValueError, AttributeError):
        return {}
    return value if isinstance(value, dict) else {}


def _positive_int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
