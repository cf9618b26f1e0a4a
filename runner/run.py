"""One run, start to finish: pack → selection → target → simpleaudit → results, run file, summary.

Writes ``DIR/<model-slug>.json`` (simpleaudit ``AuditResults``, loadable with
``AuditResults.load``), ``DIR/<model-slug>.run.json`` (what was run, how, on which
pack hash; never a key) and ``DIR/<model-slug>.journal.jsonl`` (finished
scenarios, for resuming).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any, Iterator

from simpleaudit import AuditResult, AuditResults

from packs.pack import Pack, atomic_write_json, load_pack
from runner import select
from runner.config import EMBEDDED_MODEL, RunConfig, RunError, model_slug
from runner.engine import build_engine, judge_config, judge_module, judge_name
from runner.execute import run_scenarios
from runner.journal import Journal
from runner.preflight import check_reachable
from runner.progress import ProgressPrinter
from runner.report import format_summary, summarize


@dataclass
class Endpoint:
    model: str
    base_url: str | None
    embedded: bool = False


@contextlib.contextmanager
def endpoint(config: RunConfig) -> Iterator[Endpoint]:
    """The chat endpoint to talk to; starts (and afterwards stops) the embedded model when none is given."""
    if not config.embedded:
        yield Endpoint(model=config.target or "", base_url=config.base_url)
        return
    from runner.embedded import EmbeddedModel

    try:
        server = EmbeddedModel(ctx=config.embedded_ctx)
        with server as running:
            yield Endpoint(model=EMBEDDED_MODEL, base_url=running.base_url, embedded=True)
    except RuntimeError as exc:
        raise RunError(f"embedded model: {exc}") from None


def decision_target(config: RunConfig, scenarios: list[dict[str, Any]]) -> tuple[Any, list[dict[str, Any]], dict[str, int]]:
    """The System One target and the scenarios it can take (those over its option limit are skipped)."""
    from runner.decision import make_decision_target, over_option_limit

    target = make_decision_target(
        config.decision, config.target, base_url=config.base_url, url=config.decision_url,
        api_key=config.api_key, max_options=config.max_options,
    )
    kept = [s for s in scenarios if not over_option_limit(s, config.max_options)]
    skipped = len(scenarios) - len(kept)
    return target, kept, ({f"over {config.max_options} options": skipped} if skipped else {})


def run(config: RunConfig) -> dict[str, Any]:
    """Run the pack and return the run record (also written to the run file)."""
    pack = load_pack(config.pack)
    scenarios = select.select(pack, smoke=config.smoke, per_question_n=config.per_question,
                              limit=config.limit, seed=config.seed)
    judge = judge_name(config, pack.manifest, scenarios)
    judge_cfg = judge_config(judge, pack.manifest, config.grader_options)
    skipped: dict[str, int] = {}
    target = None
    if config.decision:
        if not config.target:
            raise RunError("--decision needs --target (the decision model's name)")
        target, scenarios, skipped = decision_target(config, scenarios)
    elif config.base_url:
        check_reachable(config.base_url)
    if not config.embedded and config.decision is None and not config.target:
        raise RunError("--base-url needs --target (the model name to send)")
    started = dt.datetime.now(dt.timezone.utc)
    clock = time.monotonic()
    with endpoint(config) as ep:
        model = ep.model if not config.decision else config.target
        engine = build_engine(config, judge, judge_cfg, target_model=model, base_url=ep.base_url,
                              decision_target=target)
        slug = model_slug(model)
        out = Path(config.out)
        fingerprint = config.fingerprint(model, "embedded" if ep.embedded else ep.base_url)
        journal = Journal(out / f"{slug}.journal.jsonl", fingerprint).open(resume=config.resume)
        with journal, ProgressPrinter(len(scenarios), show=config.show_progress) as progress:
            results = asyncio.run(run_scenarios(
                engine, scenarios, journal, concurrency=config.concurrency, params=config.decoding(),
                retry_errors=config.retry_errors, on_result=progress.update,
            ))
        base_url = None if ep.embedded else (config.decision_url or ep.base_url)
    headline = judge_module(judge).headline(list(zip(scenarios, results)))
    record = run_record(config, pack, model=model, base_url=base_url, judge=judge, started=started,
                        seconds=time.monotonic() - clock, embedded=ep.embedded,
                        summary=summarize(scenarios, results, headline, skipped=skipped))
    AuditResults([AuditResult(**r) for r in results]).save(str(out / f"{slug}.json"))
    atomic_write_json(out / f"{slug}.run.json", record)
    return record


def run_record(config: RunConfig, pack: Pack, *, model: str, base_url: str | None, judge: str,
               started: dt.datetime, seconds: float, embedded: bool, summary: dict[str, Any]) -> dict[str, Any]:
    """The sidecar run file: everything simpleaudit's results file leaves out."""
    manifest = pack.manifest or {}
    return {
        "auditpacks": _version("auditpacks"),
        "simpleaudit": version("simpleaudit"),
        "pack": {"name": pack.path.name, "sha256": pack.sha256, "builder": manifest.get("builder"),
                 "scenarios_in_pack": len(pack.scenarios)},
        "model": model,
        "provider": "decision:" + config.decision if config.decision else config.provider,
        "base_url": base_url,
        "embedded": embedded,
        "judge": judge,
        "judge_model": config.judge_model,
        "parameters": config.public(),
        "seed": config.seed,
        "repeat": 1,
        "started": started.replace(microsecond=0).isoformat(),
        "seconds": round(seconds, 2),
        "summary": summary,
    }


def _version(dist: str) -> str:
    try:
        return version(dist)
    except Exception:
        return "0+unknown"


def print_summary(record: dict[str, Any]) -> None:
    print(format_summary(record))
