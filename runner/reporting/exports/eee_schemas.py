"""Every Eval Ever's own JSON schemas, and records checked against them with ``jsonschema`` before any is written.

The schemas (``eval.schema.json``, ``instance_level_eval.schema.json``) are read from where the user points
(``--schemas``: the package's wheel, or a folder holding them, its ``schemas/`` or its
``every_eval_ever/schemas/``), else from the installed ``every_eval_ever`` package (found, not imported: it needs
Python 3.12). None of its files is copied here. A record that breaks a schema is one line naming the record and
the field (its JSON path) and what is wrong. Where the package itself imports, its own pydantic models check the
records too (:func:`package_check`).
"""

from __future__ import annotations

import importlib.util
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from auditpacks.runner.reporting.exports.source import ExportError

PACKAGE = "every_eval_ever"
AGGREGATE, INSTANCE = "eval.schema.json", "instance_level_eval.schema.json"
WHEEL_HINT = ("pip download --no-deps --only-binary=:all: --python-version 3.12 every-eval-ever -d DIR, then "
              "--schemas DIR/every_eval_ever-*.whl")
INSTALL_HINT = "pip install 'auditpacks[eee]'"


@dataclass(frozen=True)
class Schemas:
    aggregate: dict[str, Any]
    instance: dict[str, Any]
    origin: str          # where they were read: the wheel's or folder's name, or the installed package

    @property
    def version(self) -> str:
        version = self.aggregate.get("version")
        if not isinstance(version, str) or not version:
            raise ExportError(f"{AGGREGATE} ({self.origin}): field version is missing; not Every Eval Ever's schema")
        return version


def load_schemas(where: Path | None = None) -> Schemas:
    """The schemas from ``where`` (a wheel or a folder), else from the installed package; a one-line error
    saying how to get them when there are none."""
    if where is None:
        spec = importlib.util.find_spec(PACKAGE)
        folders = list(spec.submodule_search_locations or []) if spec else []
        if not folders:
            raise ExportError(f"no Every Eval Ever schema available: the {PACKAGE} package is not installed (it "
                              f"needs Python 3.12); give its wheel or schema folder with --schemas ({WHEEL_HINT})")
        return _from_folder(Path(folders[0]) / "schemas", f"the installed {PACKAGE} package")
    if where.is_dir():
        for folder in (where, where / "schemas", where / PACKAGE / "schemas"):
            if (folder / AGGREGATE).is_file():
                return _from_folder(folder, where.name)
        raise ExportError(f"{where}: no {AGGREGATE} in this folder, its schemas/ or its {PACKAGE}/schemas/")
    if not where.is_file():
        raise ExportError(f"{where}: --schemas names no wheel or folder")
    if not zipfile.is_zipfile(where):
        raise ExportError(f"{where.name}: not a wheel (a zip archive) or a folder of schemas")
    with zipfile.ZipFile(where) as wheel:
        texts = {}
        for name in (AGGREGATE, INSTANCE):
            try:
                texts[name] = wheel.read(f"{PACKAGE}/schemas/{name}")
            except KeyError:
                raise ExportError(f"{where.name}: no {PACKAGE}/schemas/{name} in the wheel") from None
    return Schemas(_parse(texts[AGGREGATE], where.name, AGGREGATE), _parse(texts[INSTANCE], where.name, INSTANCE),
                   where.name)


def _from_folder(folder: Path, origin: str) -> Schemas:
    texts = {}
    for name in (AGGREGATE, INSTANCE):
        try:
            texts[name] = (folder / name).read_bytes()
        except FileNotFoundError:
            raise ExportError(f"{origin}: no {name} in {folder.name}/") from None
    return Schemas(_parse(texts[AGGREGATE], origin, AGGREGATE), _parse(texts[INSTANCE], origin, INSTANCE), origin)


def _parse(raw: bytes, origin: str, name: str) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ExportError(f"{name} ({origin}): not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ExportError(f"{name} ({origin}): not a JSON schema (an object expected)")
    return data


def checker(schema: dict[str, Any], name: str) -> Callable[[Any, str], None]:
    """``check(record, where)``: raises a one-line :class:`ExportError` naming ``where``, the field and the fault."""
    try:
        import jsonschema
    except ImportError:
        raise ExportError(f"the Every Eval Ever export checks records with jsonschema; install it with: "
                          f"{INSTALL_HINT}") from None
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ExportError(f"{name}: not a valid JSON schema ({exc.message})") from None
    validator = cls(schema)

    def check(record: Any, where: str) -> None:
        errors = list(validator.iter_errors(record))
        if errors:  # the first field that is wrong (lowest index, then name) and the most telling error there
            first = min(_order(e.absolute_path) for e in errors)
            error = jsonschema.exceptions.best_match(e for e in errors if _order(e.absolute_path) == first)
            raise ExportError(f"{where}: field {field_path(error.absolute_path)}: {_short(error.message)} "
                              f"(Every Eval Ever {name})")

    return check


def _order(path: Any) -> list[tuple[bool, Any]]:
    return [(isinstance(part, str), part) for part in path]


def field_path(path: Any) -> str:
    """A JSON path as ``evaluation_results[0].score_details.score`` (``(record)`` for the record itself)."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(record)"


def _short(message: str) -> str:
    line = message.splitlines()[0] if message else ""
    return line if len(line) <= 160 else line[:159] + "…"


def package_check() -> Callable[[Any, str, str], None] | None:
    """``check(record, schema name, where)`` with the package's own pydantic models, where the package imports
    (None where it does not: the schemas still check every record)."""
    try:
        from every_eval_ever.eval_types import EvaluationLog
        from every_eval_ever.instance_level_types import InstanceLevelEvaluationLog
    except Exception:  # noqa: BLE001 - not installed, or not importable on this Python
        return None
    models = {AGGREGATE: EvaluationLog, INSTANCE: InstanceLevelEvaluationLog}

    def check(record: Any, name: str, where: str) -> None:
        try:
            models[name].model_validate(record)
        except Exception as exc:  # noqa: BLE001 - pydantic's ValidationError, named in one line
            errors = exc.errors() if hasattr(exc, "errors") else []
            first = errors[0] if errors else {"loc": (), "msg": str(exc)}
            raise ExportError(f"{where}: field {field_path(first.get('loc') or ())}: {_short(str(first.get('msg')))} "
                              f"({PACKAGE}'s own check)") from None

    return check
