"""Find the graph's tables in a local copy and tell which is which by their columns and values.

A table is a Parquet file, a folder of Parquet part files (whatever a dataset tool calls them:
``train-00000-of-00004.parquet``, ``part-00000.parquet``, ``part-00000-<uuid>-c000.snappy.parquet``,
``part.0.parquet``; hive ``key=value`` folders are parts too) or a JSONL file. Only column names, their
types and a sample of rows are read here, so embedding columns never load. A date column is found by
name, else by type and content (a role's one date column: the one column of date type or full
``YYYY-MM-DD`` values).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from auditpacks.core.errors import FormatError
from auditpacks.packs.icj.graph.schema import Mapping, Role, norm, values_fit

SAMPLE_ROWS = 200
#: a trailing token of a part file's name: a number, ``of``, Spark's ``c000``, a hex run (a uuid's pieces)
_SHARD_TOKEN = re.compile(r"^(?:\d+|of|c\d+|(?=[0-9a-f]*\d)[0-9a-f]{4,})$", re.IGNORECASE)
_GENERIC = {"train", "test", "validation", "data", "default", "part", "shard", "chunk", "file", "partition", ""}
_FULL_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ].*)?$")


@dataclass
class Table:
    """One table of the copy: its files, column names, and a sample of rows (column → values)."""

    name: str
    files: list[Path]
    columns: list[str]
    sample: dict[str, list[Any]]
    dates: frozenset[str] = frozenset()  # columns of a date or timestamp type (parquet)


@dataclass
class Found:
    """A role's table and which of its columns is each canonical column."""

    role: str
    table: Table
    columns: dict[str, str]


def _stem(name: str) -> str:
    """A file's table stem: its name without suffixes and without a trailing part number."""
    tokens = re.split(r"([-_]+)", name.split(".")[0])
    while tokens and (_SHARD_TOKEN.match(tokens[-1]) or re.fullmatch(r"[-_]*", tokens[-1])):
        tokens.pop()
    return "".join(tokens)


def _table_name(root: Path, path: Path) -> str:
    stem = _stem(path.name)
    parent = "/".join(p for p in path.parent.relative_to(root).parts if "=" not in p) or "."
    if stem.lower() in _GENERIC and parent not in ("", "."):
        return parent
    return f"{parent}/{stem}" if parent not in ("", ".", "data") else stem


def _jsonl_sample(path: Path) -> tuple[list[str], dict[str, list[Any]]]:
    rows: list[dict] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                raise FormatError(f"{path}: line {number} is not valid JSON") from None
            if not isinstance(row, dict):
                raise FormatError(f"{path}: line {number} is not a JSON object")
            rows.append(row)
            if len(rows) >= SAMPLE_ROWS:
                break
    columns = list(dict.fromkeys(k for row in rows for k in row))
    return columns, {c: [row.get(c) for row in rows] for c in columns}


def _parquet_sample(path: Path, columns: list[str]) -> dict[str, list[Any]]:
    scalar = [c for c in columns if c in pq.read_schema(path).names]
    handle = pq.ParquetFile(path)
    for batch in handle.iter_batches(batch_size=SAMPLE_ROWS, columns=scalar):
        return batch.to_pydict()
    return {c: [] for c in scalar}


def list_tables(root: Path) -> list[Table]:
    """Every Parquet or JSONL table under ``root`` (shards of one table grouped)."""
    groups: dict[str, list[Path]] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in (".parquet", ".jsonl") and not any(
                p.startswith(".") for p in path.relative_to(root).parts):
            groups.setdefault(_table_name(root, path), []).append(path)
    return [make_table(name, files) for name, files in groups.items()]


def make_table(name: str, files: list[Path]) -> Table:
    """A table of ``files`` (one format): the first file's columns, types and sample."""
    first = files[0]
    if len({f.suffix for f in files}) > 1:
        raise FormatError(f"{name}: its files mix formats ({', '.join(sorted({f.suffix for f in files}))})")
    if first.suffix == ".jsonl":
        columns, sample = _jsonl_sample(first)
        return Table(name, files, columns, sample)
    try:
        schema = pq.read_schema(first)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a bad file
        raise FormatError(f"{first}: not a readable Parquet file ({str(exc).splitlines()[0]})") from None
    import pyarrow.types as t

    columns = [f.name for f in schema if not _is_vector(f.type)]
    dates = frozenset(f.name for f in schema if t.is_date(f.type) or t.is_timestamp(f.type))
    return Table(name, files, columns, _parquet_sample(first, columns), dates)


