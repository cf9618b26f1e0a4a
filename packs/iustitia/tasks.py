"""Iustitia task rows: the columns the card names, and one row decoded and checked."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

from auditpacks.core.errors import PackError

#: Task columns the card names: its scoring code, its filters and "give the model only state_json,
#: instructions and options". ``clef_supported`` is required on the le26 track only.
REQUIRED = ("task_id", "verdict_id", "question_id", "is_canonical", "state_json", "instructions", "options",
            "accepted_options")
#: Task columns read when present (the viewer's other columns); a missing one changes nothing else.
OPTIONAL = ("unit_id", "unit_type", "question_group", "kind", "reference_json", "reference_origin",
            "clef_supported")
#: Judgment sections of ``sections_json`` and ``state_json``; ``full_text`` for unsegmented judgments.
SECTION_KEYS = ("header", "operative_part", "reasoning", "remedy_notice", "full_text")


@dataclass(frozen=True)
class Task:
    """One task row, decoded and checked (optional fields: "" or None when the row lacks them)."""

    task_id: str
    unit_id: str
    verdict_id: str
    unit_type: str
    question_id: str
    question_group: str
    state: dict[str, Any]
    instructions: str
    criteria: dict[str, str | None]
    reference: Any
    accepted: list[str]
    reference_origin: str


def unit_of(task_id: str) -> str:
    """The unit part of a ``<unit_id>::<question_id>`` task id (the whole id when it has no ``::``)."""
    return task_id.split("::", 1)[0]


#: Identifier columns: text wherever they are present (they key tables and joins).
ID_COLUMNS = ("task_id", "verdict_id", "question_id", "unit_id")


def require(row: Mapping[str, Any], columns: tuple[str, ...], label: str) -> None:
    """A row (JSONL rows are checked one by one) carries every column the card names, ids as text."""
    for column in columns:
        if column not in row:
            raise PackError(f"{label}: task {row.get('task_id', '?')} field {column}: missing "
                            f"(a column the benchmark card names)")
    check_ids(row, label)


def check_ids(row: Mapping[str, Any], label: str) -> None:
    """Refuse, in one line, an identifier column that holds something other than text."""
    for column in ID_COLUMNS:
        value = row.get(column)
        if value is not None and not isinstance(value, str):
            name = row.get("task_id") if isinstance(row.get("task_id"), str) else "?"
            raise PackError(f"{label}: record {name} field {column}: a {type(value).__name__}, not text")


def read_task(row: Mapping[str, Any], label: str) -> Task:
    """Decode and check one full task row."""
    require(row, REQUIRED, label)
    record = f"task {row.get('task_id')}"
    try:
        state = json.loads(row["state_json"])
    except (TypeError, json.JSONDecodeError) as exc:
        raise PackError(f"{label}: {record} field state_json: invalid JSON ({exc})") from None
    if not isinstance(state, dict) or not any(key in state for key in SECTION_KEYS):
        raise PackError(f"{label}: {record} field state_json: no judgment section ({', '.join(SECTION_KEYS)})")
    criteria: dict[str, str | None] = {}
    for option in row["options"] or []:
        key = option.get("key") if isinstance(option, Mapping) else option
        if not isinstance(key, str) or not key.strip() or key in criteria:
            raise PackError(f"{label}: {record} field options: missing, empty or repeated key {key!r}")
        criteria[key] = option.get("description") if isinstance(option, Mapping) else None
    if len(criteria) < 2:
        raise PackError(f"{label}: {record} field options: fewer than two options")
    accepted = list(row["accepted_options"] or [])
    unknown = [key for key in accepted if key not in criteria]
    if not accepted or unknown:
        raise PackError(f"{label}: {record} field accepted_options: {accepted!r} must name option keys "
                        f"({', '.join(criteria)})")
    try:
        reference = json.loads(row["reference_json"]) if "reference_json" in row else None
    except (TypeError, json.JSONDecodeError):
        reference = row["reference_json"]
    return Task(
        task_id=row["task_id"], unit_id=row.get("unit_id") or unit_of(row["task_id"]), verdict_id=row["verdict_id"],
        unit_type=row.get("unit_type") or "", question_id=row["question_id"],
        question_group=row.get("question_group") or "", state=state, instructions=row["instructions"],
        criteria=criteria, reference=reference, accepted=accepted, reference_origin=row.get("reference_origin") or "",
    )
