"""The run record of a run under a tool condition: the usual summary and headline, plus the condition."""

from __future__ import annotations

import datetime as dt
from importlib.metadata import version
from typing import Any, Mapping

from auditpacks import __version__
from auditpacks.core.condition import Condition
from auditpacks.core.runs.record import PackRef, Round, RunRecord
from auditpacks.core.redact import public_url
from auditpacks.core.runs.run_files import results_name
from auditpacks.judges.reader import Reader
from auditpacks.runner.store.summary import summarize
from auditpacks.runner.models.cache import digest


def tool_run_record(pack, scenarios: list[Mapping[str, Any]], results: list[dict[str, Any]], *, stem: str,
                    judge: str, condition: Condition, model: str, base_url: str | None, embedded: bool,
                    parameters: Mapping[str, Any], started: dt.datetime, seconds: float, resumed: int,
                    model_counts: Mapping[str, Any] | None = None) -> RunRecord:
    """The typed record of one tool-condition run (never a key): the grader's headline over the results and
    the condition (tools, search, cutoff policy and the snapshot of each cutoff)."""
    by_name = {s["name"]: s for s in scenarios}
    pairs = [(by_name[r["scenario_name"]], r) for r in results]
    manifest = pack.manifest or {}
    reader = Reader.of(judge, manifest.get("builder"))
    summary = summarize(list(scenarios), results, reader.headline(pairs), reader, resumed=resumed)
    identity = {"pack": pack.sha256, "model": model, "base_url": public_url(base_url), "judge": judge,
                "condition": condition.name, "tools": condition.tools, "parameters": dict(parameters)}
    return RunRecord(
        model=model, provider="openai", judge=judge, base_url=public_url(base_url), embedded=embedded,
        pack=PackRef(name=pack.path.name, sha256=pack.sha256, builder=manifest.get("builder"),
                     scenarios_in_pack=len(pack.scenarios)),
        fingerprint=digest(identity)[:16], parameters=dict(parameters), summary=summary,
        auditpacks=__version__, simpleaudit=version("simpleaudit"),
        rounds=[Round(round=1, seed=0, results=results_name(stem))], repeats=1, condition=condition,
        cache=dict(model_counts) if model_counts else None,
        started=started.replace(microsecond=0).isoformat(), seconds=round(seconds, 2))

