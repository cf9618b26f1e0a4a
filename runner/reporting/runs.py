"""Finding and loading finished runs: the run record, each round's results and the pack they ran.

A RUN argument is a run record (``<model>.run.json``), a results file (``<model>.json``,
its record beside it) or a folder (every run record under it). The pack is found by
its sha256: among ``--pack`` files, else by the record's pack name in the run's folder,
its three parent folders or the working directory, or a ``packs/`` folder in any of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable

from auditpacks.core.errors import PackError
from auditpacks.core.io import sha256_file
from auditpacks.core.runs.results import iter_results
from auditpacks.core.runs.record import RunRecord
from auditpacks.core.benchmark import Benchmark
from auditpacks.core.runs.run_files import RECORD_SUFFIX, plain_name, record_for
from auditpacks.judges.figures import Headline
from auditpacks.judges.reader import Reader
from auditpacks.packs.pack import Pack, load_pack
from auditpacks.runner.reporting.labels import labels


@dataclass
class LoadedRun:
    """One run: its record, the results of each round (round 1 first) and its pack."""

    record_path: Path
    record: RunRecord
    rounds: list[list[dict[str, Any]]]
    pack: Pack
    _headlines: dict[int, Headline] = field(default_factory=dict, repr=False)
    name: str = ""    # the label among the runs loaded with it (see runner.reporting.labels)

    @property
    def model(self) -> str:
        return self.record.model or self.record_path.name.removesuffix(RECORD_SUFFIX)

    @property
    def judge(self) -> str:
        return self.record.judge

    @cached_property
    def reader(self) -> Reader:
        """How the run is read: the benchmark that reads it (``registry.readers``), or generically."""
        return Reader.of_record(self.record)

    @property
    def benchmark(self) -> Benchmark | None:
        """The registry's benchmark whose figures, report section and comparison this run gets (None: none)."""
        return self.reader.plugin

    @property
    def report(self) -> Any:
        """The benchmark's report module (``section``, ``headline``, ``answer``, ``group``), or None."""
        return self.reader.report

    @property
    def label(self) -> str:
        return self.name or f"{self.model} · {self.pack.path.name}"

    @property
    def sha256(self) -> str:
        return self.record.pack.sha256

    @cached_property
    def scenarios(self) -> dict[str, dict[str, Any]]:
        return {s["name"]: s for s in self.pack.scenarios}

    def pairs(self, round_index: int = 0) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """(scenario, result) for every result of a round, in results order."""
        out = []
        for i, result in enumerate(self.rounds[round_index]):
            scenario = self.scenarios.get(result.get("scenario_name"))
            if scenario is None:
                raise PackError(f"{self.record_path.name}: result #{i} field scenario_name "
                                f"{result.get('scenario_name')!r} is not a scenario of {self.pack.path.name}")
            out.append((scenario, result))
        return out

    def unanswered(self, round_index: int = 0) -> list[dict[str, Any]]:
        """The round's selected scenarios that produced no result (the record's ``unanswered`` names)."""
        rounds = self.record.rounds
        summary = (rounds[round_index].summary if len(rounds) > 1 else None) or self.record.summary
        names = summary.unanswered
        missing = [n for n in names if n not in self.scenarios]
        if missing:
            raise PackError(f"{self.record_path.name}: field unanswered names {missing[0]!r}, which is not a "
                            f"scenario of {self.pack.path.name}")
        return [self.scenarios[n] for n in names]

    def headline(self, round_index: int = 0) -> Headline:
        """A round's headline, as the run summary computes it (unanswered scenarios included, as (scenario,
        None)), with the values the run attached after grading (judge checks, a panel)."""
        if round_index not in self._headlines:
            pairs = self.pairs(round_index) + [(s, None) for s in self.unanswered(round_index)]
            headline = self.reader.headline(pairs)
            attached = self.reader.recorded(self.record).values if len(self.rounds) == 1 else {}
            missing = {key: value for key, value in attached.items() if key not in headline.values}
            if missing:
                headline = self.reader.add(headline, **missing)
            self._headlines[round_index] = headline
        return self._headlines[round_index]


def record_paths(arguments: Iterable[str | Path]) -> list[Path]:
    """The run records the RUN arguments name, in order, each once."""
    found: list[Path] = []
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            records = sorted(path.rglob("*" + RECORD_SUFFIX))
            if not records:
                raise PackError(f"{path}: no run records (*{RECORD_SUFFIX}) in this folder")
        elif path.name.endswith(RECORD_SUFFIX):
            records = [path]
        elif path.suffix == ".json":
            records = [record_for(path)]
        else:
            raise PackError(f"{path}: not a run record, results file or folder")
        for record in records:
            if not record.is_file():
                raise PackError(f"{record}: run record not found")
            if record.resolve() not in {p.resolve() for p in found}:
                found.append(record)
    return found


class PackFinder:
    """Packs by sha256, from ``--pack`` files first, then next to the runs."""

    def __init__(self, packs: Iterable[str | Path] = ()) -> None:
        self._by_sha: dict[str, Pack] = {}
        self._hashed: dict[Path, str] = {}
        for path in packs:
            pack = load_pack(path)
            self._by_sha[pack.sha256] = pack

    def _sha(self, path: Path) -> str:
        key = path.resolve()
        if key not in self._hashed:
            self._hashed[key] = sha256_file(path)
        return self._hashed[key]

    def find(self, record_path: Path, record: RunRecord) -> Pack:
        sha, name = record.pack.sha256, record.pack.name
        if sha in self._by_sha:
            return self._by_sha[sha]
        folders = [record_path.parent, *list(record_path.parent.parents)[:3], Path.cwd()]
        candidates = [where / name for folder in folders for where in (folder, folder / "packs")] \
            if plain_name(name) else []   # the record is data: its pack's name is looked for only as a name
        for candidate in candidates:
            if candidate.is_file() and self._sha(candidate) == sha:
                self._by_sha[sha] = load_pack(candidate)
                return self._by_sha[sha]
        raise PackError(f"{record_path.name}: pack {name} (sha256 {sha[:12]}…) not found; pass --pack PACK.json")


def load_runs(arguments: Iterable[str | Path], packs: Iterable[str | Path] = ()) -> list[LoadedRun]:
    finder = PackFinder(packs)
    runs = []
    for record_path in record_paths(arguments):
        record = RunRecord.load(record_path)
        rounds = []
        for path in record.results_files(record_path.parent):  # streamed; split files as one, documents left out
            rounds.append([result.raw for result in iter_results(path, documents=False)])
        runs.append(LoadedRun(record_path, record, rounds, finder.find(record_path, record)))
    if not runs:
        raise PackError("no runs given")
    for run, label in zip(runs, labels([r.record for r in runs], [r.record_path.parent.name for r in runs])):
        run.name = label
    return runs
