"""What both exports read of one finished run: its record, every round's results (streamed; a merged run or a
split results file reads as one), its headline figures as the run summary states them, its tool traces, and the
source dataset its pack was built from (the pack's manifest, found by the pack's sha256).

The benchmark is the registry's (:class:`~auditpacks.judges.reader.Reader`): the pack's builder, else the one that
reads the run's results. The figures are the run's headline as its reader reads it
(:func:`auditpacks.runner.display.summary_view.run_figures`, the rows the run printed and ``--json`` wrote), the
words for each result its reader's; the source dataset is the codebook section's ``dataset`` of the benchmark
whose builder made the pack (none for a pack another builder made).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator, Mapping

from auditpacks.core.errors import PackError, UserError
from auditpacks.core.runs.record import RunRecord
from auditpacks.core.redact import redact_data
from auditpacks.core.registry import BENCHMARKS, builder_name
from auditpacks.core.runs.results import Result, iter_results
from auditpacks.judges.figures import Figure
from auditpacks.judges.reader import Reader
from auditpacks.packs.codebook import section
from auditpacks.packs.stream import manifest_path, read_manifest
from auditpacks.runner.display.summary_view import run_figures
from auditpacks.runner.reporting.runs import record_paths
from auditpacks.runner.reporting.traces import raw_traces

RUN_HELP = "the run: its folder (holding one run record), its run record or its results file"
HF_PREFIX = "hf:"


class ExportError(UserError):
    """A run that cannot be exported as asked (one line naming the file and the field)."""


@dataclass(frozen=True)
class Dataset:
    """Where the pack's scenarios come from: the benchmark's source dataset (a Hugging Face repository, or None),
    the dataset revision the pack was built from (None unless its sources were downloaded at one), and the pack
    manifest's source files (name, origin, sha256; empty when no manifest was found)."""

    name: str | None
    revision: str | None
    sources: list[dict[str, Any]] = field(default_factory=list)
    manifest: str | None = None


@dataclass
class RunSource:
    record_path: Path
    record: RunRecord
    dataset: Dataset
    built_by: str | None = None     # the registry benchmark whose builder made the pack (None: another builder)

    @cached_property
    def reader(self) -> Reader:
        """How the run is read: its headline, verdict words and report words (``answer``)."""
        return Reader.of_record(self.record)

    @property
    def benchmark(self) -> str | None:
        """The registry benchmark the run belongs to: the pack's builder, else the one that reads its results."""
        return self.reader.groups

    @property
    def folder(self) -> Path:
        return self.record_path.parent

    @property
    def task(self) -> str:
        """The registry name of the benchmark that built the pack, else the pack's file name without its suffix."""
        return self.built_by or Path(self.record.pack.name).stem

    def results(self) -> Iterator[tuple[int, Result]]:
        """(round number, result) for every result of every round, round 1 first, one result at a time."""
        for r in self.record.rounds:
            for result in iter_results(self.folder / r.results):
                yield r.round, result

    def figures(self) -> list[Figure]:
        """The headline figures the run's summary states (none when every result is an ERROR)."""
        return [] if self.record.summary.failed_all else run_figures(self.record)

    def traces(self) -> dict[str, Mapping[str, Any]]:
        """Scenario name → its tool trace, for a run under a tool condition (empty for any other run)."""
        return raw_traces(self.record_path, self.record)

    @property
    def parameters(self) -> dict[str, Any]:
        """The run's parameters, keys and URL credentials blanked out."""
        return redact_data(dict(self.record.parameters))

    @property
    def system_prompt(self) -> str | None:
        prompt = self.parameters.get("system_prompt")
        return prompt if isinstance(prompt, str) else None


def load_source(run: Path, pack: Path | None = None) -> RunSource:
    """The one run ``run`` names (a folder with several run records is refused: name one of them)."""
    paths = record_paths([run])
    if len(paths) > 1:
        raise ExportError(f"{run}: {len(paths)} run records under it ({', '.join(p.name for p in paths[:3])}"
                          f"{', …' if len(paths) > 3 else ''}); name one run record (a merged run has one)")
    record = RunRecord.load(paths[0])
    name = builder_name(record.pack.builder)
    built_by = name if name in BENCHMARKS else None
    return RunSource(paths[0], record, _dataset(built_by, _manifest(paths[0], record, pack)), built_by)


def _manifest(record_path: Path, record: RunRecord, pack: Path | None) -> tuple[str, dict[str, Any]] | None:
    """(file name, content) of the pack's manifest: ``pack``'s, else one beside a pack of the record's name in the
    run's folder, its three parents, the working directory or a ``packs/`` folder in one (its sha256 must match)."""
    sha = record.pack.sha256
    if pack is not None:
        found = manifest_path(pack)
        if not found.is_file():
            raise ExportError(f"{pack.name}: no manifest {found.name} beside it")
        manifest = read_manifest(found)
        if manifest.get("sha256") != sha:
            raise ExportError(f"{found.name}: field sha256 is not the run's pack sha256 ({sha[:12]}…); "
                              "this is the manifest of another pack")
        return found.name, manifest
    folders = [record_path.parent, *list(record_path.parent.parents)[:3], Path.cwd()]
    for folder in folders:
        for where in (folder, folder / "packs"):
            candidate = manifest_path(where / record.pack.name)
            if candidate.is_file():
                manifest = read_manifest(candidate)
                if manifest.get("sha256") == sha:
                    return candidate.name, manifest
    return None


def _dataset(bench: str | None, found: tuple[str, dict[str, Any]] | None) -> Dataset:
    try:
        name = section(bench).get("dataset") if bench else None
    except PackError:  # a benchmark without a codebook section
        name = None
    if found is None:
        return Dataset(name if isinstance(name, str) else None, None)
    manifest_name, manifest = found
    sources = [{k: s.get(k) for k in ("name", "origin", "sha256")}
               for s in manifest.get("sources") or [] if isinstance(s, Mapping)]
    revisions = {str(s["origin"]).rpartition("@")[2] for s in sources
                 if str(s.get("origin") or "").startswith(HF_PREFIX) and "@" in str(s["origin"])}
    return Dataset(name if isinstance(name, str) else None, revisions.pop() if len(revisions) == 1 else None,
                   sources, manifest_name)


def figure_ids(rows: list[Figure]) -> list[str]:
    """A stable identifier for each figure: its group and name as one slug (``en.invented_rate``), made unique."""
    ids: list[str] = []
    for f in rows:
        base = ".".join(p for p in (_slug(f.group), _slug(f.name)) if p) or "figure"
        ident, n = base, 2
        while ident in ids:
            ident, n = f"{base}_{n}", n + 1
        ids.append(ident)
    return ids


def _slug(text: str) -> str:
    return re.sub(r"[^0-9A-Za-z]+", "_", text).strip("_").lower()


def confidence_level(interval_name: str | None) -> float | None:
    """The level an interval's name states (``95% CI, …`` → 0.95), else None."""
    found = re.match(r"\s*(\d+(?:\.\d+)?)%", interval_name or "")
    return float(found.group(1)) / 100 if found else None


def figure_title(f: Figure) -> str:
    """A figure's name with its group, as the report shows it: ``invented rate (en)``."""
    return f.name + (f" ({f.group})" if f.group else "")
