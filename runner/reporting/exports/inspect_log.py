"""A run as an Inspect AI eval log, built and written with ``inspect_ai.log``'s own types and writer.

One sample per result (a repeated run's round N is epoch N; :mod:`.inspect_samples`). The run's headline figures,
as its summary states them, are the log's metrics: one Inspect score per figure group (a language, a track, a
citation family; the judge's name when a figure has none), a metric per figure with its value unchanged and its
interval, the interval's method and level, its unit, its meaning and which way is better in the metric's
metadata; a figure with no value (nothing to divide by) is listed in the results' metadata instead. The model,
its settings (the plan's one step holds every run parameter), the token counts (target, and judge and auditor as
roles) and the run's start and duration are the log's; the pack, its source dataset and what sets the run apart
(judge qualification, decision probe, tool condition, shard or merge) are the eval's metadata.

``inspect_ai`` is the optional ``inspect`` extra: imported only here, and only when the export runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import os
from pathlib import Path
from typing import Any

from auditpacks.core.redact import public_url, redact_data
from auditpacks.core.registry import BENCHMARKS
from auditpacks.runner.reporting.exports.source import (ExportError, RunSource, confidence_level, figure_ids,
                                                        figure_title)

INSTALL_HINT = "pip install 'auditpacks[inspect]'"
FORMATS = {".eval": "eval", ".json": "json"}
#: Run-record fields kept as they are in the eval's metadata.
RECORD_FIELDS = ("fingerprint", "judge", "judge_model", "models", "judge_qualification", "decision_probe", "shard",
                 "merged_from", "cost", "cache", "performance", "seed", "repeats", "embedded", "model_digest")


def require_inspect() -> None:
    """Refuse in one line, with the install command, when the ``inspect`` extra is not installed."""
    try:
        import inspect_ai.log  # noqa: F401
    except ImportError:
        raise ExportError(f"the Inspect AI export needs the inspect extra (inspect-ai); install it with: "
                          f"{INSTALL_HINT}") from None


def started_at(source: RunSource) -> dt.datetime:
    try:
        started = dt.datetime.fromisoformat(source.record.started)
    except ValueError:
        started = dt.datetime.fromtimestamp(source.record_path.stat().st_mtime)
    return started if started.tzinfo else started.replace(tzinfo=dt.timezone.utc)


def eval_log(source: RunSource) -> Any:
    """The run as an ``inspect_ai.log.EvalLog``."""
    require_inspect()
    from inspect_ai.log import (EvalConfig, EvalDataset, EvalLog, EvalPlan, EvalPlanStep, EvalResults, EvalSpec,
                                EvalStats)
    from inspect_ai.model import GenerateConfig

    from auditpacks.runner.reporting.exports.inspect_samples import to_sample, usage

    record = source.record
    model = f"{record.provider}/{record.model}"
    params, started, traces = source.parameters, started_at(source), source.traces()
    tools = sorted(record.condition.tools) if record.condition else []
    samples = [to_sample(result, epoch, model=model, judge=record.judge, reader=source.reader, started=started,
                         system_prompt=source.system_prompt, trace=traces.get(result.scenario_name), tools=tools)
               for epoch, result in source.results()]
    ids = list(dict.fromkeys(str(s.id) for s in samples))
    tokens = record.summary.tokens or {}
    spec = EvalSpec(
        created=started.isoformat(), task=source.task, task_id=record.fingerprint, run_id=source.record_path.name,
        task_display_name=BENCHMARKS[source.built_by].title if source.built_by else None,
        dataset=EvalDataset(name=source.dataset.name or record.pack.name, location=record.pack.name,
                            samples=record.pack.scenarios_in_pack or len(ids), sample_ids=ids),
        model=model, model_base_url=public_url(record.base_url),
        model_generate_config=GenerateConfig(**_generate(params)),
        model_args={"provider": record.provider, "embedded": record.embedded, "model_digest": record.model_digest},
        config=EvalConfig(epochs=record.repeats), packages={"auditpacks": record.auditpacks,
                                                           "simpleaudit": record.simpleaudit},
        metadata=redact_data(_metadata(source)))
    completed = sum(s.error is None for s in samples)
    stats = EvalStats(started_at=started.isoformat(),
                      completed_at=(started + dt.timedelta(seconds=record.seconds or 0)).isoformat(),
                      model_usage={model: usage(tokens.get("target_input") or 0, tokens.get("target_output") or 0)},
                      role_usage={role: usage(tokens.get(f"{role}_input") or 0, tokens.get(f"{role}_output") or 0)
                                  for role in ("judge", "auditor")
                                  if tokens.get(f"{role}_input") or tokens.get(f"{role}_output")})
    results = EvalResults(total_samples=len(samples), completed_samples=completed, scores=_scores(source, completed),
                          metadata=_results_metadata(source))
    plan = EvalPlan(name="auditpacks run", steps=[EvalPlanStep(solver="auditpacks run", params=params)])
    return EvalLog(eval=spec, plan=plan, status="success", results=results, stats=stats, samples=samples)


def _generate(params: dict[str, Any]) -> dict[str, Any]:
    """The run's decoding settings in Inspect's names."""
    out = {"temperature": params.get("temperature"), "max_tokens": params.get("max_tokens"),
           "seed": params.get("seed"), "timeout": params.get("timeout"), "max_retries": params.get("max_retries"),
           "system_message": params.get("system_prompt")}
    kinds = {"temperature": (int, float), "max_tokens": int, "seed": int, "timeout": (int, float),
             "max_retries": int, "system_message": str}
    return {k: (int(v) if k == "timeout" else v) for k, v in out.items()
            if isinstance(v, kinds[k]) and not isinstance(v, bool)}


def _metadata(source: RunSource) -> dict[str, Any]:
    record, data = source.record, source.dataset
    meta: dict[str, Any] = {"pack": {"name": record.pack.name, "sha256": record.pack.sha256,
                                     "builder": record.pack.builder, "scenarios": record.pack.scenarios_in_pack},
                            "dataset": {"name": data.name, "revision": data.revision, "sources": data.sources,
                                        "manifest": data.manifest},
                            "benchmark": source.benchmark}
    meta.update({k: getattr(record, k) for k in RECORD_FIELDS})
    if record.condition is not None:
        meta["condition"] = dataclasses.asdict(record.condition)
    return meta


def _results_metadata(source: RunSource) -> dict[str, Any]:
    s = source.record.summary
    undefined = [{"id": i, "figure": figure_title(f), "meaning": f.meaning}
                 for i, f in zip(figure_ids(source.figures()), source.figures()) if f.value is None]
    return {"summary": {"scenarios": s.scenarios, "completed": s.completed, "errors": s.errors,
                        "outcomes": s.outcomes, "skipped": s.skipped, "unanswered": s.unanswered, "notes": s.notes},
            "headline": dict(source.reader.recorded(source.record).values), "undefined_figures": undefined}


def _scores(source: RunSource, completed: int) -> list[Any]:
    """One Inspect score per figure group, a metric per figure that has a value."""
    from inspect_ai.log import EvalMetric, EvalScore

    groups: dict[str, dict[str, Any]] = {}
    rows = source.figures()
    for ident, f in zip(figure_ids(rows), rows):
        if f.value is None:
            continue
        metrics = groups.setdefault(f.group or source.record.judge, {})
        key = f.name if f.name not in metrics else ident
        metrics[key] = EvalMetric(name=key, value=f.value, metadata={
            "id": ident, "unit": f.unit, "interval": list(f.interval) if f.interval else None,
            "method": f.interval_name, "confidence_level": confidence_level(f.interval_name) if f.interval else None,
            "meaning": f.meaning, "better": f.better or None})
    return [EvalScore(name=name, scorer=source.record.judge, scored_samples=completed, metrics=metrics)
            for name, metrics in groups.items()]


def write_log(source: RunSource, out: Path) -> Any:
    """Write the run's log to ``out`` (``.eval`` or ``.json``) whole or not at all; the log."""
    kind = FORMATS.get(out.suffix)
    if kind is None:
        raise ExportError(f"{out.name}: an Inspect log file ends in .eval or .json")
    log = eval_log(source)
    from inspect_ai.log import write_eval_log

    out.parent.mkdir(parents=True, exist_ok=True)
    temp = out.with_name(f".{out.stem}.{os.getpid()}.partial{out.suffix}")
    try:
        write_eval_log(log, str(temp), format=kind)
        os.replace(temp, out)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
    return log
