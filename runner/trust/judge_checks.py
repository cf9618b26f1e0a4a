"""What a model-judged run says about its judge: the judge's qualification, and how often it disagrees with code.

Called once per run with a model judge, after the results are saved. It finds the judge's
qualification (``auditpacks judge-check``'s file for the same judge identity and the pack's
benchmark, in ``results/judges``), records it in the run record (``judge_qualification``)
and the summary's notes, and warns on stderr when the judge is not qualified or unchecked.
Where the benchmark names checklist expectations a code grader also decides, the run's
judge-vs-code disagreement goes into the summary's headline (``judge_vs_code``) and notes.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from auditpacks.core.runs.record import RunRecord
from auditpacks.core.registry import MODEL_JUDGES, builder_name, modules
from auditpacks.judges.trust import qualification_store as store
from auditpacks.judges.reader import Reader
from auditpacks.judges.trust.consistency import judge_vs_code, summary_line
from auditpacks.judges.trust.panel import disagreement_lines
from auditpacks.judges.trust.panel import summary_line as panel_line


def benchmark_of(manifest: Mapping[str, Any] | None) -> str | None:
    """The benchmark whose builder made the pack (its manifest's ``builder.name``), if it has calibration items."""
    name = builder_name((manifest or {}).get("builder"))
    return name if name in modules("judge_items") else None


def qualification(judge: Mapping[str, Any], benchmark: str | None,
                  folder: Path = store.DEFAULT_FOLDER) -> dict[str, Any]:
    """The run record's ``judge_qualification``: status (qualified, not qualified, unchecked) and where from."""
    found = store.find(folder, judge, benchmark) if benchmark else None
    status = "unchecked" if found is None else ("qualified" if found.get("qualified") else "not qualified")
    data: dict[str, Any] = {"status": status, "benchmark": benchmark, "judge": store.identity(judge),
                            "line": store.status_line(benchmark, judge, found)}
    if found is not None:
        data.update({key: found.get(key) for key in ("file", "created", "reasons", "bar", "kappa", "ungraded_share",
                                                     "skipped_probes")})
        data["agreement"] = {row["kind"]: row["agreement"] for row in found.get("expectations") or []}
        data["flip_rate"] = {row["probe"]: row["flip_rate"] for row in found.get("bias") or []}
    return data


def attach(record: RunRecord, *, manifest: Mapping[str, Any] | None, judge: str, judge_client: Any,
           scenarios: Sequence[Any], results: Sequence[Mapping[str, Any]], load=lambda s: s,
           folder: Path = store.DEFAULT_FOLDER, panel: Mapping[str, Any] | None = None) -> None:
    """Put the judge's qualification, its disagreement with code and a panel's figures (``panel``: from
    :mod:`~runner.trust.judge_panel`) into ``record`` (a model judge only)."""
    if judge not in MODEL_JUDGES or judge_client is None:
        return
    reader = Reader.of_record(record)
    if panel is not None:
        record.summary.headline = dict(reader.add(reader.recorded(record), panel=dict(panel)).values)
        record.summary.notes.append(panel_line(panel))
        record.summary.notes.extend(disagreement_lines(panel))
    benchmark = benchmark_of(manifest)
    found = qualification(judge_client.record(), benchmark, folder)
    record.judge_qualification = found
    record.summary.notes.append(found["line"])
    if found["status"] != "qualified":
        print(f"auditpacks: warning: {found['line']}", file=sys.stderr)
    checks = getattr(importlib.import_module(modules("judge_items")[benchmark]), "CODE_CHECKS", {}) if benchmark else {}
    if not checks:
        return
    rows = judge_vs_code(_pairs(scenarios, results, load), checks, manifest)
    record.summary.headline = dict(reader.add(reader.recorded(record), judge_vs_code=rows).values)
    record.summary.notes.extend(summary_line(row) for row in rows)


def _pairs(scenarios: Sequence[Any], results: Sequence[Mapping[str, Any]], load) -> Iterator[tuple[Any, Any]]:
    for scenario, result in zip(scenarios, results):
        yield load(scenario), result
