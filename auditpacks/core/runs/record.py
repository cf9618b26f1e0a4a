"""The run record (``<model>.run.json``): a typed, versioned account of one run.

It holds what simpleaudit's results file leaves out: the pack (name and sha256), the
model and endpoint, the judge, the settings, the fingerprint that makes two runs
comparable, the shard, cost and timing, the rounds of a repeated run with the results
file of each, and the summary figures. ``run``, ``merge``, the summary, ``report``,
``compare`` and the exporters all read and write it through :class:`RunRecord`.

The JSON keeps the shape of the unversioned run file, plus ``record_version``,
``repeats`` and ``rounds``. A record of another version is refused in one line;
keys this version does not know are kept (in ``extra``) and written back unchanged.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from auditpacks.core.condition import Condition
from auditpacks.core.errors import FormatError
from auditpacks.core.io import atomic_write_json, read_json
from auditpacks.core.redact import redact_data

#: The version this code reads and writes; bump it when a field changes meaning.
RECORD_VERSION = 1


class RecordError(FormatError):
    """A run record that cannot be read (one line naming the file and the field)."""


@dataclass
class PackRef:
    """The pack a run ran: its file name and sha256 (the identity that comparisons check)."""

    name: str
    sha256: str
    builder: str | None = None
    scenarios_in_pack: int = 0


@dataclass
class Summary:
    """Counts over a run (or one round of it) and the grader's pooled headline figures."""

    scenarios: int = 0
    completed: int = 0
    errors: int = 0
    completion: float = 0.0
    verdicts: dict[str, int] = field(default_factory=dict)
    simpleaudit_score: float | None = None
    skipped: dict[str, int] = field(default_factory=dict)
    resumed: int = 0
    tokens: dict[str, Any] = field(default_factory=dict)
    headline: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=dict)      # verdict words: correct, wrong, …, ungraded, error
    commonest_error: dict[str, Any] | None = None               # {"message", "count"} of the ERROR results
    unanswered: list[str] = field(default_factory=list)          # selected scenarios with no result (skipped)

    @property
    def graded_all(self) -> bool:
        """Every selected scenario produced a result and something was graded: something ran, nothing is an
        ERROR, and not every result is ungraded (a judge that graded nothing)."""
        return self.scenarios > 0 and self.errors == 0 and not self.nothing_graded

    @property
    def failed_all(self) -> bool:
        """Every result is an ERROR: nothing was measured, so no figure is shown."""
        return self.errors > 0 and self.completed == 0

    @property
    def nothing_graded(self) -> bool:
        """Results came back, but the judge graded none of them."""
        return self.completed > 0 and self.outcomes.get("ungraded", 0) >= self.completed

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        for key in ("notes", "unanswered"):
            if not data[key]:
                data.pop(key)
        return data


@dataclass
class Round:
    """One round of a repeated run: its number (from 1), its decoding seed and its results file."""

    round: int
    seed: int
    results: str
    summary: Summary | None = None


@dataclass
class RunRecord:
    model: str
    provider: str
    judge: str
    pack: PackRef
    fingerprint: str
    parameters: dict[str, Any] = field(default_factory=dict)
    summary: Summary = field(default_factory=Summary)
    auditpacks: str = "0+unknown"
    simpleaudit: str = "0+unknown"
    model_digest: str | None = None
    base_url: str | None = None
    embedded: bool = False
    judge_model: str | None = None
    models: dict[str, Any] | None = None     # judge and auditor models: settings, requests, cache hits, tokens
    judge_qualification: dict[str, Any] | None = None  # a model judge's qualification (``judge-check``) or its absence
    shard: dict[str, Any] | None = None
    cache: dict[str, int] | None = None
    performance: dict[str, Any] | None = None
    seed: int = 0
    repeats: int = 1
    rounds: list[Round] = field(default_factory=list)
    merged_from: dict[str, Any] | None = None
    decision_probe: dict[str, Any] | None = None   # the endpoint's conformance probe before a decision run
    cost: dict[str, Any] | None = None   # hosted runs: the quote beside the tokens and cost incurred
    condition: Condition | None = None             # the tool condition a run ran under (None: no tools)
    started: str = ""
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    record_version: int = RECORD_VERSION

    # -- files -------------------------------------------------------------------------------------------------

    def results_files(self, folder: str | Path) -> list[Path]:
        """Each round's results file, round 1 first (a run without rounds: ``<stem>.json``)."""
        return [Path(folder) / r.results for r in self.rounds]

    @classmethod
    def load(cls, path: str | Path) -> "RunRecord":
        path = Path(path)
        return cls.from_dict(read_json(path, "run record"), source=path.name)

    def save(self, path: str | Path) -> None:
        """Write atomically: a reader sees the old record or the new one, never half of one; keys and URL
        credentials blanked out (:mod:`auditpacks.core.redact`)."""
        atomic_write_json(path, redact_data(self.to_dict()))

    # -- JSON --------------------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"record_version": self.record_version}
        for f in dataclasses.fields(self):
            if f.name in ("record_version", "extra") or f.name == "condition" and self.condition is None:
                continue
            value = getattr(self, f.name)
            if f.name == "summary":
                value = value.to_dict()
            elif f.name == "rounds":
                value = [{**dataclasses.asdict(r), "summary": r.summary.to_dict() if r.summary else None}
                         for r in value]
            elif dataclasses.is_dataclass(value):
                value = dataclasses.asdict(value)
            data[f.name] = value
        return {**data, **self.extra}

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "run record") -> "RunRecord":
        if not isinstance(data, Mapping):
            raise RecordError(f"{source}: not a run record (a JSON object expected)")
        version = data.get("record_version")
        if version is None:
            raise RecordError(f"{source}: a run record from before record_version {RECORD_VERSION} "
                              "(no record_version field); run it again with this auditpacks")
        if version != RECORD_VERSION:
            raise RecordError(f"{source}: run record version {version!r}; this auditpacks reads version "
                              f"{RECORD_VERSION}")
        read = _Reader(data, source)
        pack = read.mapping("pack")
        known = {f.name for f in dataclasses.fields(cls)}
        record = cls(
            model=read.text("model"), provider=read.text("provider"), judge=read.text("judge"),
            pack=PackRef(name=_typed(pack, "name", str, f"{source}: pack"),
                         sha256=_typed(pack, "sha256", str, f"{source}: pack"),
                         builder=pack.get("builder"), scenarios_in_pack=pack.get("scenarios_in_pack") or 0),
            fingerprint=read.text("fingerprint"),
            parameters=read.mapping("parameters", {}),
            summary=_summary(read.mapping("summary"), f"{source}: summary"),
            repeats=read.positive("repeats", 1),
            rounds=[_round(r, f"{source}: rounds[{i}]") for i, r in enumerate(read.list("rounds"))],
            condition=Condition.from_dict(data["condition"], source) if data.get("condition") else None,
            extra={k: v for k, v in data.items() if k not in known},
            **{k: data[k] for k in ("auditpacks", "simpleaudit", "model_digest", "base_url", "embedded",
                                    "judge_model", "models", "judge_qualification", "shard", "cache", "performance", "seed", "merged_from",
                                    "decision_probe", "cost", "started", "seconds") if k in data},
        )
        if record.shard is not None:
            _check_shard(record.shard, f"{source}: shard")
        if len(record.rounds) != record.repeats:
            raise RecordError(f"{source}: field rounds lists {len(record.rounds)} rounds but repeats is "
                              f"{record.repeats}")
        return record


