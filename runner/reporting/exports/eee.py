"""A run as Every Eval Ever records: one aggregate record and its instance-level rows, checked, then written.

Under ``DIR`` in the datastore's own layout, ``data/<task>/<developer>/<model>/<uuid>.json`` and
``<uuid>_samples.jsonl`` (the task is the benchmark's registry name; the developer the model id's owner, else
``--developer``). The aggregate carries the benchmark (its source dataset and revision, the pack's name and
sha256, the manifest's source files), the model and its settings, and one evaluation result per headline figure
that has a value, as the run's summary states it: its value unchanged, its interval with its level and method as
the uncertainty, its meaning, unit, bounds and which way is better. Every row and the aggregate pass both schemas
(:mod:`.eee_schemas`) before the first byte is written; the samples file is written first, so an aggregate never
names a file that is not there.
"""

from __future__ import annotations

import dataclasses
import hashlib
import ipaddress
import json
import re
import time
import uuid
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlparse

from auditpacks.core.io import atomic_write_text
from auditpacks.core.redact import public_url
from auditpacks.runner.reporting.exports.eee_rows import instance_row, strings
from auditpacks.runner.reporting.exports.eee_schemas import AGGREGATE, INSTANCE, Schemas, checker, package_check
from auditpacks.runner.reporting.exports.source import (ExportError, RunSource, confidence_level, figure_ids,
                                                        figure_title)
from auditpacks.runner.models.providers import provider

#: A figure's unit → the metric's unit and bounds (the schema's own spelling of an unbounded end).
UNITS = {"%": ("proportion", 0, 1), "p": ("p-value", 0, 1), "count": ("count", 0, "Infinity"),
         "ratio": ("ratio", "-Infinity", "Infinity")}
RELATIONSHIPS = ("third_party", "first_party", "collaborative", "other")


@dataclass
class Records:
    folder: PurePosixPath           # data/<task>/<developer>/<model>, relative to the output folder
    name: str                       # the files' UUID
    aggregate: dict[str, Any]
    rows: list[dict[str, Any]]


def _component(text: str) -> str:
    """One portable path component (the datastore's rule: no reserved characters, no trailing dot or space)."""
    cleaned = re.sub(r'[<>:"\\|?*\x00-\x1f/]', "_", text).rstrip(". ") or "_"
    return "_data" if cleaned == "data" else cleaned


def _deployment(source: RunSource) -> str:
    """Who ran the model: ourselves (embedded, a loopback or private address, a keyless local server), a hosted
    provider (one that takes a key, at its own address), or unknown."""
    record = source.record
    host = urlparse(record.base_url or "").hostname or ""
    try:
        local = host == "localhost" or ipaddress.ip_address(host).is_private or ipaddress.ip_address(host).is_loopback
    except ValueError:
        local = False
    row = provider(record.provider)
    if record.embedded or local or row.keyless:
        return "self_deployed"
    return "externally_managed" if row.key_variable else "unknown"


def build(source: RunSource, schemas: Schemas, *, model_id: str | None = None, developer: str | None = None,
          organization: str = "unspecified", relationship: str = "third_party") -> Records:
    """The run's records, each instance row checked against its schema (a one-line error at the first that fails;
    :func:`write` checks the aggregate once it names its samples file)."""
    record, task = source.record, source.task
    ident = model_id or record.model
    owner, _, name = ident.partition("/") if "/" in ident else (developer or "unknown", "", ident)
    folder = PurePosixPath("data", _component(task), _component(owner), _component(name.replace("/", "_")))
    retrieved = f"{time.time():.3f}"
    evaluation_id = f"{task}/{ident.replace('/', '_')}/{retrieved}"
    version = schemas.version
    check_row = checker(schemas.instance, INSTANCE)
    own = package_check()
    head = {"schema_version": version, "evaluation_id": evaluation_id, "model_id": ident, "evaluation_name": task}
    traces, rows = source.traces(), []
    for epoch, result in source.results():
        row = instance_row(result, epoch, head=head, judge=record.judge, reader=source.reader,
                           system_prompt=source.system_prompt, trace=traces.get(result.scenario_name))
        where = f"samples row {len(rows) + 1} ({result.scenario_name[:60]})"
        check_row(row, where)
        if own is not None:
            own(row, INSTANCE, where)
        rows.append(row)
    model_info: dict[str, Any] = {
        "name": record.model, "id": ident, "inference_platform": record.provider,
        "additional_details": {"deployment_type": _deployment(source), "model_availability": "unknown",
                               **strings({"provider": record.provider, "base_url": public_url(record.base_url),
                                          "model_digest": record.model_digest, "embedded": record.embedded})}}
    if "/" not in ident:
        model_info["developer"] = owner
    aggregate = {
        "schema_version": version, "evaluation_id": evaluation_id, "evaluation_timestamp": record.started or retrieved,
        "retrieved_timestamp": retrieved,
        "source_metadata": {"source_name": "auditpacks", "source_type": "evaluation_run",
                            "source_organization_name": organization, "evaluator_relationship": relationship,
                            "additional_details": strings({"run_record": source.record_path.name,
                                                           "fingerprint": record.fingerprint})},
        "model_info": model_info,
        "eval_library": {"name": "auditpacks", "version": record.auditpacks,
                         "additional_details": strings({"simpleaudit": record.simpleaudit})},
        "evaluation_results": _results(source, source.parameters),
    }
    return Records(folder, str(uuid.uuid4()), aggregate, rows)


