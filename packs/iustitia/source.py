"""Reading Iustitia Marigonae: its configurations and its ``simpleaudit/`` files.

A source is a folder laid out as ``hf download Kushtrim/iustitia-marigonae`` lays it
out (or ``hf:Kushtrim/iustitia-marigonae``, downloaded first). Each configuration's
files are found through the README's ``configs:`` front matter when it names the
configuration's ``test`` split, else by name (``tasks/*.parquet``, ``data/tasks/…``,
``tasks.jsonl``), and read as they are on disk (:mod:`auditpacks.packs.tables`):
parquet or JSONL, one file or several shards, no cache. Only the columns the card
names are required; every other column is optional and unknown ones are ignored.
Which is which is listed in ``docs/iustitia.md``.
"""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator, Mapping

import yaml

from auditpacks.core.errors import PackError
from auditpacks.packs.iustitia.tasks import OPTIONAL, REQUIRED, Task, check_ids, read_task, require, unit_of
from auditpacks.packs.pack import source_entry
from auditpacks.packs.readreport import ReadReport, data_files
from auditpacks.packs.sources import resolve_source
from auditpacks.packs.tables import FORMATS, LocalTable

SPLIT = "test"
#: What ``hf:`` downloads: the data, the README (front matter) and the smoke pack, never the 460 MB pack.
DOWNLOAD = ["README.md", "*.parquet", "*.jsonl", "simpleaudit/iustitia_marigonae_smoke3.json"]

#: Optional configurations and the columns read from them (documents: source URL and full text for
#: the judge's notes; units: a check that each task's unit belongs to its judgment; questions: notes).
CONFIG_COLUMNS = {"documents": ("verdict_id", "text", "source_url"), "units": ("unit_id", "verdict_id", "unit_type"),
                  "questions": ("question_id", "notes")}
CONFIGS = ("tasks", *CONFIG_COLUMNS)
#: Light task columns: enough to filter, sample and score without reading judgment texts.
INDEX_COLUMNS = ("task_id", "unit_id", "verdict_id", "unit_type", "question_id", "is_canonical",
                 "clef_supported", "options", "accepted_options", "instructions")


def open_source(spec: str, *, cache_dir: str | None = None) -> "IustitiaSource":
    """A local folder or ``hf:owner/name`` (gated: the error names ``hf auth login``).

    ``cache_dir`` is accepted for compatibility and unused: local files are read directly.
    """
    return IustitiaSource(resolve_source(spec, allow_patterns=DOWNLOAD))


