"""A read report: what a reader read, beside what the source itself declares, and what it skipped.

Every reader of a source copy (the Iustitia configurations, the ICJ inputs, test and graph tables,
the jacite questions and registry) records, per table, the files and the rows it read, and every
file it skipped. The source's own declarations are read by :func:`declared_counts`: its
``manifest.json`` (``counts`` or ``tables``), ``dataset_infos.json`` / ``dataset_info.json`` and the
README front matter's ``dataset_info`` (``splits``' ``num_examples``); ``SHA256SUMS`` lists files
that must match and, when they lie beside the tables read, be there (a copy may hold only part of
a repository). :meth:`ReadReport.check` turns a row count unlike the declared one, a
table read as empty, a skipped file that looks like data, or a declared table or listed file the
copy lacks into one error line naming the file and both counts; with ``allow_partial`` each is a
warning, recorded in the report (``as_dict``, which pack manifests and tool snapshots keep).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from auditpacks.core.errors import PackError
from auditpacks.core.io import sha256_file

#: What a data file may be called; a skipped file with one of these suffixes "looks like data".
DATA_SUFFIXES = (".parquet", ".jsonl", ".arrow", ".csv", ".tsv")
_COUNT_KEYS = ("rows", "num_rows", "num_examples", "count", "records")


def add_allow_partial(parser) -> None:
    """The ``--allow-partial`` flag every reader's command takes."""
    parser.add_argument("--allow-partial", action="store_true",
                        help="read on when the copy holds other row counts than it declares, a table read as "
                             "empty or a data file left out (each a warning, recorded; by default refused)")


@dataclass(frozen=True)
class Declared:
    rows: int
    by: str  # where: ``manifest.json``, ``README.md dataset_info``, ...
    loose: bool = False  # a split of the unnamed ``default`` configuration: matched only when a reader names it


def _count(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, dict):
        return next((v for k in _COUNT_KEYS if isinstance(v := value.get(k), int) and not isinstance(v, bool)), None)
    return None


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PackError(f"{path.name}: cannot read what the source declares ({str(exc).splitlines()[0]})") from None


def _manifest(root: Path) -> dict[str, Declared]:
    path = root / "manifest.json"
    data = _read_json(path) if path.is_file() else {}
    out: dict[str, Declared] = {}
    for key in ("counts", "tables"):
        block = data.get(key) if isinstance(data, dict) else None
        items = block.items() if isinstance(block, dict) else (
            ((e.get("name") or e.get("table"), e) for e in block if isinstance(e, dict)) if isinstance(block, list) else ())
        for name, value in items:
            if isinstance(name, str) and (n := _count(value)) is not None:
                out[name] = Declared(n, "manifest.json")
    return out


def _splits(info: Any, config: str, by: str, split: str | None, out: dict[str, Declared]) -> None:
    splits = info.get("splits") if isinstance(info, dict) else None
    entries = splits.items() if isinstance(splits, dict) else (
        ((s.get("name"), s) for s in splits if isinstance(s, dict)) if isinstance(splits, list) else ())
    found = {name: n for name, value in entries if isinstance(name, str) and (n := _count(value)) is not None}
    for name, n in found.items():
        out[f"{config}/{name}"] = Declared(n, by)
        if config == "default":
            out.setdefault(name, Declared(n, by, loose=True))
    if config != "default" and (split in found or len(found) == 1):
        out[config] = Declared(found.get(split, next(iter(found.values()))), by)


def _front_matter(root: Path) -> Any:
    readme = root / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    if not text.startswith("---"):
        return None
    end = text.find("\n---", 3)
    try:
        meta = yaml.safe_load(text[3:end if end > 0 else None]) or {}
    except yaml.YAMLError as exc:
        raise PackError(f"README.md: invalid front matter: {str(exc).splitlines()[0]}") from None
    return meta.get("dataset_info") if isinstance(meta, dict) else None


def declared_counts(root: Path, split: str | None = None) -> dict[str, Declared]:
    """Table (configuration, ``config/split``) → the rows the source declares, from all its declarations."""
    out: dict[str, Declared] = {}
    infos = _front_matter(root)
    for info in infos if isinstance(infos, list) else [infos] if isinstance(infos, dict) else []:
        if isinstance(info, dict):
            _splits(info, str(info.get("config_name") or "default"), "README.md dataset_info", split, out)
    for name in ("dataset_infos.json", "dataset_info.json"):
        path = root / name
        data = _read_json(path) if path.is_file() else None
        if name == "dataset_info.json" and isinstance(data, dict):
            data = {str(data.get("config_name") or "default"): data}
        for config, info in (data.items() if isinstance(data, dict) else ()):
            _splits(info, str(config), name, split, out)
    out.update(_manifest(root))
    return out


def checksums(root: Path, sums: str = "SHA256SUMS") -> dict[str, str]:
    """``SHA256SUMS``: relative file → sha256 (empty without the file); a bad line is one error line."""
    path = root / sums
    if not path.is_file():
        return {}
    out: dict[str, str] = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        digest, _, name = line.strip().partition(" ")
        name = name.strip().lstrip("*").removeprefix("./")
        if len(digest) != 64 or not name:
            raise PackError(f"{sums} line {lineno}: not a '<sha256>  <file>' line")
        out[name] = digest.lower()
    return out


