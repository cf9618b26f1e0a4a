"""Read a local copy of the ICJ Citation Graph into canonical tables (strings, ISO dates).

``read_graph(root, mapping_file)`` finds each role's table by content (``detect``), reads only the
columns it needs, spells case ids as the scorer does (three digits) and dates as ``YYYY-MM-DD``. A
role the copy lacks is an empty table; a copy without documents or cases is refused. What was read is
reconciled with what the copy declares (:mod:`auditpacks.packs.readreport`): a table whose rows differ
from its ``manifest.json`` count, a table read as empty, or a table left out that fits a role stops
the read with one line, unless ``allow_partial`` (then each is a warning kept in ``Graph.report``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from auditpacks.core.errors import FormatError, UserError
from auditpacks.core.io import iter_jsonl
from auditpacks.packs.icj.graph.detect import Found, assign, list_tables, match_columns
from auditpacks.packs.icj.graph.schema import Mapping, iso_date, load_mapping
from auditpacks.packs.icj.graph.vectors import find_sources
from auditpacks.packs.icj.targets import normalise_case_id
from auditpacks.packs.readreport import ReadReport

NEEDED = ("cases", "documents")
DATE_COLUMNS = {"date", "term_start", "term_end"}
CASE_COLUMNS = {"case_id", "cited_case_id"}


@dataclass
class Graph:
    """Canonical tables by role, the copy's manifest (if any) and a hash of what was read."""

    tables: dict[str, pa.Table]
    source_hash: str = ""
    manifest: dict[str, Any] = field(default_factory=dict)
    found: dict[str, str] = field(default_factory=dict)
    #: passage kind → where the copy's passage vectors are (empty: the copy has none); see ``vectors.py``
    vector_sources: dict[str, Any] = field(default_factory=dict)
    #: the read report (:class:`auditpacks.packs.readreport.ReadReport`, as a dict)
    report: dict[str, Any] = field(default_factory=dict)

    def rows(self, role: str) -> list[dict[str, Any]]:
        return self.tables[role].to_pylist()


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def _column(name: str, values: list[Any], where: str) -> pa.Array:
    if name in DATE_COLUMNS:
        out = [iso_date(v) for v in values]
        bad = next((v for v, d in zip(values, out) if v is not None and d is None), None)
        if bad is not None:
            raise FormatError(f"{where}: column for {name} holds {bad!r}, not a date")
        return pa.array(out, pa.string())
    texts = [_text(v) for v in values]
    if name in CASE_COLUMNS:
        texts = [normalise_case_id(t.strip()) if t else t for t in texts]
    return pa.array(texts, pa.string())


def _as_text(name: str, column: pa.ChunkedArray, where: str) -> pa.Array:
    """A column read as text: kept in Arrow when it casts (long passage columns never become Python strings)."""
    if name in DATE_COLUMNS or name in CASE_COLUMNS:
        return _column(name, column.to_pylist(), where)
    try:
        return pc.cast(column, pa.string()).combine_chunks()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return _column(name, column.to_pylist(), where)


def _read(found: Found, roles: Mapping) -> pa.Table:
    sources = list(found.columns.values())
    where = found.table.name
    if found.table.files[0].suffix == ".jsonl":
        rows = [r for f in found.table.files for _, r in iter_jsonl(f)]
        data = {c: [r.get(c) if isinstance(r, dict) else None for r in rows] for c in sources}
        arrays = {canon: _column(canon, data[col], f"{where}.{col}") for canon, col in found.columns.items()}
        length = len(rows)
    else:
        try:
            table = pa.concat_tables([pq.read_table(f, columns=sources) for f in found.table.files],
                                     promote_options="permissive")
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OSError) as exc:
            raise FormatError(f"{where}: its files cannot be read as one table "
                              f"({str(exc).splitlines()[0][:200]})") from None
        arrays = {canon: _as_text(canon, table[col], f"{where}.{col}") for canon, col in found.columns.items()}
        length = table.num_rows
    role = roles.roles[found.role]
    for canon in role.columns:
        arrays.setdefault(canon, pa.nulls(length, pa.string()))
    return pa.table({c: arrays[c] for c in role.columns})


