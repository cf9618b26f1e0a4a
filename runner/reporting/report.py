"""The report's content: per run its headline, tables, plot and scenarios; comparisons; shared documents."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections import Counter
from itertools import combinations
from typing import Any

from markupsafe import Markup

from auditpacks.core.runs.run_files import error_message
from auditpacks.judges.figures import ERROR, Section
from auditpacks.runner.hosted.reconcile import cost_line
from auditpacks.runner.reporting import figures, outcomes, plots
from auditpacks.runner.reporting.traces import run_traces
from auditpacks.runner.reporting.calibration_section import calibration_section
from auditpacks.runner.reporting.labels import what_differs
from auditpacks.runner.reporting.pairing import compare_runs
from auditpacks.runner.reporting.runs import LoadedRun

#: What the report calls a run that no benchmark's plugin reads.
OTHER = "other"
#: Scenarios shown per run in the drill-down; the rest are counted.
MAX_SCENARIOS = 2000


def comparisons_for(runs: list[LoadedRun]) -> list[dict[str, Any]]:
    """Every pair of runs on the same pack (and grader), first-given run as A."""
    return [compare_runs(a, b) for a, b in combinations(runs, 2) if a.sha256 == b.sha256
            and a.reader.benchmark == b.reader.benchmark]


def build_context(runs: list[LoadedRun], comparisons: list[dict[str, Any]] | None = None,
                  *, max_scenarios: int = MAX_SCENARIOS, plots_on: bool = True) -> dict[str, Any]:
    documents: dict[str, str] = {}
    sections = [_run_section(i, run, documents, max_scenarios, plots_on) for i, run in enumerate(runs)]
    names = {d["id"]: d["name"] for section in sections for row in section["scenarios"] for d in row["documents"]}
    return {
        "generated": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
        "differs": what_differs([run.record for run in runs]),
        "cjk": any(has_cjk(text) for text in _texts(sections, documents)),
        "overview": [_overview_row(section) for section in sections],
        "runs": sections,
        "comparisons": comparisons if comparisons is not None else comparisons_for(runs),
        "documents": [{"id": key, "name": names.get(key, key), "text": text} for key, text in documents.items()],
    }


#: Han, kana and hangul: text that needs a CJK font to show as more than boxes.
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def has_cjk(text: Any) -> bool:
    return isinstance(text, str) and CJK.search(text) is not None


def _texts(sections: list[dict[str, Any]], documents: dict[str, str]):
    """Every text the report shows from the runs: prompts, replies, answers, summaries, documents."""
    yield from documents.values()
    for section in sections:
        for row in section["scenarios"]:
            yield from (row["prompt"], row["reply"], row["answer"], row["summary"])


def _overview_row(section: dict[str, Any]) -> dict[str, Any]:
    """One run's line of the overview: n, errors and its key figure (the first percentage) with its interval."""
    key = next((row for row in section["headline"] if row["unit"] == "%"), None)
    return {"id": section["id"], "label": section["label"], "benchmark": section["benchmark"],
            "n": section["counts"]["scenarios"], "errors": section["counts"]["verdicts"].get(ERROR, 0),
            "key": key}


def _run_section(index: int, run: LoadedRun, documents: dict[str, str], max_scenarios: int,
                 plots_on: bool) -> dict[str, Any]:
    record, summary = run.record, run.record.summary
    part = run.report.section(run, 0) if run.report is not None else Section(per_round=True)
    title = f"{run.model} on {run.pack.path.name}"
    section: dict[str, Any] = {
        "id": f"run{index + 1}", "label": run.label, "model": run.model, "pack": run.pack.path.name,
        "sha256": run.sha256, "judge": run.judge, "benchmark": run.benchmark.title if run.benchmark else OTHER,
        "provider": record.provider, "started": record.started, "rounds": len(run.rounds),
        "headline": figures.headline_rows(run), "tables": part.tables,
        "warnings": part.warnings + [w for w in run.headline().warnings if w not in part.warnings],
        "judge_qualification": (run.record.judge_qualification or {}).get("line"),
        "cost": cost_line(record.cost),
        "plots": [Markup(plots.render(p, title)) for p in part.plots] if plots_on else [],
    }
    pairs = run.pairs(0)
    verdicts = Counter(run.reader.outcome(r) for _, r in pairs)
    errors = [error_message(r) for _, r in pairs if run.reader.outcome(r) == ERROR]
    section["counts"] = {"scenarios": len(pairs), "verdicts": dict(verdicts.most_common()),
                         "bad": [word for word in verdicts if outcomes.bad(word)],
                         "commonest_error": Counter(errors).most_common(1)[0] if errors else None,
                         "simpleaudit_score": summary.simpleaudit_score, "tokens": summary.tokens.get("total")}
    section["calibration"] = calibration_section(run.headline().calibration, title, plots_on=plots_on)
    section["per_round"] = _per_round(run) if len(run.rounds) > 1 and part.per_round else None
    section["condition"] = run.record.condition
    traces = run_traces(run)
    section["scenarios"] = [{**_scenario(run, s, r, i, documents), "trace": traces.get(s["name"])}
                            for i, (s, r) in enumerate(pairs[:max_scenarios])]
    section["tool_calls"] = sum(t["tool_calls"] for t in traces.values())
    section["blocked"] = sum(t["blocked"] for t in traces.values())
    section["hidden"] = max(0, len(pairs) - max_scenarios)
    section["groups"] = sorted({row["group"] for row in section["scenarios"]})
    return section


def _per_round(run: LoadedRun) -> dict[str, Any]:
    """Each round's headline figures side by side (a repeated run whose section does not already show them)."""
    rounds = [figures.headline_rows(run, i) for i in range(len(run.rounds))]
    names = [row["figure"] for row in rounds[0] if row["unit"] == "%"]
    values = [{row["figure"]: row for row in rows} for rows in rounds]
    return {"figures": names, "rows": [{"round": i + 1, "cells": [v.get(name) for name in names]}
                                       for i, v in enumerate(values)]}


def _scenario(run: LoadedRun, scenario: dict[str, Any], result: dict[str, Any], index: int,
              documents: dict[str, str]) -> dict[str, Any]:
    doc_ids = []
    texts = outcomes.documents(scenario, result)
    for text, name in zip(texts, outcomes.document_names(scenario, len(texts), run.reader)):
        key = "doc-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]   # the anchor: unique per text
        documents.setdefault(key, text)
        doc_ids.append({"id": key, "name": name or key, "size": len(text), "start": text[:60]})
    word = run.reader.outcome(result)
    stability = [run.reader.outcome(r) for r in _round_results(run, result.get("scenario_name"))]
    return {"name": scenario["name"], "group": outcomes.group(run.reader, scenario), "outcome": word,
            "bad": outcomes.bad(word), "severity": result.get("severity"),
            "answer": outcomes.answer(run.reader, result), "prompt": outcomes.prompt(scenario, result),
            "documents": doc_ids, "reply": outcomes.reply(result),
            "summary": (result.get("judgment") or {}).get("summary") or result.get("summary") or "",
            "cost": outcomes.cost(result), "stability": stability if len(stability) > 1 else []}


def _round_results(run: LoadedRun, name: str | None) -> list[dict[str, Any]]:
    found = []
    for results in run.rounds:
        found += [r for r in results if r.get("scenario_name") == name][:1]
    return found
