"""Where a run's files go, so that no run overwrites another's.

Without ``--out``, every run gets its own folder ``results/<pack>/<run id>/`` (the pack file's
stem; the run id from :func:`auditpacks.core.runs.run_files.run_id`). The pack's folder keeps an index
of its runs (``runs.jsonl``, one JSON line; ``runs.json`` of earlier runs is read too: id, settings fingerprint, pack sha256, shard, model, start, finish) and a
link ``latest`` to the run that finished last (:func:`mark_finished`; a run still going is not
``latest``, so commands naming ``latest`` read a finished run). A rerun with the same settings (same fingerprint, pack and
shard) resumes the latest run with them; other settings, or ``--fresh``, start a new run beside it.

With ``--out DIR`` the run's files go in ``DIR`` itself (shards and cluster jobs name their
folders); a folder that already holds this model's run of another pack, or with other settings,
is refused in one line unless ``--fresh`` asks to start over there.

Inside a run folder the files are named by the model's stem
(:func:`~auditpacks.runner.settings.config.model_stem`) through :mod:`auditpacks.core.runs.run_files`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import os
from pathlib import Path
from typing import Any, Iterator

from auditpacks.core.errors import UserError
from auditpacks.core.io import atomic_write_text, read_json
from auditpacks.core.runs.record import RunRecord
from auditpacks.core.runs.run_files import (INDEX_NAME, LATEST_NAME, OLD_INDEX_NAME, existing, one_line_json, plain_name,
                                      record_name, results_name, run_id)
from auditpacks.runner.models.errors import RunError
from auditpacks.runner.settings.config import RunConfig

__all__ = ["DEFAULT_ROOT", "guard_folder", "mark_finished", "open_run_folder", "pack_folder", "results_name", "run_folder",
           "run_settings", "runs_index"]

DEFAULT_ROOT = Path("results")


def pack_folder(pack_path: Path) -> Path:
    """``results/<pack stem>/``: the folder of every run of one pack."""
    return DEFAULT_ROOT / Path(pack_path).stem


def run_folder(out: Path | None, pack_path: Path) -> Path:
    """``out`` when given, else the pack's folder (each run then has its own folder inside it)."""
    return Path(out) if out is not None else pack_folder(pack_path)


def run_settings(config: RunConfig) -> list[str]:
    """The settings that set a run apart from a default one, short: judge model, temperature, seed,
    turns, rounds, shard."""
    out, roles, chosen = [], config.roles, config.selection
    if roles.judge_model:
        out.append(roles.judge_model)
    if config.decoding.temperature:
        out.append(f"t{config.decoding.temperature:g}")
    if chosen.seed:
        out.append(f"s{chosen.seed}")
    if roles.max_turns > 1:
        out.append(f"turns{roles.max_turns}")
    if chosen.repeats > 1:
        out.append(f"x{chosen.repeats}")
    if chosen.shard:
        out.append("shard" + chosen.shard.replace("/", "of"))
    return out


def runs_index(folder: Path) -> list[dict[str, Any]]:
    """The runs listed in a pack folder's index, oldest first ([] when there is none)."""
    path = existing(folder, INDEX_NAME, OLD_INDEX_NAME)
    if not path.is_file():
        return []
    try:
        runs = read_json(path, "runs index").get("runs")
    except (UserError, AttributeError):
        raise RunError(f"{path}: not a runs index (a JSON object with a list 'runs'); move it away") from None
    if not isinstance(runs, list) or not all(isinstance(r, dict) and isinstance(r.get("id"), str) for r in runs):
        raise RunError(f"{path}: field runs is not a list of runs with an id; move it away")
    for number, entry in enumerate(runs):
        if not plain_name(entry["id"]):  # the index is data: an id never leads out of the pack's folder
            raise RunError(f"{path}: run {number} has id {entry['id'][:80]!r}, not a folder name inside "
                           f"{Path(folder).name}/; move the index away")
    return runs


def _inside(root: Path, name: str) -> bool:
    """``root/name`` is a folder of its own in ``root`` (not a link that leads elsewhere)."""
    folder = root / name
    return folder.is_dir() and not folder.is_symlink() and folder.resolve().parent == root.resolve()