def _typed(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise RecordError(f"{where}: field {key} is {value!r}, not a {kind.__name__}")
    return value


class _Reader:
    """Typed field access with one-line errors naming the file and the field."""

    def __init__(self, data: Mapping[str, Any], source: str) -> None:
        self.data, self.source = data, source

    def text(self, key: str) -> str:
        value = _typed(self.data, key, str, self.source)
        if not value:
            raise RecordError(f"{self.source}: field {key} is empty")
        return value

    def mapping(self, key: str, default: Any = None) -> dict[str, Any]:
        if key not in self.data and default is not None:
            return dict(default)
        return dict(_typed(self.data, key, dict, self.source))

    def list(self, key: str) -> list[Any]:
        return list(_typed(self.data, key, list, self.source))

    def positive(self, key: str, default: int) -> int:
        value = self.data.get(key, default)
        if type(value) is not int or value < 1:
            raise RecordError(f"{self.source}: field {key} is {value!r}, not a positive integer")
        return value


def _summary(data: Mapping[str, Any], where: str) -> Summary:
    names = {f.name for f in dataclasses.fields(Summary)}
    for key in ("scenarios", "completed", "errors"):
        if type(data.get(key)) is not int:
            raise RecordError(f"{where}: field {key} is {data.get(key)!r}, not an integer")
    unanswered = data.get("unanswered", [])
    if not isinstance(unanswered, list) or not all(isinstance(name, str) for name in unanswered):
        raise RecordError(f"{where}: field unanswered is not a list of scenario names")
    return Summary(**{k: v for k, v in data.items() if k in names})


#: The shard block's fields ``merge`` reads, and their types.
SHARD_FIELDS = {"spec": str, "index": int, "count": int, "selected": int, "selection_sha256": str, "positions": list}


def _check_shard(data: Any, where: str) -> None:
    """A shard run's ``shard`` block: which part (``index`` of ``count``) of which selection, at which positions."""
    if not isinstance(data, Mapping):
        raise RecordError(f"{where}: not a JSON object")
    for key, kind in SHARD_FIELDS.items():
        _typed(data, key, kind, where)
    if not all(type(p) is int and p >= 0 for p in data["positions"]):
        raise RecordError(f"{where}: field positions is not a list of selection positions")


def _round(data: Any, where: str) -> Round:
    if not isinstance(data, Mapping):
        raise RecordError(f"{where}: not a JSON object")
    number = data.get("round")
    if type(number) is not int or number < 1:
        raise RecordError(f"{where}: field round is {number!r}, not a positive integer")
    summary = data.get("summary")
    results = _typed(data, "results", str, where)
    parts = results.split("/")
    if results.startswith("/") or "\\" in results or "\0" in results or any(p in ("", ".", "..") for p in parts):
        raise RecordError(f"{where}: field results is {results[:80]!r}, not a file inside the run's folder")
    return Round(round=number, seed=_typed(data, "seed", int, where), results=results,
                 summary=_summary(summary, f"{where}.summary") if isinstance(summary, Mapping) else None)