def _source_data(source: RunSource) -> dict[str, Any]:
    record, data = source.record, source.dataset
    revision = data.revision or ("unknown: no pack manifest was found (pass --pack)" if data.manifest is None
                                 else "not recorded: the pack was built from a local copy (see source_files)")
    details = strings({"pack": record.pack.name, "pack_sha256": record.pack.sha256, "revision": revision,
                       "pack_manifest": data.manifest, "source_files": data.sources or None})
    if data.name:
        return {"dataset_name": data.name, "source_type": "hf_dataset", "hf_repo": data.name,
                "samples_number": record.pack.scenarios_in_pack, "additional_details": details}
    return {"dataset_name": record.pack.name, "source_type": "other", "additional_details": details}


def _generation(source: RunSource, params: dict[str, Any]) -> dict[str, Any]:
    args: dict[str, Any] = {}
    if isinstance(params.get("temperature"), (int, float)):
        args["temperature"] = params["temperature"]
    if type(params.get("max_tokens")) is int and params["max_tokens"] >= 1:
        args["max_tokens"] = params["max_tokens"]
    condition = source.record.condition
    if condition is not None:
        args["agentic_eval_config"] = {"available_tools": [{"name": n} for n in sorted(condition.tools)],
                                       "additional_details": strings(dataclasses.asdict(condition))}
    return {"generation_args": args, "additional_details": strings(params)}


def _results(source: RunSource, params: dict[str, Any]) -> list[dict[str, Any]]:
    """One evaluation result per headline figure that has a value (undefined ones have no score to give)."""
    record, rows, out = source.record, source.figures(), []
    judge = strings({"judge": record.judge, "judge_model": record.judge_model,
                     "judge_qualification": record.judge_qualification, "decision_probe": record.decision_probe})
    for ident, f in zip(figure_ids(rows), rows):
        if f.value is None:
            continue
        unit, low, high = UNITS.get(f.unit, (f.unit, "-Infinity", "Infinity"))
        details: dict[str, Any] = {"score": f.value, "details": strings({"unit": f.unit, "group": f.group or None,
                                                                         "figure": f.name})}
        if f.interval:
            interval = {"lower": f.interval[0], "upper": f.interval[1], "method": f.interval_name or ""}
            level = confidence_level(f.interval_name)
            details["uncertainty"] = {"confidence_interval": {**interval, **({"confidence_level": level}
                                                                             if level is not None else {})}}
        out.append({
            "evaluation_result_id": ident, "evaluation_name": f"{source.task}: {figure_title(f)}",
            "source_data": _source_data(source), "evaluation_timestamp": record.started or None,
            "metric_config": {"evaluation_description": f.meaning, "metric_id": f"auditpacks.{source.task}.{ident}",
                              "metric_name": figure_title(f), "metric_unit": unit,
                              "lower_is_better": f.better == "lower", "score_type": "continuous",
                              "min_score": low, "max_score": high,
                              "additional_details": {"better": f.better or "no direction (a count or a test)",
                                                     **judge}},
            "score_details": details, "generation_config": _generation(source, params)})
    if not record.started:
        for result in out:
            result.pop("evaluation_timestamp")
    return out


def write(records: Records, out: Path, schemas: Schemas) -> tuple[Path, Path]:
    """Write the samples file, then the aggregate naming it (checked again with its checksum); their paths."""
    samples_name, aggregate_name = f"{records.name}_samples.jsonl", f"{records.name}.json"
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records.rows)
    if records.rows:
        records.aggregate["detailed_evaluation_results"] = {
            "format": "jsonl", "file_path": str(records.folder / samples_name), "hash_algorithm": "sha256",
            "checksum": hashlib.sha256(text.encode("utf-8")).hexdigest(), "total_rows": len(records.rows)}
    checker(schemas.aggregate, AGGREGATE)(records.aggregate, f"the aggregate record {aggregate_name}")
    own = package_check()
    if own is not None:
        own(records.aggregate, AGGREGATE, f"the aggregate record {aggregate_name}")
    folder = out / records.folder
    folder.mkdir(parents=True, exist_ok=True)
    if records.rows:
        atomic_write_text(folder / samples_name, text)
    atomic_write_text(folder / aggregate_name, json.dumps(records.aggregate, ensure_ascii=False, indent=2) + "\n")
    return folder / aggregate_name, folder / samples_name


def check_relationship(value: str) -> str:
    if value not in RELATIONSHIPS:
        raise ExportError(f"--relationship {value!r}: one of {', '.join(RELATIONSHIPS)}")
    return value
