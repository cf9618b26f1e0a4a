"""One run, start to finish: pack → selection (→ shard) → target → simpleaudit → results, run file, summary.

Writes ``DIR/<model>.json`` (simpleaudit ``AuditResults``, loadable with
``AuditResults.load``; one file per round with ``--repeats``), ``DIR/<model>.run.json``
(the run record: what was run, how, on which pack hash; never a key) and
``DIR/<model>.journal.jsonl`` (finished scenarios, for resuming); DIR and the model's
file name are chosen in :mod:`~auditpacks.runner.store.layout`. The results file is written before the grader's pooled
figures are computed, so a failing metric never costs a finished run.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from auditpacks.core.io import sha256_file
from auditpacks.core.record import RunRecord
from auditpacks.core.registry import CODE_JUDGES
from auditpacks.core.run_files import journal_name, record_name, progress_name
from auditpacks.judges.reader import Reader
from auditpacks.runner.systemone import decision_probe
from auditpacks.runner.readiness import readiness
from auditpacks.runner.scenarios import shard
from auditpacks.runner.hosted.reconcile import cost_record
from auditpacks.runner.readiness.early import Admitted, owns, refuse_early
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.models.providers import EMBEDDED_MODEL
from auditpacks.runner.settings.config import RunConfig, model_stem
from auditpacks.runner.execute.engine import build_engine, judge_config, run_reader
from auditpacks.runner.execute.execute import Outcome
from auditpacks.runner.readiness.fail_fast import FailFast
from auditpacks.runner.store.journal import Journal
from auditpacks.runner.trust.judge_checks import attach as attach_judge_checks
from auditpacks.runner.store.layout import located, mark_finished, open_run_folder
from auditpacks.runner.readiness.model_setup import (build_roles, make_pool, make_target, resolve_prompt_order,
                                                     resolve_provider, resolve_slot_pinning, retry_policy,
                                                     uses_embedded)
from auditpacks.runner.readiness import preflight
from auditpacks.runner.models.providers.checks import check_reachable
from auditpacks.runner.display.progress import ProgressPrinter
from auditpacks.runner.run.rounds import run_rounds, save_rounds
from auditpacks.runner.store.summary import performance_record, run_record
from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.targets.contract import RunTarget


@dataclass
class Endpoint:
    model: str
    base_url: str | None
    embedded: bool = False
    embedded_url: str | None = None   # the embedded model's server, when it runs (target, judge or auditor)


@contextlib.contextmanager
def endpoint(config: RunConfig) -> Iterator[Endpoint]:
    """The chat endpoint to talk to; starts (and afterwards stops) the embedded model when none is given.

    With ``--cache-only`` the embedded model is not started: every reply comes from the cache.
    """
    if not (config.embedded or uses_embedded(config)) or config.cache_only:
        yield Endpoint(model=config.target or EMBEDDED_MODEL, base_url=config.base_url, embedded=config.embedded)
        return
    from auditpacks.runner.serving.embedded import EmbeddedModel

    try:
        server = EmbeddedModel(ctx=config.embedded_ctx)
        with server as running:
            if config.embedded:
                yield Endpoint(model=EMBEDDED_MODEL, base_url=running.base_url, embedded=True,
                               embedded_url=running.base_url)
            else:
                yield Endpoint(model=config.target or EMBEDDED_MODEL, base_url=config.base_url,
                               embedded_url=running.base_url)
    except RuntimeError as exc:
        raise RunError(f"embedded model: {exc}") from None


def decision_target(config: RunConfig,
                    scenarios: Sequence[dict[str, Any]]) -> tuple[RunTarget, list[dict[str, Any]], dict[str, int]]:
    """The System One target (batching questions unless ``--batch-questions 1``) and the scenarios it can
    take: those over its option limit or its request-size limit (Ollama: 64 KiB) are skipped and counted.
    For scenarios read lazily, what is kept are their stubs."""
    from auditpacks.runner.systemone.batching import BatchedDecisionTarget
    from auditpacks.runner.systemone.decision import (SingleDecisionTarget, check_body_size, make_decision_target,
                                                    over_option_limit)
    from auditpacks.runner.models.model import Model
    from auditpacks.runner.systemone.api import SystemOneAPI

    single = make_decision_target(
        config.decision, config.target, base_url=config.base_url, url=config.decision_url,
        api_key=config.api_key, max_options=config.max_options, timeout=config.timeout,
    )
    kept, skipped, first_oversize = [], {}, None
    for ref, scenario in zip(getattr(scenarios, "stubs", scenarios), scenarios):
        if over_option_limit(scenario, config.max_options):
            reason = f"over {config.max_options} options"
        elif single.max_body_bytes is not None and (why := check_body_size(scenario, single)):
            reason, first_oversize = f"over the endpoint's {single.max_body_bytes}-byte request limit", first_oversize or why
        else:
            kept.append(ref)
            continue
        skipped[reason] = skipped.get(reason, 0) + 1
    if first_oversize:
        print(f"auditpacks: warning: skipped, e.g. {first_oversize}", file=sys.stderr)
    one = SingleDecisionTarget(single, Model(SystemOneAPI(single), policy=retry_policy(config)))
    target = BatchedDecisionTarget(one, batch_questions=config.batch_questions) if config.batch_questions > 1 else one
    return target, kept, skipped


def open_cache(config: RunConfig) -> ResponseCache | None:
    if config.cache_only and config.cache_dir is None:
        raise RunError("--cache-only needs --cache DIR")
    if config.cache_dir is None:
        return None
    if not owns(config):
        raise RunError("--cache works with OpenAI-compatible providers, --provider ollama and the embedded model")
    return ResponseCache(config.cache_dir, only=config.cache_only)


def embedded_identity() -> dict[str, Any]:
    """The embedded model's cache identity: its name and the GGUF file's sha256 (its port changes every run)."""
    from auditpacks.runner.serving.embedded import find_model_path

    return {"base_url": None, "embedded": EMBEDDED_MODEL, "digest": sha256_file(find_model_path())}


def chat_target(config: RunConfig, ep: Endpoint, cache: ResponseCache | None) -> tuple[RunTarget, str | None]:
    """The chat target for this endpoint and the model digest, if known.

    The check before the run (:mod:`~auditpacks.runner.readiness.preflight`) runs here, before anything is
    written, except that with a cache it waits for the first request the cache cannot answer.
    """
    if config.more_base_urls:  # replicas: one target each, documents spread over them
        pool = make_pool(config, model=ep.model, cache=cache)
        return pool, pool.prepare().get("digest")
    lazy = cache is not None and not cache.only and not ep.embedded and config.base_url
    identity = embedded_identity() if ep.embedded and cache is not None else None
    target = make_target(config, model=ep.model, base_url=ep.base_url, cache=cache, embedded_identity=identity,
                         preflight=(lambda: check_reachable(config.base_url)) if lazy else None)
    if not ep.embedded and cache is None and config.provider != "ollama":
        preflight.check_chat(target.model.api, hint=f"${config.key_variable()} or --api-key"
                             if config.key_variable() else "--api-key")
    return target, target.prepare().get("digest") or (identity or {}).get("digest")


async def execute(engine: Any, target: RunTarget, scenarios: list[dict[str, Any]], journal: Journal, config: RunConfig,
                  progress: ProgressPrinter, roles: Any = None, reader: Reader | None = None) -> list[Outcome]:
    """All rounds of all scenarios in one event loop; the target's (and judge's) connections are closed inside it."""
    try:
        return await run_rounds(engine, target, scenarios, journal, config, progress, reader)
    finally:
        await target.aclose()
        if roles is not None:
            await roles.aclose()


def run(config: RunConfig, admitted: Admitted | None = None) -> RunRecord:
    """Run the pack and return the run record (also written to the run file). ``admitted``: the pack and
    its selection from :func:`~auditpacks.runner.readiness.early.refuse_early`, when the caller has them."""
    admitted = admitted if admitted is not None else refuse_early(config)
    pack, scenarios = admitted.pack, admitted.scenarios
    # resolved on the whole selection, so every shard of it gets the same layout (and fingerprint)
    config = dataclasses.replace(config, prompt_order=resolve_prompt_order(config, scenarios),
                                 slot_pinning=resolve_slot_pinning(config))
    reader = run_reader(config, pack.manifest, scenarios)
    judge = reader.judge
    assigned, shard_record = scenarios, None
    if config.shard:
        assigned, shard_record = shard.take(scenarios, shard.parse_spec(config.shard), reader.document)
    judge_cfg = judge_config(judge, pack.manifest, config.grader_options)
    cache = open_cache(config)
    config = resolve_provider(config, pack.lazy(scenarios), cache)  # full scenarios only for the warning
    skipped: dict[str, int] = {}
    target, digest, runnable, probe = None, None, assigned, None
    if config.decision:
        if not config.target:
            raise RunError("--decision needs --target (the decision model's name)")
        if config.more_base_urls:
            raise RunError("several endpoints work with chat targets, not --decision")
        target, runnable, skipped = decision_target(config, pack.lazy(assigned))
        if runnable:
            preflight.check_decision(target.inner.url)
        probe = decision_probe.before_run(target.inner, pack.lazy(runnable), timeout=config.timeout) \
            if config.probe and runnable else None
    elif config.embedded and config.base_url:
        raise RunError("--base-url needs --target (the model name to send)")
    started = dt.datetime.now(dt.timezone.utc)
    clock = time.monotonic()
    readiness.gate(config)
    with endpoint(config) as ep:
        model = config.target if config.decision else ep.model
        if config.batch_api and not config.decision:
            from auditpacks.runner.hosted.batch_run import batch_target

            target, digest = batch_target(config, ep.model, poll_s=config.batch_poll_s), None
        elif not config.decision:
            target, digest = chat_target(config, ep, cache)
        roles = build_roles(config, model_judge=judge not in CODE_JUDGES, embedded_url=ep.embedded_url, cache=cache,
                            embedded_identity=embedded_identity() if ep.embedded_url and cache is not None else None)
        if cache is None:  # a cache may answer every call of a warm rerun: no server needed then
            preflight.check_roles(roles)
        engine = build_engine(config, judge, judge_cfg, target=target, roles=roles)
        slug = model_stem(model)
        fingerprint = config.fingerprint(model, "embedded" if ep.embedded else ep.base_url, digest,
                                         served=readiness.endpoint_identity(config, model, digest, cache))
        out = open_run_folder(config, slug, "decision" if config.decision else judge, pack_sha256=pack.sha256,
                              fingerprint=fingerprint, started=started)
        journal = Journal(out / journal_name(slug), fingerprint).open(resume=config.resume)
        with journal, ProgressPrinter(len(runnable) * config.repeats, show=config.show_progress,
                                      plan=out / progress_name(slug), log=config.log_progress) as progress:
            # a batch's results come back together, already paid for: nothing is saved by stopping early
            watched = FailFast(progress, 0 if config.batch_api else config.stop_after)
            outcomes = asyncio.run(execute(engine, target, pack.lazy(runnable), journal, config, watched, roles,
                                           reader))
        panel = None
        if config.panel_models and roles.judge is not None:  # further judges grade round 1's transcripts
            from auditpacks.runner.trust.judge_panel import run_panel

            panel = run_panel(config, manifest=pack.manifest, scenarios=[pack.load(s) for s in outcomes[0].scenarios],
                              results=outcomes[0].results, first_judge=roles.judge.record(),
                              embedded_url=ep.embedded_url, cache=cache,
                              embedded_identity=embedded_identity() if ep.embedded_url and cache is not None else None)
        base_url = None if ep.embedded else (config.decision_url or ep.base_url)
    stats, notes = target.stats(), [*target.notes(), *decision_probe.notes(probe)] or None
    rounds, summary = save_rounds(outcomes, out, slug, reader=reader, seed=config.seed, skipped=skipped, notes=notes,
                                  journal=journal, load=pack.load, selected=assigned, in_pack=len(pack.scenarios))
    if shard_record is not None:
        shard_record = shard.produced(shard_record, assigned, outcomes[0].scenarios)
    record = run_record(config, pack, model=model, base_url=base_url, judge=judge, started=started,
                        seconds=time.monotonic() - clock, embedded=ep.embedded, fingerprint=fingerprint,
                        digest=digest, shard=shard_record, cache=cache.stats() if cache else None, rounds=rounds,
                        models=roles.record(),
                        performance=performance_record(config, documents=sum(o.groups for o in outcomes),
                                                       earlier={"scenarios": sum(o.resumed for o in outcomes),
                                                                "documents": sum(o.earlier_groups for o in outcomes)},
                                                       target_stats=stats),
                        summary=summary)
    record.decision_probe = probe
    if not config.decision and not ep.embedded:
        record.cost = cost_record(config, model, (stats or {}).get("usage"))
    attach_judge_checks(record, manifest=pack.manifest, judge=judge, judge_client=roles.judge,
                        scenarios=[s for o in outcomes for s in o.scenarios],
                        results=[r for o in outcomes for r in o.results], load=pack.load, panel=panel)
    record.save(out / record_name(slug))
    mark_finished(config, out, dt.datetime.now(dt.timezone.utc))
    return record



def results_path(config: RunConfig, record: RunRecord) -> Path:
    """Where the run's (first round's) AuditResults file is."""
    return record.results_files(located(config, record))[0]
