"""ICJ cite-bench targets: the three citation families and ``data/test.jsonl`` (the gold sets).

Strict on the fields the card names for evaluation: ``case_id``,
``target_document_id`` and the three ``gold_citation_*`` lists. The card speaks of
"dates" without naming a key: ``target_decision_date`` is read when present (and
must then be an ISO date). The case description (``input``, the key the dataset
viewer shows) is kept when present, to join inputs that carry no identifiers.
Every other field is ignored.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Iterable, Mapping

from auditpacks.core.errors import FormatError
from auditpacks.core.io import read_jsonl

FAMILIES = ("case_ids", "provision_keys", "resolution_symbols")
GOLD_FIELDS = {family: f"gold_citation_{family}" for family in FAMILIES}
PRED_FIELDS = {family: f"citation_{family}" for family in FAMILIES}


def normalise_case_id(value: str) -> str:
    """Numeric case ids are zero-padded to three digits ("1" -> "001"); other ids are kept as given."""
    return f"{int(value):03d}" if value.isascii() and value.isdigit() else value


def case_id_set(values: Iterable[str]) -> frozenset[str]:
    """The distinct normalised case ids (the common three-digit form is kept without a conversion)."""
    return frozenset(v if len(v) == 3 and v.isdigit() else normalise_case_id(v) for v in values)


def string_list(record: Mapping[str, Any], key: str, label: str) -> list[str]:
    if key not in record:
        raise FormatError(f"{label}: field {key} is missing")
    value = record[key]
    if type(value) is not list:
        raise FormatError(f"{label}: field {key} is a {type(value).__name__}, not a list")
    if not all(type(item) is str for item in value):
        i, item = next((i, v) for i, v in enumerate(value) if type(v) is not str)
        raise FormatError(f"{label}: field {key}[{i}] is a {type(item).__name__} ({item!r}), not a string")
    return value


#: Where a record may keep its case description; the first present key wins.
DESCRIPTION_KEYS = ("input", "case", "case_description", "description")


def case_description(record: Mapping[str, Any]) -> Any:
    """The record's case description (an object or text), None when it has none."""
    return next((record[k] for k in DESCRIPTION_KEYS if record.get(k) not in (None, "", {}, [])), None)


def required_str(record: Mapping[str, Any], key: str, label: str) -> str:
    value = record.get(key)
    if type(value) is not str or not value.strip():
        state = "missing" if key not in record else f"{value!r}, not a non-empty string"
        raise FormatError(f"{label}: field {key} is {state}")
    return value


@dataclass(frozen=True)
class Target:
    """One test target: identifiers, decision date and the gold citation sets (case ids normalised)."""

    case_id: str
    target_document_id: str
    decision_date: str | None
    gold: dict[str, tuple[str, ...]]
    description: Any = field(default=None, compare=False, repr=False)

    @classmethod
    def from_record(cls, record: Any, label: str) -> "Target":
        """Strict on the fields the card documents; other fields are ignored."""
        if not isinstance(record, Mapping):
            raise FormatError(f"{label}: a {type(record).__name__}, not a JSON object")
        case_id = required_str(record, "case_id", label)
        if len(case_id) != 3:
            raise FormatError(f"{label}: field case_id {case_id!r} is not a three-character id")
        doc_id = required_str(record, "target_document_id", label)
        label = f"{label} ({doc_id})"
        day = record.get("target_decision_date")
        if day is not None:
            try:
                day = date.fromisoformat(required_str(record, "target_decision_date", label)[:10]).isoformat()
            except ValueError:
                raise FormatError(f"{label}: field target_decision_date {day!r} is not an ISO date") from None
        if "citation_eligible" in record and not isinstance(record["citation_eligible"], bool):
            raise FormatError(f"{label}: field citation_eligible is not true or false")
        gold = {f: tuple(string_list(record, GOLD_FIELDS[f], label)) for f in FAMILIES}
        gold["case_ids"] = tuple(map(normalise_case_id, gold["case_ids"]))
        return cls(case_id, doc_id, day, gold, case_description(record))


def load_targets(path: str | os.PathLike) -> list[Target]:
    """Read ``data/test.jsonl``; a duplicate ``target_document_id`` is an error."""
    name = os.path.basename(path)
    targets, seen = [], {}
    for lineno, record in read_jsonl(path):
        target = Target.from_record(record, f"{name} line {lineno}")
        doc_id = target.target_document_id
        if doc_id in seen:
            raise FormatError(f"{name} line {lineno}: target_document_id {doc_id} repeats line {seen[doc_id]}")
        seen[doc_id] = lineno
        targets.append(target)
    if not targets:
        raise FormatError(f"{name}: no targets")
    return targets


#: The experiment parser's statuses (``error``: an exported ERROR result kept as an empty answer;
#: ``truncated``: a reply cut off at the output cap).
STATUSES = ("valid", "partial", "error", "truncated")


def validation_status(record: Mapping[str, Any], label: str = "record") -> str:
    """The experiment parser's status wherever a record keeps it, as given; never a reason to refuse a record.

    The first of ``validation``, ``validation_status`` and ``status`` that is present: a string as
    it is (``"ok"`` too); an object's ``status`` string, else its boolean ``valid`` ("valid" or
    "not valid"); any other shape is ``"unrecognised"``. Without any, ``"unrecorded"``. The card:
    every record "contain[s] predictions and [is] scored. Validation issues are preserved".
    """
    for key in ("validation", "validation_status", "status"):
        value = record.get(key)
        if value is None:
            continue
        if type(value) is str:
            return value
        if type(value) is dict:
            if type(value.get("status")) is str:
                return value["status"]
            if type(value.get("valid")) is bool:
                return "valid" if value["valid"] else "not valid"
        return "unrecognised"
    return "unrecorded"
