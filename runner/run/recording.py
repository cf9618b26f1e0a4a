"""An executed run recorded: each round's results file, the run record with its summary, cost and judge checks,
and the run marked finished in its pack's index. The results files are written before the grader's pooled
figures are computed, so a failing metric never costs a finished run."""

from __future__ import annotations

import datetime as dt
import time

from auditpacks.core.runs.record import RunRecord
from auditpacks.core.runs.run_files import record_name
from auditpacks.runner.hosted.reconcile import cost_record
from auditpacks.runner.run.execution import Executed
from auditpacks.runner.run.prepare import Prepared
from auditpacks.runner.run.rounds import save_rounds
from auditpacks.runner.scenarios import shard
from auditpacks.runner.store.layout import mark_finished
from auditpacks.runner.store.summary import performance_record, run_record
from auditpacks.runner.systemone import decision_probe
from auditpacks.runner.trust.judge_checks import attach as attach_judge_checks


def record(prepared: Prepared, executed: Executed) -> RunRecord:
    """Write the run's files and return its record."""
    config, pack, ep, outcomes = prepared.config, prepared.pack, prepared.endpoint, executed.outcomes
    stats = prepared.target.stats()
    notes = [*prepared.target.notes(), *decision_probe.notes(prepared.probe)] or None
    rounds, summary = save_rounds(outcomes, prepared.folder, prepared.stem, reader=prepared.reader,
                                  seed=config.selection.seed, skipped=prepared.skipped, notes=notes,
                                  journal=prepared.journal, load=pack.load, selected=prepared.assigned,
                                  in_pack=len(pack.scenarios))
    shard_record = prepared.shard_record
    if shard_record is not None:
        shard_record = shard.produced(shard_record, prepared.assigned, outcomes[0].scenarios)
    performance = performance_record(config.execution, documents=sum(o.groups for o in outcomes),
                                     earlier={"scenarios": sum(o.resumed for o in outcomes),
                                              "documents": sum(o.earlier_groups for o in outcomes)},
                                     target_stats=stats)
    result = run_record(config, pack, model=prepared.model,
                        base_url=None if ep.embedded else (config.target.decision_url or ep.base_url),
                        judge=prepared.judge, started=prepared.started, seconds=time.monotonic() - prepared.clock,
                        embedded=ep.embedded, fingerprint=prepared.fingerprint, digest=prepared.digest,
                        shard=shard_record, cache=prepared.cache.stats() if prepared.cache else None,
                        rounds=rounds, models=prepared.roles.record(), performance=performance, summary=summary)
    result.decision_probe = prepared.probe
    if not config.target.decision and not ep.embedded:
        result.cost = cost_record(config, prepared.model, (stats or {}).get("usage"))
    attach_judge_checks(result, manifest=pack.manifest, judge=prepared.judge, judge_client=prepared.roles.judge,
                        scenarios=[s for o in outcomes for s in o.scenarios],
                        results=[r for o in outcomes for r in o.results], load=pack.load, panel=executed.panel)
    result.save(prepared.folder / record_name(prepared.stem))
    mark_finished(config, prepared.folder, dt.datetime.now(dt.timezone.utc))
    return result
