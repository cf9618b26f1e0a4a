"""Where a run's files go, so that no run overwrites another's.

Default folder ``results/<pack>/`` (the pack file's stem), files named by the model's
stem (:func:`~auditpacks.runner.execution.config.model_stem`: the slug, plus a short
hash of the name when the slug differs from it), named by :mod:`auditpacks.core.run_files`:

* ``<stem>.json``: simpleaudit ``AuditResults`` (round 1; ``<stem>.round<N>.json`` for
  round N of a ``--repeats`` run);
* ``<stem>.run.json``: the run record;
* ``<stem>.journal.jsonl``: finished scenarios, for resuming.

A folder that already holds this model's run of another pack, or with other
settings, is refused in one line unless ``--fresh`` asks to start over.
"""

from __future__ import annotations

from pathlib import Path

from auditpacks.core.errors import UserError
from auditpacks.core.record import RunRecord
from auditpacks.core.run_files import record_name, results_name
from auditpacks.runner.execution.config import RunError

__all__ = ["DEFAULT_ROOT", "guard_folder", "results_name", "run_folder"]

DEFAULT_ROOT = Path("results")


def run_folder(out: Path | None, pack_path: Path) -> Path:
    """``out`` when given, else ``results/<pack stem>/``."""
    return Path(out) if out is not None else DEFAULT_ROOT / Path(pack_path).stem


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
