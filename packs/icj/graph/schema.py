"""The graph's roles and columns: the shipped ``mapping.yaml``, a user's overrides, and value checks."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml

from auditpacks.core.errors import FormatError

DEFAULT_MAPPING = Path(__file__).with_name("mapping.yaml")
_ISO = re.compile(r"^(\d{4})(?:-(\d{2})-(\d{2}))?(?:[T ].*)?$")


@dataclass(frozen=True)
class Role:
    """A table kind: canonical columns it needs and may use, and file-name words that break ties."""

    name: str
    required: tuple[str, ...]
    optional: tuple[str, ...]
    hints: tuple[str, ...]

    @property
    def columns(self) -> tuple[str, ...]:
        return self.required + self.optional


@dataclass
class Mapping:
    roles: dict[str, Role]
    aliases: dict[str, tuple[str, ...]]
    values: dict[str, str]
    tables: dict[str, str] = field(default_factory=dict)
    columns: dict[str, dict[str, str]] = field(default_factory=dict)


def norm(name: str) -> str:
    """A column name compared loosely: lower case, ``-`` and spaces read as ``_``."""
    return re.sub(r"[\s\-]+", "_", str(name).strip().lower())


def _load(path: Path) -> dict:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise FormatError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise FormatError(f"{path}: a mapping file holds a YAML object")
    return data


def load_mapping(user: Path | None = None) -> Mapping:
    """The shipped mapping, with a user's ``tables``/``columns`` (and any extra aliases) laid over it."""
    base = _load(DEFAULT_MAPPING)
    roles = {name: Role(name, tuple(r["required"]), tuple(r.get("optional", ())), tuple(r.get("hints", ())))
             for name, r in base["roles"].items()}
    aliases = {k: tuple(norm(a) for a in v) for k, v in base["columns"].items()}
    mapping = Mapping(roles, aliases, dict(base.get("values", {})))
    if user is None:
        return mapping
    extra = _load(user)
    for key in extra:
        if key not in ("tables", "columns", "aliases"):
            raise FormatError(f"{user}: unknown key {key!r} (expected tables, columns or aliases)")
    for role, target in (extra.get("tables") or {}).items():
        _known(user, "tables", role, roles)
        mapping.tables[role] = str(target)
    for role, cols in (extra.get("columns") or {}).items():
        _known(user, "columns", role, roles)
        if not isinstance(cols, dict):
            raise FormatError(f"{user}: columns.{role} must map canonical columns to the copy's names")
        for canon in cols:
            if canon not in roles[role].columns:
                raise FormatError(f"{user}: columns.{role}.{canon} is not a column of {role} "
                                  f"({', '.join(roles[role].columns)})")
        mapping.columns[role] = {k: str(v) for k, v in cols.items()}
    for canon, names in (extra.get("aliases") or {}).items():
        if canon not in aliases:
            raise FormatError(f"{user}: aliases.{canon} is not a canonical column")
        aliases[canon] = tuple(norm(n) for n in names) + aliases[canon]
    return mapping


def _known(path: Path, key: str, role: str, roles: dict) -> None:
    if role not in roles:
        raise FormatError(f"{path}: {key}.{role} is not a table role ({', '.join(roles)})")


def iso_date(value: Any, *, year_end: bool = True) -> str | None:
    """``value`` as ``YYYY-MM-DD``; a bare year is read as its last day (available only once it is over)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, int) and not isinstance(value, bool) and 1000 <= value <= 9999:
        value = str(value)
    if not isinstance(value, str):
        return None
    match = _ISO.match(value.strip())
    if not match:
        return None
    year, month, day = match.groups()
    try:
        if month is None:
            return date(int(year), 12, 31).isoformat() if year_end else date(int(year), 1, 1).isoformat()
        return date(int(year), int(month), int(day)).isoformat()
    except ValueError:
        return None


def _looks(kind: str, value: Any) -> bool:
    if kind == "date":
        return iso_date(value) is not None
    if not isinstance(value, str):
        return False
    if kind == "text":
        return len(value) >= 20 and " " in value
    if kind == "symbol":
        return "/RES/" in value.upper()
    if kind == "provision_key":
        return ":" in value
    return True


def values_fit(kind: str | None, sample: list[Any]) -> bool:
    """Whether most non-null values of a sample look like ``kind`` (``None``: anything fits)."""
    present = [v for v in sample if v is not None]
    if kind is None or not present:
        return kind is None or not sample
    return sum(_looks(kind, v) for v in present) >= 0.8 * len(present)
