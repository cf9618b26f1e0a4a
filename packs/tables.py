"""Local dataset tables read as the files on disk are: parquet shards (pyarrow), JSONL or JSON (json).

No cache sits between the files and the rows, so the bytes read are always the
bytes that the manifest hashes: two folders with the same name but different
contents can never share rows. Parquet is streamed one record batch at a time
and only the requested columns are read; a requested column that a file lacks
is simply absent from its rows (the builder decides what is required). A ``.json``
file is read by content: a JSON list of objects, one object, or JSON Lines (what
``datasets``' ``to_json`` writes whatever the file is called).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Iterator

from auditpacks.core.errors import FormatError, PackError
from auditpacks.core.io import iter_jsonl, parse_json

FORMATS = (".parquet", ".jsonl", ".json")
_BATCH_ROWS = 256


class LocalTable:
    """The rows of one configuration, spread over one or more files of one format."""

    def __init__(self, files: list[Path], label: str, root: Path | None = None) -> None:
        self.root = root
        if not files:
            raise PackError(f"{label}: no data files")
        suffixes = {p.suffix for p in files}
        if len(suffixes) > 1 or files[0].suffix not in FORMATS:
            raise PackError(f"{label}: mixed or unknown file formats ({', '.join(sorted(suffixes))})")
        self.files = list(files)
        self.label = label
        self.parquet = files[0].suffix == ".parquet"

    @cached_property
    def columns(self) -> list[str] | None:
        """Column names (every parquet shard's schema, in first-seen order); None for JSONL (known per row)."""
        if not self.parquet:
            return None
        import pyarrow.parquet as pq

        names: dict[str, None] = {}
        for path in self.files:
            try:
                names.update(dict.fromkeys(pq.read_schema(path).names))
            except Exception as exc:  # pyarrow raises several types for a damaged file
                raise PackError(f"{self._name(path)}: cannot read: {_first_line(exc)}") from None
        return list(names)

    def rows(self, columns: Iterable[str] | None = None) -> Iterator[dict[str, Any]]:
        """Every row in file order, restricted to ``columns`` (all when None); absent columns are left out."""
        wanted = None if columns is None else list(dict.fromkeys(columns))
        for path in self.files:
            if self.parquet:
                yield from self._parquet_rows(path, wanted)
            elif path.suffix == ".json":
                yield from self._json_rows(path, wanted)
            else:
                yield from self._jsonl_rows(path, wanted)

    def _parquet_rows(self, path: Path, wanted: list[str] | None) -> Iterator[dict[str, Any]]:
        import pyarrow.parquet as pq

        try:
            handle = pq.ParquetFile(path)
            present = handle.schema_arrow.names
            read = None if wanted is None else [c for c in wanted if c in present]
            for batch in handle.iter_batches(batch_size=_BATCH_ROWS, columns=read):
                yield from batch.to_pylist()
        except Exception as exc:
            raise PackError(f"{self._name(path)}: cannot read: {_first_line(exc)}") from None

    def _jsonl_rows(self, path: Path, wanted: list[str] | None) -> Iterator[dict[str, Any]]:
        name = self._name(path)
        try:
            for lineno, record in iter_jsonl(path):
                if not isinstance(record, dict):
                    raise PackError(f"{name} line {lineno}: a {type(record).__name__}, not a JSON object")
                yield record if wanted is None else {k: record[k] for k in wanted if k in record}
        except FormatError as exc:
            raise PackError(f"{name}: cannot read: {_first_line(exc)}") from None

    def _json_rows(self, path: Path, wanted: list[str] | None) -> Iterator[dict[str, Any]]:
        """A JSON list of objects or one object; a file of several JSON values is read as JSON Lines."""
        import json

        name = self._name(path)
        try:
            value = parse_json(path.read_bytes(), name, PackError)
        except json.JSONDecodeError as exc:
            if exc.msg != "Extra data":
                raise PackError(f"{name}: cannot read: invalid JSON at line {exc.lineno} column {exc.colno}: "
                                f"{exc.msg}") from None
            yield from self._jsonl_rows(path, wanted)
            return
        except UnicodeDecodeError as exc:
            raise PackError(f"{name}: cannot read: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        for i, record in enumerate(value if isinstance(value, list) else [value]):
            if not isinstance(record, dict):
                raise PackError(f"{name} record #{i}: a {type(record).__name__}, not a JSON object")
            yield record if wanted is None else {k: record[k] for k in wanted if k in record}

    def _name(self, path: Path) -> str:
        """A file as errors name it: relative to the source folder (never a machine path)."""
        return path.relative_to(self.root).as_posix() if self.root is not None else path.name


def table_files(root: Path, name: str, under: tuple[str, ...] = ("", "data")) -> list[Path]:
    """The files of table ``name`` in the first of the folders ``under`` that holds any: a folder
    ``name/`` of part files (any shard naming), else ``name.<format>`` and shards ``name-*.<format>``
    (``questions-00000-of-00002.parquet``). Sorted, so part files come in order; none: ``[]``."""
    for sub in under:
        base = root / sub if sub else root
        folder = base / name
        found = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in FORMATS
                       and not any(part.startswith(".") for part in p.relative_to(folder).parts)) \
            if folder.is_dir() else []
        found = found or sorted(p for suffix in FORMATS for p in (base.glob(f"{name}{suffix}") if base.is_dir() else ())
                                if p.is_file()) \
            + sorted(p for suffix in FORMATS for p in (base.glob(f"{name}-*{suffix}") if base.is_dir() else ())
                     if p.is_file())
        if found:
            return found
    return []


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
