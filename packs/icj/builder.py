"""ICJ citation prediction (VISAI-AI/icj-precedent-cite-bench) as a SimpleAudit pack.

``auditpacks build icj --source DIR|hf:VISAI-AI/icj-precedent-cite-bench --out PACK.json [--limit N]``

Reads the card's layout (``data/inputs.jsonl``, ``data/test.jsonl``, optional
``protocol/`` and ``manifest.json``) and writes one scenario per target for the
parametric (no tools) condition. The gold citations go to ``metadata`` (for the
``citations`` grader) and are restated in ``expected_behavior`` (for the
checklist judge); the target model sees only ``test_prompt``. Wording comes
from the ``icj`` section of codebook.yaml; choices are in ``docs/icj.md``.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any, Mapping

from auditpacks.core.errors import FormatError, PackError
from auditpacks.packs.codebook import section
from auditpacks.packs.icj.inputs import Prompt, decision_phrase, read_inputs
from auditpacks.packs.icj.targets import FAMILIES, GOLD_FIELDS, PRED_FIELDS, Target, load_targets
from auditpacks.packs.pack import PackWriter, source_entry
from auditpacks.packs.readreport import ReadReport, add_allow_partial, data_files
from auditpacks.packs.sampling import check_count
from auditpacks.packs.scenario import make_scenario
from auditpacks.packs.sources import Source, resolve_source, verify_checksums

BUILDER = "icj"
_NAME = "ICJ {case_id} - Precedent citations, {condition} [{target_document_id}]"
_NAME_RE = re.compile(r"^ICJ (?P<case_id>\S+) - Precedent citations, (?P<condition>\S+) \[(?P<target_document_id>.+)\]$")


def scenario_name(case_id: str, condition: str, target_document_id: str) -> str:
    return _NAME.format(case_id=case_id, condition=condition, target_document_id=target_document_id)


def parse_scenario_name(name: str) -> dict[str, str] | None:
    """``case_id``, ``condition`` and ``target_document_id`` from a scenario name this builder wrote."""
    match = _NAME_RE.match(name)
    return match.groupdict() if match else None


def _gold_text(values: tuple[str, ...], cb: Mapping[str, Any]) -> str:
    return ", ".join(values) if values else cb["empty_gold"]


def make_target_scenario(target: Target, prompt: Prompt, cb: Mapping[str, Any], condition: str) -> dict[str, Any]:
    """One scenario: the user message as the user turn and the system message as ``metadata.system_prompt``
    (sent in the system role), gold lists in metadata and restated in expected_behavior."""
    system, user = prompt.system.strip(), prompt.user
    case_name = prompt.case.get("case_name") or f"ICJ case {target.case_id}"
    gold_text = {f"gold_{f}": _gold_text(target.gold[f], cb) for f in FAMILIES}
    return make_scenario(
        name=scenario_name(target.case_id, condition, target.target_document_id),
        description=cb["description"].format(decision=decision_phrase(target, cb), case_name=case_name).strip(),
        test_prompt=user,
        language="en",
        expected_behavior=[item.format(**gold_text) for item in cb["expected_behavior"]],
        category=cb["category"],
        subcategory=cb["subcategory"],
        severity=cb["severity"],
        source=dict(cb["source"]),
        metadata={
            "benchmark": cb["dataset"],
            "case_id": target.case_id,
            "target_document_id": target.target_document_id,
            "target_decision_date": target.decision_date,
            "cutoff_date": target.decision_date,
            "condition": condition,
            "case_name": case_name,
            "case_type": prompt.case.get("case_type"),
            **({"system_prompt": system} if system else {}),
            **{GOLD_FIELDS[f]: list(target.gold[f]) for f in FAMILIES},
        },
        date_created=cb["date_created"],
    )


def _system_prompt(src: Source, cb: Mapping[str, Any]) -> tuple[str, Path | None]:
    """The protocol's system prompt file when the dataset has one, else the codebook's."""
    for relative in cb["files"]["system_prompt"]:
        path = src.file(relative)
        if path.is_file():
            return path.read_text(encoding="utf-8").strip(), path
    return cb["system_prompt"].strip(), None


def output_budget(targets: list[Target], cb: Mapping[str, Any]) -> int:
    """Output tokens that fit the longest reference answer in the prediction schema, with room to spare:
    its JSON at a pessimistic ``chars_per_token``, plus ``margin``, rounded up to 256 and at least ``floor``."""
    budget = cb["output_budget"]
    longest = max(len(json.dumps({PRED_FIELDS[f]: list(t.gold[f]) for f in FAMILIES})) for t in targets)
    tokens = -(-longest // budget["chars_per_token"]) + budget["margin"]
    return max(budget["floor"], -(-tokens // 256) * 256)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", required=True, help="dataset folder (hf download layout) or hf:VISAI-AI/icj-precedent-cite-bench")
    parser.add_argument("--out", required=True, type=Path, help="pack file to write (PACK.json; the manifest goes beside it)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N targets, in inputs.jsonl order")
    parser.add_argument("--allow-fewer", action="store_true",
                        help="accept fewer scenarios than --limit asks for (noted; by default refused)")
    add_allow_partial(parser)


def build(args: argparse.Namespace) -> Path:
    cb = section(BUILDER)
    files, condition = cb["files"], cb["condition"]
    if args.limit is not None and args.limit < 1:
        raise PackError(f"--limit {args.limit}: must be at least 1")
    src = resolve_source(args.source, allow_patterns=list(cb["download"]))
    for key in ("inputs", "test"):
        if not src.file(files[key]).is_file():
            raise PackError(f"{args.source}: {files[key]} not found (expected the dataset card's layout)")
    try:
        targets = {t.target_document_id: t for t in load_targets(src.file(files["test"]))}
    except FormatError as exc:
        raise PackError(str(exc)) from None
    system, system_path = _system_prompt(src, cb)
    pairs = read_inputs(src.file(files["inputs"]), targets, cb, system)
    report = ReadReport(src.root, split="test")
    report.table("test", [src.file(files["test"])], len(targets))
    report.table("inputs", [src.file(files["inputs"])], len(pairs))
    data = src.file(files["test"]).parent
    report.skip_unread(data_files(data), "not the inputs or the test file")
    report.check(getattr(args, "allow_partial", False))
    check_count(len(pairs), args.limit, f"icj --limit {args.limit}", allow_fewer=getattr(args, "allow_fewer", False))
    pairs = pairs[: args.limit]
    used = [files["inputs"], files["test"], files["manifest"]]
    if system_path is not None and any(p.rendered for _, p in pairs):
        used.append(system_path.relative_to(src.root).as_posix())
    if verify_checksums(src.root, used, files["checksums"]):
        used.append(files["checksums"])
    sources = [source_entry(src.file(r), name=r, origin=src.origin) for r in used if src.file(r).is_file()]
    scenarios = [make_target_scenario(t, p, cb, condition) for t, p in pairs]
    smoke = [s["name"] for s in scenarios[: cb["smoke_size"]]]
    run = {"max_tokens": output_budget([t for t, _ in pairs], cb)}
    systems = {p.system.strip() for _, p in pairs}
    if len(systems) == 1 and "" not in systems:  # one system prompt for all: simpleaudit's run-level setting
        run["system_prompt"] = systems.pop()
    extra = {"grading": dict(cb["grading"]), "smoke": smoke, "condition": condition, "run": run,
             "read_report": report.as_dict()}
    with PackWriter(args.out, BUILDER, sources=sources, filters={"limit": args.limit, "condition": condition},
                    extra=extra) as writer:
        for scenario, (target, prompt) in zip(scenarios, pairs):
            writer.add(scenario, case_type=prompt.case.get("case_type", "unknown"), condition=condition)
    return Path(args.out)
