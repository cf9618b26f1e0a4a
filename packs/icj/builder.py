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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from auditpacks.core.errors import FormatError

from auditpacks.core.io import read_jsonl

from auditpacks.packs.icj.targets import FAMILIES, GOLD_FIELDS, Target, load_targets
from auditpacks.packs.codebook import section
from auditpacks.core.errors import PackError
from auditpacks.packs.pack import PackWriter, source_entry
from auditpacks.packs.scenario import make_scenario
from auditpacks.packs.sources import Source, resolve_source

BUILDER = "icj"
_NAME = "ICJ {case_id} - Precedent citations, {condition} [{target_document_id}]"
_NAME_RE = re.compile(r"^ICJ (?P<case_id>\S+) - Precedent citations, (?P<condition>\S+) \[(?P<target_document_id>.+)\]$")


def scenario_name(case_id: str, condition: str, target_document_id: str) -> str:
    return _NAME.format(case_id=case_id, condition=condition, target_document_id=target_document_id)


def parse_scenario_name(name: str) -> dict[str, str] | None:
    """``case_id``, ``condition`` and ``target_document_id`` from a scenario name this builder wrote."""
    match = _NAME_RE.match(name)
    return match.groupdict() if match else None


@dataclass(frozen=True)
class Prompt:
    """What the target is asked for one target decision: its system and user text, and the case object."""

    system: str
    user: str
    case: Mapping[str, Any]
    rendered: bool = False


def _messages(value: Any, label: str) -> tuple[str, str]:
    """System and user text from a chat ``messages`` list (text parts are joined)."""
    if not isinstance(value, list) or not value:
        raise PackError(f"{label}: field messages is not a non-empty list")
    parts: dict[str, list[str]] = {"system": [], "user": []}
    for i, message in enumerate(value):
        role = message.get("role") if isinstance(message, Mapping) else None
        if not isinstance(role, str) or role not in parts:
            raise PackError(f"{label}: messages[{i}].role is {role!r}; only system and user turns can be sent")
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
        if not isinstance(content, str):
            raise PackError(f"{label}: messages[{i}].content is not text")
        parts[role].append(content)
    if not "".join(parts["user"]).strip():
        raise PackError(f"{label}: messages hold no user text")
    return "\n\n".join(parts["system"]), "\n\n".join(parts["user"])


def read_inputs(path: Path, targets: Mapping[str, Target], cb: Mapping[str, Any], system: str) -> list[tuple[Target, Prompt]]:
    """Join ``inputs.jsonl`` to the test targets; the prompt is the record's messages or a codebook rendering."""
    name, out, seen = path.name, [], set()
    for lineno, record in _rows(path):
        label = f"{name} line {lineno}"
        if not isinstance(record, Mapping):
            raise PackError(f"{label}: a {type(record).__name__}, not a JSON object")
        doc_id = record.get("target_document_id")
        if not isinstance(doc_id, str) or doc_id not in targets:
            raise PackError(f"{label}: target_document_id {doc_id!r} is not a target in the test file")
        target, label = targets[doc_id], f"{label} ({doc_id})"
        if record.get("case_id") != target.case_id:
            raise PackError(f"{label}: case_id {record.get('case_id')!r} does not match the test file ({target.case_id})")
        if doc_id in seen:
            raise PackError(f"{label}: target_document_id repeats an earlier line")
        seen.add(doc_id)
        case = record.get("input", {})
        if not isinstance(case, Mapping):
            raise PackError(f"{label}: field input is not a JSON object")
        if "messages" in record:
            prompt = Prompt(*_messages(record["messages"], label), case)
        elif case:
            case_json = json.dumps(case, ensure_ascii=False, indent=2, sort_keys=True)
            user = cb["user_template"].format(case_json=case_json, decision_date=target.decision_date)
            prompt = Prompt(system, user, case, rendered=True)
        else:
            raise PackError(f"{label}: neither messages nor input is present")
        out.append((target, prompt))
    missing = [d for d in targets if d not in seen]
    if missing:
        raise PackError(f"{name}: {len(missing)} test targets have no input (first: {missing[0]})")
    return out


def _rows(path: Path) -> list[tuple[int, Any]]:
    try:
        return read_jsonl(path)
    except FormatError as exc:
        raise PackError(str(exc)) from None


def _gold_text(values: tuple[str, ...], cb: Mapping[str, Any]) -> str:
    return ", ".join(values) if values else cb["empty_gold"]


def make_target_scenario(target: Target, prompt: Prompt, cb: Mapping[str, Any], condition: str) -> dict[str, Any]:
    """One scenario: the prompt as the user turn, gold lists in metadata and restated in expected_behavior."""
    system, user = prompt.system, prompt.user
    test_prompt = cb["test_prompt"].format(system=system, user=user) if system.strip() else user
    case_name = prompt.case.get("case_name") or f"ICJ case {target.case_id}"
    gold_text = {f"gold_{f}": _gold_text(target.gold[f], cb) for f in FAMILIES}
    return make_scenario(
        name=scenario_name(target.case_id, condition, target.target_document_id),
        description=cb["description"].format(decision_date=target.decision_date, case_name=case_name).strip(),
        test_prompt=test_prompt,
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", required=True, help="dataset folder (hf download layout) or hf:VISAI-AI/icj-precedent-cite-bench")
    parser.add_argument("--out", required=True, type=Path, help="pack file to write (PACK.json; the manifest goes beside it)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N targets, in inputs.jsonl order")


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
    pairs = read_inputs(src.file(files["inputs"]), targets, cb, system)[: args.limit]
    used = [files["inputs"], files["test"], files["manifest"]]
    if system_path is not None and any(p.rendered for _, p in pairs):
        used.append(system_path.relative_to(src.root).as_posix())
    sources = [source_entry(src.file(r), name=r, origin=src.origin) for r in used if src.file(r).is_file()]
    scenarios = [make_target_scenario(t, p, cb, condition) for t, p in pairs]
    smoke = [s["name"] for s in scenarios[: cb["smoke_size"]]]
    extra = {"grading": dict(cb["grading"]), "smoke": smoke, "condition": condition}
    with PackWriter(args.out, BUILDER, sources=sources, filters={"limit": args.limit, "condition": condition},
                    extra=extra) as writer:
        for scenario, (target, prompt) in zip(scenarios, pairs):
            writer.add(scenario, case_type=prompt.case.get("case_type", "unknown"), condition=condition)
    return Path(args.out)