def _is_vector(arrow_type) -> bool:
    """Embedding columns (lists of floats) are skipped: no role needs them."""
    import pyarrow.types as t

    return (t.is_list(arrow_type) or t.is_large_list(arrow_type) or t.is_fixed_size_list(arrow_type)) and \
        t.is_floating(arrow_type.value_type)


def match_columns(table: Table, role: Role, mapping: Mapping) -> dict[str, str] | None:
    """Canonical column → the table's column, or None when a required one is missing or looks wrong."""
    fixed = mapping.columns.get(role.name, {})
    by_norm = {norm(c): c for c in table.columns}
    chosen: dict[str, str] = {}
    for canon in role.columns:
        if canon in fixed:
            if fixed[canon] not in table.columns:
                return None
            chosen[canon] = fixed[canon]
            continue
        for alias in mapping.aliases.get(canon, (canon,)):
            column = by_norm.get(alias)
            if column and column not in chosen.values() and \
                    values_fit(mapping.values.get(canon), table.sample.get(column, [])):
                chosen[canon] = column
                break
        if canon not in chosen and canon not in fixed:
            column = _date_by_content(table, role, mapping, canon, chosen)
            if column:
                chosen[canon] = column
        if canon not in chosen and canon in role.required:
            return None
    return chosen


def _date_by_content(table: Table, role: Role, mapping: Mapping, canon: str, chosen: dict[str, str]) -> str | None:
    """A role's only date column, under a name no alias knows: the table's one column left that holds dates
    (a date type, or full ``YYYY-MM-DD`` values); None when there are none or several."""
    if mapping.values.get(canon) != "date" or [c for c in role.columns if mapping.values.get(c) == "date"] != [canon]:
        return None
    def dated(column: str) -> bool:
        present = [v for v in table.sample.get(column, []) if v is not None]
        return column in table.dates or bool(present) and all(
            isinstance(v, str) and _FULL_DATE.match(v.strip()) and values_fit("date", [v]) for v in present)
    found = [c for c in table.columns if c not in chosen.values() and dated(c)]
    return found[0] if len(found) == 1 else None


def _score(table: Table, role: Role, chosen: dict[str, str]) -> float:
    words = norm(table.name)
    hint = any(h in words for h in role.hints)
    return len(chosen) / max(len(table.columns), 1) + 0.01 * len(chosen) + (0.5 if hint else 0.0)


def _named(tables: list[Table], target: str, root: Path) -> Table | None:
    """The table a mapping names: by its name, one of its files, or a folder (every table under it, as one)."""
    target = target.strip().strip("/")
    table = next((t for t in tables if t.name == target or any(
        f.relative_to(root).as_posix() == target for f in t.files)), None)
    if table is not None or not (root / target).is_dir():
        return table
    under = [t for t in tables if all((root / target) in f.parents for f in t.files)]
    files = sorted(f for t in under for f in t.files)
    return make_table(target, files) if files else None


def assign(tables: list[Table], mapping: Mapping, root: Path) -> dict[str, Found]:
    """Each role's table: the user's choice where given, else the best-fitting table left (greedy by fit)."""
    found: dict[str, Found] = {}
    taken: set[str] = set()
    for role_name, target in mapping.tables.items():
        role = mapping.roles[role_name]
        table = _named(tables, target, root)
        if table is None:
            raise FormatError(f"mapping: tables.{role_name} = {target!r} names no table of the copy "
                              f"({', '.join(t.name for t in tables)})")
        chosen = match_columns(table, role, mapping)
        if chosen is None:
            missing = [c for c in role.required if c not in mapping.columns.get(role_name, {})]
            raise FormatError(f"mapping: table {table.name} (for {role_name}) lacks a column for one of "
                              f"{', '.join(missing)}; name it under columns.{role_name}")
        found[role_name] = Found(role_name, table, chosen)
        taken |= {t.name for t in tables if set(t.files) <= set(table.files)} | {table.name}
    candidates = []
    for table in tables:
        for role in mapping.roles.values():
            if role.name in found or table.name in taken:
                continue
            chosen = match_columns(table, role, mapping)
            if chosen is not None:
                candidates.append((_score(table, role, chosen), table.name, role.name, table, chosen))
    for _, _, role_name, table, chosen in sorted(candidates, key=lambda c: (-c[0], c[1], c[2])):
        if role_name not in found and table.name not in taken:
            found[role_name] = Found(role_name, table, chosen)
            taken.add(table.name)
    return found
