"""Per-cutoff snapshots: the cut graph, its Cypher database and lexical index, built once and read-only.

``snapshot_for(graph, cutoff, cache)`` returns the snapshot of ``graph`` for ``cutoff``, building it
under ``cache/<cutoff>_<source hash>/`` on first use (in a temporary folder renamed into place, so a
half-built snapshot is never used) and making its files read-only. A snapshot holds only the cut
graph: it is a physically separate copy, never a view of the full graph with a filter.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from datetime import date
from functools import cached_property
from pathlib import Path

import pyarrow.parquet as pq

from auditpacks.core.errors import UserError
from auditpacks.packs.icj.graph import cutoff as cutoffs
from auditpacks.packs.icj.graph.graphdb import build_database
from auditpacks.packs.icj.graph.lexical import LexicalIndex, build_index
from auditpacks.packs.icj.graph.reader import Graph
from auditpacks.packs.icj.tools.guard import Guard, later_identifiers, withheld_values

INFO, WITHHELD, DATABASE, LEXICAL, TABLES = "snapshot.json", "withheld.json", "graph.lbug", "lexical", "tables"


def check_cutoff(value: str) -> str:
    try:
        return date.fromisoformat(value).isoformat()
    except (TypeError, ValueError):
        raise UserError(f"cutoff {value!r} is not a date (YYYY-MM-DD)") from None


def snapshot_dir(cache: Path, cutoff: str, source_hash: str) -> Path:
    return Path(cache) / f"{cutoff}_{source_hash[:16]}"


def _read_only(folder: Path) -> None:
    for path in sorted(folder.rglob("*"), reverse=True):
        path.chmod(0o555 if path.is_dir() else 0o444)
    folder.chmod(0o555)


def _build(graph: Graph, cutoff: str, folder: Path) -> None:
    started = time.perf_counter()
    cut = cutoffs.cut(graph, cutoff)
    (folder / TABLES).mkdir()
    for role, table in cut.tables.items():
        pq.write_table(table, folder / TABLES / f"{role}.parquet")
    build_database(cut, folder / DATABASE, folder / "staging")
    shutil.rmtree(folder / "staging")
    passages = build_index(cut, folder / LEXICAL)
    withheld = later_identifiers(graph, cutoff) | withheld_values(graph, cutoff)
    (folder / WITHHELD).write_text(json.dumps(sorted(withheld)), encoding="utf-8")
    info = {"cutoff": cutoff, "source_hash": graph.source_hash,
            "counts": {r: t.num_rows for r, t in cut.tables.items()},
            "lexical": {"method": "bm25", "library": "bm25s", "passages": passages},
            "read_report": graph.report,
            "build_seconds": round(time.perf_counter() - started, 3)}
    (folder / INFO).write_text(json.dumps(info, indent=2, sort_keys=True), encoding="utf-8")


def snapshot_for(graph: Graph, cutoff: str, cache: Path) -> "Snapshot":
    """The snapshot of ``graph`` at ``cutoff``, built on first use and reused after."""
    cutoff = check_cutoff(cutoff)
    folder = snapshot_dir(cache, cutoff, graph.source_hash)
    if not (folder / INFO).is_file():
        Path(cache).mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=cache))
        try:
            _build(graph, cutoff, staging)
            _read_only(staging)
            try:
                os.rename(staging, folder)
            except OSError:  # another process finished the same snapshot first
                if not (folder / INFO).is_file():
                    raise
        finally:
            if staging.exists():
                staging.chmod(0o755)
                for path in staging.rglob("*"):
                    path.chmod(0o755 if path.is_dir() else 0o644)
                shutil.rmtree(staging)
    return Snapshot(folder)


def database_region(database: Path) -> int:
    """The address space a read-only open of ``database`` reserves: four times its size, at least 64 MiB."""
    size = database.stat().st_size if database.is_file() else sum(p.stat().st_size for p in database.rglob("*"))
    return max(64 * 2**20, -(-4 * size // 2**20) * 2**20)

class Snapshot:
    """One built snapshot, opened read-only: its tables, Cypher database, lexical index and guard."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        try:
            self.info = json.loads((self.folder / INFO).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            raise UserError(f"{self.folder}: not a built snapshot (no readable {INFO})") from None
        self.cutoff = self.info["cutoff"]
        self._rows: dict[str, list[dict]] = {}

    def rows(self, role: str) -> list[dict]:
        """A cut table's rows, read on first use (passages are read per document, see ``rows_where``)."""
        if role not in self._rows:
            self._rows[role] = pq.read_table(self.folder / TABLES / f"{role}.parquet").to_pylist()
        return self._rows[role]

    def rows_where(self, role: str, column: str, value: str) -> list[dict]:
        """The rows of a cut table whose ``column`` equals ``value``, without reading the whole table."""
        return pq.read_table(self.folder / TABLES / f"{role}.parquet", filters=[(column, "=", value)]).to_pylist()

    @cached_property
    def guard(self) -> Guard:
        return Guard(self.cutoff, json.loads((self.folder / WITHHELD).read_text(encoding="utf-8")))

    @cached_property
    def lexical(self) -> LexicalIndex:
        return LexicalIndex(self.folder / LEXICAL)

    @cached_property
    def database(self):
        import ladybug

        path = self.folder / DATABASE  # not ladybug's 8 TiB reserve each: a dozen open ones fill the address space
        return ladybug.Database(str(path), read_only=True, max_db_size=database_region(path))