def open_run_folder(config: RunConfig, stem: str, mode: str, *, pack_sha256: str, fingerprint: str,
                    started: dt.datetime) -> Path:
    """The folder this run writes to: ``--out``, the latest run with these settings (resumed), or a new one."""
    if config.out is not None:
        guard_folder(config.out, stem, pack_sha256=pack_sha256, fingerprint=fingerprint,
                     resume=config.execution.resume)
        return Path(config.out)
    root = pack_folder(config.pack)
    key = {"fingerprint": fingerprint, "pack_sha256": pack_sha256, "shard": config.selection.shard, "model": stem}
    with _index_lock(root):  # runs started at once (shards of one job) each get their entry
        runs = runs_index(root)
        if config.execution.resume:
            for entry in reversed(runs):
                if all(entry.get(k) == v for k, v in key.items()) and _inside(root, entry["id"]):
                    return root / entry["id"]
        name = base = run_id(stem, mode, run_settings(config), started)
        taken = {r["id"] for r in runs}
        number = 1
        while name in taken or (root / name).exists():
            number += 1
            name = f"{base}-{number}"
        (root / name).mkdir(parents=True)
        _write_index(root, [*runs, {"id": name, **key, "started": started.isoformat(timespec="seconds")}])
    return root / name


def mark_finished(config: RunConfig, folder: Path, when: dt.datetime) -> None:
    """Record in the pack folder's index that the run in ``folder`` finished, and point ``latest`` at it (the
    run that finished last; a run still going is never ``latest``). Nothing to do with ``--out``."""
    if config.out is not None:
        return
    root = pack_folder(config.pack)
    with _index_lock(root):
        runs = runs_index(root)
        for entry in runs:
            if entry["id"] == Path(folder).name:
                entry["finished"] = when.isoformat(timespec="seconds")
        _write_index(root, runs)
        _point_latest(root, Path(folder).name)


def _write_index(root: Path, runs: list[dict[str, Any]]) -> None:
    """``runs.jsonl``: the index as one JSON line (an index of the earlier name, ``runs.json``, is replaced)."""
    atomic_write_text(root / INDEX_NAME, one_line_json({"runs": runs}))
    (root / OLD_INDEX_NAME).unlink(missing_ok=True)


@contextlib.contextmanager
def _index_lock(root: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the pack folder's index while it is read and rewritten."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f".{INDEX_NAME}.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _point_latest(root: Path, name: str) -> None:
    """Make ``root/latest`` a relative link to ``name`` (replaced atomically; skipped where links are not)."""
    temp = root / f".{LATEST_NAME}.{os.getpid()}"
    try:
        temp.unlink(missing_ok=True)
        os.symlink(name, temp, target_is_directory=True)
        os.replace(temp, root / LATEST_NAME)
    except OSError:
        temp.unlink(missing_ok=True)


def located(config: RunConfig, record: RunRecord) -> Path:
    """The folder a finished run wrote to (``--out``, or its entry in the pack folder's index)."""
    if config.out is not None:
        return Path(config.out)
    root = pack_folder(config.pack)
    for entry in reversed(runs_index(root)):
        if entry.get("fingerprint") == record.fingerprint and entry.get("pack_sha256") == record.pack.sha256 \
                and _inside(root, entry["id"]) and plain_name(entry.get("model")) \
                and (root / entry["id"] / record_name(entry["model"])).is_file():
            return root / entry["id"]
    raise RunError(f"{root / INDEX_NAME}: lists no finished run with fingerprint {record.fingerprint}")


def guard_folder(folder: Path, stem: str, *, pack_sha256: str, fingerprint: str, resume: bool) -> None:
    """Refuse to write over this model's earlier run in ``folder`` when it ran another pack or other settings."""
    path = Path(folder) / record_name(stem)
    if not resume or not path.is_file():
        return
    try:
        earlier = RunRecord.load(path)
    except UserError as exc:
        raise RunError(f"{exc}; use another --out folder or --fresh") from None
    if earlier.pack.sha256 != pack_sha256:
        raise RunError(f"{path.name}: holds a run of another pack ({earlier.pack.name}, sha256 "
                       f"{earlier.pack.sha256[:12]}…); use another --out folder or --fresh")
    if earlier.fingerprint != fingerprint:
        raise RunError(f"{path.name}: holds a run with other settings (fingerprint {earlier.fingerprint}); "
                       "use another --out folder or --fresh")