def _empty(role_columns) -> pa.Table:
    return pa.table({c: pa.array([], pa.string()) for c in role_columns})


def _hash(found: dict[str, Found], mapping_file: Path | None) -> str:
    digest = hashlib.sha256()
    files = sorted({f for item in found.values() for f in item.table.files})
    for path in files + ([mapping_file] if mapping_file else []):
        digest.update(path.name.encode())
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


#: role → (its id, its date): a record listed twice must carry one date
DATED = {"documents": ("document_id", "date"), "resolutions": ("symbol", "date"),
         "instruments": ("instrument_id", "date"), "judges": ("judge_id", "term_start")}


def _conflicts(name: str, table: pa.Table, key: str, column: str) -> list[str]:
    """One line when some id of ``table`` is listed with different dates (naming the first ids)."""
    days: dict[str, set] = {}
    for value, day in zip(table[key].to_pylist(), table[column].to_pylist()):
        if value is not None:
            days.setdefault(value, set()).add(day)
    clash = sorted(v for v, d in days.items() if len(d) > 1)
    if not clash:
        return []
    shown = "; ".join(f"{v}: {', '.join(sorted(str(d) for d in days[v]))}" for v in clash[:3])
    return [f"{name}: {len(clash)} {key} listed with conflicting {column}s ({shown}"
            f"{'; ...' if len(clash) > 3 else ''}); each is cut by its latest date"]


def _report(root: Path, tables, found: dict[str, Found], read: dict[str, pa.Table], mapping: Mapping,
            allow_partial: bool) -> dict[str, Any]:
    """Rows read per table beside the copy's declared counts; tables left out (fitting a role: an error)."""
    report = ReadReport(root)
    for role, item in found.items():
        report.table(item.table.name, item.table.files, read[role].num_rows, declared_as=(role,))
    for role, (key, column) in DATED.items():
        if role in found:
            report.findings += _conflicts(found[role].table.name, read[role], key, column)
    used = {f for item in found.values() for f in item.table.files}
    for table in tables:
        if used.isdisjoint(table.files):
            fits = [r for r, spec in mapping.roles.items() if match_columns(table, spec, mapping) is not None]
            why = f"fits {', '.join(fits)}, another table was taken" if fits else "no role fits its columns"
            for path in table.files:
                report.skip(path, why, data=bool(fits))
    try:
        report.check(allow_partial)
    except UserError as exc:
        raise FormatError(str(exc)) from None
    return report.as_dict()


def read_graph(root: Path, mapping_file: Path | None = None, *, allow_partial: bool = False) -> Graph:
    """The graph in ``root`` (an ``hf download`` folder), read by content, with ``mapping_file`` applied."""
    root = Path(root)
    if not root.is_dir():
        raise FormatError(f"{root}: not a folder (expected a local copy of the ICJ Citation Graph)")
    mapping = load_mapping(mapping_file)
    listed = list_tables(root)
    found = assign(listed, mapping, root)
    missing = [r for r in NEEDED if r not in found]
    if missing:
        raise FormatError(f"{root}: no table found for {', '.join(missing)} (name it in a mapping file; "
                          "see docs/icj-tools.md)")
    tables = {role: _read(found[role], mapping) if role in found else _empty(spec.columns)
              for role, spec in mapping.roles.items()}
    manifest_path = root / "manifest.json"
    manifest = {}
    if manifest_path.is_file():
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            raise FormatError(f"{manifest_path}: not valid JSON") from None
    report = _report(root, listed, found, tables, mapping, allow_partial)
    return Graph(tables, _hash(found, mapping_file), manifest if isinstance(manifest, dict) else {},
                 {role: item.table.name for role, item in found.items()}, find_sources(found), report)
