"""``auditpacks judge-check``: qualify a checklist judge on calibration transcripts whose verdicts are known.

Builds the pack's calibration items (no model), grades them with the judge through the
run's own judge path, reports agreement per kind of item with its Wilson interval, Cohen's
kappa, the share left ungraded and each bias probe's flip rate, and writes the result where
a later ``run --judge checklist`` with the same judge finds it. While the judge works, progress
lines and the heartbeat go to stderr as for ``run``. Exit 0: qualified; 4: not
qualified (the reasons are printed); 2: bad input.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

from auditpacks.core.registry import modules
from auditpacks.judges.trust import qualification_store as store
from auditpacks.judges.trust.judge_items import with_probes
from auditpacks.judges.trust.qualification import assess
from auditpacks.core.arg_types import integer, number, text
from auditpacks.runner.display.progress import ProgressPrinter
from auditpacks.runner.execute.engine import run_reader
from auditpacks.runner.scenarios import selection as select
from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.settings.config import ExecutionConfig, RolesConfig, RunConfig, TargetConfig
from auditpacks.runner.trust.judge_calibration import REPLAY, calibration_items, grade
from auditpacks.runner.trust.judge_checks import benchmark_of
from auditpacks.runner.scenarios.scenario_source import open_pack

EXIT_NOT_QUALIFIED = 4


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pack", type=Path, required=True, help="the scenario pack (PACK.json) with a manifest")
    parser.add_argument("--judge-model", required=True, type=text,
                        help="the judge to qualify; `embedded`: the embedded local model (plumbing only)")
    parser.add_argument("--judge-provider", default="openai")
    parser.add_argument("--judge-base-url", type=text, help="server for a local judge (OpenAI-compatible or Ollama)")
    parser.add_argument("--judge-temperature", type=number(0.0), default=0.0)
    parser.add_argument("--judge-max-tokens", type=integer(1), help="judge reply cap (default as for run)")
    parser.add_argument("--judge-timeout", type=number(0.0, above=True), metavar="SECONDS", default=600.0)
    parser.add_argument("--limit", type=integer(1), default=25, metavar="N",
                        help="build items from at most N scenarios of the pack (default %(default)s)")
    parser.add_argument("--per-question", type=integer(1), metavar="N", help="at most N scenarios per question")
    parser.add_argument("--seed", type=integer(), default=0, help="sampling seed for --per-question")
    parser.add_argument("--concurrency", type=integer(1), default=1)
    parser.add_argument("--max-retries", type=integer(0), default=2)
    parser.add_argument("--retry-backoff", type=number(0.0), default=0.5)
    parser.add_argument("--cache", type=Path, metavar="DIR", help="response cache folder (as for run)")
    parser.add_argument("--out", type=Path, default=store.DEFAULT_FOLDER,
                        help="folder of qualification files, where runs look (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the qualification as JSON on stdout")


def config_from(args: argparse.Namespace) -> RunConfig:
    roles = RolesConfig(judge="checklist", judge_model=args.judge_model, judge_provider=args.judge_provider,
                        judge_base_url=args.judge_base_url, judge_temperature=args.judge_temperature,
                        judge_max_tokens=args.judge_max_tokens or (1536 if args.judge_model == "embedded" else 1024),
                        judge_timeout=args.judge_timeout)
    execution = ExecutionConfig(timeout=args.judge_timeout, concurrency=args.concurrency, max_retries=args.max_retries,
                                retry_backoff=args.retry_backoff, cache_dir=args.cache)
    return RunConfig(pack=args.pack, target=TargetConfig(model=REPLAY), roles=roles, execution=execution)


def main(args: argparse.Namespace) -> int:
    from auditpacks.runner.run.endpoint import embedded_identity, endpoint

    config = config_from(args)
    pack = open_pack(args.pack)
    benchmark = benchmark_of(pack.manifest)
    if benchmark is None:
        raise RunError(f"{args.pack}: its manifest names no benchmark with calibration items "
                       f"({', '.join(sorted(modules('judge_items')))}); "
                       "judge-check needs a pack built by auditpacks build")
    chosen = select.select(pack, smoke=False, per_question_n=args.per_question, limit=args.limit, seed=args.seed,
                           allow_fewer=True,  # a sample cap for calibration items
                           question=run_reader(config.roles, pack.manifest, pack.scenarios).question)
    items = with_probes(calibration_items(benchmark, pack.lazy(chosen), pack.manifest))
    if not items:
        raise RunError(f"{args.pack}: none of the {len(chosen)} chosen scenarios has what a calibration item needs")
    cache = ResponseCache(args.cache) if args.cache else None
    with contextlib.redirect_stdout(sys.stderr), endpoint(config) as ep, \
            ProgressPrinter(len(items), what="item", label="judge-check") as progress:
        identity = embedded_identity() if ep.embedded_url and cache is not None else None
        progress.start([])
        graded = asyncio.run(grade(items, config, manifest=pack.manifest, embedded_url=ep.embedded_url,
                                   embedded_identity=identity, cache=cache, on_done=progress.update))
    failed = [j.get("error") for j in graded.judgments.values() if j.get("severity") == "ERROR"]
    if len(failed) == len(items):
        raise RunError(f"judge {args.judge_model}: every judge call failed, e.g. {failed[0]}")
    result = assess(items, graded.verdicts)
    data = {"created": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
            "pack": {"name": pack.path.name, "sha256": pack.sha256, "scenarios": len(chosen)},
            "settings": graded.judge, **result,
            "transcripts": [item_row(item, graded.verdicts.get(item.id), graded.judgments.get(item.id) or {})
                      for item in items]}
    path = store.save(args.out, graded.judge, benchmark, data)
    if args.json:
        print(json.dumps({**data, "file": str(path)}, indent=2, ensure_ascii=False))
    else:
        print_report(data, benchmark, path)
    if not result["qualified"]:
        more = f" (and {len(result['reasons']) - 1} more reasons)" if len(result["reasons"]) > 1 else ""
        print(f"auditpacks: judge {args.judge_model} is not qualified on {benchmark}: {result['reasons'][0]}{more} "
              f"(exit {EXIT_NOT_QUALIFIED})", file=sys.stderr)
        return EXIT_NOT_QUALIFIED
    return 0


def item_row(item: Any, verdict: str | None, judgment: dict[str, Any]) -> dict[str, Any]:
    row = {"id": item.id, "kind": item.kind, "expected": item.expected, "probe": item.probe, "base": item.base,
           "verdict": verdict}
    if judgment.get("ungraded_reason") or judgment.get("error"):
        row["why_ungraded"] = judgment.get("ungraded_reason") or judgment.get("error")
    return row


def print_report(data: dict[str, Any], benchmark: str, path: Path) -> None:
    def interval(pair: list[float]) -> str:
        return f"{pair[0]:.2f}–{pair[1]:.2f}"

    judge = data["settings"]
    print(f"judge {judge['model']} ({judge['provider']}) on {benchmark}: {data['items']} calibration items "
          f"from {data['pack']['scenarios']} scenarios of {data['pack']['name']}")
    for row in data["expectations"]:
        value = "n/a" if row["agreement"] is None else f"{row['agreement']:.0%}"
        print(f"  {row['kind']} (should {row['expected']}): agreement {row['agree']}/{row['graded']} = {value}, "
              f"95% Wilson {interval(row['wilson95'])}; {row['items'] - row['graded']} ungraded")
    kappa = "n/a" if data["kappa"] is None else f"{data['kappa']:.2f}"
    print(f"  Cohen's kappa {kappa}; ungraded {data['ungraded']}/{data['items']}")
    for row in data["bias"]:
        value = "n/a" if row["flip_rate"] is None else f"{row['flip_rate']:.0%}"
        print(f"  probe '{row['probe']}': {row['flips']}/{row['pairs']} verdicts flipped = {value}, "
              f"95% Wilson {interval(row['wilson95'])}")
    for row in data.get("skipped_probes") or []:
        print(f"  probe '{row['probe']}': skipped on {row['skipped']} of {row['of']} items ({row['why']})")
    verdict = "QUALIFIED" if data["qualified"] else "NOT QUALIFIED"
    caveat = " on what was measured (see the skipped probes above)" if data["qualified"] and data.get(
        "skipped_probes") else ""
    print(f"{verdict}{caveat} (bar: {json.dumps(data['bar'])}); written to {path}")
    for reason in data["reasons"]:
        print(f"  - {reason}")