def data_files(root: Path) -> list[Path]:
    """Every file under ``root`` that looks like data (:data:`DATA_SUFFIXES`), hidden folders left out."""
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in DATA_SUFFIXES
                  and not any(part.startswith(".") for part in p.relative_to(root).parts))


def _last(name: str) -> str:
    return re.split(r"[/\\]", name.rstrip("/"))[-1]


def _names(file: str) -> tuple[str, ...]:
    """The table names a skipped file may be declared under: its stem, and its folder."""
    parts = Path(file).parts
    return (Path(file).name.split(".")[0], *(parts[-2:-1] if len(parts) > 1 else ()))


@dataclass
class ReadReport:
    """Per table: files, rows read, rows declared; every skipped file; the problems found and warnings kept."""

    root: Path
    split: str | None = None
    tables: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)  # other problems a reader found in what it read

    def _rel(self, path: Path | str) -> str:
        path = Path(path)  # a source folder given relative (``--source copy``) gives relative paths under it
        inside = path.is_absolute() or path.is_relative_to(self.root)
        return path.relative_to(self.root).as_posix() if inside else path.as_posix()

    def table(self, name: str, files: list[Path], rows: int, *, declared_as: tuple[str, ...] = ()) -> None:
        """Record that table ``name`` (its ``files``) was read with ``rows`` rows; ``declared_as``: other names
        the source may declare it under."""
        self.tables.append({"table": name, "files": [self._rel(f) for f in files], "rows": rows,
                            "names": list(dict.fromkeys((name, *declared_as)))})

    def skip(self, path: Path | str, why: str, *, data: bool | None = None) -> None:
        """Record a skipped file; ``data``: whether it looks like data (default: by its suffix)."""
        rel = self._rel(path)
        if any(s["file"] == rel for s in self.skipped):
            return
        looks = Path(rel).suffix in DATA_SUFFIXES if data is None else data
        self.skipped.append({"file": rel, "why": why, "looks_like_data": looks})

    def skip_unread(self, candidates: list[Path], why: str) -> None:
        """Every file of ``candidates`` that no recorded table read, as skipped."""
        read = {f for t in self.tables for f in t["files"]}
        for path in candidates:
            if self._rel(path) not in read:
                self.skip(path, why)

    def problems(self) -> list[str]:
        declared = declared_counts(self.root, self.split)
        problems, matched = list(self.findings), set()
        for t in self.tables:
            label = t["files"][0] if len(t["files"]) == 1 else f"{t['table']} ({len(t['files'])} files)"
            key = next((k for n in t["names"] for k in (n, _last(n)) if k in declared), None)
            if key is not None:
                matched.add(key)
                t["declared"], t["declared_by"] = declared[key].rows, declared[key].by
                if declared[key].rows != t["rows"]:
                    problems.append(f"{label}: read {t['rows']} rows, {declared[key].by} declares "
                                    f"{declared[key].rows} for {key}")
                    continue
            if t["rows"] == 0:
                problems.append(f"{label}: read as empty (0 rows)")
        skipped = {n: s for s in self.skipped for n in (s["file"], *_names(s["file"]))}
        for key, d in declared.items():
            if key in matched or "/" in key or d.loose or d.rows == 0:
                continue
            why = f"skipped {skipped[key]['file']} ({skipped[key]['why']})" if key in skipped else \
                "no file of the copy was read as it"
            problems.append(f"{d.by} declares {key} ({d.rows} rows), and it was not read: {why}")
        problems += [f"{s['file']}: skipped ({s['why']}), and it looks like data" for s in self.skipped
                     if s["looks_like_data"]]
        sums = checksums(self.root)
        read = {f for t in self.tables for f in t["files"]}
        folders = {Path(f).parent for f in read}
        for name, digest in sums.items():
            path = self.root / name
            if not path.is_file():
                if Path(name).parent in folders and Path(name).suffix in DATA_SUFFIXES:
                    problems.append(f"{name}: listed in SHA256SUMS beside the tables read, not in the copy")
            elif name in read and sha256_file(path) != digest:
                problems.append(f"{name}: sha256 does not match SHA256SUMS; the file differs from the published one")
        return problems

    def check(self, allow_partial: bool = False) -> "ReadReport":
        """Raise one line for the first problem (and how many more), unless ``allow_partial``: then each is a
        warning on stderr, kept in the report."""
        problems = self.problems()
        if problems and not allow_partial:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise PackError(f"{problems[0]}{more}; --allow-partial reads on and records it")
        for line in problems:
            print(f"warning: {line} (--allow-partial)", file=sys.stderr)
        self.warnings = problems
        return self

    def as_dict(self) -> dict[str, Any]:
        tables = [{k: v for k, v in t.items() if k != "names"} for t in self.tables]
        return {"tables": tables, "skipped": list(self.skipped), "warnings": list(self.warnings)}