class IustitiaSource:
    def __init__(self, source, *, cache_dir: str | None = None) -> None:
        self.root: Path = source.root
        self.origin: str = source.origin
        self._files: dict[str, list[Path]] = {}
        self._tables: dict[str, LocalTable] = {}
        self.read: list[str] = []  # configurations actually read, in order (the manifest lists their files)
        self.rows_read: dict[str, int] = {}  # configuration → rows read (all of them, before any filter)
        self.other_splits: list[Path] = []  # files of a configuration's other splits, left out on purpose

    # -- files and tables -------------------------------------------------------------------

    @cached_property
    def front_matter(self) -> dict[str, list[str]]:
        """Configuration → data-file patterns of its ``test`` split, from the README's ``configs:``."""
        readme = self.root / "README.md"
        text = readme.read_text(encoding="utf-8") if readme.is_file() else ""
        if not text.startswith("---"):
            return {}
        end = text.find("\n---", 3)
        try:
            meta = yaml.safe_load(text[3:end if end > 0 else None]) or {}
        except yaml.YAMLError as exc:
            raise PackError(f"README.md: invalid front matter: {str(exc).splitlines()[0]}") from None
        out: dict[str, list[str]] = {}
        configs = meta.get("configs") if isinstance(meta, dict) else None
        for entry in configs if isinstance(configs, list) else []:
            specs = entry.get("data_files") if isinstance(entry, dict) else None
            if isinstance(specs, str) or (isinstance(specs, list) and all(isinstance(x, str) for x in specs)):
                specs = [{"split": SPLIT, "path": specs}]  # bare patterns: the one split there is
            for spec in specs if isinstance(specs, list) else []:
                if isinstance(spec, dict) and spec.get("split") == SPLIT:
                    path = spec.get("path")
                    out[entry.get("config_name")] = [path] if isinstance(path, str) else list(path or [])
        return out

    def has(self, config: str) -> bool:
        """Whether the source holds any data file for ``config``."""
        try:
            self.files(config)
        except PackError:
            return False
        return True

    def files(self, config: str) -> list[Path]:
        """The data files of a configuration (front matter patterns, else found by name)."""
        if config not in self._files:
            found: list[Path] = []
            if config in self.front_matter:
                found = sorted({p for pat in self.front_matter[config] for p in self.root.glob(pat)
                                if p.is_file() and p.suffix in FORMATS})
            found = found or self._files_by_name(config)
            if not found:
                raise PackError(
                    f"{self.root.name}: no data files for configuration {config!r} "
                    f"(looked for {config}/*.parquet|jsonl, data/{config}/…, {config}.parquet|jsonl)"
                )
            self._files[config] = found
        return self._files[config]

    def _files_by_name(self, config: str) -> list[Path]:
        for folder in (self.root / config, self.root / "data" / config):
            found = sorted(p for p in folder.glob("*") if p.suffix in FORMATS) if folder.is_dir() else []
            tests = [p for p in found if p.name.startswith(SPLIT)]
            if found:
                self.other_splits += [p for p in found if tests and p not in tests]
                return tests or found
        for base in (self.root, self.root / "data"):
            found = [base / f"{config}{suffix}" for suffix in FORMATS if (base / f"{config}{suffix}").is_file()]
            if found:
                return found[:1]
        return []

    def label(self, config: str, files: list[Path] | None = None) -> str:
        """How errors name a configuration: its file, or its folder and file count."""
        files = files if files is not None else self.files(config)
        if len(files) == 1:
            return files[0].relative_to(self.root).as_posix()
        return f"{config} ({len(files)} files)"

    def table(self, config: str) -> LocalTable:
        """The configuration's files as a :class:`LocalTable` (tasks: required columns checked)."""
        if config not in self._tables:
            table = LocalTable(self.files(config), self.label(config), root=self.root)
            if config == "tasks" and table.columns is not None:
                missing = [c for c in REQUIRED if c not in table.columns]
                if missing:
                    raise PackError(f"{self.label(config)}: missing column {missing[0]!r} (configuration {config})")
            self._tables[config] = table
            self.read.append(config)
        return self._tables[config]

    def manifest_sources(self, configs=None, extra: list[Path] = ()) -> list[dict[str, Any]]:
        """Manifest entries (relative name, origin, size, sha256) for every file read."""
        paths = [p for c in (self.read if configs is None else configs) for p in self.files(c)] + list(extra)
        return [source_entry(p, name=p.relative_to(self.root).as_posix(), origin=self.origin) for p in paths]

    def _optional_rows(self, config: str) -> list[dict[str, Any]] | None:
        """An optional configuration's rows (only its known columns), None when the source lacks it."""
        if not self.has(config):
            return None
        rows = list(self.table(config).rows(CONFIG_COLUMNS[config]))
        self.rows_read[config] = len(rows)
        for row in rows:
            check_ids(row, self.label(config))
        return rows

    # -- decoded records --------------------------------------------------------------------

    def task_index(self, track: str, max_options: int) -> list[dict[str, Any]]:
        """The eligible tasks (canonical; ``le26``: clef_supported) as light rows, in dataset order.

        Each row carries ``row`` (its position in the tasks table), so the full row can be
        read later. Duplicate task ids and ``le26`` tasks over ``max_options`` raise.
        """
        if track not in ("full", "le26"):
            raise PackError(f"unknown track {track!r}; use full or le26")
        table = self.table("tasks")
        label, seen, out = self.label("tasks"), set(), []
        needed = ("task_id", "verdict_id", "question_id", "is_canonical", "options", "accepted_options") + (
            ("clef_supported",) if track == "le26" else ())
        for position, row in enumerate(table.rows(INDEX_COLUMNS)):
            require(row, needed, label)
            if row["task_id"] in seen:
                raise PackError(f"{label}: task {row['task_id']} field task_id: duplicate")
            seen.add(row["task_id"])
            if not row["is_canonical"] or (track == "le26" and not row["clef_supported"]):
                continue
            if track == "le26" and len(row["options"] or []) > max_options:
                raise PackError(
                    f"{label}: task {row['task_id']} field clef_supported: true, but it has "
                    f"{len(row['options'])} options (over {max_options})"
                )
            options = row.pop("options") or []
            row.setdefault("unit_id", unit_of(row["task_id"]))
            row.setdefault("unit_type", None)
            row.setdefault("clef_supported", None)
            out.append({**row, "option_keys": [o.get("key") if isinstance(o, Mapping) else o for o in options],
                        "row": position})
        self.rows_read["tasks"] = len(seen)
        return out

    def read_report(self, allow_partial: bool = False) -> dict[str, Any]:
        """The configurations read, their rows beside the source's declared counts, and every data file left
        out (:mod:`auditpacks.packs.readreport`); a mismatch stops the build unless ``allow_partial``."""
        report = ReadReport(self.root, split=SPLIT)
        for config in self.read:
            report.table(config, self.files(config), self.rows_read.get(config, 0))
        for path in self.other_splits:
            report.skip(path, f"another split than {SPLIT}", data=False)
        tables = [p for p in data_files(self.root) if _table_place(p.relative_to(self.root).parts)]
        report.skip_unread(tables, "not a file of any configuration read")
        for path in data_files(self.root):
            if path not in tables:
                report.skip(path, "outside the dataset's table folders", data=False)
        return report.check(allow_partial).as_dict()

    def task_rows(self, positions: list[int]) -> Iterator[Task]:
        """Full task rows at ``positions`` of the tasks table, decoded and checked, in that order.

        Rows are streamed; only rows chosen out of file order are held back until their turn.
        """
        label, wanted = self.label("tasks"), set(positions)
        order = iter(positions)
        nxt, held = next(order, None), {}
        for position, row in enumerate(self.table("tasks").rows(REQUIRED + OPTIONAL)):
            if position not in wanted:
                continue
            held[position] = row
            while nxt is not None and nxt in held:
                yield read_task(held.pop(nxt), label)
                nxt = next(order, None)
            if nxt is None:
                return

    @cached_property
    def documents(self) -> dict[str, dict[str, Any]]:
        """verdict_id → document row (text, source_url where present); {} without a documents table."""
        rows = self._optional_rows("documents") or []
        return {row["verdict_id"]: row for row in rows if "verdict_id" in row}

    @cached_property
    def units(self) -> dict[str, dict[str, Any]] | None:
        """unit_id → unit row (verdict_id, unit_type); None when the source has no usable units table."""
        rows = self._optional_rows("units")
        if not rows or not all("unit_id" in row and "verdict_id" in row for row in rows):
            return None
        return {row["unit_id"]: row for row in rows}

    @cached_property
    def questions(self) -> dict[str, dict[str, Any]]:
        """question_id → question row (its notes, where present); {} without a questions table."""
        rows = self._optional_rows("questions") or []
        return {row["question_id"]: row for row in rows if "question_id" in row}

    def smoke_file(self, relative: str) -> Path | None:
        path = self.root / relative
        return path if path.is_file() else None


def _table_place(parts: tuple[str, ...]) -> bool:
    """Whether a file lies where a configuration's files may: at the top, under ``data/`` or a configuration's
    folder (anything else, such as published results, is not a table of the dataset)."""
    return len(parts) == 1 or parts[0] in ("data", *CONFIGS)


def smoke_task_ids(path: Path) -> list[str]:
    """The task ids of a published smoke pack: ``metadata.task_id``, else read from the name."""
    try:
        scenarios = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise PackError(f"{path.name}: not a JSON scenario list ({exc})") from None
    if not isinstance(scenarios, list):
        raise PackError(f"{path.name}: a pack is a JSON list of scenarios")
    ids = []
    for i, scenario in enumerate(scenarios):
        meta = scenario.get("metadata") if isinstance(scenario, dict) else None
        task_id = (meta or {}).get("task_id")
        if not task_id and isinstance(scenario, dict) and " - " in str(scenario.get("name")):
            question_id, unit_id = str(scenario["name"]).split(" - ", 1)
            task_id = f"{unit_id}::{question_id}"
        if not task_id:
            raise PackError(f"{path.name}: record #{i} field metadata.task_id: missing (and no '<question> - <unit>' name)")
        ids.append(task_id)
    return ids
