"""Reading Iustitia Marigonae: its four configurations and its ``simpleaudit/`` files.

A source is a folder laid out as ``hf download Kushtrim/iustitia-marigonae`` lays it
out (or ``hf:Kushtrim/iustitia-marigonae``, downloaded first). Each configuration
(tasks, documents, units, questions) is read with ``datasets.load_dataset``: through
the README's ``configs:`` front matter when it names the configuration's ``test``
split, else from the configuration's parquet or JSONL files found by name. The
accepted layout and the column schemas are documented in ``docs/iustitia.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator, Mapping

import yaml

from auditpacks.core.errors import PackError

from auditpacks.packs.iustitia.records import check_columns, check_records
from auditpacks.packs.pack import source_entry
from auditpacks.packs.sources import resolve_source

SPLIT = "test"
FORMATS = {".parquet": "parquet", ".jsonl": "json"}
#: What ``hf:`` downloads: the data, the README (front matter) and the smoke pack, never the 460 MB pack.
DOWNLOAD = ["README.md", "*.parquet", "*.jsonl", "simpleaudit/iustitia_marigonae_smoke3.json"]

#: Columns a builder needs. ``tasks`` is the verified 17-column schema; the others are reconstructed.
COLUMNS = {
    "tasks": (
        "unit_id", "verdict_id", "unit_type", "legacy_split", "canonical_verdict_id", "is_canonical",
        "task_id", "question_id", "question_group", "kind", "state_json", "instructions", "options",
        "reference_json", "accepted_options", "reference_origin", "clef_supported",
    ),
    "documents": ("verdict_id", "text", "source_url"),
    "units": ("unit_id", "verdict_id", "unit_type"),
    "questions": ("question_id",),
}
#: Judgment sections of ``sections_json`` and ``state_json``; ``full_text`` for unsegmented judgments.
SECTION_KEYS = ("header", "operative_part", "reasoning", "remedy_notice", "full_text")
UNIT_TYPES = ("decision", "defendant", "victim")
#: Light task columns: enough to filter, sample and score without reading judgment texts.
INDEX_COLUMNS = ("task_id", "unit_id", "verdict_id", "unit_type", "question_id", "is_canonical",
                 "clef_supported", "options", "accepted_options")


@dataclass(frozen=True)
class Task:
    """One task row, decoded and checked."""

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


def open_source(spec: str, *, cache_dir: str | None = None) -> "IustitiaSource":
    """A local folder or ``hf:owner/name`` (gated: the error names ``hf auth login``)."""
    return IustitiaSource(resolve_source(spec, allow_patterns=DOWNLOAD), cache_dir=cache_dir)


class IustitiaSource:
    def __init__(self, source, *, cache_dir: str | None = None) -> None:
        self.root: Path = source.root
        self.origin: str = source.origin
        self.cache_dir = cache_dir
        self._files: dict[str, list[Path]] = {}
        self._tables: dict[str, Any] = {}

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
            for spec in specs if isinstance(specs, list) else []:
                if isinstance(spec, dict) and spec.get("split") == SPLIT:
                    path = spec.get("path")
                    out[entry.get("config_name")] = [path] if isinstance(path, str) else list(path or [])
        return out

    def files(self, config: str) -> list[Path]:
        """The data files of a configuration (front matter patterns, else found by name)."""
        if config not in self._files:
            if config in self.front_matter:
                found = sorted({p for pat in self.front_matter[config] for p in self.root.glob(pat) if p.is_file()})
            else:
                found = self._files_by_name(config)
            if not found:
                raise PackError(
                    f"{self.root.name}: no data files for configuration {config!r} "
                    f"(looked for {config}/*.parquet|jsonl, data/{config}/…, {config}.parquet|jsonl)"
                )
            if len({p.suffix for p in found}) > 1 or found[0].suffix not in FORMATS:
                raise PackError(f"{self.label(config, found)}: mixed or unknown file formats in configuration {config!r}")
            self._files[config] = found
        return self._files[config]

    def _files_by_name(self, config: str) -> list[Path]:
        for folder in (self.root / config, self.root / "data" / config):
            found = sorted(p for p in folder.glob("*") if p.suffix in FORMATS) if folder.is_dir() else []
            tests = [p for p in found if p.name.startswith(SPLIT)]
            if found:
                return tests or found
        for base in (self.root, self.root / "data"):
            found = [base / f"{config}{suffix}" for suffix in FORMATS if (base / f"{config}{suffix}").is_file()]
            if found:
                return found
        return []

    def label(self, config: str, files: list[Path] | None = None) -> str:
        """How errors name a configuration: its file, or its folder and file count."""
        files = files if files is not None else self.files(config)
        if len(files) == 1:
            return files[0].relative_to(self.root).as_posix()
        return f"{config} ({len(files)} files)"

    def table(self, config: str):
        """The configuration as a ``datasets.Dataset`` (memory-mapped), its columns checked."""
        if config not in self._tables:
            self._tables[config] = self._load(config)
        return self._tables[config]

    def _load(self, config: str):
        import datasets

        datasets.disable_progress_bars()
        files = self.files(config)
        for path in files:
            if path.suffix == ".jsonl":
                check_records(path, self.label(config))
        try:
            if config in self.front_matter:
                table = datasets.load_dataset(str(self.root), config, split=SPLIT, cache_dir=self.cache_dir)
            else:
                table = datasets.load_dataset(
                    FORMATS[files[0].suffix], data_files={SPLIT: [str(p) for p in files]},
                    split=SPLIT, cache_dir=self.cache_dir,
                )
        except Exception as exc:  # datasets wraps parse errors in several exception types
            cause = exc.__cause__ or exc
            message = str(cause).splitlines()[0] if str(cause) else type(cause).__name__
            raise PackError(f"{self.label(config)}: cannot read: {message}") from None
        missing = [c for c in COLUMNS[config] if c not in table.column_names]
        if missing:
            raise PackError(f"{self.label(config)}: missing column {missing[0]!r} (configuration {config})")
        check_columns(table, config, self.label(config))
        return table

    def manifest_sources(self, configs=tuple(COLUMNS), extra: list[Path] = ()) -> list[dict[str, Any]]:
        """Manifest entries (relative name, origin, size, sha256) for every file read."""
        paths = [p for c in configs for p in self.files(c)] + list(extra)
        return [source_entry(p, name=p.relative_to(self.root).as_posix(), origin=self.origin) for p in paths]

    # -- decoded records --------------------------------------------------------------------

    def task_index(self, track: str, max_options: int) -> list[dict[str, Any]]:
        """The eligible tasks (canonical; ``le26``: clef_supported) as light rows, in dataset order.

        Each row carries ``row`` (its position in the tasks table), so the full row can be
        read later. Duplicate task ids and ``le26`` tasks over ``max_options`` raise.
        """
        if track not in ("full", "le26"):
            raise PackError(f"unknown track {track!r}; use full or le26")
        label, seen, out = self.label("tasks"), set(), []
        columns = self.table("tasks").select_columns(list(INDEX_COLUMNS)).to_list()
        for position, row in enumerate(columns):
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
            out.append({**row, "option_keys": [o.get("key") for o in options], "row": position})
        return out

    def task_rows(self, positions: list[int]) -> Iterator[Task]:
        """Full task rows at ``positions`` of the tasks table, decoded and checked, in that order."""
        label = self.label("tasks")
        for row in self.table("tasks").select(positions):
            yield read_task(row, label)

    @cached_property
    def documents(self) -> dict[str, dict[str, Any]]:
        """verdict_id → document row (text, source_url and the reconstructed columns present)."""
        return {row["verdict_id"]: row for row in self.table("documents").to_list()}

    @cached_property
    def units(self) -> dict[str, dict[str, Any]]:
        """unit_id → unit row (verdict_id, unit_type); the state itself is read from the tasks."""
        label, out = self.label("units"), {}
        for row in self.table("units").select_columns(list(COLUMNS["units"])).to_list():
            if row["unit_type"] not in UNIT_TYPES:
                raise PackError(f"{label}: unit {row['unit_id']} field unit_type: {row['unit_type']!r} "
                                f"is not one of {', '.join(UNIT_TYPES)}")
            out[row["unit_id"]] = row
        return out

    @cached_property
    def questions(self) -> dict[str, dict[str, Any]]:
        """question_id → question row."""
        return {row["question_id"]: row for row in self.table("questions").to_list()}

    def smoke_file(self, relative: str) -> Path | None:
        path = self.root / relative
        return path if path.is_file() else None


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


def read_task(row: Mapping[str, Any], label: str) -> Task:
    """Decode and check one full task row."""
    record = f"task {row.get('task_id')}"
    try:
        state = json.loads(row["state_json"])
    except (TypeError, json.JSONDecodeError) as exc:
        raise PackError(f"{label}: {record} field state_json: invalid JSON ({exc})") from None
    if not isinstance(state, dict) or not any(key in state for key in SECTION_KEYS):
        raise PackError(f"{label}: {record} field state_json: no judgment section ({', '.join(SECTION_KEYS)})")
    criteria: dict[str, str | None] = {}
    for option in row["options"] or []:
        key = option.get("key") if isinstance(option, Mapping) else None
        if not isinstance(key, str) or not key.strip() or key in criteria:
            raise PackError(f"{label}: {record} field options: missing, empty or repeated key {key!r}")
        criteria[key] = option.get("description")
    if len(criteria) < 2:
        raise PackError(f"{label}: {record} field options: fewer than two options")
    accepted = list(row["accepted_options"] or [])
    unknown = [key for key in accepted if key not in criteria]
    if not accepted or unknown:
        raise PackError(f"{label}: {record} field accepted_options: {accepted!r} must name option keys "
                        f"({', '.join(criteria)})")
    if row["unit_type"] not in UNIT_TYPES:
        raise PackError(f"{label}: {record} field unit_type: {row['unit_type']!r} is not one of {', '.join(UNIT_TYPES)}")
    try:
        reference = json.loads(row["reference_json"])
    except (TypeError, json.JSONDecodeError):
        reference = row["reference_json"]
    return Task(
        task_id=row["task_id"], unit_id=row["unit_id"], verdict_id=row["verdict_id"], unit_type=row["unit_type"],
        question_id=row["question_id"], question_group=row["question_group"], state=state,
        instructions=row["instructions"], criteria=criteria, reference=reference, accepted=accepted,
        reference_origin=row["reference_origin"],
    )
