"""The pack model shared by every builder: streaming writer, manifest, verified reader.

A pack is two files: ``PACK.json``, a JSON list of SimpleAudit v2 scenario dicts
that ``simpleaudit`` runs as is, and ``PACK.manifest.json``, which says how the
pack was made (builder, sources and their sha256, filters, counts) and carries
the sha256 of ``PACK.json``. The writer streams scenarios to disk one at a time,
validating each, and publishes both files only when the whole pack is valid.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as _dt
import hashlib
import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from auditpacks.core.errors import PackError
from auditpacks.core.io import atomic_write_json, new_temp, sha256_file
from auditpacks.packs.checks import ERROR, PackChecker
from auditpacks.packs.stream import check_digest, check_shape, manifest_path, read_manifest

MANIFEST_VERSION = 1

#: Whether a build may replace a pack of other content (``build --force``); set with :func:`replacing`.
_REPLACE = contextvars.ContextVar("auditpacks_replace_pack", default=False)


@contextlib.contextmanager
def replacing(force: bool = True):
    """Within the block, a :class:`PackWriter` may replace an existing pack of other content."""
    token = _REPLACE.set(force)
    try:
        yield
    finally:
        _REPLACE.reset(token)


def _describe(path: Path) -> str:
    """``jacite.json (20 scenarios, sha256 1a2b3c4d…)``, from its manifest where it has one."""
    try:
        counts = read_manifest(manifest_path(path)).get("counts", {})
        size = f"{counts['scenarios']} scenarios, "
    except (PackError, OSError, KeyError, TypeError, AttributeError):
        size = ""
    return f"{path} ({size}sha256 {sha256_file(path)[:12]}…)"


def source_entry(path: str | os.PathLike, *, name: str | None = None, origin: str = "local") -> dict[str, Any]:
    """A manifest ``sources`` entry: a portable name (never a machine path), origin, size and sha256."""
    path = Path(path)
    return {"name": name or path.name, "origin": origin, "bytes": path.stat().st_size, "sha256": sha256_file(path)}


@dataclass
class PackWriter:
    """Streams validated scenarios to ``out`` and writes the manifest beside it.

    Use as a context manager. Any ERROR finding raises :class:`PackError` at once;
    on any exception nothing is published and the temporary file is removed.
    """

    out: Path
    builder: str
    sources: list[dict[str, Any]] = field(default_factory=list)
    filters: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    counters: dict[str, Counter] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.out = Path(self.out)
        self._checker = PackChecker()
        self._digest = hashlib.sha256()
        self._bytes = 0
        self._fh = None
        self._tmp: str | None = None

    def __enter__(self) -> "PackWriter":
        self.out.parent.mkdir(parents=True, exist_ok=True)
        fd, self._tmp = new_temp(self.out.parent, self.out.name)
        self._fh = os.fdopen(fd, "wb")
        self._emit(b"[")
        return self

    def _emit(self, data: bytes) -> None:
        self._fh.write(data)
        self._digest.update(data)
        self._bytes += len(data)

    def add(self, scenario: Mapping[str, Any], **count_by: Any) -> None:
        """Validate and append one scenario; ``count_by`` keys tally manifest counts (e.g. language="ja")."""
        errors = [f for f in self._checker.add(scenario) if f.level == ERROR]
        if errors:
            raise PackError(f"{self.out.name}: {errors[0]}")
        sep = b"\n" if self._checker.count == 1 else b",\n"
        try:
            text = json.dumps(scenario, ensure_ascii=False, allow_nan=False)  # strict JSON: readers refuse NaN
        except ValueError:
            raise PackError(f"{self.out.name}: scenario {scenario.get('name')!r} holds NaN or an infinite number, "
                            "which JSON cannot hold") from None
        self._emit(sep + text.encode("utf-8"))
        for key, value in count_by.items():
            self.counters.setdefault(key, Counter())[str(value)] += 1

    def add_all(self, scenarios: Iterable[Mapping[str, Any]]) -> None:
        for scenario in scenarios:
            self.add(scenario)

    @property
    def count(self) -> int:
        return self._checker.count

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self._emit(b"\n]\n")
                self._fh.flush()
                os.fsync(self._fh.fileno())
            self._fh.close()
            if exc_type is not None:
                return
            if self.count == 0:
                raise PackError(f"{self.out.name}: no scenario was selected; nothing written")
            findings = self._checker.finish()
            errors = [f for f in findings if f.level == ERROR]
            if errors:
                raise PackError(f"{self.out.name}: {errors[0]}")
            replaced = self._guard_replace()
            os.replace(self._tmp, self.out)
            self._tmp = None
            if replaced:
                print(f"replaced {replaced} with {self.count} scenarios", file=sys.stderr)
            atomic_write_json(manifest_path(self.out), self.manifest())
        finally:
            if self._tmp:
                Path(self._tmp).unlink(missing_ok=True)

    def _guard_replace(self) -> str | None:
        """What an existing pack of other content at ``out`` was (refused unless :func:`replacing`)."""
        if not self.out.is_file() or sha256_file(self.out) == self._digest.hexdigest():
            return None
        old = _describe(self.out)
        if not _REPLACE.get():
            raise PackError(f"{old} already holds another pack; pass --force to replace it, or choose another --out")
        return old

    def manifest(self) -> dict[str, Any]:
        from importlib.metadata import version

        counts: dict[str, Any] = {"scenarios": self.count}
        counts.update({k: dict(sorted(v.items())) for k, v in self.counters.items()})
        return {
            "manifest_version": MANIFEST_VERSION,
            "pack": self.out.name,
            "sha256": self._digest.hexdigest(),
            "bytes": self._bytes,
            "builder": {"name": self.builder, "auditpacks": _version("auditpacks")},
            "simpleaudit": version("simpleaudit"),
            "created": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
            "sources": self.sources,
            "filters": self.filters,
            "counts": counts,
            **self.extra,
        }


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "0+unknown"


@dataclass
class Pack:
    path: Path
    scenarios: list[dict[str, Any]]
    manifest: dict[str, Any] | None
    sha256: str

    @property
    def name(self) -> str:
        return self.path.name[:-5] if self.path.name.endswith(".json") else self.path.name


def load_pack(path: str | os.PathLike, *, require_manifest: bool = False) -> Pack:
    """Read a pack and verify it against its manifest (when present)."""
    path = Path(path)
    if not path.is_file():
        raise PackError(f"{path}: no such pack file")
    digest = sha256_file(path)
    mpath = manifest_path(path)
    manifest = None
    if mpath.is_file():
        manifest = read_manifest(mpath)
        check_digest(path, digest, manifest)
    elif require_manifest:
        raise PackError(f"{path.name}: no manifest {mpath.name} beside it")
    try:
        with open(path, encoding="utf-8") as fh:
            scenarios = json.load(fh)
    except json.JSONDecodeError as exc:
        raise PackError(f"{path.name}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise PackError(f"{path.name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if not isinstance(scenarios, list):
        raise PackError(f"{path.name}: a pack is a JSON list of scenarios, found a {type(scenarios).__name__}")
    for i, scenario in enumerate(scenarios):
        check_shape(path, i, scenario)
    return Pack(path=path, scenarios=scenarios, manifest=manifest, sha256=digest)
