"""A run set up, before its first scenario: settings resolved on the whole selection, this shard taken, the
judge, the response cache, the target and the judge and auditor models built and checked, the engine, the run
folder and its journal. :func:`set_up` keeps the embedded model's server running while the run executes."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from auditpacks.core.registry import CODE_JUDGES
from auditpacks.core.runs.run_files import journal_name
from auditpacks.judges.reader import Reader
from auditpacks.runner.execute.engine import build_engine, judge_config
from auditpacks.runner.models.cache import ResponseCache
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.readiness import preflight, readiness
from auditpacks.runner.readiness.early import Admitted, owns
from auditpacks.runner.readiness.model_setup import (build_roles, resolve_prompt_order, resolve_provider,
                                                     resolve_slot_pinning, role_policy)
from auditpacks.runner.run.endpoint import Endpoint, embedded_identity, endpoint
from auditpacks.runner.run.run_target import answering_target, decision_side
from auditpacks.runner.scenarios import shard
from auditpacks.runner.scenarios.scenario_source import StreamedPack
from auditpacks.runner.settings.config import RunConfig, model_stem
from auditpacks.runner.store.journal import Journal
from auditpacks.runner.store.layout import open_run_folder
from auditpacks.runner.targets.contract import RunTarget
from auditpacks.runner.targets.roles import Roles


@dataclass
class Prepared:
    """Everything a run executes and records, set up once."""

    config: RunConfig                  # prompt order, slot pinning and provider resolved
    pack: StreamedPack
    assigned: list                     # this shard's part of the selection (all of it without --shard)
    runnable: list                     # those the target can take
    skipped: dict[str, int]            # those it cannot, counted by reason
    shard_record: dict[str, Any] | None
    reader: Reader                     # the judge, and the benchmark that groups and reads the run
    cache: ResponseCache | None
    endpoint: Endpoint
    model: str
    target: RunTarget
    digest: str | None
    probe: dict[str, Any] | None       # a decision endpoint's probe
    roles: Roles
    embedded_identity: dict[str, Any] | None  # the judge's and auditor's cache identity on the embedded model
    engine: Any
    stem: str
    fingerprint: str
    folder: Path
    journal: Journal                   # open: execute closes it when the rounds end
    started: dt.datetime
    clock: float                       # time.monotonic() at the start

    @property
    def judge(self) -> str:
        return self.reader.judge


def open_cache(config: RunConfig) -> ResponseCache | None:
    """The response cache of ``--cache`` (replaying only with ``--cache-only``), None without one."""
    execution = config.execution
    if execution.cache_only and execution.cache_dir is None:
        raise RunError("--cache-only needs --cache DIR")
    if execution.cache_dir is None:
        return None
    if not owns(config):
        raise RunError("--cache works with OpenAI-compatible providers, --provider ollama and the embedded model")
    return ResponseCache(execution.cache_dir, only=execution.cache_only)


@contextlib.contextmanager
def set_up(config: RunConfig, admitted: Admitted) -> Iterator[Prepared]:
    """The run set up from ``admitted`` (:func:`~auditpacks.runner.readiness.early.refuse_early`'s, whose checks
    are not made again); the embedded model, when one is needed, runs until the context ends."""
    pack, scenarios, reader = admitted.pack, admitted.scenarios, admitted.reader
    judge = reader.judge
    # resolved on the whole selection, so every shard of it gets the same layout (and fingerprint)
    config = dataclasses.replace(config, execution=dataclasses.replace(
        config.execution, prompt_order=resolve_prompt_order(config, scenarios),
        slot_pinning=resolve_slot_pinning(config)))
    assigned, shard_record = scenarios, None
    if config.selection.shard:
        assigned, shard_record = shard.take(scenarios, shard.parse_spec(config.selection.shard), reader.document)
    judge_cfg = judge_config(judge, pack.manifest, config.roles.grader_options)
    cache = open_cache(config)
    asked = resolve_provider(config.target, pack.lazy(scenarios), cache)  # full scenarios only for the warning
    config = dataclasses.replace(config, target=asked)
    target, digest, runnable, skipped, probe = None, None, assigned, {}, None
    if config.target.decision:
        target, runnable, skipped, probe = decision_side(config, pack, assigned)
    elif config.target.embedded and config.target.base_url:
        raise RunError("--base-url needs --target (the model name to send)")
    started = dt.datetime.now(dt.timezone.utc)
    clock = time.monotonic()
    readiness.gate(config)
    with endpoint(config) as ep:
        model = config.target.model if config.target.decision else ep.model
        if not config.target.decision:
            target, digest = answering_target(config, ep, cache)
        identity = embedded_identity() if ep.embedded_url and cache is not None else None
        roles = build_roles(config.roles, policy=role_policy(config), model_judge=judge not in CODE_JUDGES,
                            embedded_url=ep.embedded_url, embedded_identity=identity, cache=cache)
        if cache is None:  # a cache may answer every call of a warm rerun: no server needed then
            preflight.check_roles(roles)
        engine = build_engine(config, judge, judge_cfg, target=target, roles=roles)
        stem = model_stem(model)
        fingerprint = config.fingerprint(model, "embedded" if ep.embedded else ep.base_url, digest,
                                         served=readiness.endpoint_identity(config, model, digest, cache))
        folder = open_run_folder(config, stem, "decision" if config.target.decision else judge,
                                 pack_sha256=pack.sha256, fingerprint=fingerprint, started=started)
        journal = Journal(folder / journal_name(stem), fingerprint).open(resume=config.execution.resume)
        yield Prepared(config=config, pack=pack, assigned=assigned, runnable=runnable, skipped=skipped,
                       shard_record=shard_record, reader=reader, cache=cache, endpoint=ep, model=model, target=target,
                       digest=digest, probe=probe, roles=roles, embedded_identity=identity, engine=engine,
                       stem=stem, fingerprint=fingerprint, folder=folder, journal=journal, started=started,
                       clock=clock)
