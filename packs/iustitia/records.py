"""Shape checks on Iustitia configuration files, before and after the Arrow reader sees them.

``check_records`` reads a JSONL file line by line first (the Arrow reader crashes the whole
process on some non-object lines, such as ``null``). ``check_columns`` compares the loaded
table's column types with what the builder relies on (ids are strings, ``options`` a list of
``{key, description}``, flags are booleans), so a file with, say, ``options`` given as a
string is refused in one line naming the file and column instead of failing deep inside.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auditpacks.core.errors import FormatError, PackError
from auditpacks.core.io import iter_jsonl

STRING, BOOL, STRINGS, OPTIONS = "a string", "a boolean", "a list of strings", "a list of {key, description}"
#: configuration → column → the type it must have (columns left out are not relied on).
SHAPES: dict[str, dict[str, str]] = {
    "tasks": {"unit_id": STRING, "verdict_id": STRING, "unit_type": STRING, "task_id": STRING,
              "question_id": STRING, "question_group": STRING, "state_json": STRING, "instructions": STRING,
              "is_canonical": BOOL, "clef_supported": BOOL, "accepted_options": STRINGS, "options": OPTIONS},
    "documents": {"verdict_id": STRING, "text": STRING},
    "units": {"unit_id": STRING, "verdict_id": STRING, "unit_type": STRING},
    "questions": {"question_id": STRING},
}


def check_records(path: Path, label: str) -> None:
    """Every line of a JSONL file is a JSON object."""
    try:
        for lineno, record in iter_jsonl(path):
            if not isinstance(record, dict):
                raise PackError(f"{label}: {path.name} line {lineno}: a {type(record).__name__}, not a record object")
    except FormatError as exc:
        raise PackError(f"{label}: cannot read: {exc}") from None


def _is(feature: Any, shape: str) -> bool:
    from datasets import Value

    def value(f: Any, dtypes: tuple[str, ...]) -> bool:
        return isinstance(f, Value) and f.dtype in dtypes

    inner = getattr(feature, "feature", None)  # List / Sequence
    if shape == STRING:
        return value(feature, ("string", "large_string", "null"))
    if shape == BOOL:
        return value(feature, ("bool", "null"))
    if shape == STRINGS:
        return inner is not None and value(inner, ("string", "large_string", "null"))
    if shape == OPTIONS:
        return isinstance(inner, dict) and value(inner.get("key"), ("string", "large_string")) and (
            "description" not in inner or value(inner["description"], ("string", "large_string", "null")))
    return True


def check_columns(table: Any, config: str, label: str) -> None:
    """Each relied-on column of ``table`` has the type the builder expects."""
    for column, shape in SHAPES.get(config, {}).items():
        feature = table.features.get(column)
        if feature is not None and not _is(feature, shape):
            raise PackError(f"{label}: column {column!r} holds {feature}, not {shape} (configuration {config})")
