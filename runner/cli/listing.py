"""``auditpacks list [DIR]``: the benchmarks this installation knows, and the packs and runs found under DIR.

A pack is a ``PACK.json`` with its ``PACK.manifest.json`` beside it; a run is a run record
(``*.run.json``). Hidden folders and virtual environments are not searched; the ``latest`` links
of the runs folders are not followed, so every run is listed once; each run says whether it is
finished or running (and which one ``latest`` names), and a run a pack folder's index lists without
a record yet is listed as running, or stopped when no process writes it any more.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, Iterator

from auditpacks.core.errors import UserError
from auditpacks.core.io import read_json
from auditpacks.core.runs.record import RunRecord
from auditpacks.core.registry import BENCHMARKS, skipped
from auditpacks.core.runs.run_files import INDEX_NAME, LATEST_NAME, OLD_INDEX_NAME, RECORD_SUFFIX
from auditpacks.runner.store.layout import runs_index
from auditpacks.runner.store.lock import held

MANIFEST_SUFFIX = ".manifest.json"
SKIPPED = {"node_modules", "__pycache__", "site-packages"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", nargs="?", type=Path, default=Path("."), metavar="DIR",
                        help="where to look for packs and runs (default: the current folder)")
    parser.add_argument("--json", action="store_true", help="print the lists as JSON")


def files(root: Path) -> Iterator[Path]:
    """Every file under ``root``, hidden folders, virtual environments and links to folders left out."""
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith(".") and d not in SKIPPED
                               and not (Path(folder) / d / "pyvenv.cfg").exists())
        for name in sorted(names):
            yield Path(folder) / name


def packs(found: list[Path]) -> list[dict[str, Any]]:
    """The packs among ``found``: a JSON file with its manifest beside it."""
    out = []
    for path in found:
        if path.name.endswith(MANIFEST_SUFFIX):
            pack = path.with_name(path.name[: -len(MANIFEST_SUFFIX)] + ".json")
            try:
                manifest = read_json(path, "manifest")
            except UserError:
                continue
            if pack.is_file() and isinstance(manifest, dict):
                builder = manifest.get("builder")
                out.append({"pack": str(pack), "builder": builder.get("name") if isinstance(builder, dict) else builder,
                            "scenarios": (manifest.get("counts") or {}).get("scenarios"),
                            **({"read": read} if (read := read_summary(manifest.get("read_report"))) else {})})
    return out


def read_summary(report: Any) -> dict[str, Any] | None:
    """What a pack's read report says in brief: tables and rows read, how many as declared, skipped, warnings."""
    if not isinstance(report, dict) or not isinstance(report.get("tables"), list):
        return None
    tables = [t for t in report["tables"] if isinstance(t, dict)]
    return {"tables": len(tables), "rows": sum(t.get("rows") or 0 for t in tables),
            "as_declared": sum("declared" in t and t.get("declared") == t.get("rows") for t in tables),
            "skipped": len(report.get("skipped") or []), "warnings": list(report.get("warnings") or [])}


def _read_text(read: dict[str, Any]) -> str:
    text = (f"; read {read['tables']} tables, {read['rows']} rows, {read['as_declared']} as declared, "
            f"{read['skipped']} files skipped")
    return text + (f", {len(read['warnings'])} warnings: {read['warnings'][0]}" if read["warnings"] else "")


def runs(found: list[Path]) -> list[dict[str, Any]]:
    """The run records among ``found`` (an unreadable one is listed with why), each ``finished`` or ``running``
    (a process writes its folder), and the runs a pack folder's index lists that have no record yet:
    ``running``, or ``stopped`` when no process writes them any more. ``latest``: its folder's link names it."""
    out = []
    for path in found:
        if path.name == INDEX_NAME or path.name == OLD_INDEX_NAME and not (path.parent / INDEX_NAME).exists():
            out += _unrecorded(path.parent)
        if not path.name.endswith(RECORD_SUFFIX):
            continue
        try:
            r = RunRecord.load(path)
        except UserError as exc:
            out.append({"run": str(path), "error": str(exc)})
            continue
        out.append({"run": str(path.parent), "state": "running" if held(path.parent) else "finished",
                    "model": r.model, "judge": r.judge, "pack": r.pack.name, "scenarios": r.summary.scenarios,
                    "errors": r.summary.errors, "started": r.started, "latest": _is_latest(path.parent)})
    return out


def _unrecorded(root: Path) -> list[dict[str, Any]]:
    try:
        entries = runs_index(root)
    except UserError:
        return []
    folders = [root / e["id"] for e in entries if (root / e["id"]).is_dir()]
    return [{"run": str(f), "state": "running" if held(f) else "stopped", "model": e.get("model"),
             "started": e.get("started"), "latest": False}
            for e, f in zip(entries, folders) if not any(f.glob("*" + RECORD_SUFFIX))]


def _is_latest(folder: Path) -> bool:
    link = folder.parent / LATEST_NAME
    return link.is_symlink() and link.resolve() == folder.resolve()


def main(args: argparse.Namespace) -> int:
    if not args.folder.is_dir():
        raise UserError(f"{args.folder}: no such folder")
    found = list(files(args.folder))
    listing = {"benchmarks": [{"name": name, "title": b.title} for name, b in BENCHMARKS.items()],
               "packs": packs(found), "runs": runs(found)}
    if skipped():  # also said on stderr when the registry was read
        listing["plugins_not_loaded"] = skipped()
    if args.json:
        print(json.dumps(listing, indent=2, ensure_ascii=False))
        return 0
    print("benchmarks:")
    for b in listing["benchmarks"]:
        print(f"  {b['name']:<10} {b['title']}")
    print(f"packs under {args.folder}:" if listing["packs"] else f"packs under {args.folder}: none")
    for p in listing["packs"]:
        print(f"  {p['pack']}  ({p['builder']}, {p['scenarios']} scenarios{_read_text(p['read']) if 'read' in p else ''})")
    print(f"runs under {args.folder}:" if listing["runs"] else f"runs under {args.folder}: none")
    for r in listing["runs"]:
        if "error" in r:
            print(f"  {r['run']}: unreadable: {r['error']}")
        elif "judge" not in r:
            print(f"  {r['run']}  {r['model']} · {r['state']} · started {str(r['started'])[:19]}")
        else:
            state = " · running" if r["state"] == "running" else " · latest" if r["latest"] else ""
            print(f"  {r['run']}  {r['model']} · {r['judge']} · {r['pack']} · {r['scenarios']} scenarios, "
                  f"{r['errors']} errors · {r['started'][:19]}{state}")
    return 0
