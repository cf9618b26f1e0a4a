"""ICJ ``data/inputs.jsonl``: each record joined to its test target, and the prompt it holds.

The card puts "case descriptions and system/user messages" in ``inputs.jsonl`` and the
target identifiers in ``test.jsonl`` "for evaluation", so an input may carry no target
id at all. A record joins its target on ``target_document_id`` when it has one, else on
``case_id`` when exactly one target has that case, else on an identical case
description; only when none of these works is it an error (one line).

The prompt is the record's chat messages (``messages``, or ``system``/``user`` text)
when it has them, else the case description rendered with the codebook's template.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from auditpacks.core.errors import FormatError, PackError
from auditpacks.core.io import read_jsonl
from auditpacks.packs.icj.targets import Target, case_description, normalise_case_id

#: Plain-text message fields, (system key, user key), tried in order when there is no ``messages`` list.
TEXT_MESSAGES = (("system", "user"), ("system_prompt", "user_prompt"), ("system_message", "user_message"))


@dataclass(frozen=True)
class Prompt:
    """What the target is asked for one target decision: its system and user text, and the case object."""

    system: str
    user: str
    case: Mapping[str, Any]
    rendered: bool = False


def messages(value: Any, label: str) -> tuple[str, str]:
    """System and user text from a chat ``messages`` list (text parts are joined)."""
    if not isinstance(value, list) or not value:
        raise PackError(f"{label}: field messages is not a non-empty list")
    parts: dict[str, list[str]] = {"system": [], "user": []}
    for i, message in enumerate(value):
        role = message.get("role") if isinstance(message, Mapping) else None
        if role not in parts:
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


def _text_messages(record: Mapping[str, Any]) -> tuple[str, str] | None:
    for system_key, user_key in TEXT_MESSAGES:
        user = record.get(user_key)
        if isinstance(user, str) and user.strip():
            system = record.get(system_key)
            return (system if isinstance(system, str) else ""), user
    return None


class Joiner:
    """Finds the test target of an input record by id, by unique case id, or by its case description."""

    def __init__(self, targets: Mapping[str, Target], name: str) -> None:
        self.targets, self.name = targets, name
        self.by_case = Counter(t.case_id for t in targets.values())
        self.by_description: dict[str, list[Target]] = {}
        for target in targets.values():
            if target.description is not None:
                self.by_description.setdefault(_key(target.description), []).append(target)

    def target(self, record: Mapping[str, Any], label: str) -> Target:
        doc_id = record.get("target_document_id")
        case_id = record.get("case_id")
        if doc_id is not None:
            if not isinstance(doc_id, str) or doc_id not in self.targets:
                raise PackError(f"{label}: target_document_id {doc_id!r} is not a target in the test file")
            target = self.targets[doc_id]
            if case_id is not None and normalise_case_id(str(case_id)) != target.case_id:
                raise PackError(f"{label} ({doc_id}): case_id {case_id!r} does not match the test file "
                                f"({target.case_id})")
            return target
        if isinstance(case_id, str) and self.by_case.get(normalise_case_id(case_id)) == 1:
            case_id = normalise_case_id(case_id)
            return next(t for t in self.targets.values() if t.case_id == case_id)
        description = case_description(record)
        found = self.by_description.get(_key(description), []) if description is not None else []
        if len(found) == 1:
            return found[0]
        why = (f"case_id {case_id!r} is {'shared by several targets' if self.by_case.get(normalise_case_id(str(case_id))) else 'unknown'}"
               if case_id is not None else "no case_id")
        raise PackError(f"{label}: cannot join to {self.name}: no target_document_id, {why}, and "
                        f"{'several targets share' if found else 'no target has'} its case description")


def _key(description: Any) -> str:
    return json.dumps(description, sort_keys=True, ensure_ascii=False)


def read_inputs(path: Path, targets: Mapping[str, Target], cb: Mapping[str, Any], system: str,
                test_name: str = "test.jsonl") -> list[tuple[Target, Prompt]]:
    """Join ``inputs.jsonl`` to the test targets; the prompt is the record's messages or a codebook rendering."""
    name, out, seen = path.name, [], set()
    joiner = Joiner(targets, test_name)
    try:
        rows = read_jsonl(path)
    except FormatError as exc:
        raise PackError(str(exc)) from None
    for lineno, record in rows:
        label = f"{name} line {lineno}"
        if not isinstance(record, Mapping):
            raise PackError(f"{label}: a {type(record).__name__}, not a JSON object")
        target = joiner.target(record, label)
        label = f"{label} ({target.target_document_id})"
        if target.target_document_id in seen:
            raise PackError(f"{label}: joins a target that an earlier line already joined")
        seen.add(target.target_document_id)
        out.append((target, _prompt(record, target, cb, system, label)))
    missing = [d for d in targets if d not in seen]
    if missing:
        raise PackError(f"{name}: {len(missing)} test targets have no input (first: {missing[0]})")
    return out


def _prompt(record: Mapping[str, Any], target: Target, cb: Mapping[str, Any], system: str, label: str) -> Prompt:
    case = case_description(record)
    if case is None and "input" in record:
        case = record["input"]
    if case is not None and not isinstance(case, (Mapping, str)):
        raise PackError(f"{label}: field input is not a JSON object")
    case = case if isinstance(case, Mapping) else {"description": case} if case else {}
    if "messages" in record:
        return Prompt(*messages(record["messages"], label), case)
    if (texts := _text_messages(record)) is not None:
        return Prompt(*texts, case)
    if not case:
        raise PackError(f"{label}: neither messages nor a case description (input) is present")
    case_json = json.dumps(case, ensure_ascii=False, indent=2, sort_keys=True)
    user = cb["user_template"].format(case_json=case_json, decision=decision_phrase(target, cb))
    return Prompt(system, user, case, rendered=True)


def decision_phrase(target: Target, cb: Mapping[str, Any]) -> str:
    """"its decision of 1986-06-27", or the codebook's undated wording when the test file gives no date."""
    return cb["dated_decision"].format(date=target.decision_date) if target.decision_date else cb["undated_decision"]
